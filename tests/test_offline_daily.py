"""The daily deal played offline (issue 57): the browser's engine (offline.py) makes the day's
deal and bots with ristiseiska.daily itself, so the same moves meet the same answers as
daily.play_moves (what the server replays), and its record carries the day."""

from __future__ import annotations

import io
import json
import random
import subprocess
import sys
import zipfile
from datetime import date
from pathlib import Path

import pytest

from ristiseiska import offline
from ristiseiska.daily import daily_deal, play_moves

SECRET = b"d" * 32


def _config(deal, **kw):
    d = {"day": deal.day.isoformat(), "preset": deal.preset, "seed": str(deal.seed),
         "salt": deal.salt, **kw}
    return {"name": "Aino", "daily": d}


def _play_out(m, rnd):
    mine = []
    while not m.game.is_over():
        if m.bot_due():
            m.bot_step()
        else:
            mv = rnd.choice(m.game.legal_moves())
            mine.append(mv)
            m._push(mv)
    return mine


@pytest.mark.parametrize("preset", ["ristiseiska", "sjuan", "ristiseiska-pyynto"])
def test_offline_daily_is_the_servers_deal_with_the_same_answers(preset):
    deal = daily_deal(SECRET, date(2026, 12, 7), preset)
    m = offline.OfflineMatch(_config(deal))
    mine = _play_out(m, random.Random(3))
    assert m.game.moves == play_moves(deal, mine).moves
    assert m.match.is_over()  # one deal
    # the record names the day and opens the seed's commitment
    rec = json.loads(m.records().splitlines()[0])
    assert rec["daily"] == f"2026-12-07/{preset}" and rec["match_seed"] == deal.seed
    assert rec["match_seed_commitment"] == deal.commitment
    # the page keeps the saved match as JSON; the 63-bit seed survives as text
    saved = json.loads(json.dumps(m.saved()))
    assert saved["config"]["daily"]["seed"] == str(deal.seed)
    assert offline.OfflineMatch.from_saved(saved).game.moves == m.game.moves


@pytest.mark.parametrize("bad", [
    {"day": "2026-13-01"}, {"day": "yesterday"}, {"preset": "fan-tan"}, {"seed": "-1"},
    {"seed": str(2**63)}, {"seed": 1.5}, {"salt": "XYZ"},
])
def test_a_bad_daily_config_is_refused_with_its_reason(bad):
    deal = daily_deal(SECRET, date(2026, 12, 7), "sjuan")
    answer = json.loads(offline.handle(json.dumps({"type": "start", "config": _config(deal, **bad)})))
    assert answer[0]["type"] == "error" and answer[0]["code"] == "bad-daily"
    assert "daily" in answer[0]["message"]


def test_the_engine_archive_plays_the_daily_deal_without_time_zones(tmp_path: Path):
    from ristiseiska.web.pwa import engine_zip

    zipfile.ZipFile(io.BytesIO(engine_zip())).extractall(tmp_path)
    deal = daily_deal(SECRET, date(2026, 12, 7), "ristiseiska")
    code = (f"import sys, json; sys.modules['zoneinfo'] = None; sys.path.insert(0, {str(tmp_path)!r});"
            "from ristiseiska import offline;"
            f"out = json.loads(offline.handle(json.dumps({{'type': 'start', 'config': {_config(deal)!r}}})));"
            "print(out[0]['type'], offline.__file__)")
    run = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    assert run.stdout.startswith("state ") and str(tmp_path) in run.stdout

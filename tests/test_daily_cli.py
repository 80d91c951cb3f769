"""``ristiseiska daily`` end to end (issue 57): a bot plays the person's seat (``--auto``); the
expert stands in for the master as the reference so that no test waits for the kernel."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import pytest

from ristiseiska.cli import main
from ristiseiska.daily import day_of
from ristiseiska.record import check_record, read_records

ROOT = Path(__file__).resolve().parents[1]
FAST = ["--reference", "expert"]


def _today() -> date:
    return day_of(datetime.now(UTC))


def _run(*args: str, data: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, RISTISEISKA_DATA_DIR=str(data),
               PYTHONPATH=str(ROOT / "src") + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.run([sys.executable, "-m", "ristiseiska.cli", "daily", *args],
                          capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL,
                          timeout=600)


def _records(path: Path) -> list[dict]:
    recs = [rec for _, rec in read_records(path)]
    assert all(isinstance(r, dict) for r in recs)
    return recs  # type: ignore[return-value]


def test_daily_auto_twice_by_subprocess_second_is_practice(tmp_path):
    first = _run("--auto", "expert", *FAST, "--lang", "en", data=tmp_path)
    assert first.returncode == 0, first.stderr
    out = first.stdout
    today = _today().isoformat()
    assert f"Ristiseiska – daily deal {today}" in out
    assert "Your points:" in out and "The expert in your seat" in out
    assert "Practice" not in out and "Streak: 1 day, best 1." in out
    share = out.strip().splitlines()[-1]
    assert share.startswith(f"Ristiseiska daily deal {today} · ") and "expert" in share
    assert (tmp_path / "daily-secret").is_file()
    results = json.loads((tmp_path / "daily-results.json").read_text(encoding="utf-8"))
    assert [r["date"] for r in results["results"]] == [today]

    second = _run("--auto", "expert", *FAST, "--lang", "en", data=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "Practice: you have played today's deal already" in second.stdout
    again = json.loads((tmp_path / "daily-results.json").read_text(encoding="utf-8"))
    assert again == results  # the practice try is not counted
    # the same secret, the same deal and the same bots: the same play, the same result
    assert second.stdout.splitlines()[:4] == out.splitlines()[:4]

    # the counted try's record checks, hands against the seed included
    (counted,) = _records(tmp_path / "daily" / "records" / f"{today}-ristiseiska.jsonl")
    assert check_record(counted, verify_seed=True) is None
    assert counted["you"] == 0 and counted["daily"] == f"{today}/ristiseiska"


def test_show_prints_the_result_and_the_streak(tmp_path, capsys):
    assert main(["daily", "--show", "--data-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert "Et ole vielä pelannut päivän jakoa" in out and "Putki: 0 päivää" in out
    assert main(["daily", "--auto", "basic", *FAST, "--data-dir", str(tmp_path)]) == 0
    played = capsys.readouterr().out
    assert main(["daily", "--show", "--data-dir", str(tmp_path)]) == 0
    shown = capsys.readouterr().out
    assert "Pisteesi:" in shown and "Putki: 1 päivä, pisin 1." in shown
    assert shown.splitlines()[:4] == played.splitlines()[:4]
    assert shown.strip().splitlines()[-2] == played.strip().splitlines()[-1]  # the share line


def test_a_future_day_is_refused(tmp_path, capsys):
    tomorrow = (_today() + timedelta(days=1)).isoformat()
    assert main(["daily", "--date", tomorrow, "--auto", "expert", "--data-dir", str(tmp_path)]) == 2
    assert "is not out yet" in capsys.readouterr().err
    assert not (tmp_path / "daily").exists()


def test_a_past_day_is_practice_and_shows_its_seed(tmp_path, capsys):
    past = (_today() - timedelta(days=3)).isoformat()
    argv = ["daily", "--date", past, "--auto", "expert", *FAST, "--data-dir", str(tmp_path),
            "--lang", "en", "--preset", "sjuan"]
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "Practice: a past day's deal does not count." in out
    assert "The day is over: the deal's seed is " in out and "--verify-seed" in out
    assert "Streak: 0 days in a row" in out
    assert not (tmp_path / "daily-results.json").exists()
    path = tmp_path / "daily" / "records" / f"{past}-sjuan-practice.jsonl"
    (rec,) = _records(path)
    assert f"seed is {rec['match_seed']}." in out
    from ristiseiska.commands.replay import _check

    assert _check([str(path)], True) == 0
    capsys.readouterr()


def test_the_secret_file_makes_the_deal(tmp_path, capsys):
    secret = tmp_path / "shared-secret"
    for d in ("a", "b"):
        assert main(["daily", "--auto", "random", *FAST, "--data-dir", str(tmp_path / d),
                     "--secret-file", str(secret)]) == 0
    assert len(secret.read_text().strip()) == 64
    today = _today().isoformat()
    a, b = (_records(tmp_path / d / "daily" / "records" / f"{today}-ristiseiska.jsonl")[0]
            for d in ("a", "b"))
    assert a["hands"] == b["hands"] and a["events"] == b["events"]
    assert main(["daily", "--auto", "random", *FAST, "--data-dir", str(tmp_path / "c")]) == 0
    c = _records(tmp_path / "c" / "daily" / "records" / f"{today}-ristiseiska.jsonl")[0]
    assert c["hands"] != a["hands"]  # another computer's own secret
    capsys.readouterr()


def test_moves_from_a_file_replay_the_same_deal(tmp_path, capsys):
    from ristiseiska.daily import SEAT, daily_deal, seats_of
    from ristiseiska.record import replay_record

    assert main(["daily", "--auto", "expert", *FAST, "--data-dir", str(tmp_path)]) == 0
    counted = capsys.readouterr().out
    today = _today().isoformat()
    (rec,) = _records(tmp_path / "daily" / "records" / f"{today}-ristiseiska.jsonl")
    secret = bytes.fromhex((tmp_path / "daily-secret").read_text().strip())
    deal = daily_deal(secret, _today())
    game = replay_record(rec)
    mine = [m.text() for m, s in zip(game.moves, seats_of(deal, game.moves), strict=True)
            if s == SEAT]
    path = tmp_path / "moves.txt"
    path.write_text("# my line\n" + " ".join(mine[:3]) + "\n" + "\n".join(mine[3:]) + "\n",
                    encoding="utf-8")
    assert main(["daily", "--moves", str(path), *FAST, "--data-dir", str(tmp_path)]) == 0
    again = capsys.readouterr().out
    assert again.splitlines()[:4] == counted.splitlines()[:4] and "Harjoitus" in again
    path.write_text(" ".join(mine[:-1]), encoding="utf-8")
    assert main(["daily", "--moves", str(path), *FAST, "--data-dir", str(tmp_path)]) == 2
    assert "moves.txt: the given moves ran out" in capsys.readouterr().err
    path.write_text("h6 " * 40, encoding="utf-8")
    assert main(["daily", "--moves", str(path), *FAST, "--data-dir", str(tmp_path)]) == 2
    assert "moves.txt: move 1 ('h6')" in capsys.readouterr().err
    assert main(["daily", "--moves", str(tmp_path / "none.txt"), "--data-dir", str(tmp_path)]) == 2
    assert "cannot read the moves file" in capsys.readouterr().err


@pytest.mark.parametrize(("setup", "argv", "message"), [
    (None, ["--auto", "expert", "--moves", "x.txt"], "give --auto or --moves, not both"),
    (None, ["--preset", "fan-tan", "--auto", "expert"], "no daily deal for rule set 'fan-tan'"),
    (None, ["--date", "2026-02-30", "--auto", "expert"], "YYYY-MM-DD"),
    (None, ["--auto", "grandmaster"], "--auto: unknown bot level 'grandmaster'"),
    (None, ["--reference", "nobody", "--auto", "expert"], "--reference: unknown bot level"),
    (None, [], "played in a terminal; --auto LEVEL"),
    ({"daily-secret": "not hex"}, ["--auto", "expert"], "must hold at least 32 hex digits"),
    ({"daily-results.json": "{"}, ["--show"], "is not valid JSON"),
    ({"daily-results.json": '{"format": "x"}'}, ["--show"], "is not a ristiseiska-daily-results"),
    ({"daily-results.json": '{"format": "ristiseiska-daily-results", "results": [{"date": 1}]}'},
     ["--show"], "result 1 is damaged"),
])
def test_bad_input_is_one_clear_line(tmp_path, capsys, monkeypatch, setup, argv, message):
    monkeypatch.setattr(sys, "stdin", open(os.devnull))  # noqa: SIM115 - no terminal here
    for name, text in (setup or {}).items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    before = sorted(p.name for p in tmp_path.iterdir())
    assert main(["daily", *argv, "--data-dir", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("ristiseiska: ") and message in err, err
    assert len(err.strip().splitlines()) == 1
    after = sorted(p.name for p in tmp_path.iterdir())
    assert after == before or after == sorted([*before, "daily-secret"])


class _FakeApp:
    """Stands in for the Textual app: ``moves`` person moves (None: to the end) by a bot,
    the bots' answers through the session, as the screen makes them."""

    moves: int | None = None
    seen: list[object] = []

    def __init__(self, defaults=None, session=None, data_dir_path=None, quick=False, save=True):
        self.session = session
        self.save = save
        _FakeApp.seen.append(session)

    def run(self) -> None:
        from ristiseiska.bots import get_bot

        s, bot, made = self.session, get_bot("basic", seed=1), 0
        while not s.game.is_over():
            if s.human_to_move:
                if _FakeApp.moves is not None and made >= _FakeApp.moves:
                    return  # the person quits here
                s.apply(bot.choose(s.view()))
                made += 1
            else:
                s.step_bot()


def test_the_terminal_game_plays_the_daily_deal_and_a_quit_try_continues(tmp_path, capsys,
                                                                        monkeypatch):
    from ristiseiska.commands import daily_play as daily
    from ristiseiska.tui import app

    monkeypatch.setattr(daily, "_terminal", lambda: True)
    monkeypatch.setattr(app, "PlayApp", _FakeApp)
    _FakeApp.seen = []
    argv = ["daily", *FAST, "--data-dir", str(tmp_path), "--lang", "en"]
    _FakeApp.moves = 2  # quit after two moves: nothing counted yet, the try is saved
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "The deal is unfinished. Continue with: ristiseiska daily --lang en" in out
    assert not (tmp_path / "daily-results.json").exists()
    assert not (tmp_path / "play-resume.json").exists()  # the terminal game's own save is apart
    first = _FakeApp.seen[-1]
    kept = [m.text() for m in first.game.moves]

    _FakeApp.moves = None  # come back and finish it: the same try continues
    assert main(argv) == 0
    out = capsys.readouterr().out
    again = _FakeApp.seen[-1]
    assert again is not first and [m.text() for m in again.game.moves][:len(kept)] == kept
    assert "Your points:" in out and "Practice" not in out
    today = _today().isoformat()
    (rec,) = _records(tmp_path / "daily" / "records" / f"{today}-ristiseiska.jsonl")
    assert check_record(rec, verify_seed=True) is None
    assert rec["events"] == [e.to_dict() for e in again.game.events]
    # a later try by --auto is practice
    assert "Practice: you have played today's deal already" in (
        main(["daily", "--auto", "basic", *FAST, "--data-dir", str(tmp_path), "--lang", "en"]),
        capsys.readouterr().out)[1]
    assert _FakeApp.seen[-1] is again  # --auto needs no terminal game

    # practice in the terminal is not saved, and says so at the end
    assert main(argv) == 0
    assert "Practice" in capsys.readouterr().out
    assert _FakeApp.seen[-1].dir is None and not _FakeApp.seen[-1].save_enabled


@pytest.mark.asyncio
async def test_the_real_terminal_game_plays_a_daily_session_to_its_end(tmp_path):
    from ristiseiska.bots import get_bot
    from ristiseiska.commands.daily import terminal_session
    from ristiseiska.daily import compare, daily_deal, reference_game
    from ristiseiska.tui.app import PlayApp
    from ristiseiska.tui.session import STATE_FILE

    deal = daily_deal(bytes(range(32)), _today(), "sjuan")
    s = terminal_session(deal, "en", tmp_path, counted=True)
    s.setup.pace = 0.0
    app = PlayApp(session=s, data_dir_path=s.dir, save=True)
    async with app.run_test(size=(120, 40)) as pilot:
        for _ in range(3000):  # Enter plays the highlighted card and closes the deal's window
            if not app.is_running:
                break
            await pilot.press("enter")
            await pilot.pause()
        assert not app.is_running
    assert s.game.is_over() and s.match_over
    assert s.game.initial_hands == deal.new_game().initial_hands
    assert not (s.dir / STATE_FILE).exists()  # a finished try leaves no save behind
    c = compare(deal, s.game, reference_game(deal, get_bot("expert", seed=1)))
    assert c.points == s.game.result.points[0]

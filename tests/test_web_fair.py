"""Provably fair deals, end to end: the server commits to the match seed when the table is
made, reveals it with the records when the match ends, and ``replay --check`` verifies it."""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

from ristiseiska import fair
from ristiseiska.cli import main as cli
from ristiseiska.match import Match, deal_seed
from ristiseiska.rules import preset

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for, recv_until  # noqa: E402


@pytest.fixture
def client(tmp_path: Path) -> Any:
    # the server's own secure seed source, as in production
    with TestClient(app_for(f"sqlite+aiosqlite:///{tmp_path / 'f.db'}",
                            seed_source=fair.new_seed)) as c:
        yield c


def _play_out(client: TestClient, tid: str) -> None:
    with client.websocket_connect(f"/ws/{tid}") as ws:  # watching keeps the bots playing
        recv_until(ws, lambda m: m["type"] == "state" and m["sheet"]["over"], limit=20000)


def test_commitment_then_reveal_then_replay_check(client: TestClient, tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    body = {"preset": "ristiseiska", "options": {"match_deals": 2},
            "seats": [{"kind": "bot", "bot": "random"}] * 3}
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    tid, info = r.json()["id"], r.json()["table"]
    published = info["seed_commitment"]
    assert len(published) == 64 and info["seed_chosen"] is False
    assert "seed" not in info and "seed_salt" not in info  # nothing to compute hands from
    assert "seed" not in client.get(f"/api/tables/{tid}").json()

    _play_out(client, tid)
    end = client.get(f"/api/tables/{tid}").json()
    assert end["match_over"] and end["seed_commitment"] == published
    seed, salt = end["seed"], end["seed_salt"]
    assert fair.verify(seed, salt, published)

    lines = client.get(f"/api/tables/{tid}/record").text.splitlines()
    assert len(lines) == 2
    recs = [json.loads(line) for line in lines]
    m = Match(preset("ristiseiska").replace(match_deals=2), 3, seed=seed)
    for i, rec in enumerate(recs):
        assert rec["match_seed"] == seed and rec["match_seed_commitment"] == published
        assert rec["seed"] == deal_seed(seed, i)
        g = m.new_deal()  # the revealed seed deals exactly these hands
        assert [sorted(map(str, h)) for h in g.initial_hands] == [sorted(h) for h in rec["hands"]]
        m.add_result(_replayed(rec))
    path = tmp_path / "match.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert cli(["replay", "--check", str(path)]) == 0
    assert "2 records checked, 0 bad" in capsys.readouterr().out

    # a seed other than the committed one is caught, however consistent the rest is
    for key, value in (("match_seed", seed ^ 1), ("match_seed_salt", salt[:-1] + "0"
                                                   if salt[-1] != "0" else salt[:-1] + "1"),
                       ("match_seed_commitment", "0" * 64), ("seed", recs[0]["seed"] + 1)):
        bad = dict(recs[0], **{key: value})
        path.write_text(json.dumps(bad) + "\n")
        assert cli(["replay", "--check", str(path)]) == 1, key
        out = capsys.readouterr().out
        assert "1 bad" in out and ("match_seed" in out or "seed" in out), out


def _replayed(rec: dict[str, Any]) -> Any:
    from ristiseiska.record import replay_record

    g = replay_record(rec)
    assert g.result is not None
    return g.result


def test_while_the_match_runs_records_carry_only_the_commitment(client: TestClient) -> None:
    body = {"options": {"match_deals": 3}, "seats": [{"kind": "bot", "bot": "random"}] * 2}
    tid = client.post("/api/tables", json=body).json()["id"]
    with client.websocket_connect(f"/ws/{tid}") as ws:
        recv_until(ws, lambda m: m["type"] == "state" and len(m["sheet"]["rows"]) >= 1,
                   limit=20000)
    rec = json.loads(client.get(f"/api/tables/{tid}/record?deal=0").text)  # 0-based here
    assert "match_seed" not in rec and "match_seed_salt" not in rec
    assert len(rec["match_seed_commitment"]) == 64


def test_a_chosen_seed_is_for_practice_only_and_shown_as_chosen(client: TestClient) -> None:
    friends = {"seed": 5, "seats": [{"kind": "friend"}, {"kind": "friend"}, {"kind": "bot"}]}
    r = client.post("/api/tables", json=friends)
    assert r.status_code == 400 and r.json()["error"] == "seed-not-allowed"
    practice = {"seed": 5, "seats": [{"kind": "friend"}, {"kind": "bot"}, {"kind": "bot"}]}
    r = client.post("/api/tables", json=practice)
    assert r.status_code == 201
    info = r.json()["table"]
    assert info["seed_chosen"] is True and info["seed"] == 5
    assert fair.verify(5, client.app.state.tables.live[r.json()["id"]].config["seed_salt"],  # type: ignore[attr-defined]
                       info["seed_commitment"])


def test_every_table_gets_its_own_unpredictable_seed(client: TestClient) -> None:
    body = {"seats": [{"kind": "friend"}, {"kind": "friend"}]}
    ids = [client.post("/api/tables", json=body).json()["id"] for _ in range(5)]
    tables = client.app.state.tables.live  # type: ignore[attr-defined]
    seeds = {tables[i].config["seed"] for i in ids}
    assert len(seeds) == 5
    assert len({tables[i].config["seed_commitment"] for i in ids}) == 5


def test_every_player_is_shown_the_commitment_with_the_rules(client: TestClient) -> None:
    r = client.post("/api/tables", json={"seats": [{"kind": "friend"}, {"kind": "friend"}]})
    tid, published = r.json()["id"], r.json()["table"]["seed_commitment"]
    for lang, word in (("fi", "Reilut jaot"), ("en", "Fair deals")):
        rules = client.get(f"/api/tables/{tid}/rules?lang={lang}").json()
        assert word in rules["text"] and published in rules["text"]
        assert rules["html"] is None or published in rules["html"]
        assert "seed" not in rules["fairness"]

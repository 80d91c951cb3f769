"""The browser's analysis API (issue 15): own seat only until the match is over, the work off
the event loop, stored and not recomputed."""

from __future__ import annotations

import time
import warnings
from pathlib import Path
from typing import Any

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from ristiseiska import i18n  # noqa: E402
from ristiseiska.web import analysis_api  # noqa: E402
from ristiseiska.web.app import create_app  # noqa: E402


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'web.db'}"


def finish_deal(client: TestClient) -> tuple[str, str]:
    """A table with a friend in seat 0 and three bots, played to the end of the first deal
    (the friend always plays its first legal move). Returns (table id, seat-0 token)."""
    body = {"preset": "ristiseiska", "seed": 31,
            "seats": [{"kind": k, "name": f"N{i}"} for i, k in enumerate(["friend", "bot", "bot", "bot"])]}
    tid = client.post("/api/tables", json=body).json()["id"]
    token = client.post(f"/api/tables/{tid}/seats/0", json={"name": "Aino"}).json()["token"]
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "join", "seat": 0, "token": token})
        for _ in range(3000):
            msg = ws.receive_json()
            if msg["type"] != "state" or msg["you"] != 0:
                continue
            view = msg["view"]
            if view["phase"] == "over":
                break
            if view["to_move"] == 0 and view["legal_moves"]:
                ws.send_json({"type": "move", "move": view["legal_moves"][0]})
        else:
            raise AssertionError("the deal did not end")
    return tid, token


def wait_done(client: TestClient, tid: str, body: dict[str, Any], limit: float = 120) -> dict[str, Any]:
    end = time.monotonic() + limit
    while time.monotonic() < end:
        r = client.post(f"/api/tables/{tid}/deals/0/analysis", json=body)
        assert r.status_code in (200, 202), r.text
        if r.status_code == 200:
            return dict(r.json())
        time.sleep(0.3)
    raise AssertionError("the analysis never finished")


def test_own_seat_analysed_off_the_loop_and_stored(db: str) -> None:
    with TestClient(create_app(db, bot_delay=0.0)) as client:
        tid, token = finish_deal(client)
        url = f"/api/tables/{tid}/deals/0/analysis"
        # another seat's analysis, or one's own without the token: refused while the match runs
        assert client.post(url, json={"seat": 1, "token": token}).status_code == 403
        assert client.post(url, json={"seat": 0}).status_code == 403
        assert client.post(url, json={"seat": 7, "token": token}).status_code == 400
        assert client.post(f"/api/tables/{tid}/deals/3/analysis", json={"seat": 0, "token": token}).status_code == 404
        assert client.post(url, content=b"[1]").status_code == 400
        first = client.post(url, json={"seat": 0, "token": token})
        assert first.status_code == 202 and first.json() == {"status": "running"}
        # the server keeps answering while the worker process searches
        t0 = time.monotonic()
        assert client.get("/api/meta").status_code == 200
        assert time.monotonic() - t0 < 2.0
        got = wait_done(client, tid, {"seat": 0, "token": token})
        a = got["analysis"]
        assert got["status"] == "done" and a["seat"] == 0 and a["deal"] == 1
        rec = client.get(f"/api/tables/{tid}/record?deal=0").json()
        assert [d["index"] for d in a["decisions"]] == [
            i for i, ev in enumerate(rec["events"]) if ev["seat"] == 0]
        for d in a["decisions"]:
            assert d["verdict"] in ("good", "inaccuracy", "mistake", "blunder", "forced")
            assert set(d["reason"]) == set(i18n.LANGS)  # every language, Swedish too
        assert sum(a["counts"].values()) == len(a["decisions"])
    # a restarted server answers from the store at once: nothing is recomputed
    with TestClient(create_app(db, bot_delay=0.0)) as client:
        r = client.post(f"/api/tables/{tid}/deals/0/analysis", json={"seat": 0, "token": token})
        assert r.status_code == 200 and r.json()["analysis"] == a
        assert not analysis_api._jobs
    # the row says how it was computed: the searching evaluation at the default budget
    import sqlite3

    path = db.split("///", 1)[1]
    with sqlite3.connect(path) as con:
        (budget,) = con.execute("SELECT budget FROM rs_analyses").fetchone()
    assert budget == "worlds=2000;rollouts=1;lookahead=2;seed=0" == analysis_api.BUDGET


def test_every_seat_is_open_once_the_match_is_over(db: str, monkeypatch: Any) -> None:
    with TestClient(create_app(db, bot_delay=0.0)) as client:
        tid, _token = finish_deal(client)
        t = client.app.state.tables.live[tid]  # type: ignore[attr-defined]
        monkeypatch.setattr(t.match, "is_over", lambda: True)
        got = wait_done(client, tid, {"seat": 2})
        assert got["analysis"]["seat"] == 2


def test_a_failed_analysis_is_reported_once_then_tried_again(db: str, monkeypatch: Any) -> None:
    import concurrent.futures

    def broken(rec: dict[str, Any], seat: int) -> dict[str, Any]:
        raise RuntimeError("no luck")

    pool = concurrent.futures.ThreadPoolExecutor(1)
    monkeypatch.setattr(analysis_api, "_executor", lambda: pool)
    monkeypatch.setattr(analysis_api, "compute", broken)
    with TestClient(create_app(db, bot_delay=0.0)) as client:
        tid, token = finish_deal(client)
        url = f"/api/tables/{tid}/deals/0/analysis"
        body = {"seat": 0, "token": token}
        assert client.post(url, json=body).status_code == 202
        for _ in range(100):
            r = client.post(url, json=body)
            if r.status_code != 202:
                break
            time.sleep(0.05)
        assert r.status_code == 503 and "no luck" in r.json()["message"]
        assert client.post(url, json=body).status_code == 202  # a new try
    pool.shutdown()

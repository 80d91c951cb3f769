"""Issue 63: the operators' endpoints, /metrics (Prometheus text) and /healthz."""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any

import pytest
from prometheus_client.parser import text_string_to_metric_families

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for, claim, live, new_table, play_first_moves, recv_until  # noqa: E402


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'ops.db'}"


def scrape(c: TestClient) -> dict[str, float]:
    """Every sample of /metrics by name and labels, parsed by prometheus_client's parser."""
    r = c.get("/metrics")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(r.text):
        for s in family.samples:
            labels = ",".join(f"{k}={v}" for k, v in sorted(s.labels.items()))
            out[f"{s.name}{{{labels}}}" if labels else s.name] = s.value
    return out


def test_metrics_count_the_moves_made(db: str) -> None:
    with TestClient(app_for(db)) as c:
        before = scrape(c)
        assert before["ristiseiska_moves_total"] == 0
        assert before["ristiseiska_open_tables"] == 0
        tid = new_table(c, ["friend", "friend"], preset="kahdestaan-pakka")
        tokens = {s: claim(c, tid, s) for s in (0, 1)}
        with c.websocket_connect(f"/ws/{tid}") as ws:
            play_first_moves(ws, tokens, 7)
            during = scrape(c)
        after = scrape(c)
    assert after["ristiseiska_moves_total"] == 7
    assert after["ristiseiska_move_roundtrip_seconds_count"] == 7
    assert after["ristiseiska_store_write_seconds_count{write=move}"] == 7
    assert after["ristiseiska_store_write_seconds_count{write=deal}"] == 1  # the first deal
    assert during["ristiseiska_open_tables"] == 1
    assert during["ristiseiska_seated_players"] == 1  # one socket, now sitting at one seat
    assert during["ristiseiska_connections"] == 1
    assert after["ristiseiska_connections"] == 0
    assert after.get("ristiseiska_store_errors_total{write=move}", 0) == 0


def test_metrics_time_the_bots_and_count_store_errors(db: str) -> None:
    with TestClient(app_for(db)) as c:
        tid = new_table(c, ["bot", "bot", "bot"], seed=3)
        with c.websocket_connect(f"/ws/{tid}") as ws:
            recv_until(ws, lambda m: m["type"] == "state" and len(m["log"]) >= 6, limit=5000)
        m = scrape(c)
        assert m["ristiseiska_bot_think_seconds_count{level=expert}"] >= 1
        assert m["ristiseiska_moves_total"] >= 5

        store = c.app.state.store  # type: ignore[attr-defined]

        async def refuse(*_a: Any, **_k: Any) -> None:
            raise OSError("the database went away")

        store.add_move = refuse
        t = live(c, tid)
        seat = t.game.to_move

        async def one_move() -> None:  # a move the store refuses, made like a bot's
            async with t.lock:
                with pytest.raises(Exception, match="could not be saved"):
                    await t._apply(seat, t.game.legal_moves()[0])

        c.portal.call(one_move)  # type: ignore[union-attr]
        assert scrape(c)["ristiseiska_store_errors_total{write=move}"] == 1


def test_healthz_says_ok_and_then_503_without_the_database(db: str) -> None:
    with TestClient(app_for(db)) as c:
        new_table(c, ["friend", "bot"], preset="kahdestaan-pakka")
        r = c.get("/healthz")
        assert r.status_code == 200, r.text
        body = r.json()
        assert body["status"] == "ok" and body["database"] is True
        assert body["tables"] == 1 and body["uptime_s"] >= 0
        store = c.app.state.store  # type: ignore[attr-defined]

        async def away() -> None:
            raise OSError("connection refused")

        store.ping = away
        r = c.get("/healthz")
        assert r.status_code == 503, r.text
        assert r.json()["status"] == "unavailable" and r.json()["database"] is False

        async def stuck() -> None:
            await asyncio.sleep(60)

        store.ping = stuck
        import ristiseiska.ops.health as h

        h.PING_TIMEOUT, saved = 0.2, h.PING_TIMEOUT
        try:
            r = c.get("/healthz")
        finally:
            h.PING_TIMEOUT = saved
        assert r.status_code == 503 and "timed out" in r.json()["error"]


def test_healthz_is_503_after_the_database_file_was_deleted(tmp_path: Path) -> None:
    path = tmp_path / "gone.db"
    with TestClient(app_for(f"sqlite+aiosqlite:///{path}")) as c:
        assert c.get("/healthz").status_code == 200
        path.unlink()
        r = c.get("/healthz")
        assert r.status_code == 503, r.text

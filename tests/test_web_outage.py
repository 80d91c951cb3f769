"""Issue 63: a table goes on by itself after a database outage. The bots retry saving with a
capped backoff for as long as the table lives (no reconnect needed), the page is told that
saving is being retried and then that it works again, and a write whose commit went through
although it reported a failure is neither lost nor stored twice."""

from __future__ import annotations

import asyncio
import logging
import sqlite3
import warnings
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.store import Store
from ristiseiska.web import bot_driver

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for, claim, joined, live, new_table, recv_until  # noqa: E402


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'outage.db'}"


OUTAGE = 9  # failed writes in a row: more than the 5 after which the bots used to give up


class Outage:
    """The store's writes fail ``OUTAGE`` times from ``after`` writes on; the last failure is
    one whose commit went through all the same (a connection lost after the commit)."""

    def __init__(self, store: Store, after: int) -> None:
        self.store, self.after = store, after
        self.calls = self.failed = 0
        self.ambiguous: tuple[Any, ...] | None = None
        for name in ("add_move", "start_deal"):
            setattr(store, name, self._wrap(getattr(store, name)))

    def _wrap(self, real: Any) -> Any:
        async def write(*a: Any, **k: Any) -> None:
            self.calls += 1
            if self.calls <= self.after or self.failed >= OUTAGE:
                await real(*a, **k)
                return
            self.failed += 1
            if self.failed == OUTAGE:  # written, but its caller hears of a failure
                await real(*a, **k)
                self.ambiguous = a
            raise sqlite3.OperationalError("unable to open database file")
        return write


def _total(t: Any) -> int:
    return sum(len(g.moves) for g in t.games) + len(t.games)


def _stored(db: str, tid: str) -> Any:
    async def go() -> Any:
        s = Store(db)
        await s.init()
        try:
            return await s.load(tid)
        finally:
            await s.close()
    return asyncio.run(go())


def test_bots_resume_after_an_outage_and_the_page_is_told(
        db: str, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(bot_driver, "RETRY_CAP", 0.05)  # the backoff's cap, short for a test
    caplog.set_level(logging.WARNING, logger="ristiseiska.web")
    with TestClient(app_for(db)) as c:
        tid = new_table(c, ["bot", "bot", "bot"], seed=4)
        outage = Outage(c.app.state.store, after=6)  # type: ignore[attr-defined]
        with c.websocket_connect(f"/ws/{tid}") as ws:
            seen: list[dict[str, Any]] = []
            recv_until(ws, lambda m: m.get("code") == "saving-retry", limit=5000, seen=seen)
            assert not [m for m in seen if m["type"] == "error"], seen
            t = live(c, tid)
            stuck = _total(t)
            recv_until(ws, lambda m: m.get("code") == "saved", limit=5000, seen=seen)
            assert outage.failed == OUTAGE and outage.ambiguous is not None
            # the same connection, never reconnected: the bots play on
            recv_until(ws, lambda m: m["type"] == "state" and _total(t) >= stuck + 6,
                       limit=5000)
            assert [m["code"] for m in seen if m["type"] == "notice"] == ["saving-retry",
                                                                          "saved"]
            assert not [m for m in seen if m["type"] == "error"]

        async def settled(table: Any) -> dict[int, list[str]]:
            """The moves once the bots have stopped (nobody watches), read under the lock."""
            for _ in range(1000):
                async with table.lock:
                    if table._bot_task is None or table._bot_task.done():
                        return {d: [m.text(False) for m in g.moves]
                                for d, g in enumerate(table.games)}
                await asyncio.sleep(0.01)
            raise AssertionError("the bots did not stop")

        played = c.portal.call(settled, t)  # type: ignore[union-attr]
    st = _stored(db, tid)
    # the operator's log, each line with the table: saving fails, the move stored despite
    # its failure is read back, saving works again
    said = [r.getMessage() for r in caplog.records if getattr(r, "table", None) == tid]
    assert len(said) == 3 and "retry" in said[0], said
    assert "was saved although its write failed" in said[1] and "works again" in said[2]
    assert st.deals == len(played)
    assert {d: st.moves.get(d, []) for d in played} == played  # nothing lost, nothing twice


def test_a_new_connection_during_an_outage_hears_of_the_retry(
        db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot_driver, "RETRY_CAP", 0.05)
    monkeypatch.setattr("test_web_outage.OUTAGE", 10**6)  # down for the whole test
    with TestClient(app_for(db)) as c:
        tid = new_table(c, ["bot", "bot", "bot"], seed=5)
        Outage(c.app.state.store, after=0)  # type: ignore[attr-defined]
        with c.websocket_connect(f"/ws/{tid}") as ws:
            recv_until(ws, lambda m: m.get("code") == "saving-retry", limit=5000)
            with c.websocket_connect(f"/ws/{tid}") as late:
                seen: list[dict[str, Any]] = []
                recv_until(late, lambda m: m.get("code") == "saving-retry", limit=50,
                           seen=seen)
                assert seen[0]["type"] == "state"  # what there is, then why it waits


def test_a_players_move_stored_despite_a_failure_is_acked_on_resend_not_played_twice(
        db: str) -> None:
    """The write of a player's move commits but reports a failure (the connection lost after
    the commit): the player is told it failed; resent with the same id it gets its ack, and
    the move is in the game and in the store once."""
    with TestClient(app_for(db, bot_delay=60.0)) as c:
        tid = new_table(c, ["friend", "friend"], preset="kahdestaan-pakka")
        tokens = {s: claim(c, tid, s) for s in (0, 1)}
        store = c.app.state.store  # type: ignore[attr-defined]
        real = store.add_move
        tries = {"n": 0}

        async def lost_ack(*a: Any, **k: Any) -> None:
            tries["n"] += 1
            await real(*a, **k)
            if tries["n"] == 1:
                raise OSError("server closed the connection unexpectedly")

        store.add_move = lost_ack
        t = live(c, tid)
        seat = t.game.to_move
        with c.websocket_connect(f"/ws/{tid}") as ws:
            st = joined(ws, seat, tokens[seat])
            move = st["view"]["legal_moves"][0]
            ws.send_json({"type": "move", "move": move, "id": 41})
            err = recv_until(ws, lambda m: m["type"] in ("error", "ack"))
            assert err["type"] == "error" and err["code"] == "store", err
            ws.send_json({"type": "move", "move": move, "id": 41})
            ack = recv_until(ws, lambda m: m["type"] in ("error", "ack"))
            assert ack == {"type": "ack", "move": move, "id": 41}
        assert [m.text(False) for m in t.game.moves] == [move]
        assert tries["n"] == 1  # read back, not written again
    st = _stored(db, tid)
    assert st.moves == {0: [move]}


def test_a_deal_stored_despite_a_failure_is_read_back_not_started_twice(
        db: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bot_driver, "RETRY_CAP", 0.05)
    with TestClient(app_for(db)) as c:
        tid = new_table(c, ["bot", "bot", "bot"], seed=8)
        store = c.app.state.store  # type: ignore[attr-defined]
        real = store.start_deal
        tries: list[int] = []

        async def lost_ack(table_id: str, deal: int, **k: Any) -> None:
            tries.append(deal)
            await real(table_id, deal, **k)
            if len(tries) == 1:
                raise OSError("server closed the connection unexpectedly")

        store.start_deal = lost_ack
        with c.websocket_connect(f"/ws/{tid}") as ws:
            seen: list[dict[str, Any]] = []
            recv_until(ws, lambda m: m["type"] == "state" and m["deal"] >= 2
                       and len(m["log"]) >= 3, limit=20000, seen=seen)
            codes = [m["code"] for m in seen if m["type"] in ("notice", "error")]
            assert codes == ["saving-retry", "saved"], codes
        assert tries == [1]  # deal 1 (the second) written once, read back, never again
        t = live(c, tid)
    assert _stored(db, tid).deals >= 2 and len(t.games) >= 2

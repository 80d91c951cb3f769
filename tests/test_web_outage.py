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

from test_web import app_for, live, new_table, recv_until  # noqa: E402


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
    # the operator's log: once when saving fails, once when it works again, with the table
    said = [r for r in caplog.records if getattr(r, "table", None) == tid]
    assert len(said) == 2 and "retry" in said[0].getMessage(), said
    assert "works again" in said[1].getMessage()
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

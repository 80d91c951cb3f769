"""No table waits on a compilation (issue 50): while the compiled kernel a level needs is being
built, the expert's rules play for it at once, and the table says so once, in words.

These tests never compile: the pool's warm-up is a future the test holds."""

from __future__ import annotations

import concurrent.futures
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

from ristiseiska import Game, Rules
from ristiseiska.bots import get_bot
from ristiseiska.bots.pool import POOLED, STAND_IN, BotPool, PooledBot
from ristiseiska.i18n import t

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from ristiseiska.web.app import create_app  # noqa: E402


def _cold_pool() -> tuple[BotPool, concurrent.futures.Future[float],
                          concurrent.futures.Future[float]]:
    """A pool whose warm-up is under way (futures the test completes); no process starts."""
    pool = BotPool(workers=1)
    kernel: concurrent.futures.Future[float] = concurrent.futures.Future()
    neural: concurrent.futures.Future[float] = concurrent.futures.Future()
    pool._warm, pool._warm_neural = kernel, neural
    return pool, kernel, neural


def test_a_level_that_needs_the_kernel_has_a_stand_in_until_the_warm_up_is_done() -> None:
    assert set(STAND_IN) == set(POOLED)
    assert all(level not in POOLED for level in STAND_IN.values())  # it needs no compiler
    pool, kernel, neural = _cold_pool()
    assert pool.stand_in("expert") is None and pool.stand_in("random") is None
    assert pool.stand_in("master") == "expert" and pool.stand_in("neural") == "expert"
    kernel.set_result(50.0)
    assert pool.stand_in("master") is None
    assert pool.stand_in("neural") == "expert"  # its network's environment is still built
    neural.set_result(20.0)
    assert pool.stand_in("neural") is None
    failed, _, _ = _cold_pool()
    assert failed._warm is not None
    failed._warm.set_exception(RuntimeError("no compiler"))
    assert failed.stand_in("master") == "expert"  # the expert plays on, never a stalled table
    assert pool._executor is None and failed._executor is None  # nothing was started


def test_a_pooled_bot_plays_the_experts_move_after_a_short_grace_while_the_kernel_is_built(
        monkeypatch: pytest.MonkeyPatch) -> None:
    g = Game(Rules(), players=4, seed=3)
    for _ in range(10):
        g.push(g.legal_moves()[0])
    view = g.view(g.to_move)
    pool, kernel, _ = _cold_pool()
    monkeypatch.setattr(PooledBot, "GRACE", 0.3)
    bot = PooledBot(pool, "master", 11)
    start = time.perf_counter()
    move = bot.choose(view)
    assert 0.25 < time.perf_counter() - start < 1.5  # the grace, then the expert at once
    assert move == get_bot("expert", seed=11).choose(view) and bot.stood_in == "expert"
    start = time.perf_counter()
    assert PooledBot(pool, "master", 12).choose(view) in view.legal_moves
    assert time.perf_counter() - start < 0.2  # the grace is spent: no more waiting
    assert pool._executor is None
    pool._waited = False
    # a warm-up done within the grace (the kernel loaded from the disk cache): no stand-in
    asked: list[str] = []
    monkeypatch.setattr(pool, "choose", lambda level, seed, v, **o: asked.append(level) or move)
    threading.Timer(0.1, kernel.set_result, (1.0,)).start()
    assert bot.choose(view) == move and bot.stood_in is None and asked == ["master"]


def test_the_web_table_plays_at_once_and_says_so_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A friend and three master bots on a cold pool: every bot move comes without waiting
    (bot_delay 0), one notice names the master, and no worker process ever starts."""
    cold = concurrent.futures.Future()  # type: ignore[var-annotated]
    monkeypatch.setattr(BotPool, "ensure_warm", lambda self, neural=False: cold)
    app = create_app(f"sqlite+aiosqlite:///{tmp_path / 'w.db'}", bot_delay=0.0)
    notices: list[dict[str, Any]] = []
    with TestClient(app) as client:
        r = client.post("/api/tables", json={"preset": "ristiseiska", "seed": 4, "seats": [
            {"kind": "friend"}] + [{"kind": "bot", "bot": "master"}] * 3})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        token = client.post(f"/api/tables/{tid}/seats/0", json={"name": "Anna"}).json()["token"]
        with client.websocket_connect(f"/ws/{tid}") as ws:
            ws.send_json({"type": "join", "seat": 0, "token": token})
            moves = 0
            while moves < 40:
                msg = ws.receive_json()
                if msg["type"] == "notice":
                    notices.append(msg)
                    continue
                if msg["type"] != "state" or msg.get("you") != 0 or msg["view"] is None:
                    continue
                v = msg["view"]
                if v["phase"] == "over":
                    break
                if v["to_move"] == 0 and v["legal_moves"]:
                    ws.send_json({"type": "move", "move": v["legal_moves"][0], "id": moves})
                    moves += 1
        assert app.state.bot_pool._executor is None  # no process, no compiler
    assert notices == [{"type": "notice", "code": "warming", "level": "master"}]
    assert moves >= 5


@pytest.mark.parametrize("lang", ["fi", "en"])
def test_the_notice_has_words_in_both_languages(lang: str) -> None:
    for level in STAND_IN:
        text = t(f"bots.warming.{level}", lang)
        assert not text.startswith("bots.") and t(f"tui.level.{STAND_IN[level]}", lang) in text



@pytest.mark.asyncio
async def test_the_terminal_plays_at_once_and_its_log_says_so_once(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from textual.widgets import RichLog

    from ristiseiska.bots import pool as pool_mod
    from ristiseiska.tui.app import PlayApp
    from ristiseiska.tui.session import Session, Setup

    cold = concurrent.futures.Future()  # type: ignore[var-annotated]
    monkeypatch.setattr(BotPool, "ensure_warm", lambda self, neural=False: cold)
    monkeypatch.setattr(pool_mod, "_shared", None)
    monkeypatch.setattr(PooledBot, "GRACE", 0.05)
    session = Session(Setup(Rules(match_deals=1), players=4, bots=["master"] * 3, seed=2,
                            pace=0.05, lang="fi"), tmp_path)
    app = PlayApp(session=session, data_dir_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        start = time.monotonic()
        for _ in range(3):  # three turns of the person: the bots in between answer at once
            while session.bot_to_move and time.monotonic() - start < 30:
                await pilot.pause(0.05)
            if session.deal_over:
                break
            session.apply(session.game.legal_moves()[0])
            app.screen.after_move()  # type: ignore[attr-defined]
        while session.bot_to_move and time.monotonic() - start < 30:
            await pilot.pause(0.05)
        assert time.monotonic() - start < 20
        log = "\n".join(str(line.text) for line in app.screen.query_one("#log", RichLog).lines)
    said = t("bots.warming.master", "fi")
    assert log.replace("\n", " ").count(said[:30]) == 1, log
    assert pool_mod.shared_pool()._executor is None  # no process, no compiler


def test_the_start_up_message_tells_a_stop_mid_compilation_from_a_fault() -> None:
    """Stopping the server while the kernel compiles breaks the worker's future: the host is
    told the server stopped first, not that the master bot failed; a real fault is logged."""
    from concurrent.futures.process import BrokenProcessPool

    from ristiseiska.web.app import _warm_bots

    for closed, expect, absent in ((True, "stopped before the master bot was ready", "failed"),
                                   (False, "preparing the master bot failed", "stopped")):
        pool, kernel, _ = _cold_pool()
        said: list[str] = []
        _warm_bots(pool, said.append)
        if closed:
            pool.close()
        kernel.set_exception(BrokenProcessPool("a process was terminated abruptly"))
        last = said[-1]
        assert expect in last and absent not in last, said

"""The web tables' bots: the searching bot in worker processes, failures logged, no guessing."""

from __future__ import annotations

import logging
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

from ristiseiska import Game, Rules
from ristiseiska.bots import BOT_NAMES, get_bot
from ristiseiska.bots.pool import POOLED, BotPool, PooledBot
from ristiseiska.moves import Move
from ristiseiska.web import bots as botlib

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from ristiseiska.web.app import create_app  # noqa: E402


def _midgame(seed: int = 3, moves: int = 12) -> Game:
    g = Game(Rules(), players=4, seed=seed)
    for _ in range(moves):
        g.push(g.legal_moves()[0])
    return g


def test_levels_come_from_the_bots_package() -> None:
    assert botlib.levels() == list(BOT_NAMES)
    assert botlib.default_level() in BOT_NAMES
    assert botlib.pooled("master") and not botlib.pooled("expert")
    assert botlib.pooled("neural")  # its features need the compiled kernel: never in the loop
    with pytest.raises(ValueError, match="unknown bot"):
        botlib.make_bot("grandmaster", 1)


def test_pool_gives_the_same_move_as_the_bot_in_process() -> None:
    g = _midgame()
    view = g.view(g.to_move)
    with BotPool(workers=1) as pool:
        assert pool.warm_up().result(timeout=600) >= 0
        for level in ("expert", "neural", "master"):
            options: dict[str, Any] = {"iterations": 40} if level == "master" else {}
            here = get_bot(level, seed=11, **options).choose(view)
            there = pool.choose(level, 11, view, **options)
            assert there == here and there in view.legal_moves
        proxy = PooledBot(pool, "expert", 11)
        assert proxy.choose(view) == get_bot("expert", seed=11).choose(view)
        with pytest.raises(ValueError, match="unknown bot"):
            pool.choose("grandmaster", 1, view)


def test_a_closed_pool_refuses_and_close_does_not_wait_for_a_long_search() -> None:
    g = _midgame()
    pool = BotPool(workers=1)
    pool.warm_up().result(timeout=600)
    pool.submit("master", 1, g.view(g.to_move), iterations=10**9, time_limit=60.0)
    start = time.perf_counter()
    pool.close(grace=0.5)
    assert time.perf_counter() - start < 10
    with pytest.raises(RuntimeError, match="closed"):
        pool.submit("expert", 1, g.view(g.to_move))


class Broken:
    def choose(self, view: Any) -> Move:
        raise RuntimeError("the bot is broken")


def test_a_failing_bot_is_logged_with_table_and_seat_and_the_table_plays_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setattr(botlib, "make_bot", lambda level, seed: Broken())
    caplog.set_level(logging.ERROR, logger="ristiseiska.web")
    app = create_app(f"sqlite+aiosqlite:///{tmp_path / 'w.db'}", bot_delay=0.0)
    with TestClient(app) as client:
        r = client.post("/api/tables", json={"preset": "ristiseiska", "seed": 3, "seats": [
            {"kind": "bot", "bot": "expert"}] * 3})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        with client.websocket_connect(f"/ws/{tid}"):  # bots play while somebody watches
            for _ in range(200):
                if client.get(f"/api/tables/{tid}").json()["deals_finished"] >= 1:
                    break
                time.sleep(0.05)
        assert client.get(f"/api/tables/{tid}").json()["deals_finished"] >= 1
    failures = [rec for rec in caplog.records if "failed" in rec.getMessage()]
    assert failures, "the broken bot was not logged"
    text = failures[0].getMessage()
    assert tid in text and "seat" in text and "'expert'" in text
    assert failures[0].exc_info is not None  # with the traceback


@pytest.mark.parametrize("level", ["master", "neural"])
def test_a_master_table_plays_through_the_apps_pool(tmp_path: Path, level: str) -> None:
    assert level in POOLED
    app = create_app(f"sqlite+aiosqlite:///{tmp_path / 'w.db'}", bot_delay=0.0)
    with TestClient(app) as client:
        r = client.post("/api/tables", json={"preset": "ristiseiska", "seed": 5, "seats": [
            {"kind": "bot", "bot": level}, {"kind": "bot", "bot": "random"}]})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        deadline = time.monotonic() + 600
        with client.websocket_connect(f"/ws/{tid}"):  # bots play while somebody watches
            while time.monotonic() < deadline:
                if client.get(f"/api/tables/{tid}").json()["deals_finished"] >= 1:
                    break
                time.sleep(0.1)
        assert client.get(f"/api/tables/{tid}").json()["deals_finished"] >= 1
        assert app.state.bot_pool._executor is not None  # the bot thought in the pool


def test_a_dead_worker_is_replaced_on_the_next_call() -> None:
    import concurrent.futures
    import os
    import signal

    g = _midgame()
    view = g.view(g.to_move)
    with BotPool(workers=1) as pool:
        assert pool.choose("expert", 2, view) in view.legal_moves
        assert pool._executor is not None
        for proc in list(pool._executor._processes.values()):
            os.kill(proc.pid, signal.SIGKILL)
        with pytest.raises(concurrent.futures.BrokenExecutor):
            for _ in range(50):  # the pool notices the death within a moment
                pool.choose("expert", 2, view)
                time.sleep(0.1)
        assert pool.choose("expert", 2, view) in view.legal_moves


def test_the_pool_modules_example_runs() -> None:
    import doctest

    from ristiseiska.bots import pool as pool_mod

    failures, tried = doctest.testmod(pool_mod)
    assert tried > 0 and failures == 0


def test_workers_exit_when_their_parent_is_killed(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    script = tmp_path / "parent.py"
    script.write_text(
        "import time\n"
        "from ristiseiska import Game, Rules\n"
        "from ristiseiska.bots.pool import BotPool\n"
        "if __name__ == '__main__':\n"
        "    pool = BotPool(workers=1)\n"
        "    g = Game(Rules(), players=4, seed=1)\n"
        "    pool.choose('expert', 1, g.view(g.to_move))\n"
        "    print(*[p.pid for p in pool._executor._processes.values()], flush=True)\n"
        "    time.sleep(120)\n")
    parent = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        assert parent.stdout is not None
        workers = [int(x) for x in parent.stdout.readline().split()]
        assert workers
    finally:
        parent.send_signal(signal.SIGKILL)  # no chance to shut the pool down
        parent.wait()

    def alive(pid: int) -> bool:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        with open(f"/proc/{pid}/stat") as f:  # a zombie has exited already
            return f.read().split(")")[-1].split()[0] != "Z"

    deadline = time.monotonic() + 15
    while any(alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not any(alive(w) for w in workers), "an orphaned bot worker is still running"

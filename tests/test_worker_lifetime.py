"""Worker processes die with their server, however it stops (issue 19).

A real ``ristiseiska serve`` in its own session runs a master bot move (bot worker) and an
analysis (analysis worker); both pools bring multiprocessing's resource tracker. The server is
then stopped by SIGTERM, by Ctrl-C (SIGINT to the whole process group, as a terminal sends it)
or by SIGKILL (what the out-of-memory killer sends), and 10 s later no process of its group or
of its descendants may be alive.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from proc_kit import descendants, group_members, kill_all, wait_gone


def _env(home: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["HOME"] = str(home)
    env["XDG_DATA_HOME"] = str(home / "data")
    return env


def _start(home: Path) -> tuple[subprocess.Popen[str], str]:
    err = open(home / "stderr.txt", "a")  # noqa: SIM115 - kept open for the process
    p = subprocess.Popen([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0",
                          "--bot-delay", "0"], stdout=subprocess.PIPE, stderr=err, text=True,
                         env=_env(home), start_new_session=True)
    err.close()
    assert p.stdout is not None
    line = p.stdout.readline()
    assert line.startswith("ristiseiska: http://"), line
    return p, line.split()[1]


def _post(url: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, dict(json.loads(r.read()))
    except urllib.error.HTTPError as e:
        return e.code, dict(json.loads(e.read()))


async def _play(url: str, tid: str, token: str, *, until_over: bool = False,
                master_moves: int = 0, master: int = 1) -> None:
    """Join seat 0 and play its first legal move each turn, until the deal is over or the
    bot in seat ``master`` has moved ``master_moves`` times."""
    import websockets

    async with websockets.connect(f"ws{url[4:]}ws/{tid}") as ws:
        await ws.send(json.dumps({"type": "join", "seat": 0, "token": token}))
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            msg = json.loads(await asyncio.wait_for(ws.recv(), 60))
            if msg["type"] != "state" or msg["you"] != 0:
                continue
            view = msg["view"]
            if view["phase"] == "over":
                return
            by_master = sum(1 for h in view["history"] if h.get("seat") == master)
            if not until_over and by_master >= master_moves:
                return
            if view["to_move"] == 0 and view["legal_moves"]:
                await ws.send(json.dumps({"type": "move", "move": view["legal_moves"][0]}))
        raise AssertionError("the game did not get there in time")


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A database with a finished deal (table A) and a table against the master bot (B)."""
    home = tmp_path_factory.mktemp("serve-home")
    proc, url = _start(home)
    try:
        _, a = _post(url + "api/tables", {"seed": 3, "seats": [
            {"kind": "friend"}, {"kind": "bot", "bot": "expert"}, {"kind": "bot", "bot": "expert"}]})
        _, ta = _post(url + f"api/tables/{a['id']}/seats/0", {"name": "Aino"})
        asyncio.run(_play(url, a["id"], ta["token"], until_over=True))
        _, b = _post(url + "api/tables", {"seed": 4, "seats": [
            {"kind": "friend"}, {"kind": "bot", "bot": "master"}, {"kind": "bot", "bot": "expert"}]})
        _, tb = _post(url + f"api/tables/{b['id']}/seats/0", {"name": "Aino"})
    finally:
        proc.terminate()
        proc.wait(timeout=30)
        kill_all(group_members(proc.pid))
    return {"home": home, "a": a["id"], "ta": ta["token"], "b": b["id"], "tb": tb["token"]}


@pytest.mark.parametrize("how", ["SIGTERM", "SIGINT-group", "SIGKILL"])
def test_workers_die_with_the_server(played: dict[str, Any], tmp_path: Path, how: str) -> None:
    home = tmp_path / "home"
    shutil.copytree(played["home"], home)
    (home / "stderr.txt").write_text("")
    proc, url = _start(home)
    try:
        body = {"seat": 0, "token": played["ta"]}
        status, _ = _post(url + f"api/tables/{played['a']}/deals/0/analysis", body)
        assert status == 202  # the analysis worker starts now
        asyncio.run(_play(url, played["b"], played["tb"], master_moves=3))
        deadline = time.monotonic() + 180
        while True:
            status, answer = _post(url + f"api/tables/{played['a']}/deals/0/analysis", body)
            assert status in (200, 202), answer
            if status == 200:
                break
            assert time.monotonic() < deadline, "the analysis did not finish"
            time.sleep(0.5)
        workers = descendants(proc.pid)
        # the bot worker, the analysis worker and the resource tracker at least
        assert len(workers) >= 3, workers
        if how == "SIGTERM":
            proc.send_signal(signal.SIGTERM)
        elif how == "SIGINT-group":  # Ctrl-C in the terminal reaches every process of the group
            os.killpg(proc.pid, signal.SIGINT)
        else:
            proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
        left = wait_gone(workers | group_members(proc.pid), 10.0)
        assert not left, f"alive 10 s after {how}: {left}"
        stderr = (home / "stderr.txt").read_text()
        if how != "SIGKILL":  # a clean stop frees everything itself, and says nothing
            assert "leaked semaphore" not in stderr, stderr
            assert "Traceback" not in stderr, stderr
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        kill_all(group_members(proc.pid))


PARENT = '''
import os, sys, threading, time
from ristiseiska.lifeline import worker_pool

pool = worker_pool(2)
mode = sys.argv[1]
if mode == "thread":  # the workers start in a thread that ends at once
    t = threading.Thread(target=lambda: [pool.submit(os.getpid).result() for _ in range(2)])
    t.start(); t.join()
    time.sleep(1.5)  # longer than the workers' parent watch takes to notice anything
    pids = {pool.submit(os.getpid).result() for _ in range(8)}
    print(" ".join(map(str, sorted(pids))), flush=True)
    time.sleep(120)
elif mode == "terminal":  # the pool the terminal game uses, from a Textual-like worker thread
    from ristiseiska import Game, Rules
    from ristiseiska.bots.pool import shared_pool

    g = Game(Rules(), players=3, seed=1)
    t = threading.Thread(target=lambda: shared_pool().choose("expert", 5, g.view(g.to_move)))
    t.start(); t.join()
    print(shared_pool().choose("expert", 5, g.view(g.to_move)), flush=True)
    time.sleep(120)
else:  # "early": die while the workers are still starting
    pool.submit(os.getpid)
    print("started", flush=True)
    os._exit(0)
'''


def _parent(how: str) -> tuple[subprocess.Popen[str], str]:
    p = subprocess.Popen([sys.executable, "-c", PARENT, how], stdout=subprocess.PIPE, text=True,
                         start_new_session=True)
    assert p.stdout is not None
    return p, p.stdout.readline()


def test_workers_started_from_a_thread_live_until_the_parent_dies() -> None:
    """The parent-death signal watches the starting thread: workers started by a thread that
    has ended must still work, and still die with the parent process."""
    proc, line = _parent("thread")
    try:
        assert line.strip(), "the workers did not answer after their starting thread ended"
        workers = descendants(proc.pid)
        assert {str(p[0]) for p in workers} >= set(line.split())
        proc.kill()
        proc.wait(timeout=30)
        assert not wait_gone(workers | group_members(proc.pid), 10.0)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        kill_all(group_members(proc.pid))


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM])
def test_the_terminal_games_bot_workers_die_with_it(stop: int) -> None:
    proc, line = _parent("terminal")
    try:
        assert line.strip(), "the shared pool gave no move"
        workers = descendants(proc.pid)
        assert workers
        proc.send_signal(stop)
        proc.wait(timeout=30)
        assert not wait_gone(workers | group_members(proc.pid), 10.0)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)
        kill_all(group_members(proc.pid))


def test_a_parent_that_dies_while_its_worker_starts_leaves_nothing() -> None:
    proc, line = _parent("early")
    try:
        assert line.strip() == "started"
        proc.wait(timeout=30)
        assert not wait_gone(group_members(proc.pid), 10.0)
    finally:
        kill_all(group_members(proc.pid))

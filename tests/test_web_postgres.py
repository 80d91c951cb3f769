"""The web server on PostgreSQL: a throwaway server (Debian's postgresql package) is started for
the test; skipped when PostgreSQL or psycopg is not installed."""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("psycopg")
BINS = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
if not BINS:
    pytest.skip("PostgreSQL is not installed (apt-get install -y postgresql)",
                allow_module_level=True)
BIN = BINS[-1]

from test_web import (  # noqa: E402
    TestClient,
    claim,
    create_app,
    joined,
    live,
    new_table,
    play_first_moves,
    recv_until,
)


def _as_postgres(cmd: list[str]) -> list[str]:
    if os.geteuid() == 0:  # initdb refuses to run as root
        return ["runuser", "-u", "postgres", "--", *cmd]
    return cmd


@pytest.fixture(scope="module")
def pg_url() -> Iterator[str]:
    tmp = tempfile.mkdtemp(prefix="rs-pg-")
    data = os.path.join(tmp, "data")
    if os.geteuid() == 0:
        shutil.chown(tmp, "postgres")
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    subprocess.run(_as_postgres([f"{BIN}/initdb", "-D", data, "-A", "trust", "-U", "postgres"]),
                   check=True, capture_output=True)
    subprocess.run(_as_postgres([f"{BIN}/pg_ctl", "-D", data, "-o",
                                 f"-p {port} -k {tmp} -c listen_addresses=127.0.0.1 -c fsync=off",
                                 "-w", "start", "-l", os.path.join(tmp, "log")]),
                   check=True, capture_output=True)
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        subprocess.run(_as_postgres([f"{BIN}/pg_ctl", "-D", data, "-m", "immediate", "stop"]),
                       capture_output=True)
        shutil.rmtree(tmp, ignore_errors=True)


def test_postgres_play_store_and_restart(pg_url: str) -> None:
    with TestClient(create_app(pg_url, bot_delay=0.0)) as c:
        tid = new_table(c, ["friend", "bot", "friend"], seed=12)
        tokens = {s: claim(c, tid, s) for s in (0, 2)}
        assert c.post(f"/api/tables/{tid}/seats/0", json={}).status_code == 409
        with c.websocket_connect(f"/ws/{tid}") as ws:
            play_first_moves(ws, tokens, 5)
        g = live(c, tid).game
        before = [str(m) for m in g.moves], [sorted(map(str, g.hand(s))) for s in range(3)]
    with TestClient(create_app(pg_url, bot_delay=0.0)) as c:
        assert c.get(f"/api/tables/{tid}").status_code == 200  # loaded on first visit
        g = live(c, tid).game
        assert ([str(m) for m in g.moves], [sorted(map(str, g.hand(s))) for s in range(3)]) \
            == before


def test_postgres_keeps_an_early_start_and_its_stand_in_across_restarts(pg_url: str) -> None:
    with TestClient(create_app(pg_url, bot_delay=60.0)) as c:  # no move before the restart
        tid = new_table(c, ["friend", "friend", "bot"], seed=9)
        t0 = claim(c, tid, 0)
        with c.websocket_connect(f"/ws/{tid}") as ws:
            joined(ws, 0, t0)
            ws.send_json({"type": "start"})
            recv_until(ws, lambda m: m["type"] == "state" and "table" in m
                       and not m["table"]["waiting"])
    with TestClient(create_app(pg_url, bot_delay=60.0)) as c:
        info = c.get(f"/api/tables/{tid}").json()
        assert info["waiting"] is False and info["seats"][1]["standin"] is True
        # the bot keeps the seat it took at the start (issue 46: no deal shopping)
        r = c.post(f"/api/tables/{tid}/seats/1", json={"name": "Olli"})
        assert r.status_code == 409 and r.json()["error"] == "started-without", r.text
    with TestClient(create_app(pg_url, bot_delay=0.0)) as c:
        info = c.get(f"/api/tables/{tid}").json()
        assert info["waiting"] is False and info["seats"][1]["standin"] is True
        assert live(c, tid).plays_bot(1)


def test_postgres_keeps_the_turn_clock_across_restarts(pg_url: str,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """issue 20: the clock's tables (rs_clock, rs_clock_timeouts) on PostgreSQL: two timeouts,
    the held seat, the marked moves and a paused clock's time left come back after a restart."""
    from ristiseiska.web.clock import SCALE_ENV

    monkeypatch.setenv(SCALE_ENV, "0.02")
    with TestClient(create_app(pg_url, bot_delay=0.0)) as c:
        tid = new_table(c, ["friend", "bot", "bot"], clock=15, seed=4)
        tok = claim(c, tid, 0)
        with c.websocket_connect(f"/ws/{tid}") as ws:
            joined(ws, 0, tok)
            st = recv_until(ws, lambda m: m["type"] == "state" and "table" in m
                            and m["table"]["clock_held"] == [0], limit=3000)
            marked = [e for e in st["view"]["history"] if e.get("timeout")]
        assert len(marked) == 2
    with TestClient(create_app(pg_url, bot_delay=60.0)) as c:
        info = c.get(f"/api/tables/{tid}").json()
        assert info["clock"] == 15 and info["clock_held"] == [0]
        assert info["seats"][0]["standin"] is True
        t = live(c, tid)
        assert len(t.clock.marks) >= 2 and t.clock.strikes.get(0) == 2
        with c.websocket_connect(f"/ws/{tid}") as ws:
            st = joined(ws, 0, tok)
            assert [e for e in st["view"]["history"] if e.get("timeout")][:2] == marked
            ws.send_json({"type": "back"})
            recv_until(ws, lambda m: m["type"] == "state" and "table" in m
                       and m["table"]["clock_held"] == [])
    with TestClient(create_app(pg_url, bot_delay=60.0)) as c:
        info = c.get(f"/api/tables/{tid}").json()
        assert info["clock_held"] == [] and info["seats"][0]["standin"] is False


def test_two_server_processes_share_one_database_and_lose_nothing(pg_url: str,
                                                                  tmp_path: Any) -> None:
    """Two ``ristiseiska serve`` processes on one PostgreSQL database, each serving its own
    tables (as a reverse proxy pinning tables by id would arrange); either one is killed with
    SIGKILL and restarted, and every acknowledged move of every table is still there."""
    import asyncio
    import itertools
    import json
    import signal
    import sys
    import urllib.request

    import websockets

    env = dict(os.environ, HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))

    def start() -> tuple[subprocess.Popen[str], str]:
        p = subprocess.Popen([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0",
                              "--bot-delay", "0", "--database-url", pg_url],
                             stdout=subprocess.PIPE, text=True, env=env)
        assert p.stdout is not None
        line = p.stdout.readline()
        assert "http://" in line, line
        return p, line.split()[1]

    def post(url: str, body: dict[str, Any]) -> dict[str, Any]:
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=20) as r:
            return dict(json.loads(r.read()))

    ids = itertools.count(1)

    async def play(url: str, tid: str, token: str, moves: int) -> list[Any]:
        """Make ``moves`` moves at seat 0; the history after the last ack."""
        async with websockets.connect(f"ws{url[4:]}ws/{tid}") as ws:
            await ws.send(json.dumps({"type": "join", "seat": 0, "token": token}))
            made, history = 0, []
            view: dict[str, Any] | None = None
            while True:
                if view is None:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
                    if msg["type"] != "state" or msg["you"] != 0:
                        continue
                    view = msg["view"]
                history = view["history"]
                if made >= moves or view["phase"] == "over":
                    return list(history)
                if view["to_move"] == 0 and view["legal_moves"]:
                    made += 1
                    # ids are never reused: an acknowledged id is kept with its move, also
                    # across a restart (a resent id is answered, not played again)
                    await ws.send(json.dumps({"type": "move", "id": next(ids),
                                              "move": view["legal_moves"][0]}))
                    view = None
                    # the bot may answer before the ack comes (the ack waits for the commit):
                    # the newest state seen meanwhile is where play goes on
                    while (m := json.loads(await asyncio.wait_for(ws.recv(), 20)))["type"] != "ack":
                        if m["type"] == "state":
                            view = m["view"]
                else:
                    view = None

    servers = [start(), start()]
    try:
        mine: dict[int, list[tuple[str, str]]] = {0: [], 1: []}
        for k, (_p, url) in enumerate(servers):
            for _ in range(2):
                tid = str(post(url + "api/tables", {"seats": [
                    {"kind": "friend"}, {"kind": "bot", "bot": "random"}]})["id"])
                mine[k].append((tid, str(post(url + f"api/tables/{tid}/seats/0",
                                             {"name": "Pelaaja"})["token"])))
        before = {tid: asyncio.run(play(servers[k][1], tid, tok, 3))
                  for k in (0, 1) for tid, tok in mine[k]}
        for victim in (0, 1):
            servers[victim][0].send_signal(signal.SIGKILL)
            servers[victim][0].wait(timeout=20)
            servers[victim] = start()
            for k in (0, 1):
                for tid, tok in mine[k]:
                    after = asyncio.run(play(servers[k][1], tid, tok, 0))
                    assert after[:len(before[tid])] == before[tid], (victim, k, tid)
        # and play on after the restarts
        for k in (0, 1):
            tid, tok = mine[k][0]
            assert len(asyncio.run(play(servers[k][1], tid, tok, 2))) > len(before[tid])
    finally:
        for p, _url in servers:
            p.terminate()
            p.wait(timeout=20)


@pytest.mark.parametrize("durability, setting", [("power-cut", "on"), ("crash", "off")])
def test_postgres_commits_with_the_chosen_durability(pg_url: str, durability: str,
                                                     setting: str) -> None:
    import asyncio

    from ristiseiska.store import Store

    async def show() -> str:
        store = Store(pg_url, durability=durability)
        try:
            await store.init()
            async with store.engine.connect() as conn:
                return str((await conn.exec_driver_sql("SHOW synchronous_commit")).scalar())
        finally:
            await store.close()

    assert asyncio.run(show()) == setting

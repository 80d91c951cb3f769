"""A table outlives its process (issue 46): three ``ristiseiska serve`` processes on one
PostgreSQL behind nginx (Debian's packages, started and stopped by the test, loopback only).
30 tables play; one process is killed with SIGKILL, then another is paused with SIGSTOP (and
resumed later). Every table goes on within 15 s, no acknowledged move is lost, no move is
stored twice, and no move is stored by two owners: the fencing number of the rows of a table
never goes down along its plies, and the paused process's late writes are refused.

The clients here follow the page's reconnect logic (``static/ui/socket.js``): a ping after 3 s
without a frame and 2 s for its answer, a socket that does not open in 6 s left, pauses of
0.5 s doubling to 8 s with jitter, and a ``GET /api/tables/{id}/here`` before each new socket.
Skipped without PostgreSQL, psycopg or nginx."""

from __future__ import annotations

import asyncio
import concurrent.futures
import glob
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("psycopg")
websockets = pytest.importorskip("websockets")
BINS = sorted(glob.glob("/usr/lib/postgresql/*/bin"))
if not BINS:
    pytest.skip("PostgreSQL is not installed (apt-get install -y postgresql)",
                allow_module_level=True)
BIN = BINS[-1]

from ristiseiska.web.processes import find_nginx, free_port, nginx_config  # noqa: E402

NGINX = find_nginx()
if NGINX is None:
    pytest.skip("nginx is not installed (apt-get install -y nginx)", allow_module_level=True)

SRC = str(Path(__file__).parents[1] / "src")
TABLES = 30
RECOVER = 15.0  # seconds: every table goes on within this after a fault
PROBES = concurrent.futures.ThreadPoolExecutor(TABLES)  # each page asks on its own
HEARTBEAT_IDLE, HEARTBEAT_WAIT, OPEN_WAIT = 3.0, 2.0, 6.0  # as static/ui/socket.js


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
    port = free_port("127.0.0.1")
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


def test_a_late_write_of_an_old_owner_is_refused(pg_url: str) -> None:
    """Fencing alone: two stores (two processes) on one database; the second takes a table
    over, after which the first can store neither a move nor a deal of it."""
    from ristiseiska.store import Fenced, Store

    async def go() -> None:
        a, b = Store(pg_url), Store(pg_url)
        await a.init()
        await b.init()
        try:
            tid = f"fence{random.randrange(10**9):09d}"
            await a.create_table(tid, {"seats": []}, ["x", "y"])
            ea = await a.take(tid)
            await a.start_deal(tid, 0, epoch=ea)
            await a.add_move(tid, 0, 0, 0, "C7", epoch=ea)
            eb = await b.take(tid)
            assert eb == ea + 1
            with pytest.raises(Fenced):
                await a.add_move(tid, 0, 1, 1, "C8", epoch=ea)
            with pytest.raises(Fenced):
                await a.start_deal(tid, 1, epoch=ea)
            await b.add_move(tid, 0, 1, 1, "C6", epoch=eb)
            st = await b.load(tid)
            assert st is not None and st.moves == {0: ["C7", "C6"]} and st.deals == 1
        finally:
            await a.close()
            await b.close()

    asyncio.run(go())


def test_a_takeover_does_not_wait_for_a_paused_owner_inside_its_transaction(pg_url: str) -> None:
    """A process paused in the middle of a move's transaction holds the owner row's share
    lock; PostgreSQL ends its idle session after 5 s, the takeover goes on, and the paused
    transaction's commit fails (nothing of it is stored)."""
    from sqlalchemy import select

    from ristiseiska.store import OwnerRow, Store

    async def go() -> None:
        a, b = Store(pg_url), Store(pg_url)
        await a.init()
        await b.init()
        try:
            tid = f"pause{random.randrange(10**9):09d}"
            await a.create_table(tid, {"seats": []}, ["x", "y"])
            await a.take(tid)
            locked = asyncio.Event()

            async def paused_writer() -> None:
                async with a.engine.begin() as conn:
                    await conn.execute(select(OwnerRow.epoch).where(OwnerRow.table_id == tid)
                                       .with_for_update(read=True))
                    locked.set()
                    await asyncio.sleep(8)  # paused, as by SIGSTOP, inside the transaction

            writer = asyncio.create_task(paused_writer())
            await locked.wait()
            t0 = time.monotonic()
            await b.take(tid)
            took = time.monotonic() - t0
            assert 3.0 < took < 8.0, took  # ended by the database, not by the writer waking
            with pytest.raises(Exception):  # noqa: B017, PT011 - the session is gone
                await writer
        finally:
            await a.close()
            await b.close()

    asyncio.run(go())


def test_a_new_owner_knows_the_acknowledged_move_ids_and_the_old_one_stops(
        pg_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two server processes (two apps) on one database: the second takes a table over (a
    seated player joins there once the first's claim has held). A move sent again with its id
    gets its ack again and is not played twice; the first process's socket is told ``moved``
    at its next move, which is not stored."""
    from ristiseiska.web import tables as tables_mod
    from test_web import TestClient, claim, create_app, joined, live, new_table, recv_until

    monkeypatch.setattr(tables_mod, "HOLD", 0.0)

    with TestClient(create_app(pg_url, bot_delay=0.0)) as a, \
            TestClient(create_app(pg_url, bot_delay=0.0)) as b:
        tid = new_table(a, ["friend", "friend"], seed=5)
        tokens = {s: claim(a, tid, s) for s in (0, 1)}
        with a.websocket_connect(f"/ws/{tid}") as w0, a.websocket_connect(f"/ws/{tid}") as w1:
            ws = {0: w0, 1: w1}
            views = {s: joined(ws[s], s, tokens[s])["view"] for s in (0, 1)}
            mover = views[0]["to_move"]
            other = 1 - mover
            first = views[mover]["legal_moves"][0]
            ws[mover].send_json({"type": "move", "move": first, "id": "m1"})
            assert recv_until(ws[mover], lambda m: m["type"] == "ack")["move"] == first
            second = recv_until(ws[other], lambda m: m["type"] == "state"
                                and m["view"]["to_move"] == other)["view"]["legal_moves"][0]
            assert b.get(f"/api/tables/{tid}").status_code == 200  # a read: b follows
            with b.websocket_connect(f"/ws/{tid}") as wb:
                joined(wb, mover, tokens[mover])  # a seated player: b takes it over
                wb.send_json({"type": "move", "move": first, "id": "m1"})
                ack = recv_until(wb, lambda m: m["type"] in ("ack", "error"))
                assert ack == {"type": "ack", "move": first, "id": "m1"}
                assert len(live(b, tid).game.moves) == 1
                # a's copy is stale: its move is refused (or a's look at the owners, once a
                # second, told the socket first)
                ws[other].send_json({"type": "move", "move": second, "id": 1})
                err = recv_until(ws[other], lambda m: m["type"] in ("ack", "error"))
                assert err["code"] == "moved", err
            rows = asyncio.run(_stored(pg_url, [tid]))[tid]
            assert [(d, p, s) for d, p, s, _m, _e in rows] == [(0, 0, mover)]


@dataclass
class Client:
    """One table's player at seat 0, through nginx, reconnecting as the page does."""

    base: str
    tid: str
    token: str
    # (when acknowledged, deal, move, when sent)
    acks: list[tuple[float, int, str, float]] = field(default_factory=list)
    sent: dict[int, list[str]] = field(default_factory=dict)  # deal -> moves sent, in order
    reconnects: int = 0
    stop: bool = False
    next_id: int = 0

    def probe(self) -> None:
        try:
            with urllib.request.urlopen(f"{self.base}/api/tables/{self.tid}/here",
                                        timeout=8) as r:
                r.read()
        except (urllib.error.URLError, OSError):
            pass  # the socket tries all the same

    async def run(self) -> None:
        delay, failed = 0.5, False
        while not self.stop:
            if failed:
                await asyncio.sleep(delay * random.uniform(0.5, 1.0))
                delay = min(delay * 2, 8.0)
                await asyncio.get_running_loop().run_in_executor(PROBES, self.probe)
                self.reconnects += 1
            failed = True
            try:
                ws = await asyncio.wait_for(websockets.connect(
                    f"ws{self.base[4:]}/ws/{self.tid}", open_timeout=None, ping_interval=None,
                    close_timeout=0.5), OPEN_WAIT)
            except (TimeoutError, OSError, websockets.exceptions.WebSocketException):
                continue
            delay = 0.5
            try:
                if await self.play(ws):
                    delay = 0.2  # "moved": another process has the table, go at once
            except (TimeoutError, OSError, websockets.exceptions.WebSocketException):
                pass
            finally:  # as the page does: leave the socket, wait for nothing
                ws.transport.abort()

    async def play(self, ws: Any) -> bool:
        await ws.send(json.dumps({"type": "join", "seat": 0, "token": self.token}))
        pending: tuple[int, int, str, float] | None = None  # (id, deal, move, when) unacked
        last: dict[str, Any] | None = None  # the newest state of seat 0, not yet acted on
        while not self.stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), HEARTBEAT_IDLE)
            except TimeoutError:
                await ws.send(json.dumps({"type": "ping"}))
                raw = await asyncio.wait_for(ws.recv(), HEARTBEAT_WAIT)  # else: left
            msg = json.loads(raw)
            if msg["type"] == "error" and msg.get("code") == "moved":
                return True
            if msg["type"] == "ack" and pending is not None and msg.get("id") == pending[0]:
                self.acks.append((time.monotonic(), pending[1], msg["move"], pending[3]))
                pending = None
            if msg["type"] == "state" and msg.get("you") == 0 and msg.get("view") is not None:
                last = msg
            if last is None or pending is not None:
                continue
            view, deal = last["view"], last["deal"] - 1
            if view["phase"] == "over":
                await ws.send(json.dumps({"type": "next-deal"}))
                last = None
            elif view["to_move"] == 0 and view["legal_moves"]:
                self.next_id += 1
                move = random.choice(view["legal_moves"])
                pending = (self.next_id, deal, move, time.monotonic())
                self.sent.setdefault(deal, []).append(move)
                await ws.send(json.dumps({"type": "move", "id": self.next_id, "move": move}))
                last = None
        return False


def _http(url: str, body: dict[str, Any] | None = None) -> dict[str, Any]:
    req = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                 method="GET" if body is None else "POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return dict(json.loads(r.read()))


def _start_server(pg_url: str, log: Path, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port = free_port("127.0.0.1")
    out = open(log, "wb")  # noqa: SIM115 - closed with the process
    p = subprocess.Popen([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", str(port),
                          "--database-url", pg_url, "--bot-delay", "0.4", "--no-limits",
                          "--trusted-proxy", "127.0.0.1"],
                         stdout=out, stderr=subprocess.STDOUT, env=env)
    out.close()
    end = time.monotonic() + 60
    while b"http://" not in log.read_bytes():
        if p.poll() is not None or time.monotonic() > end:
            p.kill()
            pytest.fail(f"serve did not start: {log.read_text()[-500:]}")
        time.sleep(0.1)
    return p, port


async def _owners(pg_url: str) -> dict[str, tuple[int, int]]:
    """table id -> (owner's pid, fencing number), from rs_owner."""
    from sqlalchemy import select

    from ristiseiska.store import OwnerRow, Store

    st = Store(pg_url)
    try:
        async with st.session() as s:
            rows = (await s.execute(select(OwnerRow.table_id, OwnerRow.owner,
                                           OwnerRow.epoch))).all()
        return {str(t): (int(o.split(":")[-2]), int(e)) for t, o, e in rows}
    finally:
        await st.engine.dispose()


async def _stored(pg_url: str, ids: list[str]) -> dict[str, list[tuple[int, int, int, str,
                                                                       int | None]]]:
    """table id -> its move rows (deal, ply, seat, move, epoch) in order; every table is also
    rebuilt by replaying them (an illegal history would raise)."""
    from sqlalchemy import select

    from ristiseiska.store import MoveRow, Store
    from ristiseiska.web.tables import LiveTable

    st = Store(pg_url)
    out: dict[str, list[tuple[int, int, int, str, int | None]]] = {}
    try:
        async with st.session() as s:
            q = select(MoveRow).where(MoveRow.table_id.in_(ids)).order_by(
                MoveRow.table_id, MoveRow.deal, MoveRow.ply)
            for m in await s.scalars(q):
                out.setdefault(m.table_id, []).append((m.deal, m.ply, m.seat, m.move, m.epoch))
        for tid in ids:
            loaded = await st.load(tid)
            assert loaded is not None
            LiveTable.from_stored(loaded, st, 0.0)
    finally:
        await st.engine.dispose()
    return out


def _count_lost(tmp: Path, servers: list[tuple[subprocess.Popen[bytes], int]], pid: int) -> int:
    index = [p.pid for p, _port in servers].index(pid)
    return (tmp / f"serve{index}.log").read_text().count("taken over by another server process")


def _subsequence(small: list[str], big: list[str]) -> bool:
    it = iter(big)
    return all(x in it for x in small)


@pytest.mark.quiet  # it times the recovery against 15 s: it needs the machine to itself
def test_three_processes_behind_nginx_survive_a_kill_and_a_pause(pg_url: str,
                                                                 tmp_path: Path) -> None:
    env = dict(os.environ, HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"),
               PYTHONPATH=os.pathsep.join([SRC, os.environ.get("PYTHONPATH", "")]))
    servers = [_start_server(pg_url, tmp_path / f"serve{i}.log", env) for i in range(3)]
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    front = free_port("127.0.0.1")
    (prefix / "nginx.conf").write_text(nginx_config(
        "127.0.0.1", front, [("127.0.0.1", port) for _p, port in servers], str(prefix)))
    nginx = subprocess.Popen([str(NGINX), "-p", str(prefix), "-c", str(prefix / "nginx.conf"),
                              "-e", str(prefix / "error.log"), "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{front}"
    stopped: subprocess.Popen[bytes] | None = None
    try:
        end = time.monotonic() + 15
        while True:
            try:
                _http(f"{base}/api/meta")
                break
            except (urllib.error.URLError, OSError):
                if time.monotonic() > end:
                    raise
                time.sleep(0.1)
        clients = []
        for i in range(TABLES):
            t = _http(f"{base}/api/tables", {"options": {"match_deals": 100}, "seats": [
                {"kind": "friend"}, {"kind": "bot", "bot": "random", "name": "Bot A"},
                {"kind": "bot", "bot": "random", "name": "Bot B"}]})
            c = _http(f"{base}/api/tables/{t['id']}/seats/0", {"name": f"Pelaaja {i}"})
            clients.append(Client(base, t["id"], c["token"]))
        pids = [p.pid for p, _port in servers]

        async def until(what: Any, timeout: float) -> bool:
            end = time.monotonic() + timeout
            while time.monotonic() < end:
                if what():
                    return True
                await asyncio.sleep(0.1)
            return bool(what())

        async def fault(sig: int, owners: dict[str, tuple[int, int]]) -> tuple[int, list[float]]:
            """Send ``sig`` to the process owning most tables; the seconds each of its tables
            took to acknowledge a move again."""
            counts = {pid: sum(1 for o, _e in owners.values() if o == pid) for pid in pids}
            victim = max((pid for pid in pids if pid not in gone), key=lambda p: counts[p])
            theirs = [c for c in clients if owners[c.tid][0] == victim]
            assert theirs, (victim, counts)
            t0 = time.monotonic()
            os.kill(victim, sig)
            # a table goes on: a move its player sent after the fault is acknowledged (an
            # ack read late by a busy test process is not taken for a recovery)
            await until(lambda: all(c.acks and c.acks[-1][3] > t0 for c in clients),
                        RECOVER + 10)
            waits = [next((a[0] - t0 for a in c.acks if a[3] > t0), float("inf"))
                     for c in theirs]
            return victim, waits

        gone: set[int] = set()

        async def scenario() -> dict[str, Any]:
            tasks = [asyncio.create_task(c.run()) for c in clients]
            try:
                assert await until(lambda: all(len(c.acks) >= 3 for c in clients), 60), \
                    [len(c.acks) for c in clients]
                owners = await _owners(pg_url)
                killed, kill_waits = await fault(signal.SIGKILL, owners)
                gone.add(killed)
                owners = await _owners(pg_url)
                assert all(o != killed for o, _e in owners.values())
                paused, pause_waits = await fault(signal.SIGSTOP, owners)
                gone.add(paused)
                os.kill(paused, signal.SIGCONT)  # late: its tables are all elsewhere now
                await asyncio.sleep(4)  # its bots wake up and try to write; its sweeper looks
                mark = [len(c.acks) for c in clients]
                assert await until(lambda: all(len(c.acks) > m for c, m in zip(clients, mark, strict=True)),
                                   RECOVER), "play stopped after the paused process came back"
            finally:
                for c in clients:
                    c.stop = True
                await asyncio.wait(tasks, timeout=10)
                for task in tasks:
                    task.cancel()
            return {"killed": killed, "kill": kill_waits, "paused": paused,
                    "pause": pause_waits}

        result = asyncio.run(scenario())
        stopped = next(p for p, _port in servers if p.pid == result["paused"])
        kill, pause = result["kill"], result["pause"]
        print(f"\nSIGKILL: {len(kill)} tables, recovered in max {max(kill):.1f} s, "
              f"median {sorted(kill)[len(kill) // 2]:.1f} s; SIGSTOP: {len(pause)} tables, "
              f"max {max(pause):.1f} s, median {sorted(pause)[len(pause) // 2]:.1f} s; "
              f"acks {sum(len(c.acks) for c in clients)}, reconnects "
              f"{sum(c.reconnects for c in clients)}; the resumed process dropped "
              f"{_count_lost(tmp_path, servers, result['paused'])} stale tables")
        assert max(kill) <= RECOVER, kill
        assert max(pause) <= RECOVER, pause

        rows = asyncio.run(_stored(pg_url, [c.tid for c in clients]))
        lost = 0
        for c in clients:
            mine = rows.get(c.tid, [])
            epochs = [e for _d, _p, _s, _m, e in mine]
            assert None not in epochs, c.tid
            # no move by two owners: once a newer owner has written, no older one writes
            assert epochs == sorted(epochs), (c.tid, epochs)
            for deal in {d for d, *_rest in mine} | set(c.sent):
                stored = [m for d, _p, s, m, _e in mine if d == deal and s == 0]
                acked = [m for _t, d, m, _s in c.acks if d == deal]
                # every acknowledged move is there, and nothing but moves sent, each once
                if not _subsequence(acked, stored):
                    lost += 1
                assert _subsequence(stored, c.sent.get(deal, [])), (c.tid, deal, stored)
        assert lost == 0, f"{lost} table-deals lost acknowledged moves"
        # the paused process woke up with stale copies: each was refused or dropped
        assert _count_lost(tmp_path, servers, result["paused"]) >= 1
    finally:
        nginx.terminate()
        for p, _port in servers:
            if p.poll() is None:
                if p is stopped:
                    os.kill(p.pid, signal.SIGCONT)
                p.terminate()
        for p, _port in servers:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        nginx.wait(timeout=10)

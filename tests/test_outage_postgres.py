"""Issue 63: PostgreSQL stopped for 60 s under three ``ristiseiska serve`` processes behind
nginx, 20 tables each with a connected player and two quick bots. Once it is back every table
goes on within 15 s, on the same connections (no page reconnects, none is told ``moved``),
and every move acknowledged to a player, before, during or after the outage, is in the store
afterwards. Skipped without PostgreSQL, psycopg or nginx (Debian's packages, started and
stopped by the test, loopback only).

The players act as the page does: a move refused with ``store`` (the database away) is tried
again a second later with the same id (the id makes a move stored but not acknowledged count
once), and a ping goes out after 3 s without a frame. Nothing here reconnects: a socket that
closes fails the test."""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import random
import signal
import subprocess
import time
import urllib.error
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("psycopg")
websockets = pytest.importorskip("websockets")

from test_failover import (  # noqa: E402
    BIN,
    NGINX,
    _as_postgres,
    _http,
    _start_server,
    _stored,
    _subsequence,
    free_port,
    nginx_config,
    pg_url,  # noqa: F401 - the module's PostgreSQL cluster
)

TABLES = 20
OUTAGE = 60.0
RECOVER = 15.0  # seconds after the database's return by which every table has gone on
RETRY = 1.0  # a refused move is clicked again after this long


def _pg(pg: str, action: str) -> None:
    """pg_ctl stop or start on the fixture's cluster (its data directory from the server)."""
    data = _data_dir(pg)
    port = pg.rsplit(":", 1)[1].split("/")[0]
    if action == "stop":
        cmd = [f"{BIN}/pg_ctl", "-D", data, "-m", "fast", "-w", "stop"]
    else:
        sock = os.path.dirname(data)
        cmd = [f"{BIN}/pg_ctl", "-D", data, "-o",
               f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off", "-w",
               "start", "-l", os.path.join(sock, "log")]
    subprocess.run(_as_postgres(cmd), check=True, capture_output=True)


_DATA: dict[str, str] = {}


def _data_dir(pg: str) -> str:
    if pg not in _DATA:
        import psycopg

        with psycopg.connect(pg.replace("+psycopg", "")) as conn:
            row = conn.execute("SHOW data_directory").fetchone()
            assert row is not None
            _DATA[pg] = str(row[0])
    return _DATA[pg]


@dataclass
class Player:
    """Seat 0 of one table on one socket through nginx, for the whole test."""

    base: str
    tid: str
    token: str
    acks: list[tuple[float, int, str]] = field(default_factory=list)  # (when, deal, move)
    sent: dict[int, list[str]] = field(default_factory=dict)  # deal -> moves sent, in order
    seen: list[tuple[float, tuple[int, int]]] = field(default_factory=list)  # (deal, plies)
    notices: list[str] = field(default_factory=list)  # notices and error codes, in order
    closed: str | None = None  # why the socket ended before the test stopped it
    stop: bool = False

    async def run(self) -> None:
        try:
            async with websockets.connect(f"ws{self.base[4:]}/ws/{self.tid}",
                                          ping_interval=None, close_timeout=1) as ws:
                await self.play(ws)
        except Exception as e:  # noqa: BLE001 - any end but ours fails the test
            self.closed = f"{type(e).__name__}: {e}"

    async def play(self, ws: Any) -> None:
        await ws.send(json.dumps({"type": "join", "seat": 0, "token": self.token}))
        pending: tuple[int, int, str] | None = None  # (id, deal, move) not yet acknowledged
        retry_at = 0.0
        last: dict[str, Any] | None = None  # the newest state of seat 0, not yet acted on
        next_id = 0
        while not self.stop:
            try:
                raw = await asyncio.wait_for(ws.recv(), 0.5)
            except TimeoutError:
                raw = None
            now = time.monotonic()
            if raw is not None:
                msg = json.loads(raw)
                kind = msg["type"]
                if kind == "state":
                    self.seen.append((now, (msg["deal"], len(msg["log"]))))
                    if msg.get("you") == 0 and msg.get("view") is not None:
                        last = msg
                elif kind == "notice":
                    self.notices.append(msg["code"])
                elif kind == "error":
                    self.notices.append("error:" + msg["code"])
                    if msg["code"] == "store" and pending is not None:
                        retry_at = now + RETRY  # clicked again, with the same id
                elif kind == "ack" and pending is not None and msg.get("id") == pending[0]:
                    self.acks.append((now, pending[1], msg["move"]))
                    pending = None
            if pending is not None:
                if retry_at and now >= retry_at:
                    retry_at = 0.0
                    await ws.send(json.dumps({"type": "move", "id": pending[0],
                                              "move": pending[2]}))
                continue
            if last is None:
                if raw is None and now - (self.seen[-1][0] if self.seen else 0) > 3:
                    await ws.send(json.dumps({"type": "ping"}))  # as the page: keep it open
                continue
            view, deal = last["view"], last["deal"] - 1
            if view["phase"] == "over":
                await ws.send(json.dumps({"type": "next-deal"}))
                last = None
            elif view["to_move"] == 0 and view["legal_moves"]:
                next_id += 1
                move = random.choice(view["legal_moves"])
                pending = (next_id, deal, move)
                self.sent.setdefault(deal, []).append(move)
                await ws.send(json.dumps({"type": "move", "id": next_id, "move": move}))
                last = None


async def _until(what: Any, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if what():
            return True
        await asyncio.sleep(0.1)
    return bool(what())


@pytest.mark.quiet  # it times the recovery against 15 s: it needs the machine to itself
def test_every_table_goes_on_after_postgresql_returns(pg_url: str,  # noqa: F811
                                                      tmp_path: Path) -> None:
    env = dict(os.environ, HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"),
               PYTHONPATH=os.pathsep.join([str(Path(__file__).parents[1] / "src"),
                                           os.environ.get("PYTHONPATH", "")]))
    t_start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(3) as ex:  # started together: less waiting
        servers = list(ex.map(lambda i: _start_server(pg_url, tmp_path / f"serve{i}.log", env),
                              range(3)))
    phases = {"start": time.monotonic() - t_start}
    prefix = tmp_path / "nginx"
    prefix.mkdir()
    front = free_port("127.0.0.1")
    (prefix / "nginx.conf").write_text(nginx_config(
        "127.0.0.1", front, [("127.0.0.1", port) for _p, port in servers], str(prefix)))
    nginx = subprocess.Popen([str(NGINX), "-p", str(prefix), "-c", str(prefix / "nginx.conf"),
                              "-e", str(prefix / "error.log"), "-g", "daemon off;"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{front}"
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
        players = []
        for i in range(TABLES):
            t = _http(f"{base}/api/tables", {"options": {"match_deals": 100}, "seats": [
                {"kind": "friend"}, {"kind": "bot", "bot": "basic", "name": "Bot A"},
                {"kind": "bot", "bot": "expert", "name": "Bot B"}]})
            c = _http(f"{base}/api/tables/{t['id']}/seats/0", {"name": f"Pelaaja {i}"})
            players.append(Player(base, t["id"], c["token"]))
        phases["tables"] = time.monotonic() - t_start
        _data_dir(pg_url)  # asked while the database is up

        async def scenario() -> dict[str, float]:
            marks: dict[str, float] = {}
            tasks = [asyncio.create_task(p.run()) for p in players]
            try:
                assert await _until(lambda: all(len(p.acks) >= 2 for p in players), 60), \
                    [len(p.acks) for p in players]
                phases["warm"] = time.monotonic() - t_start
                await asyncio.to_thread(_pg, pg_url, "stop")
                marks["stopped"] = time.monotonic()
                await asyncio.sleep(OUTAGE)
                marks["before"] = time.monotonic()  # where each table stood: just before
                await asyncio.to_thread(_pg, pg_url, "start")
                marks["back"] = time.monotonic()
                for p in players:
                    p.notices.append("|back")

                def went_on(p: Player) -> bool:
                    was = max((k for t, k in p.seen if t < marks["before"]), default=(0, 0))
                    return any(t > marks["back"] and k > was for t, k in p.seen)

                await _until(lambda: all(went_on(p) for p in players), RECOVER + 5)
                await asyncio.sleep(3.0)  # every page hears that saving works again
            finally:
                for p in players:
                    p.stop = True
                await asyncio.wait(tasks, timeout=10)
                for task in tasks:
                    task.cancel()
            return marks

        marks = asyncio.run(scenario())
        waits = {}
        for p in players:
            was = max((k for t, k in p.seen if t < marks["before"]), default=(0, 0))
            waits[p.tid] = next((t - marks["back"] for t, k in p.seen
                                 if t > marks["back"] and k > was), float("inf"))
        slow = sorted(waits.values())
        print(f"\nPostgreSQL down {marks['back'] - marks['stopped']:.0f} s; {len(players)} "
              f"tables went on in max {slow[-1]:.1f} s, median {slow[len(slow) // 2]:.1f} s "
              f"after its return; acks {sum(len(p.acks) for p in players)}; ready "
              f"{phases['start']:.0f} s, tables {phases['tables']:.0f} s, playing "
              f"{phases['warm']:.0f} s; load {os.getloadavg()[0]:.1f}")
        assert not [p.closed for p in players if p.closed], "a socket closed"
        assert max(slow) <= RECOVER, waits
        for p in players:
            after = p.notices[p.notices.index("|back"):]
            assert "error:moved" not in p.notices, (p.tid, p.notices)
            # a page told that saving is retried is told that it works again
            if "saving-retry" in p.notices:
                assert "saved" in p.notices[p.notices.index("saving-retry"):], (p.tid, p.notices)
            # nothing but a move refused while the database was away, and the last word on
            # saving is that it works
            assert [n for n in after if n.startswith("error:") and n != "error:store"] == [], \
                (p.tid, after)
            assert [n for n in after if "sav" in n][-1:] != ["saving-retry"], (p.tid, after)

        rows = asyncio.run(_stored(pg_url, [p.tid for p in players]))
        lost = []
        for p in players:
            mine = rows.get(p.tid, [])
            for deal in {d for d, *_rest in mine} | set(p.sent):
                stored = [m for d, _p, s, m, _e in mine if d == deal and s == 0]
                acked = [m for _t, d, m in p.acks if d == deal]
                if not _subsequence(acked, stored):  # an acknowledged move missing
                    lost.append((p.tid, deal))
                assert _subsequence(stored, p.sent.get(deal, [])), (p.tid, deal, stored)
        assert lost == [], f"acknowledged moves lost at {lost}"
    finally:
        nginx.send_signal(signal.SIGTERM)
        for p, _port in servers:
            if p.poll() is None:
                p.terminate()
        for p, _port in servers:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
        nginx.wait(timeout=10)

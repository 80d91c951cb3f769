"""Load benchmark: many simultaneous tables over real WebSockets on loopback.

    python -m ristiseiska.web.loadtest --tables 200 --deals 1

Starts ``ristiseiska serve`` in a child process on a fresh SQLite database (or uses ``--url``
of a running server), creates the tables over HTTP — each with one seat played by a bot in this
process over a WebSocket and the other seats by the server's bots — and plays every table to the
end of its deals. It reports the round-trip latency of the client's moves (sent → ``ack``, which
the server sends only after the move is stored), the number of moves played on all tables, and
every error. Bounded: ``--timeout`` seconds at most.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    moves_total: int = 0
    deals_done: int = 0
    tables_done: int = 0


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return dict(json.loads(r.read()))


async def create_tables(base: str, n: int, players: int, seed: int) -> list[tuple[str, str]]:
    """(table id, seat token) for ``n`` tables; seat 0 is ours, the rest are server bots."""
    loop = asyncio.get_running_loop()

    def one(i: int) -> tuple[str, str]:
        seats = [{"kind": "friend", "name": f"load{i}"}] + [{"kind": "bot"}] * (players - 1)
        t = _post(f"{base}/api/tables", {"preset": "ristiseiska", "seats": seats,
                                         "seed": seed + i})
        c = _post(f"{base}/api/tables/{t['id']}/seats/0", {"name": f"load{i}"})
        return str(t["id"]), str(c["token"])

    out = []
    for i in range(0, n, 20):  # a few at a time: creating is not what is measured
        out += await asyncio.gather(*(loop.run_in_executor(None, one, j)
                                      for j in range(i, min(n, i + 20))))
    return out


async def play_table(base_ws: str, table_id: str, token: str, deals: int, think: float,
                     rng: random.Random, stats: Stats, deadline: float) -> None:
    import websockets

    pending: dict[int, float] = {}
    next_id = 0
    async with websockets.connect(f"{base_ws}/ws/{table_id}", max_size=2**22,
                                  open_timeout=30) as ws:
        await ws.send(json.dumps({"type": "join", "seat": 0, "token": token}))
        moved_at = (-1, -1)  # (deal, history length) when we last moved: never move twice on one position
        counted_over = False
        last: dict[str, Any] | None = None
        while time.monotonic() < deadline:
            try:
                raw = await asyncio.wait_for(ws.recv(),
                                             timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                break
            msg = json.loads(raw)
            kind = msg.get("type")
            if kind == "ack":
                t0 = pending.pop(int(msg.get("id", -1)), None)
                if t0 is not None:
                    stats.latencies.append(time.perf_counter() - t0)
            elif kind == "error":
                stats.errors.append(f"{table_id[:6]}: {msg.get('code')}: {msg.get('message')}")
                pending.clear()
            elif kind == "state" and msg.get("you") == 0 and msg.get("view") is not None:
                last = msg
            if last is None or pending:
                continue
            view = last["view"]
            if view["phase"] == "over":
                if counted_over:
                    continue
                counted_over = True
                stats.moves_total += len(view["history"])
                stats.deals_done += 1
                if last["deal"] >= deals or last["sheet"]["over"]:
                    stats.tables_done += 1
                    return
                await ws.send(json.dumps({"type": "next-deal"}))
                continue
            counted_over = False
            if view["to_move"] != 0 or not view["legal_moves"]:
                continue
            if (last["deal"], len(view["history"])) == moved_at:
                continue
            moved_at = (last["deal"], len(view["history"]))
            await asyncio.sleep(think * rng.uniform(0.5, 1.5))
            next_id += 1
            pending[next_id] = time.perf_counter()
            await ws.send(json.dumps({"type": "move", "move": rng.choice(view["legal_moves"]),
                                      "id": next_id}))
    stats.errors.append(f"{table_id[:6]}: did not finish in time")


def start_server(bot_delay: float) -> tuple[subprocess.Popen[str], str, str]:
    tmp = tempfile.mkdtemp(prefix="rs-load-")
    db = f"sqlite+aiosqlite:///{os.path.join(tmp, 'load.db')}"
    proc = subprocess.Popen(
        [sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0", "--database-url", db,
         "--bot-delay", str(bot_delay), "--no-limits"],  # every table comes from one address
        stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    url = line.split()[1].rstrip("/")
    return proc, url, tmp


def _cpu_seconds(pid: int) -> float | None:
    """User + system CPU time of a process (Linux /proc), for the report."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return None


def _rss_mib(pid: int) -> float | None:
    """Resident memory of a process in MiB (Linux /proc)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) / 1024
    except (OSError, ValueError):
        return None
    return None


async def _watch_memory(pid: int, peak: list[float]) -> None:
    while True:
        rss = _rss_mib(pid)
        if rss is not None:
            peak[0] = max(peak[0], rss)
        await asyncio.sleep(0.5)


def pct(xs: list[float], p: float) -> float:
    if not xs:
        return float("nan")
    xs = sorted(xs)
    k = min(len(xs) - 1, max(0, math.ceil(p / 100 * len(xs)) - 1))  # nearest rank
    return xs[k]


async def run(args: argparse.Namespace) -> dict[str, Any]:
    proc = None
    tmp = None
    base = args.url
    if not base:
        proc, base, tmp = start_server(args.bot_delay)
    rss_before = _rss_mib(proc.pid) if proc is not None else None
    peak = [rss_before or 0.0]
    watcher = (asyncio.get_running_loop().create_task(_watch_memory(proc.pid, peak))
               if proc is not None else None)
    try:
        t0 = time.monotonic()
        tables = await create_tables(base, args.tables, args.players, args.seed)
        created = time.monotonic() - t0
        stats = Stats()
        rng = random.Random(args.seed)
        base_ws = "ws" + base[len("http"):]
        deadline = time.monotonic() + args.timeout
        start = time.monotonic()
        results = await asyncio.gather(*(
            play_table(base_ws, tid, tok, args.deals, args.think, random.Random(rng.random()),
                       stats, deadline) for tid, tok in tables), return_exceptions=True)
        elapsed = time.monotonic() - start
        for r in results:
            if isinstance(r, BaseException):
                stats.errors.append(f"{type(r).__name__}: {r}")
        lat = [x * 1000 for x in stats.latencies]
        cpu = _cpu_seconds(proc.pid) if proc is not None else None
        client_cpu = _cpu_seconds(os.getpid())
        mem = ({"rss_start_mib": round(rss_before, 1), "rss_peak_mib": round(peak[0], 1),
                "kib_per_table": round((peak[0] - rss_before) * 1024 / args.tables, 1)}
               if rss_before is not None else {})
        return {
            **mem,
            "server_cpu_s": round(cpu, 2) if cpu is not None else None,
            "server_cpu_ms_per_move": round(1000 * cpu / stats.moves_total, 3)
            if cpu is not None and stats.moves_total else None,
            "client_cpu_s": round(client_cpu, 2) if client_cpu is not None else None,
            "tables": args.tables, "players": args.players, "deals_per_table": args.deals,
            "bot_delay_s": args.bot_delay, "think_s": args.think,
            "create_s": round(created, 2), "play_s": round(elapsed, 2),
            "tables_finished": stats.tables_done, "deals_finished": stats.deals_done,
            "moves_all_seats": stats.moves_total,
            "moves_per_s": round(stats.moves_total / elapsed, 1) if elapsed else 0,
            "client_moves": len(lat),
            "rtt_ms": {"p50": round(pct(lat, 50), 2), "p90": round(pct(lat, 90), 2),
                       "p99": round(pct(lat, 99), 2), "max": round(max(lat), 2) if lat else None,
                       "mean": round(statistics.fmean(lat), 2) if lat else None},
            "errors": len(stats.errors), "error_samples": stats.errors[:10],
        }
    finally:
        if watcher is not None:
            watcher.cancel()
        if proc is not None:
            proc.terminate()
            with contextlib.suppress(Exception):
                proc.wait(timeout=10)
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)


class MemoryStore:
    """A store that keeps nothing: the cost benchmark measures the server's own work."""

    async def add_move(self, *_a: Any) -> None:
        return None

    async def start_deal(self, *_a: Any) -> None:
        return None

    async def set_finished(self, *_a: Any) -> None:
        return None

    async def set_table_state(self, *_a: Any) -> None:
        return None


async def move_cost(deals: int = 15, preset_name: str = "kaksi-pakkaa", players: int = 8,
                    seed: int = 1) -> dict[int, float]:
    """Server time per move (the move, every connection's view and its JSON text) by how far
    the deal has got, in ms: ``{first event of the bucket: median}``. Every seat and one
    spectator are connected; random bots play."""
    from ..rules import preset
    from .tables import Conn, LiveTable

    buckets: dict[int, list[float]] = {}
    for d in range(deals):
        config = {"preset": preset_name, "rules": preset(preset_name).to_dict(),
                  "seed": seed + d, "seats": [{"kind": "bot", "bot": "random",
                                               "name": f"P{i}"} for i in range(players)]}
        t = LiveTable("cost-benchmark", config, MemoryStore(), 0.0)  # type: ignore[arg-type]
        t.closed = True  # this loop makes the bots' moves itself
        conns = [Conn(seat=s) for s in range(players)] + [Conn()]
        t.conns = set(conns)
        await t.start_first_deal()
        g = t.game
        assert g is not None
        while not g.is_over():
            t0 = time.perf_counter()
            await t._bot_step()  # it takes the table's lock itself
            for c in conns:
                while not c.queue.empty():
                    msg = c.queue.get_nowait()
                    if msg is not None:
                        t.encode_state(msg, "fi")
            buckets.setdefault(len(g.events) // 50 * 50, []).append(time.perf_counter() - t0)
    return {b: 1000 * statistics.median(xs) for b, xs in sorted(buckets.items())}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ristiseiska.web.loadtest", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--tables", type=int, default=200, help="simultaneous tables (default 200)")
    p.add_argument("--players", type=int, default=4, help="seats per table (default 4)")
    p.add_argument("--deals", type=int, default=1, help="deals per table (default 1)")
    p.add_argument("--bot-delay", type=float, default=0.8,
                   help="server bots' pause before a move, seconds (default 0.8, as "
                        "`ristiseiska serve`)")
    p.add_argument("--think", type=float, default=0.8,
                   help="the client bot's mean pause before a move, seconds (default 0.8)")
    p.add_argument("--timeout", type=float, default=300, help="give up after this many seconds")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--url", default=None, help="use a running server instead of starting one")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--cost", action="store_true",
                   help="instead: measure the server's time per move in-process, by how far "
                   "the deal has got (8 seats, two decks, a spectator; no network, no database)")
    args = p.parse_args(argv)
    if args.cost:
        for start, ms in asyncio.run(move_cost(seed=args.seed)).items():
            print(f"events {start}–{start + 49}: {ms:.3f} ms per move (9 connections)")
        return 0
    if not 1 <= args.tables <= 2000 or not 2 <= args.players <= 8 or not 1 <= args.deals <= 20:
        p.error("--tables 1..2000, --players 2..8, --deals 1..20")
    report = asyncio.run(run(args))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        r = report["rtt_ms"]
        print(f"{report['tables']} tables × {report['players']} seats, {report['deals_per_table']} "
              f"deal(s) each: {report['tables_finished']} finished in {report['play_s']} s")
        print(f"moves on all seats: {report['moves_all_seats']} ({report['moves_per_s']}/s); "
              f"client moves timed: {report['client_moves']}")
        print(f"move round trip (send → stored → ack): p50 {r['p50']} ms, p90 {r['p90']} ms, "
              f"p99 {r['p99']} ms, max {r['max']} ms")
        if report["server_cpu_s"] is not None:
            print(f"server CPU: {report['server_cpu_s']} s "
                  f"({report['server_cpu_ms_per_move']} ms per move)")
        if "kib_per_table" in report:
            print(f"server memory: {report['rss_start_mib']} MiB at start, peak "
                  f"{report['rss_peak_mib']} MiB ({report['kib_per_table']} KiB per table)")
        print(f"errors: {report['errors']}")
        for e in report["error_samples"]:
            print(f"  {e}")
    return 0 if report["errors"] == 0 and report["tables_finished"] == report["tables"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""Load benchmark: many simultaneous tables over real WebSockets on loopback.

    python -m ristiseiska.web.loadtest --tables 200 --deals 1

Starts ``ristiseiska serve`` in a child process on a fresh SQLite database (or uses ``--url``
of a running server), creates the tables over HTTP — each with one seat played by a bot in this
process over a WebSocket and the other seats by the server's bots — and plays every table to the
end of its deals. It reports the round-trip latency of the client's moves (sent → ``ack``, which
the server sends only after the move is stored), the number of moves played on all tables, and
every error, and the server's CPU: per move for every server process (and, apart, the bot
workers and nginx), the cores the server side used and the moves per second each core carried.
``--processes N`` starts ``ristiseiska serve --processes N`` (N processes behind nginx);
``--server-path DIR`` runs the server from another source tree (e.g. an older commit, for
side-by-side runs). Bounded: ``--timeout`` seconds at most.
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
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    moves_total: int = 0
    deals_done: int = 0
    tables_done: int = 0
    moves_by_process: dict[str, int] = field(default_factory=dict)


PROCESS_HEADER = "x-ristiseiska-process"  # which server process answered (serve --processes)


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        out = dict(json.loads(r.read()))
        out["_process"] = r.headers.get(PROCESS_HEADER, "")
        return out


async def create_tables(base: str, n: int, players: int, seed: int) -> list[tuple[str, str, str]]:
    """(table id, seat token, owning process) for ``n`` tables; seat 0 is ours, the rest are
    server bots. The owner is the process that answered the seat claim (the table's own)."""
    loop = asyncio.get_running_loop()

    def one(i: int) -> tuple[str, str, str]:
        seats = [{"kind": "friend", "name": f"load{i}"}] + [{"kind": "bot"}] * (players - 1)
        # every move by the client, forced ones too: the server making those after its pause
        # (web/forced.py) raced the client's own, refused as ``not-your-turn`` once the round
        # trip outgrew the pause (docs/notes/2026-12-08-loadtest.md)
        t = _post(f"{base}/api/tables", {"preset": "ristiseiska", "seats": seats,
                                         "seed": seed + i, "auto_forced": False})
        c = _post(f"{base}/api/tables/{t['id']}/seats/0", {"name": f"load{i}"})
        return str(t["id"]), str(c["token"]), str(c["_process"])

    out = []
    for i in range(0, n, 20):  # a few at a time: creating is not what is measured
        out += await asyncio.gather(*(loop.run_in_executor(None, one, j)
                                      for j in range(i, min(n, i + 20))))
    return out


async def play_table(base_ws: str, table_id: str, token: str, deals: int, think: float,
                     rng: random.Random, stats: Stats, deadline: float,
                     owner: str = "") -> None:
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
                stats.moves_by_process[owner] = (stats.moves_by_process.get(owner, 0)
                                                 + len(view["history"]))
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


def start_server(bot_delay: float, processes: int = 1, server_path: str | None = None,
                 database_url: str | None = None,
                 database_dir: str | None = None,
                 durability: str | None = None) -> tuple[subprocess.Popen[str], str, str]:
    # the fresh SQLite file lies in a new directory under ``database_dir`` (default: the
    # system's temporary directory), removed afterwards
    tmp = tempfile.mkdtemp(prefix="rs-load-", dir=database_dir)
    db = database_url or f"sqlite+aiosqlite:///{os.path.join(tmp, 'load.db')}"
    env = dict(os.environ)
    if server_path:  # the server from another source tree (side-by-side runs)
        env["PYTHONPATH"] = os.pathsep.join([server_path, *filter(None, [
            env.get("PYTHONPATH")])])
    cmd = [sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0", "--database-url",
           db, "--bot-delay", str(bot_delay), "--no-limits"]  # every table from one address
    if processes > 1:
        cmd += ["--processes", str(processes)]
    if durability:  # only when asked: an older tree's serve may not know the option
        cmd += ["--durability", durability]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        raise RuntimeError(f"the server did not start: {line!r}")
    url = line.split()[1].rstrip("/")
    # keep reading its output, so that a full pipe never blocks the server
    import threading

    threading.Thread(target=lambda: [None for _ in proc.stdout or []], daemon=True).start()
    return proc, url, tmp


@contextlib.contextmanager
def _quiet_collector() -> Iterator[None]:
    """The benchmark client's own garbage collector kept out of the figures while the tables
    play: with a thousand WebSockets its collections took 30-50 ms every two seconds and
    100-140 ms now and then (timed with ``gc.callbacks``), and every move in flight then
    counted that pause as the server's round trip. What exists is frozen and young
    collections come every 50,000 allocations (as in the server, web/tables.py)."""
    import gc

    from .tables import GC_OLDER, GC_YOUNG

    before = gc.get_threshold()
    gc.collect()
    gc.freeze()
    gc.set_threshold(GC_YOUNG, *GC_OLDER)
    try:
        yield
    finally:
        gc.set_threshold(*before)
        gc.unfreeze()


def _database_shown(args: argparse.Namespace) -> str:
    """Where the measured server kept its data (no password)."""
    if args.url:
        return "(the running server's)"
    url = getattr(args, "database_url", None)
    if url:
        from ..store import shown_url

        return shown_url(url)
    return f"SQLite file in {getattr(args, 'database_dir', None) or tempfile.gettempdir()}"


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{task}/children") as f:
                out += [int(x) for x in f.read().split()]
    except (OSError, ValueError):
        pass
    return out


def process_tree(pid: int) -> list[int]:
    """``pid`` and all its descendants (Linux /proc)."""
    seen, todo = [], [pid]
    while todo:
        p = todo.pop()
        if p not in seen:
            seen.append(p)
            todo += _children(p)
    return seen


def _role(pid: int, top: int) -> str:
    """What a process of the server side is: a server process, a bot worker, nginx."""
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "gone"
    if "nginx" in cmd.split(" ", 1)[0] or cmd.startswith("nginx"):
        return "nginx"
    if "--listen-fd" in cmd:
        return "server"
    if pid == top:
        return "server"  # one process: the top one serves (with --processes: the supervisor)
    return "bot-worker"


def server_cpu(top: int) -> dict[int, tuple[str, float]]:
    """CPU seconds so far of every process of the server side, with its role."""
    out: dict[int, tuple[str, float]] = {}
    for p in process_tree(top):
        cpu = _cpu_seconds(p)
        if cpu is not None:
            role = _role(p, top)
            if p == top and any(_role(c, top) == "server" and c != top
                                for c in process_tree(top)):
                role = "supervisor"
            out[p] = (role, cpu)
    return out


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


def scraped_moves(base: str) -> int | None:
    """``ristiseiska_moves_total`` as the server's ``/metrics`` says (one process: with
    several, each counts only its own), or None when it cannot be read."""
    import urllib.request

    from prometheus_client.parser import text_string_to_metric_families

    try:
        with urllib.request.urlopen(base.rstrip("/") + "/metrics", timeout=10) as r:
            text = r.read().decode("utf-8")
    except OSError:
        return None
    return sum(int(sample.value) for family in text_string_to_metric_families(text)
               for sample in family.samples if sample.name == "ristiseiska_moves_total")


async def run(args: argparse.Namespace) -> dict[str, Any]:
    proc = None
    tmp = None
    base = args.url
    if not base:
        proc, base, tmp = start_server(args.bot_delay, getattr(args, "processes", 1),
                                       getattr(args, "server_path", None),
                                       getattr(args, "database_url", None),
                                       getattr(args, "database_dir", None),
                                       getattr(args, "durability", None))
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
        cpu0 = server_cpu(proc.pid) if proc is not None else {}
        client0 = _cpu_seconds(os.getpid())
        start = time.monotonic()
        with _quiet_collector():
            results = await asyncio.gather(*(
                play_table(base_ws, tid, tok, args.deals, args.think,
                           random.Random(rng.random()), stats, deadline, owner)
                for tid, tok, owner in tables),
                return_exceptions=True)
        elapsed = time.monotonic() - start
        cpu1 = server_cpu(proc.pid) if proc is not None else {}
        counted = (await asyncio.to_thread(scraped_moves, base)
                   if proc is not None and getattr(args, "processes", 1) == 1 else None)
        for r in results:
            if isinstance(r, BaseException):
                stats.errors.append(f"{type(r).__name__}: {r}")
        lat = [x * 1000 for x in stats.latencies]
        cpu = _cpu_seconds(proc.pid) if proc is not None else None
        client_cpu = _cpu_seconds(os.getpid())
        play = _play_cpu(cpu0, cpu1, stats, elapsed, client0, client_cpu)
        mem = ({"rss_start_mib": round(rss_before, 1), "rss_peak_mib": round(peak[0], 1),
                "kib_per_table": round((peak[0] - rss_before) * 1024 / args.tables, 1)}
               if rss_before is not None else {})
        return {
            **mem,
            "server_cpu_s": round(cpu, 2) if cpu is not None else None,
            "server_cpu_ms_per_move": round(1000 * cpu / stats.moves_total, 3)
            if cpu is not None and stats.moves_total else None,
            "client_cpu_s": round(client_cpu, 2) if client_cpu is not None else None,
            "database": _database_shown(args),
            "durability": "(the running server's)" if args.url else (
                getattr(args, "durability", None) or "power-cut"),
            "tables": args.tables, "players": args.players, "deals_per_table": args.deals,
            "bot_delay_s": args.bot_delay, "think_s": args.think,
            "create_s": round(created, 2), "play_s": round(elapsed, 2),
            "tables_finished": stats.tables_done, "deals_finished": stats.deals_done,
            "moves_all_seats": stats.moves_total,
            "moves_per_s": round(stats.moves_total / elapsed, 1) if elapsed else 0,
            "client_moves": len(lat),
            # the server's own count (/metrics), beside the moves the client saw
            "metrics_moves_total": counted,
            "rtt_ms": {"p50": round(pct(lat, 50), 2), "p90": round(pct(lat, 90), 2),
                       "p99": round(pct(lat, 99), 2), "max": round(max(lat), 2) if lat else None,
                       "mean": round(statistics.fmean(lat), 2) if lat else None},
            "errors": len(stats.errors), "error_samples": stats.errors[:10],
            **play,
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


def _play_cpu(cpu0: dict[int, tuple[str, float]], cpu1: dict[int, tuple[str, float]],
              stats: Stats, elapsed: float, client0: float | None,
              client1: float | None) -> dict[str, Any]:
    """The server side's CPU while the tables played (creating them left out): per process,
    per move, the cores used and the moves each core carried per second."""
    if not cpu1 or not elapsed:
        return {}
    procs: list[dict[str, Any]] = []
    by_role: dict[str, float] = {}
    for pid, (role, c1) in sorted(cpu1.items()):
        used = c1 - cpu0.get(pid, (role, 0.0))[1]
        by_role[role] = by_role.get(role, 0.0) + used
        procs.append({"pid": pid, "role": role, "cpu_s": round(used, 2)})
    servers = [p for p in procs if p["role"] == "server"]
    moves = stats.moves_total
    # the tables of each server process (it names itself in a response header); with one
    # process every move is its own
    by_pid = {owner.rpartition(":")[2]: n for owner, n in stats.moves_by_process.items()}
    for p in servers:
        p["moves"] = moves if len(servers) == 1 else by_pid.get(str(p["pid"]), 0)
    for p in servers:
        if p.get("moves"):
            p["cpu_ms_per_move"] = round(1000 * p["cpu_s"] / p["moves"], 3)
            p["moves_per_s"] = round(p["moves"] / elapsed, 1)
            p["cores"] = round(p["cpu_s"] / elapsed, 2)
    total = sum(by_role.values())
    cores = total / elapsed
    return {
        "play_cpu": {
            "processes": procs,
            "server_cpu_ms_per_move": round(1000 * by_role.get("server", 0.0) / moves, 3)
            if moves else None,
            "all_cpu_ms_per_move": round(1000 * total / moves, 3) if moves else None,
            "by_role_s": {k: round(v, 2) for k, v in sorted(by_role.items())},
            "cores_used": round(cores, 2),
            "moves_per_s_per_core": round(moves / elapsed / cores, 1) if cores else None,
            "client_cpu_s": round(client1 - client0, 2)
            if client0 is not None and client1 is not None else None,
        }
    }


class MemoryStore:
    """A store that keeps nothing: the cost benchmark measures the server's own work."""

    async def add_move(self, *_a: Any, **_k: Any) -> None:
        return None

    async def start_deal(self, *_a: Any) -> None:
        return None

    async def set_finished(self, *_a: Any) -> None:
        return None

    async def set_table_state(self, *_a: Any) -> None:
        return None

    async def tail(self, *_a: Any) -> tuple[int, list[tuple[int, str, str | None]]]:
        return 0, []  # after a failed write: nothing stored beyond the table's own copy


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


def fsync_probe(directory: str | None, seconds: float, every: float = 0.01) -> dict[str, Any]:
    """How the disk under ``directory`` answers a commit's flush: for ``seconds``, 16 KiB
    written in place into a preallocated file, then ``fdatasync`` (``fsync`` where there is
    none), one every ``every`` seconds, as the server's commits do under load. Every
    acknowledged move waits for one of these (``serve --durability power-cut``), so a stall
    here is a stall of every move in flight. The file is removed afterwards."""
    flush = getattr(os, "fdatasync", os.fsync)
    fd, path = tempfile.mkstemp(prefix="rs-fsync-", dir=directory)
    size = 16 << 20
    lat: list[float] = []
    try:
        os.ftruncate(fd, size)
        os.fsync(fd)
        block, off = os.urandom(16384), 0
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            os.pwrite(fd, block, off)
            off = (off + len(block)) % size
            t = time.perf_counter()
            flush(fd)
            lat.append((time.perf_counter() - t) * 1000)
            time.sleep(every)
    finally:
        os.close(fd)
        os.unlink(path)
    lat.sort()

    def pct(q: float) -> float:
        return round(lat[min(len(lat) - 1, int(len(lat) * q / 100))], 2)

    return {"directory": directory or tempfile.gettempdir(), "seconds": seconds,
            "flushes": len(lat), "p50_ms": pct(50), "p99_ms": pct(99), "p999_ms": pct(99.9),
            "max_ms": round(lat[-1], 2), "over_100_ms": sum(1 for x in lat if x > 100)}


async def table_cost(deals: int = 40, seed: int = 1000) -> float:
    """CPU time per move of the load test's own table in-process, in ms: 4 seats, three
    expert bots of the server and a person (random legal moves) at seat 0 whose one
    connection gets every state as its JSON text; no network, no database."""
    from ..rules import preset
    from .tables import Conn, LiveTable

    total, moves = 0.0, 0
    for d in range(deals):
        config = {"preset": "ristiseiska", "rules": preset("ristiseiska").to_dict(),
                  "seed": seed + d, "seats": [{"kind": "friend", "name": "P"}]
                  + [{"kind": "bot", "bot": "expert", "name": f"B{i}"} for i in range(3)]}
        t = LiveTable("cost-benchmark", config, MemoryStore(), 0.0)  # type: ignore[arg-type]
        t.closed = t.started = True
        conn = Conn(seat=0)
        t.conns = {conn}
        await t.start_first_deal()
        g = t.game
        assert g is not None
        rng = random.Random(seed + d)
        while not g.is_over():
            t0 = time.process_time()
            if g.to_move == 0:
                await t.play(0, str(rng.choice(g.legal_moves())), None)
            else:
                await t._bot_step()
            while not conn.queue.empty():
                msg = conn.queue.get_nowait()
                if msg is not None:
                    t.encode_state(msg, "fi")
            total += time.process_time() - t0
            moves += 1
    return 1000 * total / moves


def table_cost_in(tree: str, deals: int = 40) -> float:
    """:func:`table_cost` run against another source tree's server (e.g. an older commit's
    ``src``, which may not have this function): its body is run in a child process whose
    ``ristiseiska`` is imported from ``tree``, so both trees are measured by the same code."""
    import inspect
    import textwrap

    body = textwrap.dedent(inspect.getsource(MemoryStore) + "\n\n"
                           + inspect.getsource(table_cost))
    body = (body.replace("from ..rules import", "from ristiseiska.rules import")
            .replace("from .tables import", "from ristiseiska.web.tables import"))
    code = ("from __future__ import annotations\nimport asyncio, random, time\n"
            "from typing import Any\n" + body
            + f"\nprint(asyncio.run(table_cost(deals={int(deals)})))\n")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.path.abspath(tree)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=600, check=False)
    if out.returncode != 0:
        raise RuntimeError(f"the cost benchmark failed under {tree}: "
                           f"{(out.stderr or out.stdout).strip().splitlines()[-1:]}")
    return float(out.stdout.split()[-1])


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
    p.add_argument("--processes", type=int, default=1,
                   help="start the server with --processes N (behind nginx; default 1)")
    p.add_argument("--server-path", default=None, metavar="DIR",
                   help="run the server from this source tree (put first on its PYTHONPATH), "
                   "e.g. an older commit's src for side-by-side runs")
    p.add_argument("--database-url", default=None, metavar="URL",
                   help="the started server's database (default: a fresh SQLite file), e.g. "
                   "postgresql+psycopg://user@host/db for a PostgreSQL side-by-side run")
    p.add_argument("--database-dir", default=None, metavar="DIR",
                   help="where the fresh SQLite file goes (default: the temporary directory); "
                   "e.g. /dev/shm to see the latency without the disk's fsync stalls")
    p.add_argument("--durability", default=None, choices=("power-cut", "crash"),
                   help="start the server with this --durability (default: the server's "
                   "own, power-cut)")
    p.add_argument("--fsync-probe", type=float, default=None, metavar="SECONDS",
                   help="instead: time the disk's flushes for SECONDS (where --database-dir "
                   "points, default the temporary directory), one every 10 ms as a busy "
                   "server's commits; stalls here stall every move with --durability power-cut")
    p.add_argument("--json", action="store_true", help="print the figures as JSON")
    p.add_argument("--cost", action="store_true",
                   help="instead: measure the server's time per move in-process, by how far "
                   "the deal has got (8 seats, two decks, a spectator; no network, no "
                   "database), and the CPU per move of the load test's own table (with "
                   "--server-path: that table's CPU per move under the other tree and this one)")
    args = p.parse_args(argv)
    if args.database_dir is not None and not os.path.isdir(args.database_dir):
        p.error(f"--database-dir {args.database_dir}: no such directory")
    if args.database_url and args.database_dir:
        p.error("--database-dir is where a fresh SQLite file goes; it cannot be used with "
                "--database-url")
    if args.url and (args.database_url or args.database_dir or args.durability):
        p.error("--database-url, --database-dir and --durability are for the server the load "
                "test starts, not with --url")
    if args.cost and args.server_path:  # the load test's table under another tree, and here
        print(f"the load test's table under {args.server_path}: "
              f"{table_cost_in(args.server_path):.3f} ms CPU per move; this tree: "
              f"{asyncio.run(table_cost()):.3f} ms")
        return 0
    if args.fsync_probe is not None:
        if not 1 <= args.fsync_probe <= 3600:
            p.error("--fsync-probe 1..3600 seconds")
        probe = fsync_probe(args.database_dir, args.fsync_probe)
        if args.json:
            print(json.dumps(probe, indent=2))
        else:
            print(f"{probe['flushes']} flushes of 16 KiB in {probe['directory']} over "
                  f"{probe['seconds']:g} s: p50 {probe['p50_ms']} ms, p99 {probe['p99_ms']} ms, "
                  f"p99.9 {probe['p999_ms']} ms, max {probe['max_ms']} ms; "
                  f"{probe['over_100_ms']} over 100 ms")
        return 0
    if args.cost:
        for start, ms in asyncio.run(move_cost(seed=args.seed)).items():
            print(f"events {start}–{start + 49}: {ms:.3f} ms per move (9 connections)")
        print(f"the load test's table (4 seats, 3 expert bots, 1 connection): "
              f"{asyncio.run(table_cost()):.3f} ms CPU per move")
        return 0
    if not 1 <= args.tables <= 2000 or not 2 <= args.players <= 8 or not 1 <= args.deals <= 20:
        p.error("--tables 1..2000, --players 2..8, --deals 1..20")
    if not 1 <= args.processes <= 64:
        p.error("--processes 1..64")
    report = asyncio.run(run(args))
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        r = report["rtt_ms"]
        print(f"{report['tables']} tables × {report['players']} seats, {report['deals_per_table']} "
              f"deal(s) each: {report['tables_finished']} finished in {report['play_s']} s")
        print(f"moves on all seats: {report['moves_all_seats']} ({report['moves_per_s']}/s); "
              f"client moves timed: {report['client_moves']}")
        if report.get("metrics_moves_total") is not None:
            print(f"the server's /metrics counted {report['metrics_moves_total']} moves")
        print(f"move round trip (send → stored → ack): p50 {r['p50']} ms, p90 {r['p90']} ms, "
              f"p99 {r['p99']} ms, max {r['max']} ms; database: {report['database']}, "
              f"durability: {report['durability']}")
        if report["server_cpu_s"] is not None:
            print(f"server CPU: {report['server_cpu_s']} s "
                  f"({report['server_cpu_ms_per_move']} ms per move)")
        pc = report.get("play_cpu")
        if pc:
            print(f"server side while playing: {pc['cores_used']} cores used, "
                  f"{pc['moves_per_s_per_core']} moves/s per core; server processes "
                  f"{pc['server_cpu_ms_per_move']} ms CPU per move, all processes "
                  f"{pc['all_cpu_ms_per_move']} ms ({pc['by_role_s']} s)")
            for q in pc["processes"]:
                if q["role"] == "server":
                    print(f"  server process {q['pid']}: {q['cpu_s']} s CPU, "
                          f"{q.get('moves', 0)} moves ({q.get('moves_per_s', 0)}/s), "
                          f"{q.get('cpu_ms_per_move')} ms per move, {q.get('cores')} cores")
        if "kib_per_table" in report:
            print(f"server memory: {report['rss_start_mib']} MiB at start, peak "
                  f"{report['rss_peak_mib']} MiB ({report['kib_per_table']} KiB per table)")
        print(f"errors: {report['errors']}")
        for e in report["error_samples"]:
            print(f"  {e}")
    return 0 if report["errors"] == 0 and report["tables_finished"] == report["tables"] else 1


if __name__ == "__main__":
    sys.exit(main())

"""``ristiseiska serve``: the web game for the browser, alone or with friends."""

from __future__ import annotations

import argparse
import os
import socket
from typing import Any

HELP = "play in the browser: start the web server (SQLite by default)"
DESCRIPTION = (
    "Start the web game. Open the printed address, create a table with friends and bots, and "
    "send the invite link to friends. Games are kept in a SQLite database in your data "
    "directory (or PostgreSQL with --database-url postgresql+psycopg://user@host/db) and "
    "continue after a restart. Deals are provably fair: each table's seed is drawn by the "
    "server and only its hash is shown until the match ends. The limits below keep a server "
    "open to strangers safe; the database is checked before the address is printed."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None,
                   help="port (default 8000, or the next free one after it; 0 picks any free one)")
    p.add_argument("--database-url", default=None,
                   help="SQLAlchemy URL; default: SQLite in the user data directory")
    p.add_argument("--bot-delay", type=float, default=0.8, metavar="SECONDS",
                   help="pause before each bot move so people can follow (default 0.8)")
    p.add_argument("--processes", type=int, default=1, metavar="N",
                   help="run N server processes, each the only one for its own tables, with "
                   "nginx in front pinning every table to one of them (default 1; several "
                   "use every core)")
    p.add_argument("--nginx", default="auto", metavar="PATH",
                   help="with --processes: the nginx to run in front (default: the installed "
                   "one; 'none' only prints the configuration to use)")
    p.add_argument("--quick-wait", type=float, default=20.0, metavar="SECONDS",
                   help="a quick game's new table waits this long for other players before "
                   "bots take its empty seats (default 20)")
    p.add_argument("--durability", choices=("power-cut", "crash"), default="power-cut",
                   help="what a move the server has acknowledged survives. power-cut "
                   "(default): it is on disk before the ack, so even a power cut keeps it; "
                   "crash: the server's own crash or kill keeps it, a power cut may lose the "
                   "last moments, and a slow disk no longer holds up play")
    p.add_argument("--log-format", choices=("text", "json"),
                   default=os.environ.get("RISTISEISKA_LOG_FORMAT") or "text",
                   help="log records on stderr as text (default) or one JSON object a line "
                   "(time, level, logger, message, fields such as the table); also "
                   "RISTISEISKA_LOG_FORMAT=json")
    p.add_argument("--ladder", metavar="FILE",
                   help="show this ladder.json (ristiseiska ladder) at /ladder")
    p.add_argument("--daily-secret-file", metavar="FILE",
                   default=os.environ.get("RISTISEISKA_DAILY_SECRET_FILE") or None,
                   help="the daily deal's secret (64 hex digits; made there if missing); "
                   "default: made once and kept in the database. Also "
                   "RISTISEISKA_DAILY_SECRET_FILE")
    p.add_argument("--daily-reference", metavar="LEVEL", default="master",
                   help="the bot the daily deal's players are compared with (default master)")
    p.add_argument("--listen-fd", type=int, default=None, help=argparse.SUPPRESS)
    p.add_argument("--process-index", type=int, default=None, help=argparse.SUPPRESS)
    from ..web.security import Limits

    d = Limits()
    g = p.add_argument_group(
        "limits (for a server open to strangers; answers past a limit are 429/413/400)")
    g.add_argument("--tables-per-minute", type=int, default=d.tables_per_minute, metavar="N",
                   help=f"new tables per client address per minute (default {d.tables_per_minute})")
    g.add_argument("--open-tables", type=int, default=d.open_tables, metavar="N",
                   help=f"tables held in memory at once, all clients (default {d.open_tables})")
    g.add_argument("--sockets-per-address", type=int, default=d.sockets_per_address,
                   metavar="N", help="WebSocket connections per client address "
                   f"(default {d.sockets_per_address})")
    g.add_argument("--messages-per-second", type=float, default=d.messages_per_second,
                   metavar="N", help="messages per WebSocket per second, sustained "
                   f"(default {d.messages_per_second:g}, bursts of {d.message_burst})")
    g.add_argument("--requests-per-second", type=float, default=d.requests_per_second,
                   metavar="N", help="HTTP requests per client address per second "
                   f"(default {d.requests_per_second:g}, bursts of {d.request_burst})")
    g.add_argument("--max-match-deals", type=int, default=d.max_match_deals, metavar="N",
                   help=f"longest match in deals (default {d.max_match_deals}); a match "
                   "played to a points target also ends there")
    g.add_argument("--idle-minutes", type=float, default=d.idle_seconds / 60, metavar="M",
                   help="a table nobody watches leaves memory after M minutes; it is loaded "
                   f"again on the next visit (default {d.idle_seconds / 60:g})")
    g.add_argument("--header-timeout", type=float, default=d.header_timeout,
                   metavar="SECONDS", help="drop a connection that has not sent its request "
                   f"in this time (default {d.header_timeout:g})")
    g.add_argument("--no-limits", action="store_true",
                   help="lift the per-address limits (tables, sockets, message and request "
                   "rates), e.g. for load benchmarks from one machine")
    g.add_argument("--trusted-proxy", action="append", default=[], metavar="ADDRESS",
                   help="a reverse proxy (address or network, repeatable) whose "
                   "X-Forwarded-For names the client; other clients' headers are ignored")
    g.add_argument("--allowed-origin", action="append", default=[], metavar="URL",
                   help="another origin whose pages may use this server (repeatable), e.g. "
                   "https://cards.example.org behind a proxy; the server's own is always allowed")
    g.add_argument("--allowed-host", action="append", default=[], metavar="NAME",
                   help="a host name the server answers to (repeatable; * for any); by default "
                   "the --host address, localhost and the hosts of --allowed-origin (IP "
                   "addresses always), so that a page elsewhere cannot reach it by DNS "
                   "rebinding; other names get 421")
    g.add_argument("--analyses-per-address", type=int, default=d.analyses_per_address,
                   metavar="N", help="analyses of finished deals queued or running at once "
                   f"for one client address (default {d.analyses_per_address})")
    g.add_argument("--quick-per-minute", type=int, default=d.quick_per_minute, metavar="N",
                   help=f"quick games per client address per minute (default {d.quick_per_minute})")


def run(args: argparse.Namespace) -> int:
    import asyncio

    import uvicorn

    from ..store import default_database_url, normalise_url
    from ..web.app import create_app
    from .common import CliError

    if args.log_format not in ("text", "json"):  # from RISTISEISKA_LOG_FORMAT
        raise CliError(f"the log format is text or json, not {args.log_format!r}")
    if args.log_format == "json":
        from ..ops.logs import configure

        configure("json")
    explicit = args.port is not None
    port = args.port if explicit else 8000
    if not 0 <= port <= 65535:
        raise CliError(f"--port must be 0..65535, not {port}")
    if not 0 <= args.bot_delay <= 60:
        raise CliError(f"--bot-delay must be 0..60 seconds, not {args.bot_delay}")
    if not 0 <= args.quick_wait <= 3600:
        raise CliError(f"--quick-wait must be 0..3600 seconds, not {args.quick_wait:g}")
    limits = _limits(args)
    if not 1 <= args.processes <= 64:
        raise CliError(f"--processes must be 1..64, not {args.processes}")
    url = normalise_url(args.database_url or default_database_url())
    if url.startswith("postgresql+psycopg"):
        try:
            import psycopg  # noqa: F401
        except ImportError as e:
            raise CliError("PostgreSQL needs psycopg: pip install 'ristiseiska[postgres]'") from e
    worker = args.process_index is not None
    shared = args.processes > 1 or worker
    if shared and url.startswith("sqlite") and not _sqlite_file(url):
        raise CliError("several processes cannot share an in-memory SQLite database: give "
                       "--database-url a file (sqlite:///path/games.db) or PostgreSQL")
    label = f"{args.process_index}:{os.getpid()}" if worker else None
    ladder = None
    if args.ladder:
        from ..ladder import LadderError
        from ..web.ladder_page import ladder_router

        try:
            ladder = ladder_router(args.ladder)
        except LadderError as e:
            raise CliError(f"--ladder {args.ladder}: {e}") from None
    daily = _daily_options(args)
    try:
        app = create_app(url, bot_delay=args.bot_delay, limits=limits, warm_bots=True,
                         say=lambda msg: print(msg, flush=True), process_label=label,
                         shared_database=shared, quick_wait=args.quick_wait,
                         durability=args.durability, daily=daily)
    except Exception as e:  # a malformed URL or a missing driver
        raise CliError(f"cannot use database {_safe(url)}: {_one_line(e)}") from None
    if ladder is not None:
        app.include_router(ladder)
    # The database is checked before the address is printed: a damaged, empty or read-only
    # file is one clear message and a non-zero exit, never a server that fails later.
    from ..store import StoreError

    try:
        notices = asyncio.run(_check_store(app))
    except StoreError as e:
        raise CliError(str(e)) from None
    import sys

    for notice in notices:  # e.g. a new, empty database: said loudly, naming the file
        print(f"ristiseiska: NOTE: {notice}", file=sys.stderr, flush=True)
    if args.processes > 1 and not worker:
        from ..web.processes import ProcessesError, run_processes

        try:
            return run_processes(args.processes, args.host, args.port, _worker_argv(args, url),
                                 args.nginx, _shown, _safe(url))
        except ProcessesError as e:
            raise CliError(str(e)) from None
    if args.listen_fd is not None:  # a process of `serve --processes`: the socket is given
        sock = socket.socket(fileno=args.listen_fd)
        _exit_with_parent()
    else:
        sock = _listen(args.host, port, tries=1 if explicit else 20)
    host, port = sock.getsockname()[:2]
    if args.listen_fd is None:
        host = args.host
    kept = "" if args.durability == "power-cut" else "; durability: crash"
    print(f"ristiseiska: {_shown(host, port)}  (database: {_safe(url)}{kept})", flush=True)
    # Frames up to 1 MiB reach the app, which answers anything over 4 KiB with an error (the
    # socket stays open); no per-message deflate: it costs more CPU than it saves here.
    from ..web.security import slow_client_protocol

    config = uvicorn.Config(app, log_level="warning", ws_max_size=1 << 20, lifespan="on",
                            ws_per_message_deflate=False, http=slow_client_protocol(
                                limits.header_timeout), timeout_keep_alive=5,
                            ws_ping_interval=20.0, ws_ping_timeout=20.0)
    if args.log_format == "json":  # uvicorn set up its loggers just now: through ours again
        from ..ops.logs import configure

        configure("json")
    server = uvicorn.Server(config)
    _serve_until_stopped(server, sock)
    return 0


class _Terminated(Exception):
    """SIGTERM, after uvicorn has stopped the server gracefully."""


def _serve_until_stopped(server: Any, sock: socket.socket) -> None:
    """Serve until stopped. uvicorn stops gracefully on SIGTERM (the app's lifespan stops its
    worker pools) and then raises the signal again, which by default would end the process
    before the interpreter's exit handlers free multiprocessing's semaphores (the resource
    tracker then warns of leaked ones). Here that second SIGTERM ends the process normally."""
    import asyncio
    import signal

    def terminated(_sig: int, _frame: object) -> None:
        raise _Terminated

    previous = signal.signal(signal.SIGTERM, terminated)
    try:
        with asyncio.Runner(loop_factory=loop_factory()) as runner:
            runner.run(server.serve(sockets=[sock]))
    except _Terminated:
        pass
    finally:
        signal.signal(signal.SIGTERM, previous)


def loop_factory() -> Any:
    """uvloop's event loop when it is installed (a dependency: it carries the sockets at a
    fraction of the CPU of the standard loop), else the standard one."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover - uvloop is a declared dependency on Linux/macOS
        return None
    return uvloop.new_event_loop


def _shown(host: str, port: int) -> str:
    return f"http://[{host}]:{port}/" if ":" in host else f"http://{host}:{port}/"


def _sqlite_file(url: str) -> bool:
    from ..store import sqlite_path

    return sqlite_path(url) is not None


def _worker_argv(args: argparse.Namespace, url: str) -> list[str]:
    """The options of one process of ``serve --processes``: the same database, pacing and
    limits; nginx on this machine is its trusted proxy (so each client keeps its own
    address for the per-address limits)."""
    out = ["--database-url", url, "--bot-delay", repr(args.bot_delay),
           "--log-format", args.log_format,
           "--quick-wait", repr(args.quick_wait), "--durability", args.durability,
           "--tables-per-minute", str(args.tables_per_minute),
           "--open-tables", str(args.open_tables),
           "--sockets-per-address", str(args.sockets_per_address),
           "--messages-per-second", repr(args.messages_per_second),
           "--requests-per-second", repr(args.requests_per_second),
           "--max-match-deals", str(args.max_match_deals),
           "--idle-minutes", repr(args.idle_minutes),
           "--header-timeout", repr(args.header_timeout),
           "--analyses-per-address", str(args.analyses_per_address),
           "--quick-per-minute", str(args.quick_per_minute),
           # the supervisor's address, so that each process accepts the same Host names
           "--host", args.host]
    if args.ladder:
        out += ["--ladder", os.path.abspath(args.ladder)]
    out += ["--daily-reference", args.daily_reference]  # issue 57
    if args.daily_secret_file:
        out += ["--daily-secret-file", os.path.abspath(args.daily_secret_file)]
    for name in args.allowed_host:
        out += ["--allowed-host", name]
    if args.no_limits:
        out.append("--no-limits")
    for proxy in [*args.trusted_proxy, "127.0.0.1"]:
        out += ["--trusted-proxy", proxy]
    for origin in args.allowed_origin:
        out += ["--allowed-origin", origin]
    return out


def _exit_with_parent() -> None:
    """A process of ``serve --processes`` stops when its supervisor is gone (elsewhere than
    Linux, where the supervisor asks the kernel for a signal, this thread notices)."""
    import signal
    import threading
    import time

    parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(1.0)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, daemon=True, name="ristiseiska-parent").start()


def _limits(args: argparse.Namespace) -> Any:
    from ..web.security import Limits, check_host, check_origin, check_proxy, default_hosts
    from .common import CliError

    for name, lo, hi in (("tables_per_minute", 1, 100_000), ("open_tables", 1, 1_000_000),
                         ("sockets_per_address", 1, 100_000),
                         ("messages_per_second", 0.1, 10_000), ("requests_per_second", 0.1, 100_000),
                         ("max_match_deals", 1, 1000), ("idle_minutes", 0.05, 10_000),
                         ("header_timeout", 0.5, 3600), ("analyses_per_address", 1, 1000),
                         ("quick_per_minute", 1, 100_000)):
        value = getattr(args, name)
        if not lo <= value <= hi:
            raise CliError(f"--{name.replace('_', '-')} must be {lo:g}..{hi:g}, not {value:g}")
    try:
        proxies = [check_proxy(p) for p in args.trusted_proxy]
        origins = [check_origin(o) for o in args.allowed_origin]
        hosts = [check_host(h) for h in args.allowed_host]
    except ValueError as e:
        raise CliError(str(e)) from None
    hosts += default_hosts(args.host, origins)
    return Limits(tables_per_minute=args.tables_per_minute, open_tables=args.open_tables,
                  sockets_per_address=args.sockets_per_address,
                  messages_per_second=args.messages_per_second,
                  message_burst=max(1, int(args.messages_per_second * 3)),
                  requests_per_second=args.requests_per_second,
                  request_burst=max(1, int(args.requests_per_second * 4)),
                  max_match_deals=args.max_match_deals, idle_seconds=args.idle_minutes * 60,
                  header_timeout=args.header_timeout, per_address=not args.no_limits,
                  trusted_proxies=proxies, allowed_origins=origins, allowed_hosts=hosts,
                  analyses_per_address=args.analyses_per_address,
                  quick_per_minute=args.quick_per_minute)


async def _check_store(app: Any) -> list[str]:
    """Check the database; what the operator should read about it (e.g. it starts empty)."""
    store = app.state.store
    try:
        await store.check()
    finally:
        await store.engine.dispose()
    return list(store.notices)


def _one_line(e: BaseException) -> str:
    return " ".join(str(e).split())[:200] or type(e).__name__


def _listen(host: str, port: int, tries: int) -> socket.socket:
    """A listening socket on ``port`` (or, without an explicit --port, the next free one)."""
    from .common import CliError

    last: OSError | None = None
    for p in range(port, port + tries):
        sock = socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET)
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind((host, p))
            sock.listen(2048)  # connections wait in the backlog until the app has started
            return sock
        except OSError as e:
            sock.close()
            last = e
    assert last is not None
    raise CliError(f"cannot listen on {host}:{port}: {last.strerror or last}")


def _safe(url: str) -> str:
    from ..store import shown_url

    return shown_url(url)


def _daily_options(args: argparse.Namespace) -> dict[str, Any]:
    """The daily deal's options for the app (issue 57; docs/daily.md, *On a server*)."""
    from ..bots import BOTS
    from .common import CliError

    level = args.daily_reference
    if level not in BOTS or level == "policy":
        raise CliError(f"--daily-reference: unknown bot level {level!r}; known: "
                       + ", ".join(b for b in BOTS if b != "policy"))
    out: dict[str, Any] = {"reference": level}
    if args.daily_secret_file:
        from pathlib import Path

        from .daily import load_secret

        out["secret"] = load_secret(Path(args.daily_secret_file))
    return out

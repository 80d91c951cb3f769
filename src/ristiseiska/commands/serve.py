"""``ristiseiska serve``: the web game for the browser, alone or with friends."""

from __future__ import annotations

import argparse
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


def run(args: argparse.Namespace) -> int:
    import asyncio

    import uvicorn

    from ..store import default_database_url, normalise_url
    from ..web.app import create_app
    from .common import CliError

    explicit = args.port is not None
    port = args.port if explicit else 8000
    if not 0 <= port <= 65535:
        raise CliError(f"--port must be 0..65535, not {port}")
    if not 0 <= args.bot_delay <= 60:
        raise CliError(f"--bot-delay must be 0..60 seconds, not {args.bot_delay}")
    limits = _limits(args)
    url = normalise_url(args.database_url or default_database_url())
    if url.startswith("postgresql+psycopg"):
        try:
            import psycopg  # noqa: F401
        except ImportError as e:
            raise CliError("PostgreSQL needs psycopg: pip install 'ristiseiska[postgres]'") from e
    try:
        app = create_app(url, bot_delay=args.bot_delay, limits=limits, warm_bots=True,
                         say=lambda msg: print(msg, flush=True))
    except Exception as e:  # a malformed URL or a missing driver
        raise CliError(f"cannot use database {_safe(url)}: {_one_line(e)}") from None
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
    sock = _listen(args.host, port, tries=1 if explicit else 20)
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"ristiseiska: http://{shown}:{port}/  (database: {_safe(url)})", flush=True)
    # Frames up to 1 MiB reach the app, which answers anything over 4 KiB with an error (the
    # socket stays open); no per-message deflate: it costs more CPU than it saves here.
    from ..web.security import slow_client_protocol

    config = uvicorn.Config(app, log_level="warning", ws_max_size=1 << 20, lifespan="on",
                            ws_per_message_deflate=False, http=slow_client_protocol(
                                limits.header_timeout), timeout_keep_alive=5,
                            ws_ping_interval=20.0, ws_ping_timeout=20.0)
    server = uvicorn.Server(config)
    asyncio.run(server.serve(sockets=[sock]))
    return 0


def _limits(args: argparse.Namespace) -> Any:
    from ..web.security import Limits, check_origin, check_proxy
    from .common import CliError

    for name, lo, hi in (("tables_per_minute", 1, 100_000), ("open_tables", 1, 1_000_000),
                         ("sockets_per_address", 1, 100_000),
                         ("messages_per_second", 0.1, 10_000), ("requests_per_second", 0.1, 100_000),
                         ("max_match_deals", 1, 1000), ("idle_minutes", 0.05, 10_000),
                         ("header_timeout", 0.5, 3600)):
        value = getattr(args, name)
        if not lo <= value <= hi:
            raise CliError(f"--{name.replace('_', '-')} must be {lo:g}..{hi:g}, not {value:g}")
    try:
        proxies = [check_proxy(p) for p in args.trusted_proxy]
        origins = [check_origin(o) for o in args.allowed_origin]
    except ValueError as e:
        raise CliError(str(e)) from None
    return Limits(tables_per_minute=args.tables_per_minute, open_tables=args.open_tables,
                  sockets_per_address=args.sockets_per_address,
                  messages_per_second=args.messages_per_second,
                  message_burst=max(1, int(args.messages_per_second * 3)),
                  requests_per_second=args.requests_per_second,
                  request_burst=max(1, int(args.requests_per_second * 4)),
                  max_match_deals=args.max_match_deals, idle_seconds=args.idle_minutes * 60,
                  header_timeout=args.header_timeout, per_address=not args.no_limits,
                  trusted_proxies=proxies, allowed_origins=origins)


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
    """The URL without a password."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        cred, host = rest.rsplit("@", 1)
        return f"{scheme}://{cred.split(':', 1)[0]}:***@{host}" if ":" in cred else url
    return url

"""``ristiseiska serve``: the web game for the browser, alone or with friends."""

from __future__ import annotations

import argparse
import socket

HELP = "play in the browser: start the web server (SQLite by default)"
DESCRIPTION = (
    "Start the web game. Open the printed address, create a table with friends and bots, and "
    "send the invite link to friends. Games are kept in a SQLite database in your data "
    "directory (or PostgreSQL with --database-url postgresql+psycopg://user@host/db) and "
    "continue after a restart."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=None,
                   help="port (default 8000, or the next free one after it; 0 picks any free one)")
    p.add_argument("--database-url", default=None,
                   help="SQLAlchemy URL; default: SQLite in the user data directory")
    p.add_argument("--bot-delay", type=float, default=0.8, metavar="SECONDS",
                   help="pause before each bot move so people can follow (default 0.8)")


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
    url = normalise_url(args.database_url or default_database_url())
    if url.startswith("postgresql+psycopg"):
        try:
            import psycopg  # noqa: F401
        except ImportError as e:
            raise CliError("PostgreSQL needs psycopg: pip install 'ristiseiska[postgres]'") from e
    try:
        app = create_app(url, bot_delay=args.bot_delay, warm_bots=True,
                         say=lambda msg: print(msg, flush=True))
    except Exception as e:  # a malformed URL or a missing driver
        raise CliError(f"cannot use database {args.database_url!r}: {e}") from e
    sock = _listen(args.host, port, tries=1 if explicit else 20)
    port = sock.getsockname()[1]
    shown = f"[{args.host}]" if ":" in args.host else args.host
    print(f"ristiseiska: http://{shown}:{port}/  (database: {_safe(url)})", flush=True)
    # Frames up to 1 MiB reach the app, which answers anything over 4 KiB with an error (the
    # socket stays open); no per-message deflate: it costs more CPU than it saves here.
    config = uvicorn.Config(app, log_level="warning", ws_max_size=1 << 20, lifespan="on",
                            ws_per_message_deflate=False)
    server = uvicorn.Server(config)
    asyncio.run(server.serve(sockets=[sock]))
    return 0


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

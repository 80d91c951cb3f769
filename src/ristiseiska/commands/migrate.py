"""``ristiseiska migrate``: bring a database's schema to this version by hand, or only say
where it stands (``serve`` does the same upgrade at every start; docs/hosting.md)."""

from __future__ import annotations

import argparse
import asyncio

HELP = "upgrade the database's tables to this version (serve does it at start)"
DESCRIPTION = (
    "Upgrade the database to the newest schema revision, as `serve` does at start: a SQLite "
    "file is copied beside it first (FILE.before-REVISION.bak); a database newer than this "
    "version is refused. With --status only print its revision and the newest one."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--database-url", default=None,
                   help="the database (default: SQLite in your data directory)")
    p.add_argument("--status", action="store_true",
                   help="print the database's revision and this version's newest; change nothing")


async def _status(store: object) -> str | None:
    from ..store import migrate as migrations

    async with store.engine.connect() as conn:  # type: ignore[attr-defined]
        return await conn.run_sync(migrations.current)  # type: ignore[no-any-return]


def run(args: argparse.Namespace) -> int:
    from ..store import Store, StoreError, describe_error, shown_url
    from ..store import migrate as migrations
    from .common import CliError

    try:
        store = Store(args.database_url)
    except Exception as e:  # a malformed URL or a missing driver
        raise CliError(f"cannot use the database: {' '.join(str(e).split())[:200]}") from None

    async def go() -> str:
        try:
            if args.status:
                now = await _status(store)
                return (f"{shown_url(store.url)}: revision {now or 'none'}; this version's "
                        f"newest is {migrations.head()}")
            done = await store.migrate()
            if not done.changed:
                return f"{shown_url(store.url)}: already at revision {done.after}"
            copy = f"; its copy from before is {done.backup}" if done.backup else ""
            was = done.before or (f"{done.legacy} (made before migrations)" if done.legacy
                                  else "none")
            return f"{shown_url(store.url)}: upgraded from revision {was} to {done.after}{copy}"
        except StoreError:
            raise
        except Exception as e:  # noqa: BLE001 - every driver error becomes one sentence
            raise StoreError(describe_error(e, store.url)) from None
        finally:
            await store.engine.dispose()

    try:
        print(asyncio.run(go()))
    except StoreError as e:
        raise CliError(str(e)) from None
    return 0

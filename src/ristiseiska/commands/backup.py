"""``ristiseiska backup``: a consistent copy of the web server's database, also while it runs."""

from __future__ import annotations

import argparse
from pathlib import Path

HELP = "back up the web server's database (also while it runs)"
DESCRIPTION = (
    "Copy the web server's database to OUT. SQLite: a consistent copy through SQLite's online "
    "backup API, safe while the server runs. PostgreSQL: pg_dump's custom format (pg_dump must "
    "be installed). Restore it with `ristiseiska restore`."
)


def add_database(p: argparse.ArgumentParser) -> None:
    p.add_argument("--database-url", "--db", dest="database_url", default=None, metavar="URL",
                   help="the server's database (default: its SQLite file in the user data "
                   "directory, as for serve)")
    p.add_argument("--force", action="store_true", help="replace an existing file")


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_database(p)
    p.add_argument("out", metavar="OUT", help="the backup file to write")


def run(args: argparse.Namespace) -> int:
    from ..ops.backup import BackupError, backup
    from ..store import default_database_url
    from .common import CliError

    url = args.database_url or default_database_url()
    try:
        s = backup(url, Path(args.out), force=args.force)
    except BackupError as e:
        raise CliError(str(e)) from None
    if s.tables >= 0:
        print(f"ristiseiska: backed up {s.tables} tables and {s.moves} moves to {args.out}")
    else:
        print(f"ristiseiska: pg_dump wrote {args.out}")
    return 0

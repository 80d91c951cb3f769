"""``ristiseiska restore``: put a backup back as the web server's database."""

from __future__ import annotations

import argparse
from pathlib import Path

from .backup import add_database

HELP = "restore the web server's database from a backup (with the server stopped)"
DESCRIPTION = (
    "Check that BACKUP is a sound ristiseiska database, then make it the server's SQLite "
    "database. An existing database is replaced only with --force, and one that a running "
    "server has open is refused unless --force. For PostgreSQL this prints the pg_restore "
    "command to run."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    add_database(p)
    p.add_argument("backup", metavar="BACKUP", help="the backup file to restore")


def run(args: argparse.Namespace) -> int:
    from ..ops.backup import BackupError, restore
    from ..store import default_database_url
    from .common import CliError

    url = args.database_url or default_database_url()
    try:
        s = restore(url, Path(args.backup), force=args.force)
    except BackupError as e:
        raise CliError(str(e)) from None
    print(f"ristiseiska: restored {s.tables} tables and {s.moves} moves from {args.backup}")
    return 0

"""The database's schema by Alembic revisions (store/migrations/): a new database is made by
running them all, an older one is upgraded, and one newer than this code is refused.

Every revision creates only what the database lacks, so a database made before migrations
(by ``create_all`` and hand-written ``ALTER TABLE``s, no ``alembic_version``) or one that lost
its version table is recognised, stamped at the revision its tables match and upgraded from
there. The whole upgrade, the version stamp included, is one transaction under a lock, so
several processes starting together on a new database never create a table twice: on
PostgreSQL a transaction-level advisory lock, on SQLite the database's write lock (``BEGIN
IMMEDIATE``). Before a SQLite file that holds tables is upgraded, a copy of it is written
beside it (``<file>.before-<revision>.bak``).
"""

from __future__ import annotations

import functools
import logging
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection

from .errors import StoreError

log = logging.getLogger("ristiseiska.store")

SCRIPTS = Path(__file__).with_name("migrations")
# pg_advisory_xact_lock's key: the same in every process of every version ("rs-m")
LOCK_KEY = 0x72732D6D

# the tables the first revision makes: a database with all of them predates migrations
FIRST_TABLES = ("rs_tables", "rs_seats", "rs_deals", "rs_moves", "rs_table_state", "rs_open",
                "rs_owner", "rs_rates", "rs_clock", "rs_clock_timeouts", "rs_forced_moves")
# (and rs_analyses, which the old code made on first use: a database may lack it)


class NewerDatabase(StoreError):
    """The database is at a revision this code does not know (a newer ristiseiska made it)."""


@dataclass
class Upgrade:
    """What :func:`upgrade` did: the revision before (``None``: a new database), after, the
    revision a database from before migrations was recognised as, and the backup copy."""

    before: str | None
    after: str
    legacy: str | None = None
    backup: Path | None = None

    @property
    def changed(self) -> bool:
        return self.before != self.after


def _config(connection: Connection | None = None) -> Any:
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(SCRIPTS))
    cfg.attributes["connection"] = connection
    return cfg


@functools.cache
def _script() -> Any:
    from alembic.script import ScriptDirectory

    return ScriptDirectory.from_config(_config())


def head() -> str:
    """The newest revision this code knows."""
    return str(_script().get_current_head())


def known() -> list[str]:
    """Every revision this code knows, oldest first."""
    return [str(s.revision) for s in reversed(list(_script().walk_revisions()))]


def current(conn: Connection) -> str | None:
    """The database's revision (``None``: no ``alembic_version`` table or no row in it)."""
    if not inspect(conn).has_table("alembic_version"):
        return None
    row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
    return None if row is None else str(row[0])


def legacy_revision(conn: Connection) -> str | None:
    """The revision a database without a version matches: ``None`` when it lacks some of the
    first tables (every revision then runs; each creates only what is missing)."""
    names = set(inspect(conn).get_table_names())
    if not set(FIRST_TABLES) <= names:
        return None
    cols = {c["name"] for c in inspect(conn).get_columns("rs_moves")}
    return "0002" if {"epoch", "move_id"} <= cols else "0001"


def _lock(conn: Connection) -> None:
    """Serialise upgrades: until this transaction ends no other process upgrades."""
    if conn.dialect.name == "postgresql":
        conn.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": LOCK_KEY})
    elif conn.dialect.name == "sqlite":
        # Python's sqlite3 would leave DDL outside any transaction: begin one that holds the
        # write lock now (in a shared store, every transaction already begins so)
        if not conn.connection.driver_connection.in_transaction:  # type: ignore[union-attr]
            conn.exec_driver_sql("BEGIN IMMEDIATE")


def backup_sqlite(path: Path, revision: str) -> Path:
    """Copy the SQLite database ``path`` (consistently, by SQLite's backup) beside it as
    ``<file>.before-<revision>.bak``; an older copy of that name is kept (``.bak.1``...)."""
    target = path.with_name(f"{path.name}.before-{revision}.bak")
    n = 0
    while target.exists():
        n += 1
        target = path.with_name(f"{path.name}.before-{revision}.bak.{n}")
    src = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    finally:
        src.close()
    return target


def upgrade(conn: Connection, file: Path | None = None,
            on_upgrade: Callable[[Upgrade], None] | None = None) -> Upgrade:
    """Bring the database of ``conn`` (a connection inside a transaction, which the caller
    commits) to :func:`head`. ``file``: the SQLite file, copied before an existing database is
    changed. Raises :class:`NewerDatabase` for a revision this code does not know."""
    target = head()
    before = current(conn)
    if before == target:
        return Upgrade(before, target)
    _lock(conn)
    before = current(conn)  # another process may have upgraded while this one waited
    if before == target:
        return Upgrade(before, target)
    if before is not None and before not in known():
        raise NewerDatabase(
            f"the database is at revision {before}, which this ristiseiska does not know (it "
            f"knows up to {target}): a newer version made it; run that version, or restore "
            "the backup copy made before its upgrade")
    from alembic import command
    from alembic.runtime.migration import MigrationContext

    legacy = None
    if before is None:
        legacy = legacy_revision(conn)
    holds = bool(set(inspect(conn).get_table_names()) & set(FIRST_TABLES))
    copy = backup_sqlite(file, target) if file is not None and holds else None
    if legacy is not None:
        MigrationContext.configure(conn).stamp(_script(), legacy)
    command.upgrade(_config(conn), target)
    done = Upgrade(before, target, legacy, copy)
    if holds:
        log.info("upgraded the database from revision %s to %s%s",
                    before or f"{legacy or 'none'} (made before migrations)", target,
                    f"; its copy from before is {copy}" if copy else "")
    if on_upgrade is not None:
        on_upgrade(done)
    return done

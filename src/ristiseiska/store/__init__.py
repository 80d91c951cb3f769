"""Persistence for the web server: tables, seats, deals and the moves of every deal.

The store keeps only what is needed to rebuild every table exactly by replaying: the table's
configuration (rules, seats, match seed), which deals were started, every accepted move in
order, and what the host decided that no move shows (an early start, the stand-in bots).
SQLite (the default, in the user's data directory) and PostgreSQL (``postgresql+psycopg://``)
run the same code through SQLAlchemy's async engine.

A SQLite file that changes under the running server (deleted, replaced, truncated or
overwritten, also only past its header) is noticed before the next write is acknowledged: the
store then refuses every write with :class:`StorageFault` until a restart (docs/hosting.md,
*Safe for strangers*). In write-ahead-log mode only a checkpoint writes the database file itself, so a
file written since the last checkpoint (one of ours, or one another process vouched for in
``<file>.checkpoint``) has its pages checked (``PRAGMA quick_check``) before the next ack. A small ledger beside
the file (``<file>.ledger``) remembers which database it was and how many tables it held, so
that a restart refuses a database that lost tables instead of starting silently empty.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import os
import secrets
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import (
    ForeignKey,
    Integer,
    String,
    Text,
    delete,
    event,
    func,
    inspect,
    select,
    update,
)
from sqlalchemy import insert as sa_insert
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

from ..aio import Outbox, sleep_on


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "rs_tables"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    created: Mapped[float] = mapped_column()
    config: Mapped[str] = mapped_column(Text)  # JSON: rules, preset, seats, seed
    finished: Mapped[bool] = mapped_column(default=False)


class SeatRow(Base):
    __tablename__ = "rs_seats"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str | None] = mapped_column(String(128), nullable=True)


class DealRow(Base):
    __tablename__ = "rs_deals"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    started: Mapped[float] = mapped_column()


class MoveRow(Base):
    __tablename__ = "rs_moves"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    move: Mapped[str] = mapped_column(String(32))
    # the fencing number of the owner that wrote it (rs_owner); NULL where nobody holds
    # tables (one process on SQLite) and in rows from before ownership was kept
    epoch: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # the player's move id (JSON), so that a move sent again after a failover is not played
    # twice (the new owner knows what the old one acknowledged)
    move_id: Mapped[str | None] = mapped_column(Text, nullable=True)


class TableStateRow(Base):
    """What the host decided that no move shows: the table was started before every friend
    came, and which friend seats a stand-in bot plays. A table of its own, so that
    ``create_all`` adds it to an older database; a table without a row is as it always was."""

    __tablename__ = "rs_table_state"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    started: Mapped[bool] = mapped_column(default=False)
    standins: Mapped[str] = mapped_column(Text, default="[]")  # JSON: seat numbers


class OpenRow(Base):
    """A table its host listed in the lobby (issue 20: ``"open": true``), with its creation
    time, so that the lobby's index is rebuilt at start-up without reading every table's
    configuration. A table of its own: ``create_all`` adds it to an older database."""

    __tablename__ = "rs_open"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    created: Mapped[float] = mapped_column(index=True)
class OwnerRow(Base):
    """Which server process owns a table now (docs/hosting.md, *Several machines*): a
    compare-and-set row whose ``epoch`` (a fencing number) grows by one at every takeover. A
    move or a deal is stored only in a transaction that finds the row still at the writer's
    epoch (PostgreSQL: under a share lock on the row, so a takeover waits for a write in
    flight and a write after a takeover is refused)."""

    __tablename__ = "rs_owner"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    owner: Mapped[str] = mapped_column(String(128))
    epoch: Mapped[int] = mapped_column(Integer)
    taken: Mapped[float] = mapped_column()  # Unix time of the takeover


class RateRow(Base):
    """A per-address token bucket every server process shares (``serve --processes``, several
    machines): ``key`` is the limit and the client address."""

    __tablename__ = "rs_rates"
    key: Mapped[str] = mapped_column(String(160), primary_key=True)
    tokens: Mapped[float] = mapped_column()
    at: Mapped[float] = mapped_column(index=True)  # Unix time of ``tokens``


class ClockRow(Base):
    """The turn clock of a table (web/clock.py, issue 20): the turn it last timed, the time
    left on it then, each seat's timeouts in a row and the seats its stand-in keeps. A table
    of its own (``create_all`` adds it to an older database); no row: no clock has run."""

    __tablename__ = "rs_clock"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    state: Mapped[str] = mapped_column(Text, default="{}")  # JSON, see web/clock.py


class TimeoutRow(Base):
    """A move the clock's stand-in made when a player's time ran out (its history event is
    marked ``"timeout": true``)."""

    __tablename__ = "rs_clock_timeouts"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)


class ForcedRow(Base):
    """A forced move the server made for a person after the pause (web/forced.py, issue 52;
    its history event is marked ``"auto": true``). A table of its own: ``create_all`` adds it
    to an older database."""

    __tablename__ = "rs_forced_moves"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)


@dataclass
class StoredTable:
    """Everything stored about one table, enough to rebuild it."""

    id: str
    config: dict[str, Any]
    finished: bool
    seat_names: dict[int, str] = field(default_factory=dict)
    token_hashes: dict[int, str | None] = field(default_factory=dict)
    deals: int = 0
    moves: dict[int, list[str]] = field(default_factory=dict)  # deal -> move texts in order
    move_ids: list[tuple[int, str, str]] = field(default_factory=list)  # (seat, id JSON, move)
    started: bool = False  # the host started it early (rs_table_state)
    standins: list[int] = field(default_factory=list)  # seats a stand-in bot plays
    clock: dict[str, Any] | None = None  # the turn clock's state (rs_clock)
    timeouts: list[tuple[int, int]] = field(default_factory=list)  # (deal, ply) by the clock
    forced: list[tuple[int, int]] = field(default_factory=list)  # (deal, ply) made for a person


class StoreError(Exception):
    """The database cannot be used; the message says why in one sentence."""


class Fenced(StoreError):
    """Another server process has taken the table over (its fencing number is newer): this
    process's write was refused and its copy of the table is stale."""


class StorageFault(StoreError):
    """The database file changed under the running server (deleted, replaced, truncated or
    overwritten): nothing more is stored or acknowledged until the server is restarted."""


log = logging.getLogger("ristiseiska.store")

SQLITE_MAGIC = b"SQLite format 3\x00"
# Written into the SQLite header (``PRAGMA application_id``): this is a ristiseiska database.
# ``PRAGMA user_version`` holds a random number naming this one database (its ledger too).
APPLICATION_ID = 0x52533139
COMMIT_WINDOW = 0.025  # seconds; see Store._write_moves


# Seconds between the move writer's checkpoints, at most (see Store._after_commit).
CHECKPOINT_EVERY = 1.0

# PostgreSQL: milliseconds a session may sit inside a transaction doing nothing (see Store).
IDLE_IN_TRANSACTION_MS = 5000

# What an acknowledged move survives (``serve --durability``; see :class:`Store`).
DURABILITY: tuple[str, ...] = ("power-cut", "crash")


def _fence(rows: list[dict[str, Any]],
           owners: Callable[[list[str]], dict[str, int]]) -> set[int]:
    """The ``id()`` of the rows whose table is no longer at the row's epoch (``owners`` reads
    the current epochs of the tables it is given, inside the writing transaction)."""
    ids = sorted({r["table_id"] for r in rows if r.get("epoch") is not None})
    if not ids:
        return set()
    now = owners(ids)
    return {id(r) for r in rows if r.get("epoch") is not None and now.get(r["table_id"])
            != r["epoch"]}


def _settle(fut: asyncio.Future[None], row: dict[str, Any], refused: set[int]) -> None:
    if id(row) in refused:
        fut.set_exception(Fenced(f"table {row['table_id']} was taken over by another server "
                                 "process"))
    else:
        fut.set_result(None)


def ledger_path(path: Path) -> Path:
    """The ledger kept beside a SQLite database file."""
    return path.with_name(path.name + ".ledger")


def read_ledger(path: Path) -> dict[str, Any] | None:
    """The ledger beside ``path`` (``None`` when there is none or it cannot be read)."""
    try:
        data = json.loads(ledger_path(path).read_text("utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _header_ids(head: bytes) -> tuple[int, int]:
    """(user_version, application_id) from a SQLite file's first 100 bytes."""
    return int.from_bytes(head[60:64], "big"), int.from_bytes(head[68:72], "big")


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (``None`` for other databases and in-memory SQLite)."""
    if not url.startswith("sqlite"):
        return None
    rest = url.split(":///", 1)[1] if ":///" in url else ""
    rest = rest.split("?", 1)[0]
    if rest.startswith("file:"):
        rest = rest[5:]
    return Path(rest) if rest and rest != ":memory:" else None


def describe_error(e: BaseException, url: str) -> str:
    """A driver's exception as one sentence (no traceback, no password)."""
    text = " ".join(str(getattr(e, "orig", None) or e).split())
    low = text.lower()
    where = sqlite_path(url) or "the database"
    if "file is not a database" in low or "malformed" in low or "corrupt" in low:
        return (f"{where} is damaged or not a SQLite database ({text[:100]}); restore it from "
                "a backup or start with another --database-url")
    if "readonly" in low or "read-only" in low:
        return f"{where} is read-only: the server must be able to write its games"
    if "unable to open" in low:
        return f"cannot open {where}: check that its directory exists and is writable"
    return f"cannot use {where}: {type(e).__name__}: {text[:200]}"


def default_database_url() -> str:
    import platformdirs

    path = Path(platformdirs.user_data_dir("ristiseiska", appauthor=False))
    path.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{path / 'ristiseiska.sqlite3'}"


def normalise_url(url: str) -> str:
    """Accept the plain forms too (``sqlite:///x``, ``postgresql://``) and pick async drivers."""
    if url.startswith("sqlite:///") or url == "sqlite://":
        return "sqlite+aiosqlite" + url[len("sqlite"):]
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def shown_url(url: str) -> str:
    """The URL as it may be printed: the user name kept, a password masked.

    >>> shown_url("postgresql+psycopg://anna:secret@db.example/rs")
    'postgresql+psycopg://anna:***@db.example/rs'
    """
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        cred, host = rest.rsplit("@", 1)
        return f"{scheme}://{cred.split(':', 1)[0]}:***@{host}" if ":" in cred else url
    return url


def checkpoint_path(path: Path) -> Path:
    """Where the last checkpoint of a SQLite database notes the file it left (for the other
    processes sharing it): ``<file>.checkpoint``."""
    return path.with_name(path.name + ".checkpoint")


_CORRUPT = ("malformed", "not a database", "corrupt")


def corruption(e: BaseException) -> bool:
    """SQLite says a page of the database is damaged (directly or through SQLAlchemy)."""
    text = str(getattr(e, "orig", None) or e).lower()
    return any(word in text for word in _CORRUPT)


def _checkpoint(path: Path) -> None:
    """Copy what the write-ahead log holds into the database file, never waiting for a lock.
    Opened read-write only: a file that has gone is never created anew here."""
    conn = sqlite3.connect(f"{path.resolve().as_uri().replace('file://', 'file:', 1)}?mode=rw",
                           uri=True, timeout=30, isolation_level=None)
    try:
        conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
    finally:
        conn.close()


def _add_columns(conn: Any) -> None:
    """Columns later versions added to an existing table (``create_all`` adds only tables)."""
    have = {c["name"] for c in inspect(conn).get_columns("rs_moves")}
    if "epoch" not in have:
        conn.exec_driver_sql("ALTER TABLE rs_moves ADD COLUMN epoch INTEGER")
    if "move_id" not in have:
        conn.exec_driver_sql("ALTER TABLE rs_moves ADD COLUMN move_id TEXT")


class Store:
    """The repository the web app uses. Every write is committed before it returns."""

    def __init__(self, url: str | None = None, shared: bool = False,
                 durability: str = "power-cut") -> None:
        """``durability`` (:data:`DURABILITY`): what an acknowledged move survives.
        ``power-cut`` (the default): each commit waits for the disk's fsync, so a move is
        kept across a power cut or an OS crash. ``crash``: each commit waits only for the
        operating system to have the data (SQLite ``synchronous=NORMAL`` in WAL mode;
        PostgreSQL ``synchronous_commit=off``), so a move survives the server's crash or kill
        but the last moments before a power cut may be lost; a disk whose fsync stalls then
        no longer holds up the moves in flight.

        ``shared``: other server processes use the same database (``serve --processes``).
        With SQLite every transaction then takes the write lock as it begins (``BEGIN
        IMMEDIATE``, waiting up to the busy timeout): Python's sqlite3 would start it only at
        the first write, leaving a read-then-write (claiming a seat) open to another process
        in between (both could take the same seat)."""
        if durability not in DURABILITY:
            raise ValueError(f"durability must be one of {', '.join(DURABILITY)}, "
                             f"not {durability!r}")
        self.durability = durability
        self._sync = sync = "FULL" if durability == "power-cut" else "NORMAL"
        self.url = normalise_url(url or default_database_url())
        kwargs: dict[str, Any] = {}
        if self.url.startswith("sqlite"):
            # one writer; WAL makes each commit cheap while staying durable across a crash
            kwargs["connect_args"] = {"timeout": 30}
        elif self.url.startswith("postgresql"):
            # A process paused (or cut off) inside a transaction would hold its row locks
            # (a table's owner row among them) for as long as it is paused: PostgreSQL ends
            # such a session after IDLE_IN_TRANSACTION, so another process can take the
            # table over; its late commit then fails and nothing of it is acknowledged.
            options = f"-c idle_in_transaction_session_timeout={IDLE_IN_TRANSACTION_MS}"
            if durability == "crash":
                options += " -c synchronous_commit=off"
            kwargs["connect_args"] = {"options": options}
        self.engine: AsyncEngine = create_async_engine(self.url, **kwargs)
        if self.url.startswith("sqlite"):
            @event.listens_for(self.engine.sync_engine, "connect")
            def _pragmas(dbapi_conn: Any, _rec: Any) -> None:
                cur = dbapi_conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute(f"PRAGMA synchronous={sync}")  # what an ack means: durability
                if self._direct is not None:  # checkpoints run on their own thread (below)
                    cur.execute("PRAGMA wal_autocheckpoint=0")
                cur.execute("PRAGMA foreign_keys=ON")
                cur.close()
                if shared:
                    dbapi_conn.isolation_level = None  # we say BEGIN ourselves, below

            if shared:
                @event.listens_for(self.engine.sync_engine, "begin")
                def _begin(conn: Any) -> None:
                    conn.exec_driver_sql("BEGIN IMMEDIATE")
        self.session = async_sessionmaker(self.engine, expire_on_commit=False)
        # SQLite: moves are written by one thread with its own connection, a whole batch in a
        # single call (one thread hand-off per batch instead of several per statement, which
        # is what a move's round trip waits for on a busy machine)
        self._direct = sqlite_path(self.url) if "?" not in self.url else None
        self._direct_conn: sqlite3.Connection | None = None
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        # SQLite would copy the write-ahead log into the file inside whichever commit crosses
        # 1,000 pages, fsyncing twice there: a move's ack would wait for that. Instead one
        # thread of its own checkpoints (PASSIVE: it never blocks a writer) at most every
        # CHECKPOINT_EVERY seconds after commits.
        self._checkpointer: concurrent.futures.ThreadPoolExecutor | None = None
        self._checkpoint_due = 0.0
        self._checkpoint_busy = False
        self._moves: Outbox | None = None  # of (row, future) pairs
        self._writer: asyncio.Task[None] | None = None
        # seconds a batch of moves waits for more while the server is busy (group commit)
        self.commit_window = COMMIT_WINDOW
        # Watching the SQLite file (see verify): its identity when opened, the largest size
        # seen (a SQLite file never shrinks here: no VACUUM), the header ids it may show.
        self.file = sqlite_path(self.url)
        self._ident: tuple[int, int] | None = None
        self._fd: int | None = None  # the file, for reading its header (see _arm)
        self._size = 0
        self._stamp: tuple[int, int] | None = None  # (size, mtime) when last found sound
        self._ids: tuple[set[int], set[int]] = (set(), set())
        self.db_id = 0
        self._checkpointing = 0  # our own checkpoints running (they write the file)
        self._look = threading.Lock()  # one look at the file's pages at a time
        self.deep_checks = 0  # pages checked after the file changed (see _probe)
        self.fault: str | None = None  # set once, on the first fault noticed
        self.on_fault: list[Callable[[str], None]] = []  # told once, on the event loop
        self._told = False
        self.notices: list[str] = []  # what the operator should read at start-up
        # Several processes (or machines) may load one table: each table then has an owner
        # (rs_owner) and every move and deal is written under its fencing number.
        self.fencing = shared or self.url.startswith("postgresql")
        self.owner_id = f"{socket.gethostname()[:64]}:{os.getpid()}:{secrets.token_hex(4)}"

    async def init(self) -> None:
        """Create the tables, and for a SQLite file: check it against its ledger (a database
        that lost tables, or another one, is refused) and start watching it."""
        self._check_ledger_before_open()
        existed = self.file is not None and self.file.exists()
        async with self.engine.begin() as conn:
            await conn.run_sync(Base.metadata.create_all)
            await conn.run_sync(_add_columns)
        if self.file is not None:
            await self._arm(existed)

    def _check_ledger_before_open(self) -> None:
        """A database file that is gone although its ledger says it held tables: refuse to
        create a new empty one in its place."""
        if self.file is None or self.file.exists():
            return
        led = read_ledger(self.file)
        if led and int(led.get("tables") or 0) > 0:
            raise StoreError(
                f"{self.file} is missing, but its ledger {ledger_path(self.file)} says it held "
                f"{int(led['tables'])} tables: restore the database from a backup, or remove the "
                "ledger to start with an empty database")

    async def _arm(self, existed: bool) -> None:
        """Give the database its ids (once), compare it with its ledger, then note the file's
        identity, size and header for :meth:`verify`."""
        assert self.file is not None
        async with self.engine.begin() as conn:
            uv = int((await conn.exec_driver_sql("PRAGMA user_version")).scalar() or 0)
            app = int((await conn.exec_driver_sql("PRAGMA application_id")).scalar() or 0)
            if uv == 0:
                uv = secrets.randbelow(2**31 - 2) + 1
                await conn.exec_driver_sql(f"PRAGMA user_version = {uv}")
            if app != APPLICATION_ID:
                await conn.exec_driver_sql(f"PRAGMA application_id = {APPLICATION_ID}")
            count = int((await conn.exec_driver_sql("SELECT count(*) FROM rs_tables")).scalar()
                        or 0)
        # the ids reach the file itself, where verify() reads them; on a connection of its
        # own, outside any transaction (a shared store begins every transaction at once, and
        # a checkpoint inside one fails with "database table is locked")
        await asyncio.to_thread(_checkpoint, self.file)
        self.db_id = uv
        led = read_ledger(self.file)
        if led is not None:
            had, lid = int(led.get("tables") or 0), int(led.get("id") or 0)
            if lid and lid != uv and had > 0:
                raise StoreError(
                    f"{self.file} is not the database this server kept its games in (its "
                    f"ledger {ledger_path(self.file)} names another one with {had} tables): "
                    "restore the right file, or remove the ledger to use this one")
            if count < had:
                raise StoreError(
                    f"{self.file} holds {count} tables, but its ledger "
                    f"{ledger_path(self.file)} says it held {had}: tables were lost; restore "
                    "the database from a backup, or remove the ledger to go on with this one")
        elif not existed:
            self.notices.append(f"no database at {self.file}: starting with a new, empty one")
        elif count == 0:
            self.notices.append(f"the database {self.file} holds no tables yet")
        self._write_ledger(count)
        # The header is read through one descriptor kept open for the store's life: closing
        # any descriptor of the file would drop every POSIX lock this process holds on it
        # (SQLite's among them), and another process closing its last connection could then
        # delete the write-ahead log under this one's feet, with every write since.
        st = os.stat(self.file)
        if self._fd is not None:
            kept = os.fstat(self._fd)
            if (kept.st_dev, kept.st_ino) != (st.st_dev, st.st_ino):
                os.close(self._fd)  # another file (its locks are not this file's)
                self._fd = None
        if self._fd is None:
            self._fd = os.open(self.file, os.O_RDONLY)
            st = os.fstat(self._fd)
        self._ident = (st.st_dev, st.st_ino)
        self._size = st.st_size
        disk_uv, disk_app = _header_ids(os.pread(self._fd, 100, 0))
        self._ids = ({disk_uv, uv}, {disk_app, APPLICATION_ID})

    def _write_ledger(self, tables: int) -> None:
        """Note (atomically) this database's id and its number of tables beside it."""
        if self.file is None or not self.db_id:
            return
        led = read_ledger(self.file) or {}
        if int(led.get("id") or 0) == self.db_id:
            tables = max(tables, int(led.get("tables") or 0))
        path = ledger_path(self.file)
        tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps({"database": str(self.file), "id": self.db_id,
                                       "tables": tables, "updated": time.time()}) + "\n",
                           "utf-8")
            os.replace(tmp, path)
        except OSError as e:
            log.warning("cannot write the ledger %s: %s", path, e)
            with contextlib.suppress(OSError):
                tmp.unlink()

    def _probe(self) -> str | None:
        """What is wrong with the database file now (``None``: it is the file opened, whole):
        its identity (device, inode), a size never smaller than seen, and its header (SQLite's
        magic text, this database's ids)."""
        path = self.file
        assert path is not None
        try:
            st = os.stat(path)
            if (st.st_dev, st.st_ino) != self._ident:
                return f"{path} was replaced by another file while the server ran"
            if st.st_size < self._size:
                return (f"{path} was truncated while the server ran ({st.st_size} bytes, "
                        f"it had {self._size})")
            stamp = (st.st_size, st.st_mtime_ns)
            if stamp == self._stamp:
                return None  # not written since it was last found sound
            assert self._fd is not None  # the same file as the one opened (its identity)
            head = os.pread(self._fd, 100, 0)
        except FileNotFoundError:
            return f"{path} was deleted while the server ran"
        except OSError as e:
            return f"{path} cannot be read any more ({e.strerror or e})"
        if len(head) < 100 or head[:16] != SQLITE_MAGIC:
            return f"{path} was overwritten while the server ran: it is no longer a SQLite file"
        uv, app = _header_ids(head)
        if uv not in self._ids[0] or app not in self._ids[1]:
            return f"{path} was overwritten with another database while the server ran"
        # (The page count in the header is not compared with the size: a checkpoint writes
        # page 1 before the pages that make the file longer, so a look taken meanwhile would
        # cry wolf. A SQLite file here never shrinks, which catches a truncation.)
        self._size = st.st_size
        if self._checkpointing:
            return None  # our checkpoint is writing it: it notes the file it leaves (below)
        if stamp != self._vouched(st):
            # Written, and not by a checkpoint we know of: bytes past the header may be
            # damaged (SQLite would say so only when it reads a damaged page, maybe after a
            # restart that then refuses the file). Check every page before the next ack.
            problem = self._pages_damaged()
            if problem is not None:
                return problem
        self._stamp = stamp
        return None

    def _vouched(self, st: os.stat_result) -> tuple[int, int] | None:
        """The file as the last checkpoint left it, by its note (another process's, too)."""
        assert self.file is not None
        try:
            ino, size, mtime = checkpoint_path(self.file).read_text("ascii").split()
        except (OSError, ValueError):
            return None
        return (int(size), int(mtime)) if int(ino) == st.st_ino else None

    def _pages_damaged(self) -> str | None:
        """``PRAGMA quick_check`` of every page, on a connection of its own (nothing cached,
        read-only): what is wrong, or ``None``."""
        path = self.file
        assert path is not None
        with self._look:
            self.deep_checks += 1
            try:
                conn = sqlite3.connect(
                    f"{path.resolve().as_uri().replace('file://', 'file:', 1)}?mode=ro",
                    uri=True, timeout=30, isolation_level=None)
                try:
                    rows = conn.execute("PRAGMA quick_check").fetchall()
                finally:
                    conn.close()
            except sqlite3.Error as e:
                if not corruption(e):
                    return None  # busy or the like: the next look checks again
                rows = [(str(e),)]
        problems = [" ".join(str(r[0]).replace("***", " ").split()) for r in rows
                    if r[0] != "ok"]
        if problems:
            return (f"{path} was damaged while the server ran: its pages fail SQLite's check "
                    f"({problems[0][:120]})")
        return None

    def _fail(self, problem: str) -> StorageFault:
        """Note the first fault, say it in the operator's log; the exception to raise."""
        if self.fault is None:
            self.fault = problem
            log.error("storage fault: %s; no write is acknowledged any more (restart the "
                      "server once the database is restored)", problem)
        return StorageFault(self.fault)

    def verify(self, look: bool = True) -> None:
        """Raise :class:`StorageFault` if the database file is no longer the one opened (or,
        with ``look`` false, only if a fault was noticed before). Cheap: one ``stat``, and a
        100-byte read of the header when the file was written since the last look."""
        if self.fault is not None:
            raise StorageFault(self.fault)
        if self._ident is None or not look:
            return
        problem = self._probe()
        if problem is not None:
            raise self._fail(problem)

    def tell_fault(self) -> None:
        """Tell the listeners (on the event loop) once that a fault was noticed."""
        if self.fault is None or self._told:
            return
        self._told = True
        for listener in self.on_fault:
            try:
                listener(self.fault)
            except Exception:  # noqa: BLE001 - a listener must not hide the fault
                log.exception("a storage-fault listener failed")

    @contextlib.asynccontextmanager
    async def _write(self) -> Any:
        """Around a write: refused at once after a fault; verified after its commit, so an
        acknowledgement never rests on a file that is gone."""
        try:
            self.verify(look=False)
            try:
                yield
            except Exception as e:
                if self.file is not None and corruption(e):  # SQLite met a damaged page
                    raise self._fail(f"{self.file} was damaged while the server ran "
                                     f"({' '.join(str(getattr(e, 'orig', e)).split())[:120]})"
                                     ) from e
                raise
            self.verify()
        except StorageFault:
            self.tell_fault()
            raise

    async def check(self) -> None:
        """Make sure the database can be used before the server says it is up: it opens, its
        pages are sound (SQLite), the tables are there and it can be written. Raises
        :class:`StoreError` with one sentence."""
        path = sqlite_path(self.url)
        self._check_ledger_before_open()
        if path is not None and path.exists():
            if path.is_dir():
                raise StoreError(f"{path} is a directory, not a database file")
            if path.stat().st_size == 0:
                # an empty file is what a failed copy or a full disk leaves: never reuse it
                raise StoreError(f"{path} is an empty file, not a ristiseiska database; "
                                 "remove it to start afresh, or restore it from a backup")
        existed = path is not None and path.exists()
        try:
            async with self.engine.begin() as conn:
                await conn.run_sync(Base.metadata.create_all)
                await conn.run_sync(_add_columns)
            async with self.engine.begin() as conn:
                if path is not None:
                    rows = (await conn.exec_driver_sql("PRAGMA quick_check")).all()
                    problems = [" ".join(str(r[0]).replace("***", " ").split())
                                for r in rows if r[0] != "ok"]
                    if problems:
                        raise StoreError(f"{path} is damaged ({problems[0][:120]}); restore it "
                                         "from a backup or start with another --database-url")
                for table in Base.metadata.sorted_tables:
                    await conn.execute(select(table).limit(1))
                # a no-op write: fails now on a read-only database rather than on first move
                await conn.exec_driver_sql("UPDATE rs_tables SET finished = finished WHERE 1 = 0")
            if path is not None:
                await self._arm(existed)  # the ledger: no lost tables, not another database
        except StoreError:
            raise
        except Exception as e:  # noqa: BLE001 - every driver error becomes one sentence
            raise StoreError(describe_error(e, self.url)) from None

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._writer
        if self._executor is not None:
            self._executor.submit(self._close_direct)
            self._executor.shutdown(wait=True)
            self._executor = None
        if self._checkpointer is not None:
            self._checkpointer.shutdown(wait=True)
            self._checkpointer = None
        await self.engine.dispose()
        if self._fd is not None:  # after SQLite's own descriptors are closed (see _arm)
            os.close(self._fd)
            self._fd = None

    def _close_direct(self) -> None:
        if self._direct_conn is not None:
            self._direct_conn.close()
            self._direct_conn = None

    def _insert_direct(self, rows: list[dict[str, Any]]) -> set[int]:
        """Insert moves in one transaction on the writer thread's own SQLite connection;
        returns the ``id()`` of the rows refused by their table's fencing number."""
        if self._direct_conn is None:
            assert self._direct is not None
            conn = sqlite3.connect(self._direct, timeout=30, isolation_level=None,
                                   check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={self._sync}")
            conn.execute("PRAGMA wal_autocheckpoint=0")  # the checkpoint thread does it
            conn.execute("PRAGMA foreign_keys=ON")
            self._direct_conn = conn
        conn = self._direct_conn
        self.verify(look=False)  # nothing is written into a file known to be gone
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                refused = _fence(rows, lambda ids: dict(conn.execute(
                    f"SELECT table_id, epoch FROM rs_owner WHERE table_id IN "
                    f"({','.join('?' * len(ids))})", ids).fetchall()))
                conn.executemany("INSERT INTO rs_moves (table_id, deal, ply, seat, move, epoch, "
                                 "move_id) VALUES (:table_id, :deal, :ply, :seat, :move, :epoch, "
                                 ":move_id)",
                                 [r for r in rows if id(r) not in refused])
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.DatabaseError as e:
            if corruption(e):  # SQLite met a damaged page: nothing more is acknowledged
                raise self._fail(f"{self._direct} was damaged while the server ran "
                                 f"({' '.join(str(e).split())[:120]})") from e
            raise
        self.verify()  # committed, but into the file the server opened? (else: no ack)
        self._after_commit()
        return refused

    def _after_commit(self) -> None:
        now = time.monotonic()
        if not self._checkpoint_due:  # the first one a while after the first commit
            self._checkpoint_due = now + CHECKPOINT_EVERY
        if self._checkpoint_busy or now < self._checkpoint_due or self.file is None:
            return
        self._checkpoint_busy = True
        self._checkpoint_due = now + CHECKPOINT_EVERY
        if self._checkpointer is None:
            self._checkpointer = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="ristiseiska-checkpoint")
        self._checkpointer.submit(self._checkpoint_now, self.file)

    def _checkpoint_now(self, path: Path) -> None:
        # never into a file found gone or damaged; the writer's own look after its next
        # commit (verify) sees whatever happens to the file meanwhile
        try:
            if self.fault is None:
                self._checkpoint_vouched(path)
        except sqlite3.Error:  # busy or gone: the next commit's turn tries again
            log.debug("checkpoint failed", exc_info=True)
        finally:
            self._checkpoint_busy = False

    def _checkpoint_vouched(self, path: Path) -> None:
        """Checkpoint, then note the file as it left it (in memory and in ``<file>
        .checkpoint`` for the other processes): only a write not explained so is checked.
        A file found changed before is checked first, so a checkpoint never hides damage."""
        try:
            self.verify()
        except StorageFault:
            return
        self._checkpointing += 1  # until the file it left is noted (a look meanwhile waits)
        try:
            _checkpoint(path)
            st = os.stat(path)
            if (st.st_dev, st.st_ino) != self._ident:
                return  # not our file any more: the next look says so
            self._stamp = (st.st_size, st.st_mtime_ns)
            note = checkpoint_path(path)
            tmp = note.with_name(f"{note.name}.{os.getpid()}.tmp")
            try:
                tmp.write_text(f"{st.st_ino} {st.st_size} {st.st_mtime_ns}\n", "ascii")
                os.replace(tmp, note)
            except OSError:
                with contextlib.suppress(OSError):
                    tmp.unlink()
        except OSError:
            return
        finally:
            self._checkpointing -= 1

    async def _insert(self, rows: list[dict[str, Any]]) -> set[int]:
        """Insert moves in one transaction; the ``id()`` of the rows refused by fencing."""
        if self._direct is None:
            async with self._write(), self.engine.begin() as conn:
                async def owners(ids: list[str]) -> dict[str, int]:
                    # FOR SHARE: a takeover (an UPDATE of the row) waits for this commit,
                    # and this waits for a takeover in flight, then sees its new epoch
                    q = (select(OwnerRow.table_id, OwnerRow.epoch)
                         .where(OwnerRow.table_id.in_(ids)).with_for_update(read=True))
                    return {str(t): int(e) for t, e in (await conn.execute(q)).all()}
                refused: set[int] = set()
                ids = sorted({r["table_id"] for r in rows if r.get("epoch") is not None})
                if ids:
                    found = await owners(ids)
                    refused = _fence(rows, lambda _ids: found)
                kept = [r for r in rows if id(r) not in refused]
                if kept:
                    await conn.execute(sa_insert(MoveRow), kept)
            return refused
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="ristiseiska-moves")
        w = self._writer  # it runs this: its loop is the running one (asked: a syscall on 3.11)
        loop = w.get_loop() if w is not None else asyncio.get_running_loop()
        return await loop.run_in_executor(self._executor, self._insert_direct, rows)

    async def create_table(self, table_id: str, config: dict[str, Any], names: list[str]) -> None:
        count = 0
        async with self._write():
            async with self.session() as s, s.begin():
                now = time.time()
                s.add(TableRow(id=table_id, created=now, config=json.dumps(config)))
                await s.flush()
                if config.get("open"):  # listed in the lobby (web/open_tables.py)
                    s.add(OpenRow(table_id=table_id, created=now))
                for i, name in enumerate(names):
                    s.add(SeatRow(table_id=table_id, seat=i, name=name, token_hash=None))
                if self._ident is not None:
                    count = int(await s.scalar(select(func.count()).select_from(TableRow))
                                or 0)
        if self._ident is not None:
            self._write_ledger(count)  # a restart refuses a database with fewer tables

    async def claim_seat(self, table_id: str, seat: int, name: str, token_hash: str,
                         renames: dict[int, str] | None = None) -> bool:
        """Take a free seat; False when somebody already holds it. ``renames`` gives other
        (bot) seats new names in the same transaction."""
        async with self._write(), self.session() as s, s.begin():
            row = await s.get(SeatRow, (table_id, seat), with_for_update=True)
            if row is None or row.token_hash is not None:
                return False
            row.name = name
            row.token_hash = token_hash
            for other, new in (renames or {}).items():
                bot = await s.get(SeatRow, (table_id, other))
                if bot is not None:
                    bot.name = new
            return True

    async def renew_seat(self, table_id: str, seat: int, old_hash: str, new_hash: str) -> bool:
        """A held seat gets a new token (issue 47: its player came back on the device they
        sat down with); False when the seat is no longer held with ``old_hash``."""
        async with self._write(), self.session() as s, s.begin():
            row = await s.get(SeatRow, (table_id, seat), with_for_update=True)
            if row is None or row.token_hash != old_hash:
                return False
            row.token_hash = new_hash
            return True

    async def name_free_seats(self, table_id: str, names: dict[int, str]) -> None:
        """Give seats nobody has taken new names (the stand-ins that fill a quick table)."""
        async with self._write(), self.session() as s, s.begin():
            for seat, name in names.items():
                row = await s.get(SeatRow, (table_id, seat), with_for_update=True)
                if row is not None and row.token_hash is None:
                    row.name = name

    async def start_deal(self, table_id: str, deal: int, epoch: int | None = None) -> None:
        async with self._write(), self.session() as s, s.begin():
            if epoch is not None:
                q = (select(OwnerRow.epoch).where(OwnerRow.table_id == table_id)
                     .with_for_update(read=True))
                if (await s.scalar(q)) != epoch:
                    raise Fenced(f"table {table_id} was taken over by another server process")
            s.add(DealRow(table_id=table_id, deal=deal, started=time.time()))

    # -- owners (several processes or machines; docs/hosting.md) ----------------------------
    async def take(self, table_id: str) -> int:
        """Make this process the table's owner: one atomic upsert that raises the fencing
        number by one (1 for a table nobody owned). Every write of the previous owner that
        committed before it is seen by a load after it; every later one is refused."""
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite_dialect
        now = time.time()
        stmt = dialect.insert(OwnerRow).values(table_id=table_id, owner=self.owner_id,
                                               epoch=1, taken=now)
        stmt = stmt.on_conflict_do_update(
            index_elements=["table_id"],
            set_={"owner": self.owner_id, "epoch": OwnerRow.epoch + 1, "taken": now}
        ).returning(OwnerRow.epoch)
        async with self._write(), self.engine.begin() as conn:
            if self.engine.dialect.name == "postgresql":  # never wait for ever on a lock
                await conn.exec_driver_sql("SET LOCAL lock_timeout = '10s'")
            return int((await conn.execute(stmt)).scalar_one())

    async def owners(self, table_ids: list[str]) -> dict[str, int]:
        """The current fencing number of each of ``table_ids`` that has an owner."""
        out: dict[str, int] = {}
        async with self.session() as s:
            for i in range(0, len(table_ids), 500):
                q = (select(OwnerRow.table_id, OwnerRow.epoch)
                     .where(OwnerRow.table_id.in_(table_ids[i:i + 500])))
                out.update({str(t): int(e) for t, e in (await s.execute(q)).all()})
        return out

    async def take_token(self, key: str, rate: float, burst: float) -> float:
        """Spend one token of the shared bucket ``key`` (``rate`` a second come back, up to
        ``burst``): 0.0 when spent, else the seconds until one is there. One transaction,
        the row locked (PostgreSQL ``FOR UPDATE``; SQLite's shared mode begins every
        transaction with the write lock), so processes never spend one token twice."""
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite_dialect
        now = time.time()
        async with self._write(), self.engine.begin() as conn:
            await conn.execute(dialect.insert(RateRow).values(key=key, tokens=burst, at=now)
                               .on_conflict_do_nothing())
            row = (await conn.execute(select(RateRow.tokens, RateRow.at)
                                      .where(RateRow.key == key).with_for_update())).one()
            tokens = min(burst, float(row.tokens) + max(0.0, now - float(row.at)) * rate)
            wait = 0.0 if tokens >= 1 else (1 - tokens) / rate if rate > 0 else 60.0
            if wait == 0.0:
                tokens -= 1
            await conn.execute(update(RateRow).where(RateRow.key == key)
                               .values(tokens=tokens, at=now))
            if secrets.randbelow(200) == 0:  # now and then: forget buckets that are full again
                full = burst / rate if rate > 0 else 3600.0
                await conn.execute(delete(RateRow).where(RateRow.at < now - full))
            return wait

    async def add_move(self, table_id: str, deal: int, ply: int, seat: int, move: str,
                       epoch: int | None = None, move_id: str | None = None) -> None:
        """Store one move; returns only once it is committed. Moves arriving together (many
        tables at once) are committed in one transaction by a single writer (group commit),
        which keeps latency low under load; a failing row is then retried alone so that it
        fails only its own caller. With ``epoch`` (the table's fencing number, see
        :meth:`take`) the move is stored only while the table is still at that epoch, else
        :class:`Fenced`. ``move_id``: the player's id of the move (JSON text), kept with it."""
        if self._moves is None or self._writer is None or self._writer.done():
            loop = asyncio.get_running_loop()
            self._moves = Outbox()
            self._writer = loop.create_task(self._write_moves(self._moves, loop))
        else:  # the running writer's loop: asking for the running loop is a system call on 3.11
            loop = self._writer.get_loop()
        fut: asyncio.Future[None] = loop.create_future()
        self._moves.put_nowait(({"table_id": table_id, "deal": deal, "ply": ply, "seat": seat,
                                 "move": move, "epoch": epoch, "move_id": move_id}, fut))
        await fut

    async def _write_moves(self, queue: Outbox, loop: asyncio.AbstractEventLoop) -> None:
        busy = False  # moves arrived while the last batch was being committed
        while True:
            batch = [await queue.get()]
            if busy and self.commit_window > 0:
                # Under load, wait a moment for more moves: each commit (an fsync) costs the
                # same for one move or twenty, and one commit per 2-3 moves was an eighth of the
                # server's CPU at a thousand tables (25 ms rather than 10: a third less of the
                # writer's CPU, docs/hosting.md). A lone move is never kept waiting.
                await sleep_on(loop, self.commit_window)
            while not queue.empty() and len(batch) < 512:
                batch.append(queue.get_nowait())
            try:
                refused = await self._insert([row for row, _f in batch]) or set()
            except StorageFault as e:
                self.tell_fault()
                for _row, fut in batch:
                    if not fut.done():
                        fut.set_exception(StorageFault(str(e)))
            except Exception:
                for row, fut in batch:
                    try:
                        alone = await self._insert([row]) or set()
                    except Exception as e:  # noqa: BLE001 - handed to the waiting caller
                        if not fut.done():
                            fut.set_exception(e)
                    else:
                        if not fut.done():
                            _settle(fut, row, alone)
            else:
                for row, fut in batch:
                    if not fut.done():
                        _settle(fut, row, refused)
            busy = not queue.empty()

    async def set_finished(self, table_id: str) -> None:
        async with self._write(), self.session() as s, s.begin():
            row = await s.get(TableRow, table_id)
            if row is not None:
                row.finished = True

    async def set_table_state(self, table_id: str, started: bool, standins: list[int]) -> None:
        """Store whether the table has started and its stand-in seats (replacing what was)."""
        values = {"started": started, "standins": json.dumps(sorted(standins))}
        # one atomic upsert (both dialects spell it alike), so no reader sees half of it
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite_dialect
        stmt = dialect.insert(TableStateRow).values(table_id=table_id, **values)
        async with self._write(), self.engine.begin() as conn:
            await conn.execute(stmt.on_conflict_do_update(index_elements=["table_id"],
                                                          set_=values))

    async def set_clock(self, table_id: str, state: dict[str, Any]) -> None:
        """Store the turn clock's state of a table (replacing what was), one atomic upsert."""
        values = {"state": json.dumps(state, sort_keys=True)}
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite_dialect
        stmt = dialect.insert(ClockRow).values(table_id=table_id, **values)
        async with self._write(), self.engine.begin() as conn:
            await conn.execute(stmt.on_conflict_do_update(index_elements=["table_id"],
                                                          set_=values))

    async def add_timeout(self, table_id: str, deal: int, ply: int) -> None:
        """Note that move ``ply`` of ``deal`` was played by the clock (kept once)."""
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite_dialect
        stmt = dialect.insert(TimeoutRow).values(table_id=table_id, deal=deal, ply=ply)
        async with self._write(), self.engine.begin() as conn:
            await conn.execute(stmt.on_conflict_do_nothing())

    async def add_forced(self, table_id: str, deal: int, ply: int) -> None:
        """Note that move ``ply`` of ``deal`` was a forced move made for a person (kept once)."""
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite_dialect
        stmt = dialect.insert(ForcedRow).values(table_id=table_id, deal=deal, ply=ply)
        async with self._write(), self.engine.begin() as conn:
            await conn.execute(stmt.on_conflict_do_nothing())

    async def load(self, table_id: str) -> StoredTable | None:
        try:
            self.verify()  # a table read from a file that was replaced is not the table
        except StorageFault:
            self.tell_fault()
            raise
        async with self.session() as s:
            row = await s.get(TableRow, table_id)
            if row is None:
                return None
            st = StoredTable(row.id, json.loads(row.config), row.finished)
            for seat in (await s.scalars(select(SeatRow).where(SeatRow.table_id == table_id))):
                st.seat_names[seat.seat] = seat.name
                st.token_hashes[seat.seat] = seat.token_hash
            deals = await s.scalars(select(DealRow.deal).where(DealRow.table_id == table_id))
            st.deals = len(list(deals))
            q = (select(MoveRow).where(MoveRow.table_id == table_id)
                 .order_by(MoveRow.deal, MoveRow.ply))
            for m in await s.scalars(q):
                st.moves.setdefault(m.deal, []).append(m.move)
                if m.move_id is not None:
                    st.move_ids.append((m.seat, m.move_id, m.move))
            state = await s.get(TableStateRow, table_id)
            if state is not None:
                st.started = state.started
                st.standins = [int(x) for x in json.loads(state.standins or "[]")]
            clock = await s.get(ClockRow, table_id)
            if clock is not None:
                loaded = json.loads(clock.state or "{}")
                st.clock = loaded if isinstance(loaded, dict) else None
            q2 = (select(TimeoutRow).where(TimeoutRow.table_id == table_id)
                  .order_by(TimeoutRow.deal, TimeoutRow.ply))
            st.timeouts = [(r.deal, r.ply) for r in await s.scalars(q2)]
            q3 = (select(ForcedRow).where(ForcedRow.table_id == table_id)
                  .order_by(ForcedRow.deal, ForcedRow.ply))
            st.forced = [(r.deal, r.ply) for r in await s.scalars(q3)]
            return st

    async def open_tables(self, since: float, limit: int, known: frozenset[str] = frozenset()
                          ) -> list[tuple[float, StoredTable]]:
        """The open tables (``rs_open``) created since ``since`` (Unix time) that have not
        finished, newest first, at most ``limit``: each with its creation time, configuration
        (left empty, ``{}``, for the ids in ``known``: the caller has it), seat names, which
        seats are taken, and the host's start and stand-ins (no deals or moves: nothing is
        replayed)."""
        async with self.session() as s:
            q = (select(OpenRow.table_id, OpenRow.created)
                 .join(TableRow, OpenRow.table_id == TableRow.id)
                 .where(TableRow.finished.is_(False), OpenRow.created >= since)
                 .order_by(OpenRow.created.desc()).limit(limit))
            found: dict[str, tuple[float, StoredTable]] = {
                tid: (float(created), StoredTable(tid, {}, False))
                for tid, created in (await s.execute(q)).all()}
            if not found:
                return []
            ids = list(found)
            new = [tid for tid in ids if tid not in known]
            for i in range(0, len(new), 500):
                q1 = select(TableRow.id, TableRow.config).where(TableRow.id.in_(new[i:i + 500]))
                for tid, config in (await s.execute(q1)).all():
                    found[tid][1].config = json.loads(config)
            for i in range(0, len(ids), 500):
                part = ids[i:i + 500]
                q2 = (select(SeatRow.table_id, SeatRow.seat, SeatRow.name, SeatRow.token_hash)
                      .where(SeatRow.table_id.in_(part)))
                for tid, seat, name, token_hash in (await s.execute(q2)).all():
                    st = found[tid][1]
                    st.seat_names[seat] = name
                    st.token_hashes[seat] = token_hash
                q3 = (select(TableStateRow.table_id, TableStateRow.started,
                             TableStateRow.standins).where(TableStateRow.table_id.in_(part)))
                for tid, started, standins in (await s.execute(q3)).all():
                    st = found[tid][1]
                    st.started = bool(started)
                    st.standins = [int(x) for x in json.loads(standins or "[]")]
            return list(found.values())

    async def unfinished_ids(self) -> list[str]:
        async with self.session() as s:
            return list(await s.scalars(select(TableRow.id).where(TableRow.finished.is_(False))))

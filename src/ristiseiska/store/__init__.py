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

The tables are made and upgraded by Alembic migrations at start (store/migrate.py,
store/migrations/): an older database is upgraded (a SQLite file copied first), a newer one
refused. The store is told in parts: the tables (store/schema.py), the exceptions (store/errors.py),
database URLs (store/urls.py), the watched SQLite file (store/integrity.py) and the move writer
(store/writer.py); here is :class:`Store`, the repository the web app uses. The parts' names
used elsewhere are importable from here too.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import logging
import math
import os
import secrets
import socket
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import delete, event, func, or_, select, update
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine

from ..aio import Outbox
from . import migrate as migrations
from .errors import Fenced as Fenced
from .errors import StorageFault as StorageFault
from .errors import StoreError as StoreError
from .integrity import APPLICATION_ID as APPLICATION_ID
from .integrity import SQLITE_MAGIC as SQLITE_MAGIC
from .integrity import FileWatch
from .integrity import checkpoint_path as checkpoint_path
from .integrity import corruption as corruption
from .integrity import ledger_path as ledger_path
from .integrity import read_ledger as read_ledger
from .schema import Base as Base
from .schema import ClockRow as ClockRow
from .schema import DealRow as DealRow
from .schema import ForcedRow as ForcedRow
from .schema import MoveRow as MoveRow
from .schema import OpenRow as OpenRow
from .schema import OwnerRow as OwnerRow
from .schema import ProcessRow as ProcessRow
from .schema import RateRow as RateRow
from .schema import SeatRow as SeatRow
from .schema import StoredTable as StoredTable
from .schema import TableRow as TableRow
from .schema import TableStateRow as TableStateRow
from .schema import TimeoutRow as TimeoutRow
from .urls import default_database_url as default_database_url
from .urls import describe_error as describe_error
from .urls import normalise_url as normalise_url
from .urls import shown_url as shown_url
from .urls import sqlite_path as sqlite_path
from .writer import CHECKPOINT_EVERY as CHECKPOINT_EVERY
from .writer import COMMIT_WINDOW as COMMIT_WINDOW
from .writer import MoveWriter

log = logging.getLogger("ristiseiska.store")

# PostgreSQL: milliseconds a session may sit inside a transaction doing nothing (see Store).
IDLE_IN_TRANSACTION_MS = 5000

# What an acknowledged move survives (``serve --durability``; see :class:`Store`).
DURABILITY: tuple[str, ...] = ("power-cut", "crash")


async def _gets_content(path: Path, wait: float = 2.0) -> bool:
    """Whether the empty file ``path`` gets content within ``wait`` seconds: SQLite creates
    the file empty and writes its header a moment later, so another process starting on the
    same new database at the same time leaves it empty only for that moment."""
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline:
        await asyncio.sleep(0.05)
        with contextlib.suppress(OSError):
            if path.stat().st_size > 0:
                return True
    return False


# an execution option: this connection only reads (shared SQLite then begins without the lock)
READ_ONLY = "ristiseiska_read_only"

class Store(FileWatch, MoveWriter):
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
                    # a look that only reads (``READ_ONLY``) takes no write lock: in WAL mode
                    # it never waits for another process's commit and its fsync
                    read = conn.get_execution_options().get(READ_ONLY)
                    conn.exec_driver_sql("BEGIN" if read else "BEGIN IMMEDIATE")
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
        await self.migrate()
        if self.file is not None:
            await self._arm(existed)

    async def migrate(self) -> migrations.Upgrade:
        """Create or upgrade the tables (store/migrate.py): an older database is upgraded
        (a SQLite file copied beside it first, said in :attr:`notices`); one newer than this
        code raises :class:`StoreError`."""
        def note(done: migrations.Upgrade) -> None:
            if done.before is not None or done.legacy is not None or done.backup is not None:
                was = done.before or "from before migrations"
                copy = f"; its copy from before is {done.backup}" if done.backup else ""
                self.notices.append(f"upgraded the database ({was}) to revision "
                                    f"{done.after}{copy}")

        async with self.engine.begin() as conn:
            return await conn.run_sync(migrations.upgrade, sqlite_path(self.url), note)

    async def check(self) -> None:
        """Make sure the database can be used before the server says it is up: it opens, its
        pages are sound (SQLite), the tables are there and it can be written. Raises
        :class:`StoreError` with one sentence."""
        path = sqlite_path(self.url)
        self._check_ledger_before_open()
        if path is not None and path.exists():
            if path.is_dir():
                raise StoreError(f"{path} is a directory, not a database file")
            if path.stat().st_size == 0 and not await _gets_content(path):
                # an empty file is what a failed copy or a full disk leaves: never reuse it
                # (but another process starting now may be making it: see _gets_content)
                raise StoreError(f"{path} is an empty file, not a ristiseiska database; "
                                 "remove it to start afresh, or restore it from a backup")
        existed = path is not None and path.exists()
        try:
            await self.migrate()
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
    async def take(self, table_id: str, hold: float | None = None,
                   lease: float | None = None, lapsed: bool = False) -> int | None:
        """Make this process the table's owner: one atomic upsert that raises the fencing
        number by one (1 for a table nobody owned). Every write of the previous owner that
        committed before it is seen by a load after it; every later one is refused.

        With ``hold`` (seconds) another live process's claim is respected: the table is taken
        only if nobody owns it, this process does, the claim is at least ``hold`` seconds old,
        or its owner's heartbeat (:meth:`beat`) is older than ``lease`` seconds; else nothing
        changes and the answer is None. ``lapsed``: this claim holds nothing against a writer
        elsewhere (a new table, made by whichever process the request reached)."""
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite_dialect
        now = time.time()
        stmt = dialect.insert(OwnerRow).values(table_id=table_id, owner=self.owner_id,
                                               epoch=1, taken=0.0 if lapsed else now)
        where = None
        if hold is not None:  # (math.inf: only a dead owner's table is taken)
            alive = (select(ProcessRow.owner).where(ProcessRow.owner == OwnerRow.owner)
                     .where(ProcessRow.beat >= now - (lease if lease is not None else hold)))
            held = [] if math.isinf(hold) else [OwnerRow.taken <= now - hold]
            where = or_(OwnerRow.owner == self.owner_id, ~alive.exists(), *held)
        stmt = stmt.on_conflict_do_update(
            index_elements=["table_id"],
            set_={"owner": self.owner_id, "epoch": OwnerRow.epoch + 1, "taken": now},
            where=where,
        ).returning(OwnerRow.epoch)
        async with self._write(), self.engine.begin() as conn:
            if self.engine.dialect.name == "postgresql":  # never wait for ever on a lock
                await conn.exec_driver_sql("SET LOCAL lock_timeout = '10s'")
            got = (await conn.execute(stmt)).scalar_one_or_none()
            if got is not None:  # an owner is alive from its first claim on
                await conn.execute(self._beat_stmt(now))
        return None if got is None else int(got)

    def _beat_stmt(self, now: float) -> Any:
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite_dialect
        stmt = dialect.insert(ProcessRow).values(owner=self.owner_id, beat=now)
        return stmt.on_conflict_do_update(index_elements=["owner"], set_={"beat": now})

    async def beat(self, alive: bool = True) -> None:
        """Say that this process is alive (its claims on tables hold; see :meth:`take`), or,
        stopping, that it is gone (other processes take its tables at once)."""
        async with self._write(), self.engine.begin() as conn:
            if alive:
                await conn.execute(self._beat_stmt(time.time()))
            else:
                await conn.execute(delete(ProcessRow).where(ProcessRow.owner == self.owner_id))

    async def owners(self, table_ids: list[str]) -> dict[str, int]:
        """The current fencing number of each of ``table_ids`` that has an owner."""
        out: dict[str, int] = {}
        # every process asks this each second for all its tables: a read, never the write lock
        async with self.engine.connect() as conn:
            await conn.execution_options(**{READ_ONLY: True})
            for i in range(0, len(table_ids), 500):
                q = (select(OwnerRow.table_id, OwnerRow.epoch)
                     .where(OwnerRow.table_id.in_(table_ids[i:i + 500])))
                out.update({str(t): int(e) for t, e in (await conn.execute(q)).all()})
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

    async def ping(self) -> None:
        """One round trip to the database (``/healthz``); raises if it cannot be reached or
        the SQLite file changed under the server."""
        try:
            self.verify()  # one stat: the file is still the one opened
        except StorageFault:
            self.tell_fault()
            raise
        async with self.engine.connect() as conn:
            await conn.exec_driver_sql("SELECT 1")

    async def tail(self, table_id: str, deal: int
                   ) -> tuple[int, list[tuple[int, str, str | None]]]:
        """How many deals of the table are stored, and the stored moves of ``deal`` in order
        as (seat, move, move id): what a live table checks after a write whose outcome it did
        not hear."""
        self.verify()
        async with self.session() as s:
            deals = await s.scalar(select(func.count()).select_from(DealRow)
                                   .where(DealRow.table_id == table_id))
            q = (select(MoveRow.seat, MoveRow.move, MoveRow.move_id)
                 .where(MoveRow.table_id == table_id, MoveRow.deal == deal)
                 .order_by(MoveRow.ply))
            rows = (await s.execute(q)).all()
            return int(deals or 0), [(int(a), str(m), i) for a, m, i in rows]

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

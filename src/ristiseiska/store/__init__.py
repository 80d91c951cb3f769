"""Persistence for the web server: tables, seats, deals and the moves of every deal.

The store keeps only what is needed to rebuild every table exactly by replaying: the table's
configuration (rules, seats, match seed), which deals were started, every accepted move in
order, and what the host decided that no move shows (an early start, the stand-in bots).
SQLite (the default, in the user's data directory) and PostgreSQL (``postgresql+psycopg://``)
run the same code through SQLAlchemy's async engine.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import ForeignKey, Integer, String, Text, event, select
from sqlalchemy import insert as sa_insert
from sqlalchemy.dialects import postgresql
from sqlalchemy.dialects import sqlite as sqlite_dialect
from sqlalchemy.ext.asyncio import AsyncEngine, async_sessionmaker, create_async_engine
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


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


class TableStateRow(Base):
    """What the host decided that no move shows: the table was started before every friend
    came, and which friend seats a stand-in bot plays. A table of its own, so that
    ``create_all`` adds it to an older database; a table without a row is as it always was."""

    __tablename__ = "rs_table_state"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    started: Mapped[bool] = mapped_column(default=False)
    standins: Mapped[str] = mapped_column(Text, default="[]")  # JSON: seat numbers


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
    started: bool = False  # the host started it early (rs_table_state)
    standins: list[int] = field(default_factory=list)  # seats a stand-in bot plays


class StoreError(Exception):
    """The database cannot be used; the message says why in one sentence."""


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


class Store:
    """The repository the web app uses. Every write is committed before it returns."""

    def __init__(self, url: str | None = None, shared: bool = False) -> None:
        """``shared``: other server processes use the same database (``serve --processes``).
        With SQLite every transaction then takes the write lock as it begins (``BEGIN
        IMMEDIATE``, waiting up to the busy timeout): Python's sqlite3 would start it only at
        the first write, leaving a read-then-write (claiming a seat) open to another process
        in between (both could take the same seat)."""
        self.url = normalise_url(url or default_database_url())
        kwargs: dict[str, Any] = {}
        if self.url.startswith("sqlite"):
            # one writer; WAL makes each commit cheap while staying durable across a crash
            kwargs["connect_args"] = {"timeout": 30}
        self.engine: AsyncEngine = create_async_engine(self.url, **kwargs)
        if self.url.startswith("sqlite"):
            @event.listens_for(self.engine.sync_engine, "connect")
            def _pragmas(dbapi_conn: Any, _rec: Any) -> None:
                cur = dbapi_conn.cursor()
                cur.execute("PRAGMA journal_mode=WAL")
                cur.execute("PRAGMA synchronous=FULL")  # an ack means the move is on disk
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
        self._moves: asyncio.Queue[tuple[dict[str, Any], asyncio.Future[None]]] | None = None
        self._writer: asyncio.Task[None] | None = None

    async def init(self) -> None:
        async with self.engine.begin() as conn:
            await conn.run_sync(Base.metadata.create_all)

    async def check(self) -> None:
        """Make sure the database can be used before the server says it is up: it opens, its
        pages are sound (SQLite), the tables are there and it can be written. Raises
        :class:`StoreError` with one sentence."""
        path = sqlite_path(self.url)
        if path is not None and path.exists():
            if path.is_dir():
                raise StoreError(f"{path} is a directory, not a database file")
            if path.stat().st_size == 0:
                # an empty file is what a failed copy or a full disk leaves: never reuse it
                raise StoreError(f"{path} is an empty file, not a ristiseiska database; "
                                 "remove it to start afresh, or restore it from a backup")
        try:
            await self.init()
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
        await self.engine.dispose()

    def _close_direct(self) -> None:
        if self._direct_conn is not None:
            self._direct_conn.close()
            self._direct_conn = None

    def _insert_direct(self, rows: list[dict[str, Any]]) -> None:
        """Insert moves in one transaction on the writer thread's own SQLite connection."""
        if self._direct_conn is None:
            assert self._direct is not None
            conn = sqlite3.connect(self._direct, timeout=30, isolation_level=None,
                                   check_same_thread=False)
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("PRAGMA foreign_keys=ON")
            self._direct_conn = conn
        conn = self._direct_conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.executemany("INSERT INTO rs_moves (table_id, deal, ply, seat, move) "
                             "VALUES (:table_id, :deal, :ply, :seat, :move)", rows)
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    async def _insert(self, rows: list[dict[str, Any]]) -> None:
        if self._direct is None:
            async with self.engine.begin() as conn:
                await conn.execute(sa_insert(MoveRow), rows)
            return
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                1, thread_name_prefix="ristiseiska-moves")
        await asyncio.get_running_loop().run_in_executor(self._executor, self._insert_direct,
                                                         rows)

    async def create_table(self, table_id: str, config: dict[str, Any], names: list[str]) -> None:
        async with self.session() as s, s.begin():
            s.add(TableRow(id=table_id, created=time.time(), config=json.dumps(config)))
            await s.flush()
            for i, name in enumerate(names):
                s.add(SeatRow(table_id=table_id, seat=i, name=name, token_hash=None))

    async def claim_seat(self, table_id: str, seat: int, name: str, token_hash: str,
                         renames: dict[int, str] | None = None) -> bool:
        """Take a free seat; False when somebody already holds it. ``renames`` gives other
        (bot) seats new names in the same transaction."""
        async with self.session() as s, s.begin():
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

    async def start_deal(self, table_id: str, deal: int) -> None:
        async with self.session() as s, s.begin():
            s.add(DealRow(table_id=table_id, deal=deal, started=time.time()))

    async def add_move(self, table_id: str, deal: int, ply: int, seat: int, move: str) -> None:
        """Store one move; returns only once it is committed. Moves arriving together (many
        tables at once) are committed in one transaction by a single writer (group commit),
        which keeps latency low under load; a failing row is then retried alone so that it
        fails only its own caller."""
        loop = asyncio.get_running_loop()
        if self._moves is None or self._writer is None or self._writer.done():
            self._moves = asyncio.Queue()
            self._writer = loop.create_task(self._write_moves(self._moves))
        fut: asyncio.Future[None] = loop.create_future()
        self._moves.put_nowait(({"table_id": table_id, "deal": deal, "ply": ply, "seat": seat,
                                 "move": move}, fut))
        await fut

    async def _write_moves(self, queue: asyncio.Queue[tuple[dict[str, Any],
                                                            asyncio.Future[None]]]) -> None:
        while True:
            batch = [await queue.get()]
            while not queue.empty() and len(batch) < 512:
                batch.append(queue.get_nowait())
            try:
                await self._insert([row for row, _f in batch])
            except Exception:
                for row, fut in batch:
                    try:
                        await self._insert([row])
                    except Exception as e:  # noqa: BLE001 - handed to the waiting caller
                        if not fut.done():
                            fut.set_exception(e)
                    else:
                        if not fut.done():
                            fut.set_result(None)
            else:
                for _row, fut in batch:
                    if not fut.done():
                        fut.set_result(None)

    async def set_finished(self, table_id: str) -> None:
        async with self.session() as s, s.begin():
            row = await s.get(TableRow, table_id)
            if row is not None:
                row.finished = True

    async def set_table_state(self, table_id: str, started: bool, standins: list[int]) -> None:
        """Store whether the table has started and its stand-in seats (replacing what was)."""
        values = {"started": started, "standins": json.dumps(sorted(standins))}
        # one atomic upsert (both dialects spell it alike), so no reader sees half of it
        dialect = postgresql if self.engine.dialect.name == "postgresql" else sqlite_dialect
        stmt = dialect.insert(TableStateRow).values(table_id=table_id, **values)
        async with self.engine.begin() as conn:
            await conn.execute(stmt.on_conflict_do_update(index_elements=["table_id"],
                                                          set_=values))

    async def load(self, table_id: str) -> StoredTable | None:
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
            state = await s.get(TableStateRow, table_id)
            if state is not None:
                st.started = state.started
                st.standins = [int(x) for x in json.loads(state.standins or "[]")]
            return st

    async def unfinished_ids(self) -> list[str]:
        async with self.session() as s:
            return list(await s.scalars(select(TableRow.id).where(TableRow.finished.is_(False))))

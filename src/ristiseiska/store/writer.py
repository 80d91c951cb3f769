"""The move writer: every move stored through one writer that commits the moves arriving
together in one transaction (group commit), under each table's fencing number; on SQLite on a
thread with its own connection, and the write-ahead log checkpointed by a thread of its own."""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import logging
import os
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sqlalchemy import insert as sa_insert
from sqlalchemy import select

from ..aio import Outbox, sleep_on
from .errors import Fenced, StorageFault
from .integrity import _checkpoint, checkpoint_path, corruption
from .schema import MoveRow, OwnerRow

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

log = logging.getLogger("ristiseiska.store")

COMMIT_WINDOW = 0.025  # seconds; see Store._write_moves


# Seconds between the move writer's checkpoints, at most (see Store._after_commit).
CHECKPOINT_EVERY = 1.0


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


class MoveWriter:
    """The move-writing part of :class:`~ristiseiska.store.Store` (a mixin)."""

    if TYPE_CHECKING:  # what it uses of the rest of the store
        engine: AsyncEngine
        file: Path | None
        fault: str | None
        commit_window: float
        _sync: str
        _direct: Path | None
        _direct_conn: sqlite3.Connection | None
        _executor: concurrent.futures.ThreadPoolExecutor | None
        _checkpointer: concurrent.futures.ThreadPoolExecutor | None
        _checkpoint_due: float
        _checkpoint_busy: bool
        _checkpointing: int
        _moves: Outbox | None
        _writer: asyncio.Task[None] | None
        _ident: tuple[int, int] | None
        _stamp: tuple[int, int] | None

        def verify(self, look: bool = True) -> None: ...
        def tell_fault(self) -> None: ...
        def _fail(self, problem: str) -> StorageFault: ...
        def _write(self) -> contextlib.AbstractAsyncContextManager[Any]: ...

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

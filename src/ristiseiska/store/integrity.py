"""The SQLite file watched while the server runs: its ledger (which database it is, how many
tables it held), its identity, size and header, and its pages checked after a write nobody
vouched for. A fault is told once and every later write is refused (docs/hosting.md, *Safe for
strangers*)."""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import StorageFault, StoreError

if TYPE_CHECKING:
    from sqlalchemy.ext.asyncio import AsyncEngine

log = logging.getLogger("ristiseiska.store")

SQLITE_MAGIC = b"SQLite format 3\x00"
# Written into the SQLite header (``PRAGMA application_id``): this is a ristiseiska database.
# ``PRAGMA user_version`` holds a random number naming this one database (its ledger too).
APPLICATION_ID = 0x52533139


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


class FileWatch:
    """The file-watching part of :class:`~ristiseiska.store.Store` (a mixin)."""

    if TYPE_CHECKING:  # what it uses of the rest of the store
        engine: AsyncEngine
        file: Path | None
        db_id: int
        deep_checks: int
        fault: str | None
        on_fault: list[Callable[[str], None]]
        notices: list[str]
        _ident: tuple[int, int] | None
        _fd: int | None
        _size: int
        _stamp: tuple[int, int] | None
        _ids: tuple[set[int], set[int]]
        _checkpointing: int
        _look: threading.Lock
        _told: bool

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

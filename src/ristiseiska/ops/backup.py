"""``ristiseiska backup`` and ``restore`` (issue 63).

SQLite: the backup is taken with SQLite's online backup API in one step, a consistent copy
while the server goes on writing (a write-ahead-log reader never blocks the writer), checked
and then moved into place. A restore checks that the file is a sound ristiseiska database,
copies it over the target (only one that no process has open, or with ``force``), drops any
stale write-ahead log and notes the restored database in the ledger the server checks at start
(store/integrity.py). PostgreSQL: ``pg_dump`` writes the backup; it is restored with
``pg_restore`` (the command is shown, not run). Every check is made before any work; a failure
is :class:`BackupError` with one sentence.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sqlite3
import struct
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..store.integrity import APPLICATION_ID, SQLITE_MAGIC, ledger_path
from ..store.urls import normalise_url, sqlite_path


class BackupError(Exception):
    """A backup or restore refused or failed; the message says what and why."""


@dataclass
class Summary:
    tables: int
    moves: int


def _is_postgres(url: str) -> bool:
    return url.startswith("postgresql")


def _source(url: str) -> Path:
    path = sqlite_path(url)
    if path is None:
        raise BackupError(f"{url.split('?')[0]}: only SQLite files and PostgreSQL are backed "
                          "up here")
    return path


def check_database(path: Path) -> Summary:
    """``path`` is a sound ristiseiska SQLite database: its tables and moves."""
    if not path.exists():
        raise BackupError(f"{path} does not exist")
    if not path.is_file():
        raise BackupError(f"{path} is not a file")
    try:
        with open(path, "rb") as f:
            head = f.read(100)
    except OSError as e:
        raise BackupError(f"cannot read {path}: {e.strerror or e}") from None
    if not head.startswith(SQLITE_MAGIC):
        raise BackupError(f"{path} is not a SQLite database")
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            if conn.execute("PRAGMA quick_check").fetchone()[0] != "ok":
                raise BackupError(f"{path} is damaged (PRAGMA quick_check fails)")
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            app = struct.unpack(">I", head[68:72])[0]
            if "rs_tables" not in names or app not in (0, APPLICATION_ID):
                raise BackupError(f"{path} is not a ristiseiska database")
            tables = int(conn.execute("SELECT count(*) FROM rs_tables").fetchone()[0])
            moves = (int(conn.execute("SELECT count(*) FROM rs_moves").fetchone()[0])
                     if "rs_moves" in names else 0)
        finally:
            conn.close()
    except sqlite3.DatabaseError as e:
        raise BackupError(f"{path} cannot be read as a database: {e}") from None
    return Summary(tables, moves)


def _writable_target(out: Path, force: bool, what: str) -> None:
    if out.is_dir():
        raise BackupError(f"{out} is a directory; name the {what} file")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise BackupError(f"cannot write {out}: the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise BackupError(f"cannot write {out}: the directory {parent} is not writable")
    if out.exists() and not force:
        raise BackupError(f"{out} already exists; pass --force to replace it")


def in_use(path: Path) -> bool:
    """Whether another process holds SQLite's locks on the database (a running server keeps
    one on the write-ahead log's shared memory while it has the file open)."""
    try:
        import fcntl
    except ImportError:  # not POSIX (Windows): nothing to ask; the operator stops the server
        return False
    for f in (path, path.with_name(path.name + "-shm")):
        try:
            fd = os.open(f, os.O_RDONLY)
        except OSError:
            continue
        try:
            probe = struct.pack("hhqqi", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
            got = fcntl.fcntl(fd, fcntl.F_GETLK, probe)
            if struct.unpack("hhqqi", got)[0] != fcntl.F_UNLCK:
                return True
        except OSError:
            return True  # cannot tell: take it for in use
        finally:
            os.close(fd)
    return False


def _copy(src: Path, dst_tmp: Path) -> None:
    """SQLite's backup API, in one step: a consistent snapshot of ``src``."""
    source = sqlite3.connect(f"file:{src}?mode=ro", uri=True, timeout=30)
    try:
        target = sqlite3.connect(dst_tmp)
        try:
            source.backup(target)
            target.execute("PRAGMA journal_mode=DELETE")  # one self-contained file
        finally:
            target.close()
    finally:
        source.close()
    with open(dst_tmp, "rb") as f:
        os.fsync(f.fileno())


def _tmp(out: Path) -> Path:
    return out.with_name(f".{out.name}.{os.getpid()}.tmp")


def backup(url: str, out: Path, force: bool = False) -> Summary:
    url = normalise_url(url)
    if _is_postgres(url):
        return _pg_dump(url, out, force)
    src = _source(url)
    check_database(src)
    _writable_target(out, force, "backup")
    if out.resolve() == src.resolve():
        raise BackupError(f"{out} is the database itself; choose another file")
    tmp = _tmp(out)
    try:
        _copy(src, tmp)
        summary = check_database(tmp)
        os.replace(tmp, out)
    except sqlite3.Error as e:
        raise BackupError(f"the backup of {src} failed: {e}") from None
    except OSError as e:
        raise BackupError(f"cannot write {out}: {e.strerror or e}") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return summary


def restore(url: str, backup_file: Path, force: bool = False) -> Summary:
    url = normalise_url(url)
    if _is_postgres(url):
        raise BackupError("restore a PostgreSQL backup with pg_restore: "
                          + pg_restore_command(url, backup_file))
    target = _source(url)
    summary = check_database(backup_file)
    if target.exists() and in_use(target) and not force:
        raise BackupError(f"{target} is in use (is the server running?); stop the server "
                          "first, or pass --force to replace it all the same")
    _writable_target(target, force, "database")
    if target.exists() and backup_file.resolve() == target.resolve():
        raise BackupError(f"{backup_file} is the database itself")
    tmp = _tmp(target)
    try:
        _copy(backup_file, tmp)
        for stale in ("-wal", "-shm"):  # a log of the old file must never meet the new one
            with contextlib.suppress(FileNotFoundError):
                os.unlink(target.with_name(target.name + stale))
        os.replace(tmp, target)
        _note_ledger(target, summary.tables)
    except sqlite3.Error as e:
        raise BackupError(f"the restore into {target} failed: {e}") from None
    except OSError as e:
        raise BackupError(f"cannot write {target}: {e.strerror or e}") from None
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return summary


def _note_ledger(path: Path, tables: int) -> None:
    """The ledger names the restored database, so the server starts with it (it would refuse
    a database with fewer tables than the ledger remembers)."""
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as conn:
        db_id = int(conn.execute("PRAGMA user_version").fetchone()[0])
    led = ledger_path(path)
    if not db_id:
        with contextlib.suppress(FileNotFoundError):
            led.unlink()
        return
    led.write_text(json.dumps({"database": str(path), "id": db_id, "tables": tables,
                               "updated": time.time()}) + "\n", "utf-8")


# -- PostgreSQL --------------------------------------------------------------------------------

def _libpq_url(url: str, password: bool = True) -> str:
    """A SQLAlchemy URL as pg_dump and pg_restore take it (no driver name; without the
    password when ``password`` is false)."""
    from sqlalchemy.engine import URL, make_url

    u = make_url(url)
    u = URL.create("postgresql", u.username, u.password if password else None, u.host, u.port,
                   u.database, u.query)
    return u.render_as_string(hide_password=False)


def pg_restore_command(url: str, backup_file: Path) -> str:
    return (f"pg_restore --clean --if-exists --no-owner --dbname "
            f"'{_libpq_url(url, password=False)}' '{backup_file}'")


def _pg_dump(url: str, out: Path, force: bool) -> Summary:
    exe = shutil.which("pg_dump")
    if exe is None:
        raise BackupError("pg_dump is not installed; install PostgreSQL's client tools "
                          "(Debian: apt install postgresql-client)")
    _writable_target(out, force, "backup")
    tmp = _tmp(out)
    try:
        from sqlalchemy.engine import make_url

        env = dict(os.environ)
        secret = make_url(url).password
        if secret is not None:  # not on the command line, where any user's `ps` shows it
            env["PGPASSWORD"] = str(secret)
        done: Any = subprocess.run([exe, "--format=custom", "--file", str(tmp),
                                    "--dbname", _libpq_url(url, password=False)],
                                   capture_output=True, text=True, env=env)
        if done.returncode != 0:
            why = (done.stderr.strip().splitlines() or ["failed"])[-1]
            raise BackupError(f"pg_dump failed: {why}")
        os.replace(tmp, out)
    finally:
        with contextlib.suppress(OSError):
            tmp.unlink()
    return Summary(-1, -1)

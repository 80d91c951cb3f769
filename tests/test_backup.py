"""Issue 63: ``ristiseiska backup`` and ``restore``. A backup of a live server's SQLite
database, taken while its bots write, restores into a new file that the store opens with the
same tables and moves; bad input is refused before any work, naming what is wrong."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.cli import main
from ristiseiska.ops.backup import BackupError, backup, in_use, restore
from ristiseiska.store import Store, ledger_path

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for, claim, live, new_table, play_first_moves, recv_until  # noqa: E402


def _url(p: Path) -> str:
    return f"sqlite+aiosqlite:///{p}"


def _tables(path: Path, ids: list[str]) -> dict[str, Any]:
    """Each table as the store loads it: configuration, seats, deals and moves."""
    async def go() -> dict[str, Any]:
        s = Store(_url(path))
        await s.init()
        try:
            out = {}
            for tid in ids:
                st = await s.load(tid)
                assert st is not None, tid
                out[tid] = (st.config, st.seat_names, st.deals, st.moves)
            return out
        finally:
            await s.close()
    return asyncio.run(go())


def test_a_backup_of_a_running_server_restores_its_tables_and_moves(tmp_path: Path) -> None:
    db, out, new = tmp_path / "live.db", tmp_path / "b" / "backup.db", tmp_path / "new.db"
    out.parent.mkdir()
    with TestClient(app_for(_url(db))) as c:
        quiet = new_table(c, ["friend", "friend"], preset="kahdestaan-pakka")
        tokens = {s: claim(c, quiet, s) for s in (0, 1)}
        with c.websocket_connect(f"/ws/{quiet}") as ws:
            play_first_moves(ws, tokens, 5)
        busy = new_table(c, ["bot", "bot", "bot"], seed=2)
        with c.websocket_connect(f"/ws/{busy}") as ws:
            recv_until(ws, lambda m: m["type"] == "state" and len(m["log"]) >= 3, limit=5000)
            s = backup(_url(db), out)  # while the bots go on writing
            recv_until(ws, lambda m: m["type"] == "state" and len(m["log"]) >= 3, limit=5000)
        assert s.tables == 2 and s.moves >= 5 + 3
        with pytest.raises(BackupError, match="already exists"):
            backup(_url(db), out)
        live_busy = {d: [m.text(False) for m in g.moves]
                     for d, g in enumerate(live(c, busy).games)}
    assert main(["restore", "--db", _url(new), str(out)]) == 0
    assert ledger_path(new).exists()  # the server starts on it without calling tables lost
    got, was = _tables(new, [quiet, busy]), _tables(db, [quiet, busy])
    assert got[quiet] == was[quiet]  # nothing moved there while the backup ran
    config, names, deals, moves = got[busy]
    assert (config, names) == was[busy][:2]
    for d, texts in moves.items():  # a consistent moment of a table still being played
        assert texts == live_busy[d][:len(texts)]
    assert sum(map(len, moves.values())) + 5 == s.moves
    with TestClient(app_for(_url(new))) as c:  # a server starts on the restored file
        assert c.get(f"/api/tables/{quiet}").status_code == 200


def _db(path: Path) -> None:
    with TestClient(app_for(_url(path))) as c:
        new_table(c, ["friend", "bot"], preset="kahdestaan-pakka")


@pytest.mark.parametrize("case, words", [
    ("missing", "does not exist"),
    ("text", "is not a SQLite database"),
    ("other-sqlite", "is not a ristiseiska database"),
    ("out-dir-missing", "does not exist"),
    ("out-is-dir", "is a directory"),
    ("out-exists", "already exists"),
])
def test_bad_backup_input_is_refused_before_any_work(
        tmp_path: Path, case: str, words: str, capsys: pytest.CaptureFixture[str]) -> None:
    src, out = tmp_path / "s.db", tmp_path / "out.db"
    if case == "text":
        src.write_text("hello")
    elif case == "other-sqlite":
        with sqlite3.connect(src) as conn:
            conn.execute("CREATE TABLE t (x)")
    elif case != "missing":
        _db(src)
    if case == "out-dir-missing":
        out = tmp_path / "nowhere" / "out.db"
    elif case == "out-is-dir":
        out = tmp_path
    elif case == "out-exists":
        out.write_text("keep me")
    assert main(["backup", "--db", _url(src), str(out)]) == 2
    err = capsys.readouterr().err
    assert words in err and "Traceback" not in err, err
    if case == "out-exists":
        assert out.read_text() == "keep me"
    else:
        assert not (out.exists() and out.is_file())
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".tmp")] == []


def test_restore_refuses_a_non_database_and_an_existing_one_without_force(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good, target = tmp_path / "good.db", tmp_path / "target.db"
    _db(good)
    (tmp_path / "junk.db").write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    assert main(["restore", "--db", _url(target), str(tmp_path / "junk.db")]) == 2
    assert "cannot be read" in capsys.readouterr().err
    assert not target.exists()
    _db(target)
    before = target.read_bytes()
    assert main(["restore", "--db", _url(target), str(good)]) == 2
    assert "--force" in capsys.readouterr().err
    assert target.read_bytes() == before
    assert main(["restore", "--db", _url(target), "--force", str(good)]) == 0
    assert "restored 1 tables" in capsys.readouterr().out


def test_restore_refuses_a_database_another_process_has_open(tmp_path: Path) -> None:
    good, target = tmp_path / "good.db", tmp_path / "target.db"
    _db(good)
    _db(target)
    assert not in_use(target)
    holder = subprocess.Popen(  # as a running server: the database open in another process
        [sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
         "c.execute('SELECT count(*) FROM rs_tables').fetchall(); print('open', flush=True); "
         "sys.stdin.read()", str(target)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "open"
        assert in_use(target)
        before = target.read_bytes()
        with pytest.raises(BackupError, match="in use"):
            restore(_url(target), good, force=False)
        assert target.read_bytes() == before
    finally:
        assert holder.stdin is not None
        holder.stdin.close()
        holder.wait(timeout=60)
    assert not in_use(target)


def test_postgresql_backup_needs_pg_dump_and_restore_shows_the_command(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    url = "postgresql+psycopg://rs@localhost/rs"
    monkeypatch.setattr("shutil.which", lambda _name: None)
    with pytest.raises(BackupError, match="pg_dump is not installed"):
        backup(url, tmp_path / "x.dump")
    with pytest.raises(BackupError, match="pg_restore .*postgresql://rs@localhost/rs"):
        restore(url, tmp_path / "x.dump")

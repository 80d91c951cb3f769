"""Storage you can trust: durable commits, damaged databases refused before the server is up,
storage errors as clear answers with nothing changed."""

from __future__ import annotations

import asyncio
import os
import sqlite3
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.store import Store, StoreError

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for, claim, new_table  # noqa: E402


def _url(path: Path, query: str = "") -> str:
    return f"sqlite+aiosqlite:///{path}{query}"


def _check(url: str) -> str | None:
    async def go() -> str | None:
        store = Store(url)
        try:
            await store.check()
        except StoreError as e:
            return str(e)
        finally:
            await store.close()
        return None

    return asyncio.run(go())


def _make_db(path: Path, tables: int = 3) -> None:
    with TestClient(app_for(_url(path))) as c:
        for _ in range(tables):
            new_table(c, ["friend", "bot", "bot"])


@pytest.mark.parametrize("durability, level", [("power-cut", 2), ("crash", 1)])
def test_sqlite_runs_in_wal_mode_with_the_chosen_sync(tmp_path: Path, durability: str,
                                                      level: int) -> None:
    """2 = FULL (an ack means the move is on disk), 1 = NORMAL (``--durability crash``): on
    the app's connections and on the move writer's own one alike."""
    async def pragmas() -> tuple[Any, Any, Any]:
        store = Store(_url(tmp_path / "x.db"), durability=durability)
        try:
            await store.init()
            async with store.engine.connect() as conn:
                mode = (await conn.exec_driver_sql("PRAGMA journal_mode")).scalar()
                sync = (await conn.exec_driver_sql("PRAGMA synchronous")).scalar()
            store._insert_direct([])  # opens the writer's connection (no rows: no change)
            assert store._direct_conn is not None
            direct = store._direct_conn.execute("PRAGMA synchronous").fetchone()[0]
            return mode, sync, direct
        finally:
            await store.close()

    assert asyncio.run(pragmas()) == ("wal", level, level)


def test_an_unknown_durability_is_refused() -> None:
    with pytest.raises(ValueError, match="durability must be one of power-cut, crash"):
        Store("sqlite+aiosqlite://", durability="sometimes")


def test_a_sound_database_passes_the_check(tmp_path: Path) -> None:
    _make_db(tmp_path / "ok.db")
    assert _check(_url(tmp_path / "ok.db")) is None
    assert _check(_url(tmp_path / "new.db")) is None  # a new file is created and fine


def test_an_empty_file_is_not_silently_reused(tmp_path: Path) -> None:
    (tmp_path / "empty.db").write_bytes(b"")
    problem = _check(_url(tmp_path / "empty.db"))
    assert problem is not None and "empty file" in problem
    assert (tmp_path / "empty.db").stat().st_size == 0  # left as it was


@pytest.mark.parametrize("damage", ["garbage", "truncated", "zeroed-page"])
def test_a_damaged_database_is_one_clear_sentence(tmp_path: Path, damage: str) -> None:
    db = tmp_path / "d.db"
    if damage == "garbage":
        db.write_bytes(os.urandom(8192))
    else:
        _make_db(db, tables=30)
        with sqlite3.connect(db) as conn:  # fold the WAL into the file first
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        data = bytearray(db.read_bytes())
        page = 4096
        assert len(data) >= 4 * page
        if damage == "truncated":
            data = data[: len(data) // 2 + 100]
        else:
            data[2 * page: 3 * page] = bytes(page)
        db.write_bytes(bytes(data))
    problem = _check(_url(db))
    assert problem is not None and "damaged" in problem, problem
    assert "Traceback" not in problem and "\n" not in problem


def test_a_read_only_database_is_refused_at_start(tmp_path: Path) -> None:
    _make_db(tmp_path / "ro.db")
    problem = _check(_url(tmp_path / "ro.db", "?mode=ro&uri=true").replace(
        "sqlite+aiosqlite:///", "sqlite+aiosqlite:///file:"))
    assert problem is not None and "read-only" in problem, problem


def test_writes_failing_later_are_clear_errors_with_nothing_changed(tmp_path: Path) -> None:
    """The database turns read-only while the server runs: creating a table, claiming a
    seat and a move are refused with a message; the live table is unchanged."""
    db = tmp_path / "w.db"
    with TestClient(app_for(_url(db))) as c:
        tid = new_table(c, ["friend", "friend"])
        token = claim(c, tid, 0, "Aino")
        store = c.app.state.store  # type: ignore[attr-defined]

        async def refuse(*_a: Any, **_k: Any) -> None:
            raise sqlite3.OperationalError("attempt to write a readonly database")

        for name in ("create_table", "claim_seat", "add_move", "start_deal"):
            setattr(store, name, refuse)
        r = c.post("/api/tables", json={"seats": [{"kind": "friend"}, {"kind": "bot"}]})
        assert r.status_code == 503 and "read-only" in r.json()["message"]
        r = c.post(f"/api/tables/{tid}/seats/1", json={"name": "Olli"})
        assert r.status_code == 503 and "read-only" in r.json()["message"]
        assert c.get(f"/api/tables/{tid}").json()["seats"][1]["taken"] is False
        t = c.app.state.tables.live[tid]  # type: ignore[attr-defined]
        before = len(t.game.moves)
        seat = t.game.to_move
        if seat == 0:
            with c.websocket_connect(f"/ws/{tid}") as ws:
                ws.send_json({"type": "join", "seat": 0, "token": token})
                ws.send_json({"type": "move", "move": t.game.legal_moves()[0].text(False),
                              "id": 1})
                while (m := ws.receive_json())["type"] != "error":
                    pass
                assert m["code"] == "store" and "read-only" in m["message"]
        assert len(t.game.moves) == before


def test_serve_exits_before_printing_an_address_on_a_damaged_database(tmp_path: Path) -> None:
    db = tmp_path / "bad.db"
    db.write_bytes(b"SQLite format 3\x00" + os.urandom(5000))
    env = dict(os.environ, HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    r = subprocess.run([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0",
                        "--database-url", f"sqlite:///{db}"], capture_output=True, text=True,
                       env=env, timeout=60)
    assert r.returncode == 2
    assert r.stdout == ""  # no address was printed
    assert "damaged" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("url, words", [
    ("sqlite+aiosqlite:////nonexistent_dir_rs/x.db", "directory exists"),
    ("postgresql+psycopg://u:secret@127.0.0.1:1/x", "connection"),
])
def test_database_url_errors_are_one_sentence(url: str, words: str) -> None:
    if url.startswith("postgresql"):
        pytest.importorskip("psycopg")
    problem = _check(url)
    assert problem is not None and words in problem, problem
    assert "secret" not in problem and "\n" not in problem


def test_a_directory_is_not_a_database(tmp_path: Path) -> None:
    problem = _check(_url(tmp_path))
    assert problem is not None and "directory" in problem

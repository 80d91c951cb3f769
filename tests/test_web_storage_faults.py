"""The SQLite file changing under a running server (issue 19): deleted, replaced, truncated or
overwritten. The server notices before it acknowledges anything more: moves, seats and new
tables are refused with 503 / an `error` frame `storage-fault`, everyone at a live table is
told, the operator's log names the file; a restart refuses a database that lost tables."""

from __future__ import annotations

import asyncio
import json
import logging
import os
import shutil
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.store import Store, StoreError, ledger_path

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for, claim, live, new_table  # noqa: E402

FAULTS = ["delete", "replace", "truncate-0", "truncate-half", "overwrite-garbage",
          "overwrite-zeros", "copy-other-database", "overwrite-after-header"]


def _url(path: Path) -> str:
    return f"sqlite+aiosqlite:///{path}"


def _other_database(path: Path) -> None:
    """Another ristiseiska database (with a table of its own) at ``path``."""
    with TestClient(app_for(_url(path))) as c:
        new_table(c, ["friend", "bot", "bot"])


def damage(db: Path, how: str, tmp: Path) -> None:
    size = db.stat().st_size
    if how == "delete":
        db.unlink()
    elif how == "replace":  # another file moved over it (a new inode)
        _other_database(tmp / "other.db")
        os.replace(tmp / "other.db", db)
    elif how == "truncate-0":
        os.truncate(db, 0)
    elif how == "truncate-half":
        os.truncate(db, size // 2)
    elif how in ("overwrite-garbage", "overwrite-zeros"):
        data = os.urandom(size) if how == "overwrite-garbage" else bytes(size)
        with open(db, "r+b") as f:  # in place: the same inode, the same size
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
    elif how == "overwrite-after-header":  # the header page kept, every page after it garbage
        with open(db, "r+b") as f:
            f.seek(4096)
            f.write(os.urandom(max(0, size - 4096)))
            f.flush()
            os.fsync(f.fileno())
    elif how == "copy-other-database":  # `cp other.db x.db`: the same inode, new contents
        _other_database(tmp / "other.db")
        shutil.copyfile(tmp / "other.db", db)
    else:
        raise AssertionError(how)


def _until_pong(ws: Any) -> list[dict[str, Any]]:
    ws.send_json({"type": "ping"})
    frames = []
    while (m := ws.receive_json())["type"] != "pong":
        frames.append(m)
    return frames


def _move(ws: Any, table: Any, tokens: dict[int, str], move_id: int) -> dict[str, Any]:
    """The seat to move plays its first legal move; the ack or the error it gets."""
    _until_pong(ws)  # whatever came before
    seat = table.game.to_move
    ws.send_json({"type": "join", "seat": seat, "token": tokens[seat]})
    _until_pong(ws)
    ws.send_json({"type": "move", "move": table.game.legal_moves()[0].text(True),
                  "id": move_id})
    replies = [m for m in _until_pong(ws) if m["type"] in ("ack", "error")]
    # (the move that meets a fault also brings the note every connection gets)
    assert len(replies) == 1 or {m["type"] for m in replies} == {"error"}, replies
    return replies[-1]


@pytest.mark.parametrize("how", FAULTS)
def test_a_database_file_changed_under_the_server_stops_every_ack(
        tmp_path: Path, how: str, caplog: pytest.LogCaptureFixture) -> None:
    db = tmp_path / "live.db"
    with TestClient(app_for(_url(db))) as c:
        tid = new_table(c, ["friend", "friend", "friend"])
        tokens = {s: claim(c, tid, s) for s in range(3)}
        other = new_table(c, ["friend", "friend"], preset="kahdestaan-pakka")
        table = live(c, tid)
        with c.websocket_connect(f"/ws/{tid}") as ws, \
                c.websocket_connect(f"/ws/{tid}") as watcher:
            assert _move(ws, table, tokens, 1)["type"] == "ack"
            assert _move(ws, table, tokens, 2)["type"] == "ack"
            acked = len(table.game.moves)
            damage(db, how, tmp_path)
            with caplog.at_level(logging.ERROR, logger="ristiseiska.store"):
                m = _move(ws, table, tokens, 3)
            assert m["type"] == "error" and m["code"] == "storage-fault", m
            assert "not accepted" in m["message"]
            assert len(table.game.moves) == acked  # nothing changed in memory either
            # the operator's log names the file and what happened to it
            logged = " ".join(r.getMessage() for r in caplog.records)
            assert "storage fault" in logged and str(db) in logged, logged
            # everyone at the table is told, not only the player whose move was refused
            told = [m for m in _until_pong(watcher) if m["type"] == "error"]
            assert [m["code"] for m in told] == ["storage-fault"], told
            for k in range(3):  # and it stays so: no later move is acknowledged
                m = _move(ws, table, tokens, 10 + k)
                assert m["type"] == "error" and m["code"] == "storage-fault"
            assert len(table.game.moves) == acked
        r = c.post("/api/tables", json={"seats": [{"kind": "friend"}, {"kind": "bot"}]})
        assert r.status_code == 503 and r.json()["error"] == "storage-fault", r.text
        assert r.json()["message"] and r.headers["Retry-After"]
        r = c.post(f"/api/tables/{other}/seats/0", json={"name": "Aino"})
        assert r.status_code == 503 and r.json()["error"] == "storage-fault", r.text


def test_a_fault_is_noticed_without_any_write(tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    """Nobody moves: the server's periodic look at the file notices the delete and tells the
    players at once (their last acknowledged moves may be lost with the file)."""
    db = tmp_path / "quiet.db"
    with TestClient(app_for(_url(db))) as c:
        tid = new_table(c, ["friend", "friend"], preset="kahdestaan-pakka")
        t0 = claim(c, tid, 0)
        with c.websocket_connect(f"/ws/{tid}") as ws:
            ws.send_json({"type": "join", "seat": 0, "token": t0})
            with caplog.at_level(logging.ERROR, logger="ristiseiska.store"):
                db.unlink()
                while (m := ws.receive_json())["type"] != "error":
                    pass
            assert m["code"] == "storage-fault"
            assert any("was deleted" in r.getMessage() for r in caplog.records)


def test_the_store_refuses_writes_after_a_fault_and_says_why(tmp_path: Path) -> None:
    async def go() -> None:
        db = tmp_path / "s.db"
        store = Store(_url(db))
        await store.init()
        await store.create_table("table-0001", {"seats": []}, ["a", "b"])
        await store.start_deal("table-0001", 0)
        await store.add_move("table-0001", 0, 0, 0, "C7")
        os.truncate(db, 0)
        for write in (store.add_move("table-0001", 0, 1, 1, "C8"),
                      store.start_deal("table-0001", 1),
                      store.create_table("table-0002", {"seats": []}, ["a"]),
                      store.load("table-0001")):
            with pytest.raises(StoreError, match="truncated"):
                await write
        await store.close()

    asyncio.run(go())


def test_no_fault_is_seen_in_a_sound_database_under_checkpoints(tmp_path: Path) -> None:
    """No false alarm: thousands of moves while another connection checkpoints the WAL into
    the file over and over (the file grows and its header is rewritten meanwhile) and
    another thread keeps looking at it."""
    import sqlite3
    import threading

    db = tmp_path / "busy.db"
    stop = threading.Event()
    seen: list[BaseException] = []

    async def go() -> None:
        store = Store(_url(db))
        await store.init()

        def look() -> None:
            other = sqlite3.connect(db, timeout=30)
            while not stop.is_set():
                try:
                    other.execute("PRAGMA wal_checkpoint(PASSIVE)")
                    store.verify()
                except BaseException as e:  # noqa: BLE001 - reported below
                    seen.append(e)
                    return
            other.close()

        worker = threading.Thread(target=look)
        worker.start()
        try:
            for t in range(20):
                tid = f"table-{t:04d}"
                await store.create_table(tid, {"seats": [], "pad": "x" * 3000}, ["a", "b"])
                await store.start_deal(tid, 0)
                await asyncio.gather(*(store.add_move(tid, 0, ply, ply % 2, "C7" * 8)
                                       for ply in range(300)))
        finally:
            stop.set()
            worker.join()
            await store.close()
        assert store.fault is None

    asyncio.run(go())
    assert seen == []


# -- restarts ---------------------------------------------------------------------------------

def _check(url: str) -> tuple[str | None, list[str]]:
    async def go() -> tuple[str | None, list[str]]:
        store = Store(url)
        try:
            await store.check()
        except StoreError as e:
            return str(e), store.notices
        finally:
            await store.close()
        return None, store.notices

    return asyncio.run(go())


def _db_with_tables(db: Path, n: int) -> None:
    with TestClient(app_for(_url(db))) as c:
        for _ in range(n):
            new_table(c, ["friend", "bot", "bot"])


def test_a_restart_refuses_a_deleted_database_that_had_tables(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    _db_with_tables(db, 2)
    assert json.loads(ledger_path(db).read_text())["tables"] == 2
    db.unlink()
    problem, _ = _check(_url(db))
    assert problem is not None and "missing" in problem and str(db) in problem
    assert str(ledger_path(db)) in problem and "2 tables" in problem
    assert not db.exists()  # no empty database was made in its place
    with pytest.raises(StoreError, match="missing"), TestClient(app_for(_url(db))):
        pass  # the app does not start either
    assert not db.exists()
    # the operator decides: without the ledger it starts afresh, and says so
    ledger_path(db).unlink()
    problem, notices = _check(_url(db))
    assert problem is None
    assert any("empty" in n and str(db) in n for n in notices), notices


def test_a_restart_refuses_a_database_that_lost_tables(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    _db_with_tables(db, 1)
    shutil.copyfile(db, tmp_path / "backup.db")  # a backup with one table
    _db_with_tables(db, 2)
    shutil.copyfile(tmp_path / "backup.db", db)  # restored over the newer database
    for suffix in ("-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    problem, _ = _check(_url(db))
    assert problem is not None and "holds 1 tables" in problem and "held 3" in problem


def test_a_restart_refuses_another_database_in_place_of_its_own(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    _db_with_tables(db, 2)
    _db_with_tables(tmp_path / "other.db", 3)
    shutil.copyfile(tmp_path / "other.db", db)
    problem, _ = _check(_url(db))
    assert problem is not None and "not the database" in problem, problem


def test_a_restart_after_a_truncation_refuses_to_start(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    _db_with_tables(db, 2)
    os.truncate(db, 0)
    problem, _ = _check(_url(db))
    assert problem is not None and "empty file" in problem


def test_a_sound_restart_keeps_its_ledger_and_says_nothing(tmp_path: Path) -> None:
    db = tmp_path / "games.db"
    _db_with_tables(db, 2)
    problem, notices = _check(_url(db))
    assert problem is None and notices == []
    _db_with_tables(db, 1)
    assert json.loads(ledger_path(db).read_text())["tables"] == 3


def test_serve_refuses_a_deleted_database_and_announces_a_new_one(tmp_path: Path) -> None:
    db = tmp_path / "served.db"
    _db_with_tables(db, 1)
    db.unlink()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    cmd = [sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0",
           "--database-url", _url(db)]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 2, r.stdout + r.stderr
    assert "missing" in r.stderr and str(db) in r.stderr and "http://" not in r.stdout
    assert not db.exists()
    # a first start on a new path says loudly that it starts empty, naming the file
    fresh = tmp_path / "new.db"
    p = subprocess.Popen([*cmd[:-1], _url(fresh)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert p.stdout is not None
        line = p.stdout.readline()
        assert "http://" in line, line
    finally:
        p.terminate()
        _out, err = p.communicate(timeout=30)
    assert "starting with a new, empty one" in err and str(fresh) in err, err


def test_damage_past_the_header_is_caught_before_the_next_ack_and_sound_writes_skip_the_check(
        tmp_path: Path) -> None:
    """Random bytes over every page after the first 4 KiB keep SQLite's header (and the file's
    size and inode): the store checks the pages of a file written by anyone but its own
    checkpoints before the next ack (issue 46), and only then."""
    async def go() -> None:
        db = tmp_path / "pages.db"
        store = Store(_url(db))
        await store.init()
        for t in range(12):
            await store.create_table(f"table-{t:04d}", {"seats": [], "pad": "x" * 3000},
                                     ["a", "b"])
            await store.start_deal(f"table-{t:04d}", 0)
        for ply in range(200):  # the store's own checkpoints meanwhile: no check needed
            await store.add_move("table-0000", 0, ply, ply % 2, "C7")
            if ply % 50 == 0:
                await asyncio.sleep(1.1)  # past CHECKPOINT_EVERY
        assert store.fault is None and store.deep_checks <= 1, store.deep_checks
        damage(db, "overwrite-after-header", tmp_path)
        with pytest.raises(StoreError, match="damaged"):
            await store.add_move("table-0000", 0, 200, 0, "C8")
        with pytest.raises(StoreError, match="damaged"):
            await store.create_table("table-9999", {"seats": []}, ["a"])
        await store.close()

    asyncio.run(go())


def test_two_processes_on_one_file_vouch_for_their_checkpoints(tmp_path: Path) -> None:
    """Several server processes share one SQLite file (``serve --processes``): each one's
    checkpoints write the file, and the note in ``<file>.checkpoint`` spares the others a
    check of every page after each; damage past the header is still caught by both."""
    async def go() -> None:
        db = tmp_path / "two.db"
        a = Store(_url(db), shared=True)
        await a.init()
        b = Store(_url(db), shared=True)
        await b.init()
        for s, n in ((a, "a"), (b, "b")):
            for t in range(4):
                await s.create_table(f"{n}-table-{t:04d}", {"seats": [], "pad": "x" * 3000},
                                     ["x", "y"])
                await s.start_deal(f"{n}-table-{t:04d}", 0)
        loop = asyncio.get_running_loop()
        end, ply = loop.time() + 4.0, 0
        while loop.time() < end:
            await asyncio.gather(a.add_move("a-table-0000", 0, ply, 0, "C7"),
                                 b.add_move("b-table-0000", 0, ply, 0, "C7"))
            ply += 1
            await asyncio.sleep(0.01)
        assert a.fault is None and b.fault is None
        for s in (a, b):  # no background checkpoint from here on (the test makes its own)
            s._checkpoint_due = float("inf")
            while s._checkpoint_busy:
                await asyncio.sleep(0.01)
        # a's checkpoint writes the file and notes it: b takes the change without a check
        await b.add_move("b-table-0001", 0, 0, 0, "C7")
        b.verify()
        before = b.deep_checks
        a._checkpoint_vouched(db)
        b.verify()
        assert b.deep_checks == before
        # a write nobody vouched for (a checkpoint by someone else) is checked once, found sound
        import sqlite3

        await b.add_move("b-table-0001", 0, 1, 0, "C7")
        other = sqlite3.connect(db)
        other.execute("PRAGMA wal_checkpoint(PASSIVE)")
        other.close()
        b.verify()
        assert b.deep_checks == before + 1 and b.fault is None
        damage(db, "overwrite-after-header", tmp_path)
        for s, n in ((a, "a"), (b, "b")):
            with pytest.raises(StoreError, match="damaged"):
                await s.add_move(f"{n}-table-0000", 0, ply, 0, "C8")
        await a.close()
        await b.close()

    asyncio.run(go())

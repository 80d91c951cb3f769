"""The store's schema by Alembic migrations (store/migrate.py): a new database is made by them
and matches the models; a database made before migrations (tests/data/
store_schema_before_migrations.*.sql, the DDL the old ``create_all`` emitted, with and without
the old hand-written columns) is recognised, stamped and upgraded with its rows kept (a SQLite
file copied beside it first); a database newer than the code is refused, also by ``serve``; a
database that lost its version re-runs every revision cleanly. On SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
import itertools
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import create_engine, inspect, text

import pg_kit
from ristiseiska.identity import rows as _identity  # noqa: F401 - its tables in the models
from ristiseiska.store import Store, StoreError
from ristiseiska.store import analysis as _analysis  # noqa: F401 - its table in the models
from ristiseiska.store import bot_tokens as _bot_tokens  # noqa: F401 - its table in the models
from ristiseiska.store import daily as _daily  # noqa: F401 - its tables in the models
from ristiseiska.store import history as _history  # noqa: F401 - its tables in the models
from ristiseiska.store import migrate as migrations
from ristiseiska.store import ratings as _ratings  # noqa: F401 - its tables in the models
from ristiseiska.store.schema import Base

DATA = Path(__file__).parent / "data"
_names = itertools.count()


@pytest.fixture(scope="module")
def pg_cluster() -> Iterator[str]:
    if not pg_kit.available():
        pytest.skip("PostgreSQL or psycopg is not installed")
    with pg_kit.cluster() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """The URL of a new, empty database (a SQLite file or a PostgreSQL database)."""
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'games.db'}"
    cluster = request.getfixturevalue("pg_cluster")
    return pg_kit.new_database(cluster, f"rs_mig_{os.getpid()}_{next(_names)}")


def _sync(url: str) -> Any:
    return create_engine(url.replace("+aiosqlite", ""))


def _run(url: str, sql: str) -> None:
    engine = _sync(url)
    with engine.begin() as conn:
        for statement in sql.split(";"):
            if statement.strip():
                conn.exec_driver_sql(statement)
    engine.dispose()


def _old_schema(url: str, hand_columns: bool = True, drop: tuple[str, ...] = ()) -> None:
    """A database as the code before migrations made it, with a table, a seat and a move."""
    dialect = "sqlite" if url.startswith("sqlite") else "postgresql"
    _run(url, (DATA / f"store_schema_before_migrations.{dialect}.sql").read_text())
    cols = "table_id, deal, ply, seat, move"
    if not hand_columns:  # a database from before the fencing number and the move id
        _run(url, "ALTER TABLE rs_moves DROP COLUMN epoch; ALTER TABLE rs_moves DROP COLUMN move_id")
    _run(url, "INSERT INTO rs_tables (id, created, config, finished) VALUES ('t1', 1.5, '{}', false);"
              "INSERT INTO rs_seats (table_id, seat, name) VALUES ('t1', 0, 'Aino');"
              f"INSERT INTO rs_moves ({cols}) VALUES ('t1', 0, 0, 0, '7C')")
    for name in drop:
        _run(url, f"DROP TABLE {name}")


def _check(url: str) -> tuple[str | None, list[str]]:
    """``Store.check`` as ``serve`` runs it: its error (or None) and its notices."""
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


def _state(url: str) -> tuple[str | None, list[Any], Any]:
    """The database's revision, its tables' differences from the models, and its move."""
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext

    engine = _sync(url)
    with engine.connect() as conn:
        revision = migrations.current(conn)
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        move = conn.execute(text("SELECT t.config, s.name, m.move, m.epoch FROM rs_tables t "
                                 "JOIN rs_seats s ON s.table_id = t.id JOIN rs_moves m "
                                 "ON m.table_id = t.id")).all()
    engine.dispose()
    return revision, diff, move


def test_the_revisions_form_one_line_ending_at_head() -> None:
    assert migrations.known()[0] == "0001"
    assert migrations.known()[-1] == migrations.head()
    assert len(set(migrations.known())) == len(migrations.known())


def test_a_new_database_is_made_by_the_migrations_and_matches_the_models(db: str) -> None:
    problem, notices = _check(db)
    assert problem is None
    assert not any("upgraded" in n for n in notices)
    engine = _sync(db)
    with engine.connect() as conn:
        from alembic.autogenerate import compare_metadata
        from alembic.runtime.migration import MigrationContext

        assert migrations.current(conn) == migrations.head()
        assert compare_metadata(MigrationContext.configure(conn), Base.metadata) == []
    engine.dispose()
    if db.startswith("sqlite"):  # nothing to copy in a new database
        assert not list(Path(db.split("///", 1)[1]).parent.glob("*.bak"))


@pytest.mark.parametrize("hand_columns, legacy", [(True, "0002"), (False, "0001")])
def test_a_database_from_before_migrations_is_stamped_and_upgraded(db: str, hand_columns: bool,
                                                                   legacy: str) -> None:
    _old_schema(db, hand_columns)
    engine = _sync(db)
    with engine.connect() as conn:
        assert migrations.legacy_revision(conn) == legacy
    engine.dispose()
    problem, notices = _check(db)
    assert problem is None
    revision, diff, rows = _state(db)
    assert revision == migrations.head() and diff == []
    assert rows == [("{}", "Aino", "7C", None)]  # kept; the new column empty
    assert any("upgraded the database (from before migrations)" in n for n in notices)
    if db.startswith("sqlite"):
        path = Path(db.split("///", 1)[1])
        copy = path.with_name(f"{path.name}.before-{migrations.head()}.bak")
        assert str(copy) in " ".join(notices)
        with sqlite3.connect(copy) as conn:  # the copy is the database as it was
            assert conn.execute("SELECT name FROM rs_seats").fetchall() == [("Aino",)]
            names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
            assert "alembic_version" not in names
            cols = {r[1] for r in conn.execute("PRAGMA table_info(rs_moves)")}
            assert ("epoch" in cols) is hand_columns
    assert _check(db) == (None, [])  # the next start has nothing to do or say


def test_an_older_database_missing_later_tables_gets_them(db: str) -> None:
    _old_schema(db, drop=("rs_forced_moves", "rs_clock_timeouts", "rs_clock", "rs_analyses"))
    assert _check(db)[0] is None
    revision, diff, rows = _state(db)
    assert revision == migrations.head() and diff == [] and len(rows) == 1


def test_a_database_that_lost_its_version_reruns_every_revision(db: str,
                                                                monkeypatch: pytest.MonkeyPatch
                                                                ) -> None:
    assert _check(db)[0] is None
    _old_schema_rows = "INSERT INTO rs_tables (id, created, config, finished) VALUES ('t1', 1.5, '{}', false)"
    _run(db, _old_schema_rows + "; DROP TABLE alembic_version")
    # not recognised: every revision runs from the first, each creating only what is missing
    monkeypatch.setattr(migrations, "legacy_revision", lambda conn: None)
    assert _check(db)[0] is None
    engine = _sync(db)
    with engine.connect() as conn:
        assert migrations.current(conn) == migrations.head()
        assert conn.execute(text("SELECT id FROM rs_tables")).all() == [("t1",)]
    engine.dispose()


def test_a_database_newer_than_the_code_is_refused_unchanged(db: str) -> None:
    assert _check(db)[0] is None
    _run(db, "UPDATE alembic_version SET version_num = '9999'")
    problem, _ = _check(db)
    assert problem is not None and "revision 9999" in problem and "newer" in problem
    engine = _sync(db)
    with engine.connect() as conn:
        assert migrations.current(conn) == "9999"
    engine.dispose()


def test_serve_refuses_a_newer_database_in_one_line(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'games.db'}"
    assert _check(url)[0] is None
    _run(url, "UPDATE alembic_version SET version_num = 'f00d'")
    env = dict(os.environ, HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    r = subprocess.run([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0",
                        "--database-url", f"sqlite:///{tmp_path / 'games.db'}"],
                       capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 2
    assert r.stdout == ""  # no address was printed
    assert "revision f00d" in r.stderr and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1


def test_serve_upgrades_an_older_database_and_says_where_the_copy_is(tmp_path: Path) -> None:
    """Started on a database from before migrations, ``serve`` upgrades it before it listens
    (stopped here once it says it listens)."""
    db = tmp_path / "games.db"
    _old_schema(f"sqlite:///{db}", hand_columns=False)
    env = dict(os.environ, HOME=str(tmp_path), XDG_DATA_HOME=str(tmp_path / "data"))
    p = subprocess.Popen([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0",
                          "--database-url", f"sqlite:///{db}"], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert p.stdout is not None
        line = p.stdout.readline()  # the address: the database was checked before it
        assert line, p.stderr.read() if p.stderr else ""
    finally:
        p.terminate()
        _, err = p.communicate(timeout=60)
    copy = db.with_name(f"games.db.before-{migrations.head()}.bak")
    assert copy.exists()
    assert f"upgraded the database (from before migrations) to revision {migrations.head()}" in err
    assert str(copy) in err
    engine = _sync(f"sqlite:///{db}")
    with engine.connect() as conn:
        assert migrations.current(conn) == migrations.head()
        assert "move_id" in {c["name"] for c in inspect(conn).get_columns("rs_moves")}
    engine.dispose()


def test_migrate_by_hand(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from ristiseiska.cli import main

    db = tmp_path / "games.db"
    _old_schema(f"sqlite:///{db}")
    url = ["--database-url", f"sqlite:///{db}"]
    assert main(["migrate", "--status", *url]) == 0
    assert f"revision none; this version's newest is {migrations.head()}" in capsys.readouterr().out
    assert not list(tmp_path.glob("*.bak"))  # --status changes nothing
    assert main(["migrate", *url]) == 0
    out = capsys.readouterr().out
    assert f"upgraded from revision 0002 (made before migrations) to {migrations.head()}" in out
    assert f"games.db.before-{migrations.head()}.bak" in out
    assert main(["migrate", *url]) == 0
    assert f"already at revision {migrations.head()}" in capsys.readouterr().out
    _run(f"sqlite:///{db}", "UPDATE alembic_version SET version_num = 'beef'")
    assert main(["migrate", *url]) == 2
    assert "revision beef" in capsys.readouterr().err

"""The daily deal's storage (issue 57; store/daily.py, migration 0005) on SQLite and
PostgreSQL: a database made by the code before it (revision 0004) gets the daily tables and
keeps what it held; the secret is made once; a counted result is stored once; ``forget``
deletes one player's results and tries only."""

from __future__ import annotations

import asyncio
import itertools
import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect, text

import pg_kit
from ristiseiska.store import Store
from ristiseiska.store import daily as stored
from ristiseiska.store import migrate as migrations

_names = itertools.count()
DAILY = {"rs_daily_secret", "rs_daily_tries", "rs_daily_results"}


@pytest.fixture(scope="module")
def pg_cluster() -> Iterator[str]:
    if not pg_kit.available():
        pytest.skip("PostgreSQL or psycopg is not installed")
    with pg_kit.cluster() as url:
        yield url


@pytest.fixture(params=["sqlite", "postgresql"])
def db(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite+aiosqlite:///{tmp_path / 'games.db'}"
    cluster = request.getfixturevalue("pg_cluster")
    return pg_kit.new_database(cluster, f"rs_daily_{os.getpid()}_{next(_names)}")


def test_a_database_at_0004_gets_the_daily_tables(db: str) -> None:
    from alembic import command

    engine = create_engine(db.replace("+aiosqlite", ""))
    with engine.begin() as conn:
        command.upgrade(migrations._config(conn), "0004")
        conn.execute(text("INSERT INTO rs_tables (id, created, config, finished) "
                          "VALUES ('t1', 1.5, '{}', false)"))
    with engine.connect() as conn:
        assert not DAILY & set(inspect(conn).get_table_names())
    engine.dispose()

    async def go() -> None:
        store = Store(db)
        try:
            await store.check()
            await store.init()
        finally:
            await store.close()

    asyncio.run(go())
    engine = create_engine(db.replace("+aiosqlite", ""))
    with engine.connect() as conn:
        from alembic.autogenerate import compare_metadata
        from alembic.runtime.migration import MigrationContext

        from ristiseiska.store.schema import Base

        assert migrations.current(conn) == migrations.head() and "0005" in migrations.known()
        assert DAILY <= set(inspect(conn).get_table_names())
        assert conn.execute(text("SELECT id FROM rs_tables")).all() == [("t1",)]
        diff = compare_metadata(MigrationContext.configure(conn), Base.metadata)
        assert not [d for d in diff if "daily" in str(d)]
    engine.dispose()


def test_secret_results_and_forget(db: str) -> None:
    async def go() -> None:
        store = Store(db)
        await store.init()
        try:
            s1 = await stored.secret(store)
            assert len(s1) == 32 and await stored.secret(store) == s1  # made once, kept
            assert await stored.secret(store, b"g" * 32) == b"g" * 32  # a given one wins
            a, b = "device:" + "a" * 32, "device:" + "b" * 32
            assert await stored.claim_try(store, a, "2026-12-07", "sjuan", "package")
            assert not await stored.claim_try(store, a, "2026-12-07", "sjuan", "table")
            assert await stored.add_result(store, a, "2026-12-07", "sjuan", True, 3, 2, "{}")
            assert not await stored.add_result(store, a, "2026-12-07", "sjuan", True, 0, 1, "{}")
            assert await stored.add_result(store, a, "2026-12-07", "sjuan", False, 9, 4, "{}")
            assert await stored.add_result(store, a, "2026-12-07", "sjuan", False, 7, 3, "{}")
            assert await stored.add_result(store, b, "2026-12-07", "sjuan", True, 5, 3, "{}")
            mine = await stored.results(store, a, "2026-12-07", "sjuan")
            assert sorted((r.counted, r.points) for r in mine) == [(False, 7), (True, 3)]
            assert await stored.field_points(store, "2026-12-07", "sjuan") == {a: 3, b: 5}
            assert await stored.forget(store, a) == 2
            assert await stored.results(store, a, "2026-12-07", "sjuan") == []
            assert await stored.counted_try(store, a, "2026-12-07", "sjuan") is None
            assert await stored.field_points(store, "2026-12-07", "sjuan") == {b: 5}
        finally:
            await store.close()

    asyncio.run(go())

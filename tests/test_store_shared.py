"""SQLite shared by several server processes (``serve --processes``): while one store writes
moves as fast as it can, another claims seats (a read, then a write, in one transaction) and
stores table states, and nothing fails with "database is locked"."""

from __future__ import annotations

import asyncio
from pathlib import Path

from ristiseiska.store import Store


def test_two_stores_on_one_sqlite_file_write_at_once(tmp_path: Path) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}"

    async def go() -> None:
        a, b = Store(url, shared=True), Store(url, shared=True)
        await a.init()
        for i in range(30):
            await a.create_table(f"table-{i:04d}", {"seed": i}, ["x", "y"])
            await a.start_deal(f"table-{i:04d}", 0)
        stop = asyncio.Event()

        async def writer() -> int:
            n = 0
            while not stop.is_set():
                await asyncio.gather(*(a.add_move(f"table-{i:04d}", 0, n, 0, "C7")
                                       for i in range(30)))
                n += 1
            return n

        task = asyncio.create_task(writer())
        try:
            for i in range(30):
                assert await b.claim_seat(f"table-{i:04d}", 1, f"p{i}", f"h{i}")
                await b.set_table_state(f"table-{i:04d}", True, [0])
                await asyncio.sleep(0)
        finally:
            stop.set()
            plies = await task
        st = await b.load("table-0007")
        assert st is not None and st.token_hashes[1] == "h7" and st.started
        assert len(st.moves[0]) == plies
        await a.close()
        await b.close()

    asyncio.run(go())


def test_a_seat_is_claimed_once_when_two_processes_try_at_once(tmp_path: Path) -> None:
    """Claiming a seat reads it and then writes it: the two must be one transaction across
    processes, or both could find the seat free and both take it. (Python's sqlite3 starts a
    transaction only at the first write, so without BEGIN IMMEDIATE the read is outside it.)"""
    from ristiseiska.store import SeatRow

    url = f"sqlite+aiosqlite:///{tmp_path / 'shared.db'}"

    async def go() -> None:
        a, b = Store(url, shared=True), Store(url, shared=True)
        await a.init()
        await a.create_table("table-0001", {"seed": 1}, ["x", "y"])
        async with b.session() as s, s.begin():  # b's claim, slowed down between its steps
            row = await s.get(SeatRow, ("table-0001", 1))
            assert row is not None and row.token_hash is None
            other = asyncio.create_task(a.claim_seat("table-0001", 1, "anna", "hash-a"))
            await asyncio.sleep(0.3)  # a tries meanwhile
            row.name, row.token_hash = "bert", "hash-b"
        a_won = await other
        st = await a.load("table-0001")
        assert st is not None
        assert not a_won and st.token_hashes[1] == "hash-b" and st.seat_names[1] == "bert"
        await a.close()
        await b.close()

    asyncio.run(go())


def test_the_owner_look_waits_for_no_other_process_s_write(tmp_path: Path) -> None:
    """Every process looks up the owners of all its tables each second (web/tables.py): a
    read, so it does not queue behind another process's write (its commit and fsync) for
    SQLite's single write lock, as every transaction of a shared store does."""
    import sqlite3
    import time

    path = tmp_path / "shared.db"
    url = f"sqlite+aiosqlite:///{path}"

    async def go() -> None:
        a = Store(url, shared=True)
        await a.init()
        try:
            await a.create_table("table-0001", {"seed": 1}, ["x", "y"])
            epoch = await a.take("table-0001", lapsed=True)
            other = sqlite3.connect(path, timeout=30, isolation_level=None)
            other.execute("BEGIN IMMEDIATE")  # another process in the middle of a write
            try:
                t0 = time.monotonic()
                got = await asyncio.wait_for(a.owners(["table-0001"]), 10)
                assert got == {"table-0001": epoch}
                assert time.monotonic() - t0 < 5
            finally:
                other.execute("ROLLBACK")
                other.close()
        finally:
            await a.close()

    asyncio.run(go())

"""The third pass on the server's CPU per move (issue 24, docs/web.md *Third pass*): group
commits wait a moment for more moves only while the server is busy, and the garbage
collector's thresholds while serving are restored when the server stops."""

from __future__ import annotations

import asyncio
import gc
import time
from pathlib import Path
from typing import Any

from ristiseiska.store import Store
from ristiseiska.web.tables import GC_OLDER, GC_YOUNG, Tables


def _store(tmp_path: Path) -> Store:
    return Store(f"sqlite+aiosqlite:///{tmp_path / 'moves.db'}")


async def _tables(store: Store, n: int) -> None:
    await store.init()
    for i in range(n):
        await store.create_table(f"table-{i:04d}", {"seed": i}, ["x", "y"])
        await store.start_deal(f"table-{i:04d}", 0)


def _count_batches(store: Store) -> list[int]:
    sizes: list[int] = []
    insert = store._insert

    async def counted(rows: list[dict[str, Any]]) -> None:
        sizes.append(len(rows))
        await insert(rows)

    store._insert = counted  # type: ignore[method-assign]
    return sizes


def test_a_busy_server_commits_many_moves_at_once_and_every_move_is_stored(
        tmp_path: Path) -> None:
    async def go(window: float) -> list[int]:
        store = _store(tmp_path / str(window))
        (tmp_path / str(window)).mkdir()
        await _tables(store, 40)
        store.commit_window = window
        sizes = _count_batches(store)

        async def table(i: int) -> None:  # moves arrive spread out, as at a real server
            await asyncio.sleep(0.0005 * i)
            for ply in range(10):
                await store.add_move(f"table-{i:04d}", 0, ply, ply % 2, "C7")
                await asyncio.sleep(0.02)

        await asyncio.gather(*(table(i) for i in range(40)))
        for i in (0, 17, 39):
            st = await store.load(f"table-{i:04d}")
            assert st is not None and len(st.moves[0]) == 10
        await store.close()
        return sizes

    with_window = asyncio.run(go(0.02))
    without = asyncio.run(go(0.0))
    assert sum(with_window) == sum(without) == 400
    # with the window the same moves took clearly fewer commits
    assert len(with_window) < 0.5 * len(without), (len(with_window), len(without))


def test_a_lone_move_is_never_kept_waiting_for_company(tmp_path: Path) -> None:
    async def go() -> float:
        store = _store(tmp_path)
        await _tables(store, 1)
        store.commit_window = 30.0  # a wait would show at once
        worst = 0.0
        for ply in range(5):
            t0 = time.monotonic()
            await store.add_move("table-0000", 0, ply, 0, "C7")
            worst = max(worst, time.monotonic() - t0)
        await store.close()
        return worst

    assert asyncio.run(go()) < 10.0


def test_the_collector_thresholds_are_raised_while_serving_and_restored_after(
        tmp_path: Path) -> None:
    before = gc.get_threshold()

    async def go() -> tuple[int, ...]:
        store = _store(tmp_path)
        await store.init()
        tables = Tables(store, bot_delay=0.0)
        tables.start_sweeper()
        serving = gc.get_threshold()
        await tables.close()
        await store.close()
        return serving

    assert asyncio.run(go()) == (GC_YOUNG, *GC_OLDER)
    assert gc.get_threshold() == before

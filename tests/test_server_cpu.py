"""The third pass on the server's CPU per move (issue 24, docs/web.md *Third pass*): group
commits wait a moment for more moves only while the server is busy, the garbage
collector's thresholds while serving are restored when the server stops, and each shortcut
gives what the long way gives."""

from __future__ import annotations

import asyncio
import gc
import random
import time
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from ristiseiska.cards import CARDS, sort_key
from ristiseiska.game import Game
from ristiseiska.rules import PRESETS, preset
from ristiseiska.store import Store
from ristiseiska.web.tables import GC_OLDER, GC_YOUNG, Tables, public_view


def _store(tmp_path: Path) -> Store:
    return Store(f"sqlite+aiosqlite:///{tmp_path / 'moves.db'}")


async def _tables(store: Store, n: int) -> None:
    await store.init()
    for i in range(n):
        await store.create_table(f"table-{i:04d}", {"seed": i}, ["x", "y"])
        await store.start_deal(f"table-{i:04d}", 0)


def _count_batches(store: Store, commit_s: float = 0.0) -> list[int]:
    """Record each batch's size; with ``commit_s`` a commit takes that long and writes
    nothing (the batching alone is measured, the same on a quiet or a busy machine)."""
    sizes: list[int] = []
    insert = store._insert

    async def counted(rows: list[dict[str, Any]]) -> None:
        sizes.append(len(rows))
        if commit_s:
            await asyncio.sleep(commit_s)
        else:
            await insert(rows)

    store._insert = counted  # type: ignore[method-assign]
    return sizes


def test_a_busy_server_commits_many_moves_at_once(tmp_path: Path) -> None:
    async def go(window: float) -> list[int]:
        store = _store(tmp_path)
        store.commit_window = window
        sizes = _count_batches(store, commit_s=0.002)
        moves = []
        for ply in range(300):  # a move every millisecond, as from many tables
            moves.append(asyncio.create_task(store.add_move("t", 0, ply, 0, "C7")))
            await asyncio.sleep(0.001)
        await asyncio.gather(*moves)
        await store.close()
        return sizes

    with_window, without = asyncio.run(go(0.02)), asyncio.run(go(0.0))
    assert sum(with_window) == sum(without) == 300
    # the same moves in clearly fewer commits
    assert len(with_window) * 3 < len(without), (len(with_window), len(without))


def test_every_move_of_a_busy_server_is_stored(tmp_path: Path) -> None:
    async def go() -> None:
        store = _store(tmp_path)
        await _tables(store, 40)
        store.commit_window = 0.02
        sizes = _count_batches(store)

        async def table(i: int) -> None:
            await asyncio.sleep(0.0005 * i)
            for ply in range(10):
                await store.add_move(f"table-{i:04d}", 0, ply, ply % 2, "C7")
                await asyncio.sleep(0.02)

        await asyncio.gather(*(table(i) for i in range(40)))
        assert sum(sizes) == 400 and len(sizes) < 400
        for i in range(40):
            st = await store.load(f"table-{i:04d}")
            assert st is not None and len(st.moves[0]) == 10
        await store.close()

    asyncio.run(go())


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


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**31 - 1),
       st.integers(0, 2**(len(CARDS)) - 1))
def test_a_hand_comes_out_in_sort_key_order_without_sorting_one_deck(name: str, seed: int,
                                                                    mask: int) -> None:
    """``Game.hand`` skips the sort when every card is of the first deck (ids run suit by
    suit, rank by rank); with a second deck or jokers it sorts. Both equal the long way."""
    rules = preset(name)
    g = Game(rules, max(rules.min_players, min(4, rules.max_players)), seed=seed)
    for s in range(g.n):
        assert g.hand(s) == sorted(g.hand(s), key=sort_key)
    for m in (mask, mask & ((1 << 52) - 1)):  # any set of cards, and one deck's only
        g._hands[0] = m
        got = g.hand(0)
        assert got == sorted((c for c in CARDS if (m >> int(c)) & 1), key=sort_key)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(PRESETS)), st.integers(0, 2**31 - 1))
def test_the_broadcasts_row_cache_gives_what_building_every_row_gives(name: str,
                                                                      seed: int) -> None:
    """One cache through two whole deals (random legal moves): at every step the cached
    view equals the one built from scratch, also for the second game's first view."""
    rules = preset(name)
    n = max(rules.min_players, min(4, rules.max_players))
    rng = random.Random(seed)
    cache: dict[int, Any] = {}
    for deal in range(2):
        g = Game(rules, n, seed=seed + deal)
        steps = 0
        while True:
            assert public_view(g, cache) == public_view(g)
            if g.is_over() or steps > 400:
                break
            g.push(rng.choice(g.legal_moves()))
            steps += 1

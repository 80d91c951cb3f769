"""The terminal game keeps redrawing while a master bot compiles and thinks (issue 10, point
4): the bot works in another process, the screen's event loop keeps its timers on time and the
status line counts the seconds."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import pytest
from textual.widgets import Static

from ristiseiska.bots import pool as pool_mod
from ristiseiska.rules import Rules
from ristiseiska.tui.app import PlayApp
from ristiseiska.tui.session import Session, Setup


def _seed_where_a_bot_opens() -> int:
    for seed in range(1, 50):
        s = Session(Setup(Rules(match_deals=1), players=4, bots=["random"] * 3, seed=seed,
                          pace=0.05), None)
        if s.bot_to_move:
            return seed
    raise AssertionError("no seed found")


def cold_master_app(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Session, PlayApp]:
    """You and three master bots, one of them to open, with a cold numba cache for a pool of
    our own (spawned after the cache folder is set)."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba-cache"))
    monkeypatch.setattr(pool_mod, "_shared", None)
    session = Session(Setup(Rules(match_deals=1), players=4, bots=["master"] * 3,
                            seed=_seed_where_a_bot_opens(), pace=0.05), tmp_path)
    return session, PlayApp(session=session, data_dir_path=tmp_path)


@pytest.mark.quiet  # it times redraw gaps: run alone, not beside the browser tests (dev.py test)
@pytest.mark.asyncio
async def test_the_screen_redraws_while_a_master_bot_compiles(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session, app = cold_master_app(tmp_path, monkeypatch)
    assert session.bot_to_move
    ticks: list[float] = []
    statuses: set[str] = set()
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            app.set_interval(0.05, lambda: ticks.append(time.monotonic()))
            start = time.monotonic()
            while session.bot_to_move and time.monotonic() - start < 600:
                await pilot.pause(0.1)
                statuses.add(str(app.screen.query_one("#status", Static).render()))
            took = time.monotonic() - start
            assert not session.bot_to_move, "the bots did not move in ten minutes"
    finally:
        pool_mod.shared_pool().close(grace=0.5)
    gaps = [b - a for a, b in zip(ticks, ticks[1:], strict=False)]
    print(f"\nmaster bots until the person's turn: {took:.1f} s, {len(ticks)} redraw ticks, "
          f"longest gap {max(gaps) * 1000:.0f} ms")
    assert len(ticks) > took / 0.05 * 0.5  # at least half of the ticks came
    # a frozen screen stalls for the whole compilation (tens of seconds); a busy machine
    # delays a tick now and then
    assert max(gaps) < 1.0
    assert any("miettii" in s for s in statuses), statuses
    if took > 3:  # a long wait (the first compilation) shows its seconds
        assert any(s.rstrip().endswith(" s") for s in statuses), statuses


@pytest.mark.asyncio  # not quiet: a 30 s limit holds on a busy machine too
async def test_quitting_while_a_master_bot_compiles_does_not_hang(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    session, app = cold_master_app(tmp_path, monkeypatch)
    start = time.monotonic()
    try:
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause(1.0)
            await pilot.press("ctrl+q")
            await asyncio.sleep(0.2)
    finally:
        pool_mod.shared_pool().close(grace=0.5)
    assert time.monotonic() - start < 30


def test_the_pool_starts_under_a_captured_stderr(monkeypatch: pytest.MonkeyPatch) -> None:
    """Textual's stand-in stderr says fileno() == -1; multiprocessing would hand that number
    to its resource tracker and fail. The pool shows it a usable stderr meanwhile."""
    import io
    import sys

    class Captured(io.StringIO):
        def fileno(self) -> int:
            return -1

    fake = Captured()
    monkeypatch.setattr(sys, "stderr", fake)
    with pool_mod._real_stderr():
        try:
            assert sys.stderr.fileno() >= 0
        except io.UnsupportedOperation:
            pass  # no real stderr at all: multiprocessing skips it
    assert sys.stderr is fake

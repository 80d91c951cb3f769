"""The load benchmark runs end to end (small and fast here; the real figures come from
``python -m ristiseiska.web.loadtest``)."""

from __future__ import annotations

import argparse
import asyncio

from ristiseiska.web import loadtest


def test_loadtest_small_run_finishes_without_errors() -> None:
    args = argparse.Namespace(tables=4, players=3, deals=2, bot_delay=0.0, think=0.0,
                              timeout=60, seed=3, url=None, json=True)
    report = asyncio.run(loadtest.run(args))
    assert report["errors"] == 0, report["error_samples"]
    assert report["tables_finished"] == 4 and report["deals_finished"] == 8
    assert report["client_moves"] > 0 and report["rtt_ms"]["p50"] > 0
    assert report["moves_all_seats"] >= 8 * 17  # at least every card of a 3-player deal


def test_percentile() -> None:
    xs = [float(i) for i in range(1, 101)]
    assert loadtest.pct(xs, 50) == 50 and loadtest.pct(xs, 99) == 99
    assert loadtest.pct(xs, 100) == 100


def test_move_cost_benchmark_runs() -> None:
    import asyncio

    from ristiseiska.web.loadtest import move_cost

    cost = asyncio.run(move_cost(deals=1, preset_name="ristiseiska", players=3))
    assert cost and 0 in cost and all(ms > 0 for ms in cost.values())

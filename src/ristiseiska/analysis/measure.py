"""The analysis's own figures (docs/analysis.md): stability of the verdicts under two seeds,
the mean accuracy of the random, expert and master bots, and the time to analyse one seat.

    python -m ristiseiska.analysis.measure [--deals 200] [--speed 50] [--json FILE] [--speed-only]

Deal ``k`` is dealt from seed ``1000 + k`` (dealer ``k % 4``, default rules, four players);
seat 0 is played by the bot under test and the other three by expert bots. Every figure is
seat 0's: verdicts with analysis seeds 1 and 2 (expert deals), accuracy with seed 1, and the
wall-clock time of the seed-1 analyses of the first ``--speed`` expert deals. Runs in one
process so that it leaves the other core alone.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time
from typing import Any

KINDS = ("random", "expert", "master")


def play_deal(k: int, bot: str) -> dict[str, Any]:
    """Deal ``k`` with ``bot`` in seat 0 and experts elsewhere, as a record."""
    from ..bots import get_bot
    from ..game import Game
    from ..record import record_from_game
    from ..rules import preset

    g = Game(preset("ristiseiska"), players=4, seed=1000 + k, dealer=k % 4)
    bots = [get_bot(bot if s == 0 else "expert", seed=10 * k + s) for s in range(4)]
    while not g.is_over():
        legal = g.legal_moves()
        s = g.to_move
        g.push(legal[0] if len(legal) == 1 else bots[s].decide(g.view(s))[0])
    return record_from_game(g, preset="ristiseiska", extra={"seat0": bot})


def speed_only(count: int, progress: Any = None) -> dict[str, Any]:
    """Wall-clock and CPU (process) time of analysing seat 0 of the first ``count`` expert
    deals: the CPU time is what a busy machine does not change."""
    from . import analyze_record

    wall: list[float] = []
    cpu: list[float] = []
    for k in range(count):
        rec = play_deal(k, "expert")
        t0, c0 = time.perf_counter(), time.process_time()
        analyze_record(rec, 0, seed=1)
        wall.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
        if progress is not None:
            progress("expert")
    return {"deals": count, "median": statistics.median(wall), "worst": max(wall),
            "cpu_median": statistics.median(cpu), "cpu_worst": max(cpu)}


def measure(deals: int, speed: int, progress: Any = None) -> dict[str, Any]:
    from . import analyze_record

    acc: dict[str, list[float]] = {k: [] for k in KINDS}
    same = scored = 0
    times: list[float] = []
    for kind in KINDS:
        for k in range(deals):
            rec = play_deal(k, kind)
            t0 = time.perf_counter()
            a = analyze_record(rec, 0, seed=1)
            took = time.perf_counter() - t0
            if a.accuracy is not None:
                acc[kind].append(a.accuracy)
            if kind == "expert":
                if k < speed:
                    times.append(took)
                b = analyze_record(rec, 0, seed=2)
                for x, y in zip(a.decisions, b.decisions, strict=True):
                    if not x.forced:
                        scored += 1
                        same += x.verdict == y.verdict
            if progress is not None:
                progress(kind)
    out: dict[str, Any] = {"deals": deals, "stability": {"same": same, "decisions": scored,
                                                         "share": same / scored if scored else None}}
    out["accuracy"] = {k: {"mean": statistics.fmean(v), "se": statistics.stdev(v) / math.sqrt(len(v)),
                           "deals": len(v)} for k, v in acc.items() if len(v) > 1}
    times.sort()
    out["speed"] = {"deals": len(times), "median": statistics.median(times), "worst": times[-1]}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ristiseiska.analysis.measure", description=__doc__)
    p.add_argument("--deals", type=int, default=200, help="deals per bot (default 200)")
    p.add_argument("--speed", type=int, default=50, help="expert deals timed (default 50)")
    p.add_argument("--json", metavar="FILE", help="also write the figures to FILE")
    p.add_argument("--speed-only", action="store_true", help="only the timing (wall clock and CPU) of --speed expert deals")
    args = p.parse_args(argv)
    if args.deals < 2 or not 1 <= args.speed <= args.deals:
        p.error("--deals must be at least 2 and --speed between 1 and --deals")
    from rich.progress import Progress

    from .. import kernel

    kernel.warm_up()
    with Progress() as bar:
        if args.speed_only:
            task = bar.add_task("expert deals", total=args.speed)
            figures = {"speed": speed_only(args.speed, lambda _kind: bar.advance(task))}
        else:
            tasks = {k: bar.add_task(f"{k:>6} deals", total=args.deals) for k in KINDS}
            figures = measure(args.deals, args.speed, lambda kind: bar.advance(tasks[kind]))
    text = json.dumps(figures, indent=2)
    print(text)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    return 0


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())

"""``ristiseiska analyze``: move-by-move analysis of a recorded deal (issue 15).

    ristiseiska analyze games.jsonl [--deal N] [--seat S | --all-seats] [--lang LANG]
                        [--json] [--plot FILE.png] [--seed K] [--worlds W] [--lookahead D]
                        [--hindsight]
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from typing import Any

MAX_LOOKAHEAD = 4  # deeper searches cost more than they tell

HELP = "analyse a recorded deal move by move: the best move, the points lost, a verdict"
DESCRIPTION = (
    "For one seat of a finished deal, judge every decision from what that seat could see at "
    "the time: each legal move's expected points and chance of going out first, estimated over "
    "sampled deals of the hidden cards. Prints the move played, the best move, the expected "
    "points lost and a verdict (good, inaccuracy, mistake, blunder; forced moves are not "
    "scored), the seat's accuracy, and the costliest decisions. See docs/analysis.md."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ristiseiska.i18n import LANGS

    p.add_argument("file", metavar="FILE", help="record file (.jsonl; '-' reads standard input)")
    p.add_argument("--deal", type=int, default=1, metavar="N", help="analyse the N-th record of the file (from 1; default 1)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, default=None, metavar="S", help="the seat to analyse (from 0, as the JSON's seat; default: your own seat in a record the terminal game saved, else 0)")
    who.add_argument("--all-seats", action="store_true", help="analyse every seat")
    p.add_argument("--lang", choices=LANGS, default="fi", help="language of the output (default fi)")
    p.add_argument("--json", action="store_true", help="print the analysis as JSON (one object; a list with --all-seats)")
    p.add_argument("--plot", metavar="FILE.png", help="also draw the analysed seats' expected points through the deal")
    p.add_argument("--seed", type=int, default=0, metavar="K", help="seed of the sampling (default 0; the same seed gives the same numbers)")
    p.add_argument("--worlds", type=int, default=None, metavar="W", help="sampled deals of the hidden cards per decision (default %(default)s: the documented budget)")
    p.add_argument("--lookahead", type=int, default=None, metavar="D", help="how many of the seat's own next choices each playout searches (0–4; default 2; 0 gives the earlier evaluation, which left them to a fixed rule; rule sets outside the compiled kernel never search)")
    p.add_argument("--hindsight", action="store_true", help="add the separate hindsight evaluation with every hand known")


def _load(path: str, k: int) -> dict[str, Any]:
    from ristiseiska.record import read_records

    from .common import CliError

    count = 0
    try:
        from .common import input_lines

        source = (read_records(sys.stdin.buffer) if path == "-"
                  else read_records(input_lines(path, "")))
        for line_no, rec in source:
            count += 1
            if count == k:
                if isinstance(rec, str):
                    raise CliError(f"{path}:{line_no}: {rec}")
                return rec
    except OSError as e:
        raise CliError(f"cannot read {path}: {e.strerror or e}") from None
    raise CliError(f"{path} has {count} record{'s' if count != 1 else ''}, not {k}")


def run(args: argparse.Namespace) -> int:
    from ristiseiska.analysis import AnalysisError, Budget, analyze_record
    from ristiseiska.analysis.text import describe

    from .common import CliError, check_output

    if args.deal < 1:
        raise CliError(f"--deal counts from 1, not {args.deal}")
    if args.worlds is not None and args.worlds < 4:
        raise CliError(f"--worlds must be at least 4, not {args.worlds}")
    if args.plot and not args.plot.lower().endswith(".png"):
        raise CliError(f"--plot writes a PNG image: give a file name ending in .png, not {args.plot!r}")
    if args.plot:  # before the analysis, not after it
        check_output(args.plot, "--plot")
    rec = _load(args.file, args.deal)
    n = len(rec.get("players") or []) if isinstance(rec.get("players"), list) else 0
    if args.all_seats:
        seats = list(range(n))
    else:
        you = rec.get("you")  # the person's own seat in a record the terminal game saved
        mine = you if isinstance(you, int) and not isinstance(you, bool) and 0 <= you < n else 0
        seat = mine if args.seat is None else args.seat
        if not 0 <= seat < max(n, 1):
            raise CliError(f"--seat must be a seat of this deal (0–{n - 1}), not {seat}")
        seats = [seat]
    if args.lookahead is not None and not 0 <= args.lookahead <= MAX_LOOKAHEAD:
        raise CliError(f"--lookahead must be from 0 to {MAX_LOOKAHEAD}, not {args.lookahead}")
    budget = Budget()
    if args.worlds is not None:
        budget = replace(budget, worlds=args.worlds)
    if args.lookahead is not None:
        budget = replace(budget, lookahead=args.lookahead)
    results = []
    try:
        for seat in seats:
            main = analyze_record(rec, seat, budget, seed=args.seed)
            hind = analyze_record(rec, seat, budget, seed=args.seed, hindsight=True) if args.hindsight else None
            results.append((main, hind))
    except AnalysisError as e:
        raise CliError(f"{args.file}, deal {args.deal}: {e}") from None
    if args.plot:
        _plot(results, rec, args.plot, args.lang)
    if args.json:
        objs = []
        for main, hind in results:
            obj = main.to_dict(args.deal)
            if hind is not None:
                obj["hindsight"] = hind.to_dict(args.deal)
            objs.append(obj)
        print(json.dumps(objs if args.all_seats else objs[0], ensure_ascii=False))
        return 0
    for k, (main, hind) in enumerate(results):
        if k:
            print()
        for line in describe(main, rec, args.deal, args.lang):
            print(line)
        if hind is not None:
            print()
            for line in describe(hind, rec, args.deal, args.lang):
                print(line)
    if args.plot:
        print(f"\n{args.plot}")
    return 0


def _plot(results: list[Any], rec: dict[str, Any], path: str, lang: str) -> None:
    """Each analysed seat's expected points after each of its moves (forced moves skipped)."""
    import matplotlib

    from ristiseiska.analysis import expected_curve
    from ristiseiska.i18n import t

    from .common import CliError

    matplotlib.use("Agg")  # files only: never open a window
    import matplotlib.pyplot as plt

    from ristiseiska.i18n import reader_names

    names = reader_names(rec.get("players") or [], rec.get("you"), lang)
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    markers = {"inaccuracy": ("o", "#d4a017"), "mistake": ("s", "#e07000"), "blunder": ("X", "#c00000")}
    for main, _hind in results:
        curve = expected_curve(main)
        if not curve:
            continue
        xs, ys = zip(*((i + 1, p) for i, p in curve), strict=True)  # moves counted from 1
        label = names[main.seat] if main.seat < len(names) else f"{main.seat}"
        ax.plot(xs, ys, marker=".", label=label)
        for d in main.decisions:
            if d.verdict in markers:
                p = d.points(d.move)
                m, colour = markers[d.verdict]
                ax.scatter([d.number], [p], marker=m, s=70, color=colour, zorder=3)
    ax.set_title(t("analysis.plot_title", lang))
    ax.set_xlabel(t("analysis.plot_x", lang))
    ax.set_ylabel(t("analysis.plot_y", lang))
    ax.grid(alpha=0.3)
    if ax.lines:
        for verdict, (m, colour) in markers.items():  # what the marks mean
            ax.scatter([], [], marker=m, s=70, color=colour, label=t(f"analysis.verdict.{verdict}", lang))
        ax.legend(fontsize="small")
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as e:
        raise CliError(f"cannot write {path}: {e.strerror or e}") from None
    finally:
        plt.close(fig)

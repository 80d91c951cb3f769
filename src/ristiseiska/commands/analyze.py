"""``ristiseiska analyze``: move-by-move analysis of a recorded deal (issue 15).

    ristiseiska analyze games.jsonl [--deal N] [--seat S | --all-seats] [--lang fi|en]
                        [--json] [--plot FILE.png] [--seed K] [--hindsight]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

HELP = "analyse a recorded deal move by move: the best move, the points lost, a verdict"
DESCRIPTION = (
    "For one seat of a finished deal, judge every decision from what that seat could see at "
    "the time: each legal move's expected points and chance of going out first, estimated over "
    "sampled deals of the hidden cards. Prints the move played, the best move, the expected "
    "points lost and a verdict (good, inaccuracy, mistake, blunder; forced moves are not "
    "scored), the seat's accuracy, and the costliest decisions. See docs/analysis.md."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="record file (.jsonl; '-' reads standard input)")
    p.add_argument("--deal", type=int, default=1, metavar="N", help="analyse the N-th record of the file (from 1; default 1)")
    who = p.add_mutually_exclusive_group()
    who.add_argument("--seat", type=int, default=None, metavar="S", help="the seat to analyse (from 0; default 0)")
    who.add_argument("--all-seats", action="store_true", help="analyse every seat")
    p.add_argument("--lang", choices=("fi", "en"), default="fi", help="language of the output (default fi)")
    p.add_argument("--json", action="store_true", help="print the analysis as JSON (one object; a list with --all-seats)")
    p.add_argument("--plot", metavar="FILE.png", help="also draw the analysed seats' expected points through the deal")
    p.add_argument("--seed", type=int, default=0, metavar="K", help="seed of the sampling (default 0; the same seed gives the same numbers)")
    p.add_argument("--worlds", type=int, default=None, metavar="W", help="sampled deals of the hidden cards per decision (default %(default)s: the documented budget)")
    p.add_argument("--hindsight", action="store_true", help="add the separate hindsight evaluation with every hand known")


def _load(path: str, k: int) -> dict[str, Any]:
    from ristiseiska.cli import CliError
    from ristiseiska.record import read_records

    count = 0
    try:
        source = read_records(sys.stdin.buffer) if path == "-" else read_records(path)
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
    from ristiseiska.cli import CliError

    if args.deal < 1:
        raise CliError(f"--deal counts from 1, not {args.deal}")
    if args.worlds is not None and args.worlds < 4:
        raise CliError(f"--worlds must be at least 4, not {args.worlds}")
    if args.plot and not args.plot.lower().endswith(".png"):
        raise CliError(f"--plot writes a PNG image: give a file name ending in .png, not {args.plot!r}")
    rec = _load(args.file, args.deal)
    n = len(rec.get("players") or []) if isinstance(rec.get("players"), list) else 0
    if args.all_seats:
        seats = list(range(n))
    else:
        seat = 0 if args.seat is None else args.seat
        if not 0 <= seat < max(n, 1):
            raise CliError(f"--seat must be a seat of this deal (0–{n - 1}), not {seat}")
        seats = [seat]
    budget = Budget() if args.worlds is None else Budget(worlds=args.worlds)
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


def _fmt(x: float) -> str:
    return "–" if math.isnan(x) else f"{x:.1f}"


def describe(a: Any, rec: dict[str, Any], deal: int, lang: str = "fi") -> list[str]:
    """The analysis of one seat as lines of text: a table of decisions, a summary and the
    costliest decisions ('where did I lose points?')."""
    from ristiseiska.analysis import reason_text
    from ristiseiska.i18n import t

    names = rec.get("players") or []
    name = names[a.seat] if a.seat < len(names) else str(a.seat)
    acc = t("analysis.no_accuracy", lang) if a.accuracy is None else f"{a.accuracy:.0f} %"
    if a.hindsight:
        lines = [t("analysis.head_hindsight", lang, deal=deal, name=name, seat=a.seat, accuracy=acc),
                 t("analysis.hindsight_note", lang)]
    else:
        lines = [t("analysis.head", lang, deal=deal, name=name, seat=a.seat, accuracy=acc,
                   points=a.points)]
    cols = [t(f"analysis.col.{c}", lang) for c in ("event", "move", "best", "loss", "verdict", "reason")]
    rows = []
    for d in a.decisions:
        loss = "" if d.forced else t("analysis.loss_value", lang, loss=f"{d.loss:.1f}", se=f"{d.se:.1f}")
        best = "" if d.forced or d.best == d.move else d.best
        why = "" if d.forced or d.best == d.move else reason_text(d, lang)
        rows.append([str(d.index), d.move, best, loss, t(f"analysis.verdict.{d.verdict}", lang), why])
    if not rows:
        lines.append(t("analysis.none", lang))
        return lines
    widths = [max(len(r[i]) for r in [cols, *rows]) for i in range(5)]
    for r in [cols, *rows]:
        lines.append("  ".join(r[i].ljust(widths[i]) for i in range(5)) + "  " + r[5])
    c = a.counts()
    lines.append(t("analysis.summary", lang, **c))
    if not a.hindsight:
        lines.append("")
        lines.extend(where_lines(a, lang))
        lines.append("")
        lines.append(t("analysis.budget", lang, worlds=a.worlds, seed=a.seed))
    return lines


def where_lines(a: Any, lang: str = "fi") -> list[str]:
    """'Where did I lose points?': the two or three costliest decisions in words."""
    from ristiseiska.analysis import reason_text
    from ristiseiska.i18n import t

    out = [t("analysis.where", lang)]
    worst = a.costly(3)
    if not worst:
        out.append("  " + t("analysis.where_none", lang))
    for d in worst:
        out.append("  " + t("analysis.where_item", lang, index=d.index, move=d.move, best=d.best,
                            loss=f"{d.loss:.1f}", reason=reason_text(d, lang)).rstrip())
    return out


def _plot(results: list[Any], rec: dict[str, Any], path: str, lang: str) -> None:
    """Each analysed seat's expected points after each of its moves (forced moves skipped)."""
    import matplotlib

    from ristiseiska.analysis import expected_curve
    from ristiseiska.cli import CliError
    from ristiseiska.i18n import t

    matplotlib.use("Agg")  # files only: never open a window
    import matplotlib.pyplot as plt

    names = rec.get("players") or []
    fig, ax = plt.subplots(figsize=(8, 4.5), dpi=100)
    markers = {"inaccuracy": ("o", "#d4a017"), "mistake": ("s", "#e07000"), "blunder": ("X", "#c00000")}
    for main, _hind in results:
        curve = expected_curve(main)
        if not curve:
            continue
        xs, ys = zip(*curve, strict=True)
        label = names[main.seat] if main.seat < len(names) else f"{main.seat}"
        ax.plot(xs, ys, marker=".", label=label)
        for d in main.decisions:
            if d.verdict in markers:
                p = d.points(d.move)
                m, colour = markers[d.verdict]
                ax.scatter([d.index], [p], marker=m, s=70, color=colour, zorder=3)
    ax.set_title(t("analysis.plot_title", lang))
    ax.set_xlabel(t("analysis.plot_x", lang))
    ax.set_ylabel(t("analysis.plot_y", lang))
    ax.grid(alpha=0.3)
    if ax.lines:
        ax.legend()
    fig.tight_layout()
    try:
        fig.savefig(path)
    except OSError as e:
        raise CliError(f"cannot write {path}: {e.strerror or e}") from None
    finally:
        plt.close(fig)

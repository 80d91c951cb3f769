"""``ristiseiska tournament``: bots against each other over many deals, with statistics."""

from __future__ import annotations

import argparse
import json
import os

HELP = "play bots against each other over many deals and compare them"
DESCRIPTION = (
    "Play many deals between bots (random, basic, expert, master), seats rotating, and print "
    "per bot: deals, wins, win rate with a 95% confidence interval, mean points with a 95% "
    "interval, mean rank and thinking time. A bot may carry options: "
    "master:iterations=50:time_limit=1."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--preset", default="ristiseiska", help="named rule set (default: ristiseiska)")
    p.add_argument("--rules", metavar="FILE.toml", help="house rules from a TOML file (overrides --preset)")
    p.add_argument("--players", type=int, default=None, help="number of players (default: the number of bots)")
    p.add_argument("--bots", default="master,random,random,random",
                   help="comma-separated bots, one per seat (default: master,random,random,random)")
    p.add_argument("--games", type=int, default=100, help="number of deals (default 100)")
    p.add_argument("--seed", type=int, default=0, help="seed for the deals and the bots (default 0)")
    p.add_argument("--duplicate", action="store_true",
                   help="play every deal once per seat rotation so that the luck of the deal cancels")
    p.add_argument("--workers", type=int, default=None,
                   help="processes to use (default: one per core; 1 runs in this process)")
    p.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="draw win rates and points distributions")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="run on a Ray cluster at ADDR ('local' starts Ray on this machine); needs the ray extra")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _rules(args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from ristiseiska.commands.common import load_rules

    return load_rules(args.preset, args.rules)


def run(args: argparse.Namespace) -> int:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )
    from rich.table import Table

    from ristiseiska.commands.common import CliError
    from ristiseiska.tournament import TournamentError, check_setup, plot, run_tournament

    rules = _rules(args)
    specs = [s.strip() for s in args.bots.split(",") if s.strip()]
    if args.players is not None and args.players != len(specs):
        raise CliError(f"--players {args.players} but {len(specs)} bots named in --bots "
                       "(name one bot per seat)")
    if args.games < 1:
        raise CliError(f"--games must be at least 1, not {args.games}")
    if args.workers is not None and args.workers < 1:
        raise CliError(f"--workers must be at least 1, not {args.workers}")
    for path in (args.json, args.plot):
        if path:
            parent = os.path.dirname(os.path.abspath(path))
            if not os.path.isdir(parent):
                raise CliError(f"cannot write {path}: folder {parent} does not exist")
    if args.plot and not args.plot.lower().endswith((".png", ".svg", ".pdf")):
        raise CliError(f"--plot {args.plot}: use a .png, .svg or .pdf file name")
    try:
        check_setup(rules, specs, args.games)
    except TournamentError as e:
        raise CliError(str(e)) from None

    console = Console(stderr=True)
    total = args.games * (len(specs) if args.duplicate else 1)
    with Progress(TextColumn("[bold]tournament"), BarColumn(), MofNCompleteColumn(),
                  TimeRemainingColumn(), console=console, disable=args.quiet,
                  transient=True) as prog:
        task = prog.add_task("deals", total=total)
        try:
            t = run_tournament(rules, specs, args.games, seed=args.seed, duplicate=args.duplicate,
                               workers=args.workers,
                               progress=lambda done, _tot: prog.update(task, completed=done),
                               ray_address=args.ray_address)
        except TournamentError as e:
            raise CliError(str(e)) from None

    stats = t.stats()
    table = Table(title=f"{rules.name or 'house rules'}: {len(specs)} players, "
                        f"{len(t.plays)} deals played{' (duplicate)' if t.duplicate else ''}, "
                        f"seed {args.seed}")
    for col in ("bot", "deals", "wins", "win % [95% CI]", "points [95% CI]", "rank",
                "s/move med|max"):
        table.add_column(col, justify="left" if col == "bot" else "right")
    for label, s in stats.items():
        lo, hi = s["win_rate_ci"]
        plo, phi = s["mean_points_ci"]
        table.add_row(
            label, str(s["deals"]), f"{s['wins']:g}",
            f"{100 * s['win_rate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]",
            f"{s['mean_points']:.1f} [{plo:.1f}, {phi:.1f}]",
            f"{s['mean_rank']:.2f}",
            f"{s['move_seconds_median']:.3f}|{s['move_seconds_max']:.2f}",
        )
    Console(width=max(120, Console().width)).print(table)
    print(f"{t.seconds:.1f} s")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(t.to_dict(), fh, indent=2)
    if args.plot:
        plot(t, args.plot)
    return 0

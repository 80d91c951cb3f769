"""``ristiseiska rate-bots``: the bot levels' fixed ratings from duplicate tournaments among
them (ratings/bots.py); its defaults reproduce the shipped ``ratings/bots.json``."""

from __future__ import annotations

import argparse
import json
import sys

HELP = "rate the bot levels against each other (the data file of players' ratings)"
DESCRIPTION = (
    "Play duplicate tournaments among the bot levels in every rule family and print their "
    "fixed ratings as JSON (the defaults reproduce src/ristiseiska/ratings/bots.json; see "
    "docs/ratings.md). Every group of --players levels plays --deals deals, each from every seat."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ..ratings import FAMILIES
    from ..ratings.bots import LEVELS

    p.add_argument("--levels", default=",".join(LEVELS),
                   help=f"comma-separated bot levels (default: {','.join(LEVELS)})")
    p.add_argument("--families", default=",".join(FAMILIES),
                   help=f"comma-separated rule families (default: {','.join(FAMILIES)})")
    p.add_argument("--deals", type=int, default=2,
                   help="deals of each group's duplicate tournament (default 2)")
    p.add_argument("--players", type=int, default=4, help="players at a table (default 4)")
    p.add_argument("--seed", type=int, default=1, help="seed of the deals and bots (default 1)")
    p.add_argument("--workers", type=int, default=None,
                   help="processes for each tournament (default: one per core; 1 runs in "
                        "this process; the figures are the same)")
    p.add_argument("--out", metavar="FILE", help="write the JSON here instead of printing it")
    p.add_argument("--quiet", action="store_true", help="no progress lines on stderr")


def run(args: argparse.Namespace) -> int:
    from ..ratings import FAMILIES, RatingError
    from ..ratings.bots import rate_bots
    from ..tournament import TournamentError, parse_bot_spec
    from .common import CliError

    levels = [x.strip() for x in args.levels.split(",") if x.strip()]
    families = [x.strip() for x in args.families.split(",") if x.strip()]
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        raise CliError(f"unknown family {unknown[0]!r}; families: {', '.join(FAMILIES)}")
    if args.deals < 1 or args.players < 2 or (args.workers is not None and args.workers < 1):
        raise CliError("--deals and --workers must be at least 1, --players at least 2")
    try:
        for level in levels:
            parse_bot_spec(level)
        data = rate_bots(families, levels, args.deals, args.seed, args.players, args.workers,
                         None if args.quiet else
                         (lambda msg: print(f"rate-bots: {msg}", file=sys.stderr, flush=True)))
    except (RatingError, TournamentError) as e:
        raise CliError(str(e)) from None
    text = json.dumps(data, indent=1, sort_keys=True) + "\n"
    if args.out:
        with open(args.out, "w", encoding="utf-8") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0

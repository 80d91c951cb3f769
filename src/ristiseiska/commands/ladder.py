"""``ristiseiska ladder``: bots (plugins included) rated on duplicate deals.

    ristiseiska ladder --bots random,basic,expert --deals 60 --players 2 --seed 1 --out ladder
"""

from __future__ import annotations

import argparse
import json
import os
import sys

HELP = "rate bots, plugins included, on duplicate deals against each other (openskill)"
DESCRIPTION = (
    "Play duplicate deals between the named bots (our levels, entry points of the group "
    "ristiseiska.bots, or package.module:Class), a table of --players at a time, every "
    "line-up of that many bots taking the deals in turn, and rate every bot with openskill "
    "(Plackett-Luce), each duplicate deal one match ranked by the points summed over its seat "
    "rotations. Prints the leaderboard and writes "
    "ladder.json and ladder.md into --out (docs/simulation.md, Bring your own bot)."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--bots", default="random,basic,expert", metavar="A,B,C",
                   help="comma-separated bots, each named once (default random,basic,expert; "
                        "options as in the tournament: master:iterations=50)")
    p.add_argument("--deals", type=int, default=100, metavar="N",
                   help="duplicate deals in all (default 100); each is played once per seat "
                        "rotation")
    p.add_argument("--players", type=int, default=None, metavar="P",
                   help="players a table (default: every bot at one table if the rules allow, "
                        "else 4)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed (default 0)")
    p.add_argument("--out", default=".", metavar="DIR",
                   help="folder for ladder.json and ladder.md (default: here; made if missing)")
    p.add_argument("--preset", default="ristiseiska", help="named rule set (default: ristiseiska)")
    p.add_argument("--rules", metavar="FILE.toml", help="house rules from a TOML file (overrides --preset)")
    p.add_argument("--workers", type=int, default=1,
                   help="processes to play in (default 1; the ratings are the same)")
    p.add_argument("--move-limit", type=float, default=5.0, metavar="SECONDS",
                   help="seconds a plugin bot may think per move before the basic bot plays "
                        "for it (default 5)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    from ristiseiska.i18n import LANGS

    p.add_argument("--lang", choices=LANGS, default="en",
                   help="language of the table and ladder.md (default en)")


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

    from ristiseiska.commands.common import CliError, load_rules
    from ristiseiska.i18n import number, t
    from ristiseiska.ladder import LadderError, run_ladder

    lang = args.lang
    rules = load_rules(args.preset, args.rules)
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    out = os.path.abspath(args.out)
    if os.path.exists(out) and not os.path.isdir(out):
        raise CliError(f"--out {args.out}: not a folder")
    parent = os.path.dirname(out)
    if not os.path.isdir(out) and not os.path.isdir(parent):
        raise CliError(f"--out {args.out}: folder {parent} does not exist")
    try:
        from ristiseiska.tournament import TournamentError, parse_bot_spec

        names = {parse_bot_spec(b)[0] for b in bots}
    except TournamentError as err:
        raise CliError(str(err)) from None
    from ristiseiska.commands.tournament import KERNEL_BOTS, NEURAL_BOTS

    if names & KERNEL_BOTS:  # compiled once here, as the tournament does, not in each worker
        from ristiseiska.commands.common import warm_kernel

        warm_kernel(neural=bool(names & NEURAL_BOTS))
    console = Console(stderr=True)
    with Progress(TextColumn(f"[bold]{t('ladder.progress', lang)}"), BarColumn(),
                  MofNCompleteColumn(), TimeRemainingColumn(), console=console,
                  disable=args.quiet or not sys.stderr.isatty(), transient=True) as prog:
        task = prog.add_task("plays", total=None)
        try:
            lad = run_ladder(rules, bots, args.deals, seed=args.seed, players=args.players,
                             workers=args.workers, move_limit=args.move_limit,
                             progress=lambda done, tot: prog.update(task, completed=done,
                                                                    total=tot))
        except LadderError as e:
            raise CliError(str(e)) from None

    cols = [t(f"ladder.col.{c}", lang) for c in
            ("rank", "bot", "rating", "interval", "deals", "wins", "mean_rank", "faults")]
    title = t("ladder.title", lang, rules=rules.name or t("ladder.custom", lang),
              players=lad.players, deals=lad.deals, seed=lad.seed)
    table = Table(title=title)
    for i, col in enumerate(cols):
        table.add_column(col, justify="left" if i == 1 else "right")
    for i, entry in enumerate(lad.entries, 1):
        faults = _faults(entry.faults, lang)
        lo, hi = (number(x, lang, 0) for x in entry.interval)
        wins = f"{entry.wins:g}".replace(".", "," if lang == "fi" else ".")
        table.add_row(str(i), entry.name, number(entry.rating, lang, 0), f"{lo}-{hi}",
                      str(entry.deals), wins, number(entry.mean_rank, lang, 2), faults)
    Console(width=max(100, Console().width)).print(table)
    note = t("ladder.note", lang)
    print(note)
    json_path = os.path.join(out, "ladder.json")
    md_path = os.path.join(out, "ladder.md")
    try:
        os.makedirs(out, exist_ok=True)
        with open(json_path, "w", encoding="utf-8") as fh:
            json.dump(lad.to_dict(), fh, indent=2)
        with open(md_path, "w", encoding="utf-8") as fh:
            fh.write(lad.markdown(title, cols, note, lambda f: _faults(f, lang)))
    except OSError as e:
        raise CliError(f"cannot write into {args.out}: {e.strerror or e}") from None
    print(t("ladder.wrote", lang, json=json_path, md=md_path))
    return 0


def _faults(faults: dict[str, int], lang: str) -> str:
    from ristiseiska.i18n import t

    return ", ".join(f"{t('ladder.fault.' + k, lang)} {v}" for k, v in faults.items()) or "0"

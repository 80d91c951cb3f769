"""``ristiseiska tournament``: bots against each other over many deals, with statistics."""

from __future__ import annotations

import argparse
import json
from typing import Any

from ristiseiska.i18n import LANGS, decimal_sep, t

HELP = "play bots against each other over many deals and compare them"
DESCRIPTION = (
    "Play many deals between bots (random, basic, expert, neural, master and the others of "
    "docs/strength.md), seats rotating, and print "
    "per bot: deals, wins, win rate with a 95% confidence interval, mean points with a 95% "
    "interval, mean rank and thinking time. A bot may carry options: "
    "master:iterations=50:time_limit=1. A bot may also be a plugin: the name of an entry point "
    "in the group ristiseiska.bots or package.module:Class (docs/simulation.md, Bring your own "
    "bot); a plugin's move that fails, is late or is illegal is played by the basic bot and "
    "counted as a fault."
)

# the bots whose thinking needs the compiled kernel (and the network's environment)
KERNEL_BOTS = frozenset({"master", "master-neural", "master-classic", "master-epimc", "neural"})
NEURAL_BOTS = frozenset({"master-neural", "neural"})


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ristiseiska.i18n import LANGS

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
    p.add_argument("--move-limit", type=float, default=5.0, metavar="SECONDS",
                   help="seconds a plugin bot may think per move before the basic bot plays "
                        "for it (default 5)")
    p.add_argument("--json", metavar="FILE", help="write the figures as JSON")
    p.add_argument("--plot", metavar="FILE.png", help="draw win rates and points distributions")
    p.add_argument("--paired", metavar="FILE.json",
                   help="compare the first bot deal by deal with the first bot of an earlier "
                        "run's --json file on the same deals (same seed, players, rules)")
    p.add_argument("--ray-address", metavar="ADDR",
                   help="run on a Ray cluster at ADDR ('local' starts Ray on this machine); needs the ray extra")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--lang", choices=LANGS, default="en",
                   help="language of the table (default en, like the other tools; fi for Finnish)")


# The table's words; the figures use the language's decimal sign (i18n.number).
TEXTS: dict[str, dict[str, Any]] = {
    lang: {**{k: t(f"cli.tournament.{k}", lang)
              for k in ("title", "house", "dup", "paired", "wins", "points", "faults")},
           "kinds": {k: t(f"cli.tournament.kind.{k}", lang)
                     for k in ("error", "timeout", "illegal")},
           "cols": tuple(t(f"cli.tournament.col.{i}", lang) for i in range(7))}
    for lang in LANGS}


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

    from ristiseiska.commands.common import CliError, check_output
    from ristiseiska.tournament import (
        TournamentError,
        check_setup,
        paired_difference,
        parse_bot_spec,
        plot,
        run_tournament,
        same_deals,
    )

    rules = _rules(args)
    specs = [s.strip() for s in args.bots.split(",") if s.strip()]
    if args.players is not None and args.players != len(specs):
        raise CliError(f"--players {args.players} but {len(specs)} bots named in --bots "
                       "(name one bot per seat)")
    if args.games < 1:
        raise CliError(f"--games must be at least 1, not {args.games}")
    if not 0 < args.move_limit < 1e6:
        raise CliError(f"--move-limit must be a positive number of seconds, not {args.move_limit}")
    if args.workers is not None and args.workers < 1:
        raise CliError(f"--workers must be at least 1, not {args.workers}")
    if args.plot and not args.plot.lower().endswith((".png", ".svg", ".pdf")):
        raise CliError(f"--plot {args.plot}: use a .png, .svg or .pdf file name")
    for option, path in (("--json", args.json), ("--plot", args.plot)):
        if path:  # before the games, not after them
            check_output(path, option)
    earlier = _read_paired(args.paired) if args.paired else None
    if earlier is not None:
        try:  # before playing: a mismatch found after an hour's run would waste the hour
            same_deals({"seed": args.seed, "players": len(specs), "duplicate": args.duplicate,
                        "rules": rules.to_dict()}, earlier)
        except TournamentError as e:
            raise CliError(f"--paired {args.paired}: {e}") from None
    try:
        check_setup(rules, specs, args.games)
    except TournamentError as e:
        raise CliError(str(e)) from None

    names = {parse_bot_spec(spec)[0] for spec in specs}
    if not args.ray_address and names & KERNEL_BOTS:
        # compiled here once (a line every few seconds while it lasts), so that every worker
        # loads it from the disk cache instead of each compiling it in silence
        from ristiseiska.commands.common import warm_kernel

        warm_kernel(neural=bool(names & NEURAL_BOTS))
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
                               ray_address=args.ray_address, move_limit=args.move_limit)
        except TournamentError as e:
            raise CliError(str(e)) from None

    from ristiseiska.i18n import number

    lang = getattr(args, "lang", "en")
    tx = TEXTS[lang]

    def num(x: float, digits: int = 1) -> str:
        return number(x, lang, digits)

    # Finnish lists numbers with a semicolon, as the comma is the decimal sign
    sep = "; " if decimal_sep(lang) == "," else ", "
    pct = " %" if decimal_sep(lang) == "," else "%"
    stats = t.stats()
    table = Table(title=tx["title"].format(rules=rules.name or tx["house"], players=len(specs),
                                           deals=len(t.plays), dup=tx["dup"] if t.duplicate else "",
                                           seed=args.seed))
    for i, col in enumerate(tx["cols"]):
        table.add_column(col, justify="left" if i == 0 else "right")
    for label, s in stats.items():
        lo, hi = s["win_rate_ci"]
        plo, phi = s["mean_points_ci"]
        table.add_row(
            label, str(s["deals"]), f"{s['wins']:g}".replace(".", "," if decimal_sep(lang) == "," else "."),
            f"{num(100 * s['win_rate'])}{pct} [{num(100 * lo)}{sep}{num(100 * hi)}]",
            f"{num(s['mean_points'])} [{num(plo)}{sep}{num(phi)}]",
            num(s["mean_rank"], 2),
            f"{num(s['move_seconds_median'], 3)}|{num(s['move_seconds_max'], 2)}",
        )
    Console(width=max(120, Console().width)).print(table)
    print(f"{num(t.seconds)} s")
    for label, s in stats.items():
        if s["faults"]:
            print(tx["faults"].format(
                bot=label, count=sum(s["faults"].values()),
                kinds=sep.join(f"{tx['kinds'].get(k, k)} {v}" for k, v in s["faults"].items())))
    figures = t.to_dict()
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump(figures, fh, indent=2)
    if args.plot:
        plot(t, args.plot)
    if earlier is not None:
        try:
            d = paired_difference(figures, earlier)
        except TournamentError as e:
            raise CliError(f"--paired {args.paired}: {e}") from None
        w, pts = d["win"], d["points"]
        def signed(x: float, digits: int) -> str:
            return ("+" if x >= 0 else "−" if decimal_sep(lang) == "," else "-") + num(abs(x), digits)

        print(tx["paired"].format(path=args.paired, new=d["new"], old=d["old"], deals=d["deals"]))
        print(tx["wins"].format(new=num(100 * w["new"]), old=num(100 * w["old"]),
                                diff=signed(100 * w["difference"], 1),
                                half=num(100 * w["half_width"])))
        print(tx["points"].format(new=num(pts["new"], 2), old=num(pts["old"], 2),
                                  diff=signed(pts["difference"], 2), half=num(pts["half_width"], 2)))
    return 0


def _read_paired(path: str) -> dict[str, Any]:
    from ristiseiska.commands.common import CliError, read_input
    from ristiseiska.tournament import TournamentError, check_figures

    raw = read_input(path, "--paired")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, UnicodeDecodeError, RecursionError) as e:
        raise CliError(f"--paired {path}: not a JSON file ({e})") from None
    try:
        check_figures(data, "earlier")
    except TournamentError as e:
        raise CliError(f"--paired {path}: {e}") from None
    return dict(data)

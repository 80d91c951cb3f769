"""``ristiseiska ceiling``: the exact best a seat can expect against random players.

    ristiseiska ceiling --deals 500 --seed 2201
    ristiseiska ceiling --deals 3 --seed 1 --lang fi --json ceiling.json
    ristiseiska ceiling --deals 500 --seed 2201 --resume c2201.jsonl   # stop and go on
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from ristiseiska.i18n import decimal_sep

HELP = "the exact best result a seat can reach against random players, every hand open"
DESCRIPTION = (
    "For deals 0..N-1 of a tournament seeded K (the same cards, dealer and seats as "
    "'ristiseiska tournament --seed K --duplicate'), solve every seat's deal exactly against "
    "players who choose uniformly among their legal moves, as if every hand were open "
    "(expectimax over their choices, compiled): the best probability of winning and the "
    "least expected points, each by its own best play. Prints the means over every seat of "
    "every deal with 95% intervals (over deals). A 4-player deal of the default rules takes "
    "a few seconds of one core."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ristiseiska.i18n import LANGS

    p.add_argument("--deals", type=int, default=10, metavar="N", help="number of deals (default 10); every seat of each is solved")
    p.add_argument("--seed", type=int, default=0, metavar="K", help="the tournament's seed (default 0, as the tournament's)")
    p.add_argument("--start", type=int, default=0, metavar="I", help="first deal (default 0)")
    p.add_argument("--players", type=int, default=4, metavar="N", help="number of players (default 4)")
    p.add_argument("--preset", default=None, metavar="NAME", help="rule set by name (default ristiseiska)")
    p.add_argument("--rules", metavar="FILE.toml", help="house rules from a TOML file (over --preset)")
    p.add_argument("--json", metavar="FILE", help="write every deal's values and the means as JSON")
    p.add_argument("--resume", metavar="FILE.jsonl",
                   help="keep one JSON line a deal in FILE as each is solved; deals already in "
                        "it (an earlier run of the same rules, players and seed) are not "
                        "solved again")
    p.add_argument("--lang", choices=LANGS, default="en",
                   help="language of the output (default en, like the other tools; fi for Finnish)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")


def _pct(x: float, lang: str) -> str:
    text = f"{100 * x:.1f}"
    return text.replace(".", ",") if decimal_sep(lang) == "," else text


def _num(x: float, lang: str, digits: int = 2) -> str:
    text = f"{x:,.{digits}f}"
    if decimal_sep(lang) == ",":
        text = text.replace(",", "\u00a0").replace(".", ",")
    return text


def _interval(lo: str, hi: str, lang: str) -> str:
    return f"[{lo}; {hi}]" if decimal_sep(lang) == "," else f"[{lo}, {hi}]"


def run(args: argparse.Namespace) -> int:
    from ristiseiska.ceiling import CeilingError, run_deals, summary, unsupported
    from ristiseiska.commands.common import CliError, load_rules
    from ristiseiska.i18n import t
    from ristiseiska.rules import RulesError

    lang = args.lang
    rules = load_rules(args.preset, args.rules)
    if args.deals < 1:
        raise CliError(f"--deals must be at least 1, not {args.deals}")
    if args.start < 0:
        raise CliError(f"--start must be at least 0, not {args.start}")
    try:
        rules.check_players(args.players)
    except RulesError as e:
        raise CliError(str(e)) from None
    why = unsupported(rules, args.players)
    if why:
        raise CliError(why)
    done = _read_resume(args.resume, rules, args.players, args.seed) if args.resume else {}
    out = None
    if args.json:
        from ristiseiska.commands.common import check_output

        check_output(args.json, "--json")  # (a file opens, yet refuses every write)
        try:
            out = open(args.json, "w", encoding="utf-8")
        except OSError as e:
            raise CliError(f"cannot write {args.json}: {e.strerror or e}") from None
    bar = None
    if not args.quiet and sys.stderr.isatty():
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        bar = Progress(TextColumn(t("ceiling.progress", lang)), BarColumn(), MofNCompleteColumn(),
                       TimeRemainingColumn(), console=Console(stderr=True), transient=True)
    wanted = range(args.start, args.start + args.deals)
    kept = [done[i] for i in wanted if i in done]
    log = None
    if args.resume:
        try:
            log = open(args.resume, "a", encoding="utf-8")
        except OSError as e:
            raise CliError(f"cannot write {args.resume}: {e.strerror or e}") from None
    head = {"rules": rules.to_dict(), "players": args.players, "seed": args.seed}

    def note(row: Any) -> None:
        if log is not None:
            log.write(json.dumps({**head, **row.to_dict()}) + "\n")
            log.flush()
        if bar is not None:
            bar.advance(task)

    started = time.perf_counter()
    try:
        if bar is not None:
            with bar:
                task = bar.add_task("", total=args.deals, completed=len(kept))
                rows = run_deals(rules, args.players, args.seed, args.deals, args.start,
                                 progress=note, skip=done)
        else:
            rows = run_deals(rules, args.players, args.seed, args.deals, args.start,
                             progress=note, skip=done)
    except CeilingError as e:
        if out is not None:
            out.close()
        raise CliError(str(e)) from None
    finally:
        if log is not None:
            log.close()
    rows = sorted(kept + rows, key=lambda r: r.deal)
    wall = time.perf_counter() - started
    s = summary(rows)
    seat_deals = len(rows) * args.players
    last = args.start + args.deals - 1
    print(t("ceiling.title", lang, rules=rules.name or t("ceiling.custom", lang),
            players=args.players, first=args.start, last=last, seed=args.seed,
            seat_deals=_num(seat_deals, lang, 0)))
    w, p = s["win"], s["points"]
    one = len(rows) < 2  # no interval from a single deal
    print(t("ceiling.win", lang, value=_pct(w.mean, lang),
            interval="" if one else _interval(_pct(w.low, lang), _pct(w.high, lang), lang)
            ).rstrip())
    print(t("ceiling.points", lang, value=_num(p.mean, lang),
            interval="" if one else _interval(_num(p.low, lang), _num(p.high, lang), lang)
            ).rstrip())
    cpu = sum(r.seconds for r in rows)
    print(t("ceiling.work", lang, states=_num(sum(r.states for r in rows), lang, 0),
            cpu=_num(cpu, lang, 1), wall=_num(wall, lang, 1)))
    if out is not None:
        data: dict[str, Any] = {
            "rules": rules.name, "players": args.players, "seed": args.seed,
            "start": args.start, "deals": args.deals, "seat_deals": seat_deals,
            "win": {"mean": w.mean, "low": w.low, "high": w.high},
            "points": {"mean": p.mean, "low": p.low, "high": p.high},
            "rows": [r.to_dict() for r in rows],
        }
        with out:
            json.dump(data, out, ensure_ascii=False)
            out.write("\n")
    return 0


def _read_resume(path: str, rules: Any, players: int, seed: int) -> dict[int, Any]:
    """The deals already solved in ``path`` (none if it does not exist yet)."""
    import os

    from ristiseiska.ceiling import DealRow
    from ristiseiska.commands.common import CliError

    if not os.path.exists(path):
        return {}
    from ristiseiska.commands.common import input_lines

    try:
        lines = [raw.decode("utf-8") for raw in input_lines(path, "--resume")]
    except UnicodeDecodeError as e:
        raise CliError(f"--resume {path}: not UTF-8 text ({e})") from None
    done = {}
    want = (rules.to_dict(), players, seed)
    for k, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            d = json.loads(line)
            row = DealRow(int(d["deal"]), tuple(float(x) for x in d["win"]),
                          tuple(float(x) for x in d["points"]), int(d["states"]),
                          float(d["seconds"]))
            run = (d["rules"], int(d["players"]), int(d["seed"]))
        except (ValueError, KeyError, TypeError):
            raise CliError(f"{path} line {k} is not a line of 'ceiling --resume'") from None
        if run != want:
            raise CliError(f"{path} holds deals of another run (seed {run[2]}, {run[1]} players "
                           "or other rules); give a new file")
        if len(row.win) != players or len(row.points) != players:
            raise CliError(f"{path} line {k} is not a line of 'ceiling --resume'")
        done[row.deal] = row
    return done

"""``ristiseiska simulate``: many deals with random legal players, and a summary.

    ristiseiska simulate --preset ristiseiska --players 4 --games 10000 --seed 1
    ristiseiska simulate --rules house.toml --games 500 --records deals.jsonl
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from ristiseiska.commands.common import load_rules
from ristiseiska.i18n import LANGS, decimal_sep, t

HELP = "play many deals with random players and print statistics (optionally write records)"
DESCRIPTION = (
    "Play G deals with random legal players (each choice uniform over the legal moves) and "
    "print the mean points per seat, wins, the token at the end and deals per second. Deal i "
    "is dealt from a seed derived from --seed and i, the dealer rotates, and the same "
    "arguments give the same deals and byte-identical records."
)

_KEYS = ("title", "seat", "points", "wins", "token", "chips", "token_paid", "fines", "fines_paid",
         "stalled", "speed", "records", "progress", "custom")
# The table's words in every language (the catalogs' cli.simulate.*).
TEXTS: dict[str, dict[str, str]] = {
    lang: {k: t(f"cli.simulate.{k}", lang) for k in _KEYS} for lang in LANGS}


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ristiseiska.i18n import LANGS

    p.add_argument("--preset", default=None, metavar="NAME", help="rule set by name (default ristiseiska; see 'ristiseiska presets')")
    p.add_argument("--players", type=int, default=4, metavar="N", help="number of players (default 4)")
    p.add_argument("--games", type=int, default=1000, metavar="G", help="number of deals (default 1000)")
    p.add_argument("--seed", type=int, default=1, metavar="S", help="seed of the whole run (default 1)")
    p.add_argument("--rules", metavar="FILE.toml", help="house rules: a TOML file with an optional preset (else --preset is the base) and option overrides")
    p.add_argument("--records", metavar="FILE.jsonl", help="write one game record per deal to this file")
    p.add_argument("--engine", choices=("auto", "python", "kernel"), default="auto",
                   help="auto (default): the compiled kernel when it supports the rules, else the full engine")
    p.add_argument("--workers", type=int, default=1, metavar="K", help="play in K processes (default 1); the results are the same")
    p.add_argument("--json", action="store_true", help="print the summary as one JSON object")
    p.add_argument("--lang", choices=LANGS, default="en",
                   help="language of the summary (default en, like the other tools; fi for Finnish)")


def _progress_bar(total: int, label: str) -> Any:
    """A rich progress bar on standard error for long runs on a terminal, else ``None``."""
    if total < 2000 or not sys.stderr.isatty():
        return None
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    console=Console(stderr=True), transient=True)


def _fmt_rate(x: float, lang: str) -> str:
    text = f"{x:,.0f}"
    return text.replace(",", "\u00a0") if decimal_sep(lang) == "," else text


def _pct(x: float, lang: str) -> str:
    from ristiseiska.i18n import number

    return number(100 * x, lang, 1) + (" %" if decimal_sep(lang) == "," else "%")


def _num(x: float, lang: str) -> str:
    from ristiseiska.i18n import number

    return number(x, lang, 2)


def print_summary(summary: Any, lang: str, records: str | None) -> None:
    tx = TEXTS[lang]
    rules = summary.rules
    print(tx["title"].format(rules=rules.name or tx["custom"], players=summary.players,
                             deals=summary.deals, seed=summary.seed, engine=summary.engine))
    cols = [tx["seat"], tx["points"], tx["wins"]]
    fines = rules.fines_per_miss  # V18: fines per deal instead of who holds the token
    if rules.uses_token:
        cols.append(tx["fines" if fines else "token"])
    chips = summary.mean_chips()
    if chips is not None:
        cols.append(tx["chips"])
    rows = []
    mp, wr, tr = summary.mean_points(), summary.win_rates(), summary.token_rates()
    for s in range(summary.players):
        row = [f"P{s + 1}", _num(mp[s], lang), _pct(wr[s], lang)]
        if rules.uses_token:
            row.append(_num(tr[s], lang) if fines else _pct(tr[s], lang))
        if chips is not None:
            row.append(_num(chips[s], lang))
        rows.append(row)
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(cols, widths, strict=True))))
    for r in rows:
        print("  ".join(v.ljust(w) if i == 0 else v.rjust(w) for i, (v, w) in enumerate(zip(r, widths, strict=True))))
    if rules.uses_token and summary.deals:
        print(tx["fines_paid" if fines else "token_paid"].format(
            rate=_pct(summary.token_paid / summary.deals, lang)))
    if summary.stalled:
        print(tx["stalled"].format(k=summary.stalled))
    print(tx["speed"].format(deals=summary.deals, seconds=_num(summary.seconds, lang),
                             rate=_fmt_rate(summary.deals_per_second, lang)))
    if records:
        print(tx["records"].format(path=records))


def run(args: argparse.Namespace) -> int:
    from ristiseiska.commands.common import CliError
    from ristiseiska.rules import RulesError
    from ristiseiska.sim import choose_engine, simulate

    rules = load_rules(args.preset, args.rules)
    if args.games < 1:
        raise CliError(f"--games must be at least 1, not {args.games}")
    if args.workers < 1:
        raise CliError(f"--workers must be at least 1, not {args.workers}")
    try:
        rules.check_players(args.players)
        engine = choose_engine(args.engine, rules, args.players)
    except (RulesError, ValueError) as e:
        raise CliError(str(e)) from None
    out = None  # an unwritable file is refused before the kernel's first compile
    if args.records:
        from ristiseiska.commands.common import check_output

        check_output(args.records, "--records")  # (a file opens, yet refuses every write)
        try:
            out = open(args.records, "w", encoding="utf-8", newline="\n")
        except OSError as e:
            raise CliError(f"cannot write {args.records}: {e.strerror or e}") from None
    if engine == "kernel":  # the first run compiles it: a line every few seconds meanwhile
        from ristiseiska.commands.common import warm_kernel

        warm_kernel(lang=args.lang)
    bar = _progress_bar(args.games, TEXTS[args.lang]["progress"])
    try:
        if bar is not None:
            with bar:
                task = bar.add_task("", total=args.games)
                summary = simulate(rules, args.players, args.games, args.seed, args.engine, out,
                                   progress=lambda k: bar.advance(task, k),
                                   workers=args.workers)
        else:
            summary = simulate(rules, args.players, args.games, args.seed, args.engine, out,
                               workers=args.workers)
    except (RulesError, ValueError) as e:
        raise CliError(str(e)) from None
    except OSError as e:
        raise CliError(f"cannot write {args.records}: {e.strerror or e}") from None
    finally:
        if out is not None:
            out.close()
    if args.json:
        print(json.dumps(summary.to_dict(), ensure_ascii=False))
    else:
        print_summary(summary, args.lang, args.records)
    return 0

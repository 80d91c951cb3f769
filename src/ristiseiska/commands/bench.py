"""``ristiseiska bench``: deals per second of random play, in one process.

    ristiseiska bench                          # both engines, default rules, 4 players
    ristiseiska bench --engine python --deals 20000
    ristiseiska bench --env --json             # AI environments: steps per second
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from ristiseiska.i18n import decimal_sep

HELP = "measure random-play speed (deals per second) of the full engine and the kernel"
DESCRIPTION = (
    "Random legal play, one process. 'python' times the full engine (Game: deal, legal_moves, "
    "push, result); 'kernel' times the compiled kernel (compiling is done before the clock "
    "starts). Run it on a quiet machine: other programs on the same cores lower the figures."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ristiseiska.i18n import LANGS

    p.add_argument("--deals", type=int, default=5000, metavar="N", help="deals for the full engine (default 5000)")
    p.add_argument("--kernel-deals", type=int, default=None, metavar="N", help="deals for the kernel (default 100 × --deals)")
    p.add_argument("--players", type=int, default=4, metavar="N", help="number of players (default 4)")
    p.add_argument("--preset", default="ristiseiska", metavar="NAME", help="rule set (default ristiseiska)")
    p.add_argument("--rules", metavar="FILE.toml", help="house rules from a TOML file instead of --preset")
    p.add_argument("--engine", choices=("python", "kernel", "both"), default="both", help="what to measure (default both)")
    p.add_argument("--seed", type=int, default=1, metavar="S", help="seed (default 1)")
    p.add_argument("--json", action="store_true", help="print the figures as one JSON object")
    p.add_argument("--lang", choices=LANGS, default="en",
                   help="language of the figures (default en, like the other tools; fi for Finnish)")
    p.add_argument("--env", action="store_true",
                   help="measure the AI environments instead: random agents' steps per second of "
                        "the compiled vector environment (N = 1, 64, 1024 deals) and of the "
                        "PettingZoo environment, with the kernel's deals per second")


def bench_python(rules: Any, players: int, deals: int, seed: int) -> dict[str, Any]:
    from ristiseiska.sim import derive_seed, play_random_deal

    moves = 0
    start = time.perf_counter()
    for i in range(deals):
        g = play_random_deal(rules, players, derive_seed(seed, i), i % players)
        moves += len(g._moves)
    seconds = time.perf_counter() - start
    return {"engine": "python", "deals": deals, "seconds": round(seconds, 3),
            "deals_per_second": round(deals / seconds, 1),
            "moves_per_second": round(moves / seconds, 1)}


def bench_kernel(rules: Any, players: int, deals: int, seed: int) -> dict[str, Any]:
    from ristiseiska.game import Game
    from ristiseiska.kernel import play_deals, position_from_game, rollout_values, warm_up

    warm_up()
    best = float("inf")
    for rep in range(3):  # best of three: the least disturbed by other processes
        start = time.perf_counter()
        play_deals(rules, players, seed + rep, deals)
        best = min(best, time.perf_counter() - start)
    pos = position_from_game(Game(rules, players, seed=seed))
    pos["rules"] = rules
    n_roll = max(1000, deals // 2)
    start = time.perf_counter()
    rollout_values(**pos, n_rollouts=n_roll, seed=seed)
    roll = time.perf_counter() - start
    return {"engine": "kernel", "deals": deals, "seconds": round(best, 4),
            "deals_per_second": round(deals / best, 1),
            "rollouts_per_second_from_start": round(n_roll / roll, 1)}


def run(args: argparse.Namespace) -> int:
    from ristiseiska.commands.common import CliError, load_rules
    from ristiseiska.rules import RulesError
    from ristiseiska.sim import kernel_reason

    rules = load_rules(args.preset, args.rules)
    try:
        rules.check_players(args.players)
    except RulesError as e:
        raise CliError(str(e)) from None
    if args.env:
        from ristiseiska.rl.bench import format_bench, run_bench

        got = run_bench(rules, args.players, args.seed)
        print(json.dumps(got, ensure_ascii=False) if args.json else format_bench(got))
        return 0
    if args.deals < 1:
        raise CliError(f"--deals must be at least 1, not {args.deals}")
    # the kernel's default stays within its bound (common.NUMERIC_BOUNDS: its result arrays)
    kdeals = args.kernel_deals if args.kernel_deals is not None else min(100 * args.deals,
                                                                         2_000_000)
    if kdeals < 1:
        raise CliError(f"--kernel-deals must be at least 1, not {kdeals}")
    results = []
    if args.engine in ("python", "both"):
        results.append(bench_python(rules, args.players, args.deals, args.seed))
    if args.engine in ("kernel", "both"):
        why = kernel_reason(rules, args.players)
        if why:
            if args.engine == "kernel":
                raise CliError(why)
            results.append({"engine": "kernel", "skipped": why})
        else:
            results.append(bench_kernel(rules, args.players, kdeals, args.seed))
    if args.json:
        print(json.dumps({"preset": rules.name or None, "players": args.players,
                          "results": results}, ensure_ascii=False))
        return 0
    for line in summary_lines(rules.name or "", args.players, results, args.lang):
        print(line)
    return 0


def _int(x: float, lang: str) -> str:
    """A whole number with thousands grouped: 12,345 in English, 12 345 in Finnish."""
    text = f"{x:,.0f}"
    return text.replace(",", "\u00a0") if decimal_sep(lang) == "," else text


def summary_lines(name: str, players: int, results: list[dict[str, Any]], lang: str = "en") -> list[str]:
    """The figures in words in ``lang`` (the catalogs' ``cli.bench.*``; a decimal comma and
    grouped thousands where the language writes them)."""
    from ristiseiska.i18n import number, t

    out = [t("cli.bench.head", lang, rules=name or t("cli.bench.custom", lang), players=players)]
    for r in results:
        if "skipped" in r:
            out.append(t("cli.bench.skipped", lang, why=r["skipped"]))
            continue
        engine = {"python": "python", "kernel": "kernel"}[r["engine"]]
        deals = _int(r["deals"], lang) if decimal_sep(lang) == "," else str(r["deals"])
        line = t("cli.bench.line", lang, engine=f"{engine:<6}", deals=f"{deals:>9}",
                 seconds=number(r["seconds"], lang, 3),
                 rate=f"{_int(r['deals_per_second'], lang):>12}")
        if "moves_per_second" in r:
            line += t("cli.bench.moves", lang, n=_int(r["moves_per_second"], lang))
        if "rollouts_per_second_from_start" in r:
            line += t("cli.bench.rollouts", lang, n=_int(r["rollouts_per_second_from_start"], lang))
        out.append(line)
    return out

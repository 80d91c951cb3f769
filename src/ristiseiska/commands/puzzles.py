"""``ristiseiska puzzles``: Sevens puzzles (issue 21).

    ristiseiska puzzles make --games N --seed K --out FILE.jsonl [--per-deal P] [--preset NAME]…
                             [--jobs J]
    ristiseiska puzzles export --out FILE.jsonl [--preset NAME] [--grade easy|medium|hard]
    ristiseiska puzzles check FILE.jsonl [--worlds W] [--seed K] [--jobs J]
    ristiseiska puzzles train [--lang LANG] [--grade G] [--preset NAME] [--file FILE.jsonl]
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

HELP = "Sevens puzzles: make them from master self-play, export, check, or train with them"
DESCRIPTION = (
    "Positions from master self-play where one move is clearly best: judged by the analysis "
    "engine from the seat's own view, the best move's expected points beat every alternative by "
    "at least 4 points and 4 standard errors. 'make' finds them, 'export' writes the set that "
    "ships with the program, 'check' re-evaluates a file with a larger budget (exit status 1 "
    "when an answer is no longer clearly best), 'train' opens the terminal trainer. "
    "See docs/analysis.md, section Puzzles."
)

MAX_JOBS = 8
MIN_WORLDS, MAX_WORLDS = 100, 50_000


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ristiseiska.i18n import LANGS

    sub = p.add_subparsers(dest="puzzles_command", metavar="ACTION")
    mk = sub.add_parser("make", help="find puzzles in master self-play deals")
    mk.add_argument("--games", type=int, required=True, metavar="N",
                    help="self-play deals to look through (1–10000), the presets in turn")
    mk.add_argument("--seed", type=int, default=0, metavar="K",
                    help="seed (default 0; the same seed gives the same puzzles)")
    mk.add_argument("--out", required=True, metavar="FILE.jsonl", help="where to write the puzzles")
    mk.add_argument("--per-deal", type=int, default=2, metavar="P",
                    help="at most this many puzzles from one deal (1–10, default 2)")
    mk.add_argument("--preset", action="append", metavar="NAME",
                    help="only this preset (repeat for more; default: every preset the kernel plays)")
    mk.add_argument("--jobs", type=int, default=1, metavar="J",
                    help=f"worker processes (1–{MAX_JOBS}, default 1; the output does not depend on it)")
    ex = sub.add_parser("export", help="write the puzzle set that ships with the program")
    ex.add_argument("--out", required=True, metavar="FILE.jsonl", help="where to write ('-': standard output)")
    ex.add_argument("--preset", metavar="NAME", help="only this preset's puzzles")
    ex.add_argument("--grade", choices=("easy", "medium", "hard"), help="only puzzles of this grade")
    ck = sub.add_parser("check", help="re-evaluate puzzles with a larger budget")
    ck.add_argument("file", metavar="FILE.jsonl", help="a puzzle file")
    ck.add_argument("--worlds", type=int, default=None, metavar="W",
                    help=f"sampled deals per puzzle ({MIN_WORLDS}–{MAX_WORLDS}; default 4000, twice the making budget)")
    ck.add_argument("--seed", type=int, default=1, metavar="K", help="seed of the re-evaluation (default 1)")
    ck.add_argument("--jobs", type=int, default=1, metavar="J",
                    help=f"worker processes (1–{MAX_JOBS}, default 1; the report does not depend on it)")
    tr = sub.add_parser("train", help="solve puzzles in the terminal")
    tr.add_argument("--lang", choices=LANGS, default="fi", help="language: " + ", ".join(LANGS) + " (default fi)")
    tr.add_argument("--grade", choices=("easy", "medium", "hard"), help="only puzzles of this grade")
    tr.add_argument("--preset", metavar="NAME", help="only this preset's puzzles")
    tr.add_argument("--file", metavar="FILE.jsonl", help="puzzles from this file instead of the shipped set")
    tr.add_argument("--seed", type=int, default=None, metavar="K", help="order of the puzzles (default: random)")


def run(args: argparse.Namespace) -> int:
    from .common import CliError

    action = getattr(args, "puzzles_command", None)
    if action == "make":
        return _make(args)
    if action == "export":
        return _export(args)
    if action == "check":
        return _check(args)
    if action == "train":
        return _train(args)
    raise CliError("say what to do: ristiseiska puzzles make|export|check|train (see --help)")


def _progress(label: str) -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn(label), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[found]}"),
                    TimeRemainingColumn(), console=Console(stderr=True), transient=True,
                    disable=not sys.stderr.isatty())


def _open_out(path: str) -> Any:
    from .common import CliError, check_output

    if path == "-":
        return sys.stdout
    check_output(path, "--out")  # (a file opens, yet refuses every write)
    try:
        return open(path, "w", encoding="utf-8")
    except OSError as e:
        raise CliError(f"cannot write {path}: {e.strerror or e}") from None


def _make(args: argparse.Namespace) -> int:
    from ristiseiska.puzzles import PuzzleError, check_make_args, dumps_puzzle, kernel_presets

    from .common import CliError

    names = tuple(args.preset) if args.preset else kernel_presets()
    try:
        check_make_args(args.games, args.seed, args.per_deal, names)
    except PuzzleError as e:
        raise CliError(str(e)) from None
    if not 1 <= args.jobs <= MAX_JOBS:
        raise CliError(f"--jobs must be from 1 to {MAX_JOBS}, not {args.jobs}")
    out = _open_out(args.out)
    count = 0
    grades: dict[str, int] = {}
    presets: dict[str, int] = {}
    try:
        with _progress("puzzles") as bar:
            task = bar.add_task("make", total=args.games, found="0 puzzles")
            for game_puzzles in _games(args.games, args.seed, args.per_deal, names, args.jobs):
                for p in game_puzzles:
                    out.write(dumps_puzzle(p) + "\n")
                    count += 1
                    grades[p["difficulty"]["grade"]] = grades.get(p["difficulty"]["grade"], 0) + 1
                    presets[p["preset"]] = presets.get(p["preset"], 0) + 1
                out.flush()
                bar.update(task, advance=1, found=f"{count} puzzles")
    finally:
        if out is not sys.stdout:
            out.close()
    spread = ", ".join(f"{g} {grades.get(g, 0)}" for g in ("easy", "medium", "hard"))
    print(f"{count} puzzles from {args.games} deals ({spread}; {len(presets)} presets) -> {args.out}",
          file=sys.stderr)
    return 0


def _game_job(job: tuple[str, int, int, int, int, str]) -> list[dict[str, Any]]:
    from ristiseiska.puzzles import puzzles_of_game, self_play

    name, n, gseed, dealer, per_deal, tag = job
    return puzzles_of_game(name, self_play(name, n, gseed, dealer), gseed, per_deal, tag)


def _games(games: int, seed: int, per_deal: int, names: tuple[str, ...], jobs: int) -> Any:
    """Each game's puzzles, in game order (the same for any number of worker processes)."""
    from ristiseiska.puzzles import mix_seed, players_for

    todo = []
    for i in range(games):
        name = names[i % len(names)]
        n = players_for(name, i)
        todo.append((name, n, mix_seed(seed, i), i % n, per_deal, f"{name}-{seed}-{i}"))
    if jobs == 1:
        for job in todo:
            yield _game_job(job)
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(_game_job, todo, chunksize=1)


def _export(args: argparse.Namespace) -> int:
    from ristiseiska.puzzles import dumps_puzzle, shipped

    from .common import CliError

    items = shipped()
    if args.preset is not None:
        known = sorted({p["preset"] for p in items})
        if args.preset not in known:
            raise CliError(f"the shipped set has no puzzles of preset {args.preset!r} "
                           f"(it has {', '.join(known)})")
        items = [p for p in items if p["preset"] == args.preset]
    if args.grade is not None:
        items = [p for p in items if p["difficulty"]["grade"] == args.grade]
    out = _open_out(args.out)
    try:
        for p in items:
            out.write(dumps_puzzle(p) + "\n")
    finally:
        if out is not sys.stdout:
            out.close()
    if args.out != "-":
        print(f"{len(items)} puzzles -> {args.out}", file=sys.stderr)
    return 0


def _check(args: argparse.Namespace) -> int:
    from dataclasses import replace

    from ristiseiska.puzzles import CHECK, PuzzleError

    from .common import CliError

    if args.worlds is not None and not MIN_WORLDS <= args.worlds <= MAX_WORLDS:
        raise CliError(f"--worlds must be from {MIN_WORLDS} to {MAX_WORLDS}, not {args.worlds}")
    if not 0 <= args.seed < 2**63:
        raise CliError(f"--seed must be from 0 to 2^63 - 1, not {args.seed}")
    if not 1 <= args.jobs <= MAX_JOBS:
        raise CliError(f"--jobs must be from 1 to {MAX_JOBS}, not {args.jobs}")
    budget = CHECK if args.worlds is None else replace(CHECK, worlds=args.worlds)
    from ristiseiska.puzzles import parse_lines

    from .common import input_lines

    try:
        items = parse_lines(input_lines(args.file, ""), args.file)
    except PuzzleError as e:
        raise CliError(str(e)) from None
    bad = []
    with _progress("check") as bar:
        task = bar.add_task("check", total=len(items), found="")
        for k, r in enumerate(_checks(items, budget, args.seed, args.jobs), 1):
            if not r.ok:
                bad.append((k, r))
            bar.update(task, advance=1, found=f"{len(bad)} not clear")
    for k, r in bad:
        print(f"{args.file}:{k}: puzzle {r.puzzle.get('id', '?')}: answer {r.puzzle['answer']} "
              f"is no longer clearly best: {r.problem}")
    print(f"{len(items) - len(bad)} of {len(items)} puzzles still clearly best "
          f"({budget.worlds} sampled deals each, seed {args.seed})")
    return 1 if bad else 0


def _check_job(job: tuple[dict[str, Any], Any, int]) -> Any:
    from ristiseiska.puzzles import check_puzzle

    p, budget, seed = job
    return check_puzzle(p, budget, seed=seed)


def _checks(items: list[dict[str, Any]], budget: Any, seed: int, jobs: int) -> Any:
    """Each puzzle's check, in file order (the same for any number of worker processes)."""
    todo = [(p, budget, seed) for p in items]
    if jobs == 1:
        for job in todo:
            yield _check_job(job)
        return
    from concurrent.futures import ProcessPoolExecutor

    with ProcessPoolExecutor(max_workers=jobs) as pool:
        yield from pool.map(_check_job, todo, chunksize=1)


def _train(args: argparse.Namespace) -> int:
    from ristiseiska.puzzles import PuzzleError, parse_lines, shipped

    from .common import CliError, input_lines

    try:
        items = parse_lines(input_lines(args.file, "--file"), args.file) if args.file else shipped()
    except PuzzleError as e:
        raise CliError(str(e)) from None
    if args.preset is not None:
        items = [p for p in items if p["preset"] == args.preset]
    if args.grade is not None:
        items = [p for p in items if p["difficulty"]["grade"] == args.grade]
    if not items:
        raise CliError("no puzzle matches the choice of --preset and --grade")
    if not sys.stdout.isatty():
        raise CliError("the trainer needs a terminal (standard output is not one)")
    from ristiseiska.tui.puzzles import PuzzleApp

    PuzzleApp(items, lang=args.lang, seed=args.seed).run()
    return 0

"""``ristiseiska daily``: today's deal, the same for every player of this computer's secret,
against three expert bots; then the master bot's result on the same cards and a line to share.

    ristiseiska daily                        play today's deal in the terminal (default rules)
    ristiseiska daily --preset sjuan         today's Sjuan deal
    ristiseiska daily --show                 today's result and the streak
    ristiseiska daily --date 2026-12-01      a past day's deal (practice; its seed is shown)
    ristiseiska daily --auto expert          a bot plays your seat (no terminal needed)
    ristiseiska daily --moves my.txt         your seat's moves from a file (h6 token …)
    ristiseiska daily --server URL           a server's daily deal, compared with its players

The day changes at midnight Finnish time. The first finished try of today's deal counts (one
a day and rule set); later tries, and every past day, are practice. Files in the data directory
(``--data-dir``, ``$RISTISEISKA_DATA_DIR`` or the user data directory): ``daily-secret`` (made
on first use; ``--secret-file`` names another), ``daily-results.json`` (the counted results) and
``daily/`` (the records of the deals and an unfinished try, which ``ristiseiska daily``
continues).
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shlex
import sys
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from .daily_play import (  # noqa: F401 - terminal_session is this command's too
    _bot_level,
    _command,
    _names,
    _play,
    _read_moves,
    _read_small,
    _warm,
    terminal_session,
)

HELP = "today's deal, the same for everyone: play it, then see the master bot's result on it"
DESCRIPTION = (
    "The daily deal: one deal a day (from midnight Finnish time) for each offered rule set, "
    "dealt from a secret and the date, at seat 1 against three expert bots that answer the "
    "same moves alike. At the end: your points and place, the master bot's on the same seat "
    "and cards, the first move where you and the master parted, your streak and a line to "
    "share with no card in it. The first finished try of a day counts; later ones are practice."
)

SECRET_FILE = "daily-secret"
RESULTS_FILE = "daily-results.json"
RESULTS_FORMAT = "ristiseiska-daily-results"
MAX_FILE = 1_000_000  # bytes: a results file of ten years is far smaller


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ristiseiska.daily import DEFAULT_PRESET, OFFERED

    p.add_argument("--preset", metavar="NAME", default=DEFAULT_PRESET,
                   help=f"rule set of the deal: {', '.join(OFFERED)} (default {DEFAULT_PRESET})")
    p.add_argument("--date", metavar="YYYY-MM-DD",
                   help="a past day's deal (practice); a day that has not begun is refused")
    p.add_argument("--show", action="store_true", help="print the day's result and your streak")
    from ristiseiska.i18n import LANGS

    p.add_argument("--lang", choices=LANGS, default=None,
                   help="language: " + ", ".join(LANGS) + " (default fi)")
    p.add_argument("--auto", metavar="LEVEL",
                   help="let a bot play your seat (expert, master …) instead of the terminal game")
    p.add_argument("--moves", metavar="FILE",
                   help="play your seat with the moves of a file, in order, separated by spaces or "
                        "lines (h6, token, pass …; '#' starts a comment) instead of the terminal game")
    p.add_argument("--reference", metavar="LEVEL", default="master",
                   help="the bot your play is compared with (default master)")
    p.add_argument("--secret-file", metavar="FILE",
                   help="the secret the deals are made from (made on first use; default "
                        f"{SECRET_FILE} in the data directory): the same secret, the same deals")
    p.add_argument("--server", metavar="URL",
                   help="play the daily deal of a ristiseiska server (e.g. https://example.org): "
                        "it hands out the deal, replays your play itself and compares it with "
                        "everyone who played it")
    p.add_argument("--data-dir", metavar="DIR",
                   help="where the secret, the results and the records go (default: the user "
                        "data directory)")


# -- files ------------------------------------------------------------------------------------

def load_secret(path: Path) -> bytes:
    """The secret in ``path`` (64 hex digits), made there first if the file is missing."""
    from ristiseiska.commands.common import CliError
    from ristiseiska.daily.deal import MIN_SECRET

    if not path.exists():
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(secrets.token_hex(32) + "\n")
        except FileExistsError:
            pass  # another process made it first: read theirs
        except OSError as e:
            raise CliError(f"cannot make the secret file {path}: {e.strerror or e}") from None
    text = _read_small(path, "secret file").decode("ascii", "replace").strip()
    try:
        secret = bytes.fromhex(text)
    except ValueError:
        secret = b""
    if len(secret) < MIN_SECRET:
        raise CliError(f"the secret file {path} must hold at least {2 * MIN_SECRET} hex digits "
                       "(delete it to make a new one: the deals change with it)")
    return secret


def load_results(path: Path) -> list[dict[str, Any]]:
    """The counted results (an empty list before the first)."""
    from ristiseiska.commands.common import CliError

    if not path.exists():
        return []
    try:
        data = json.loads(_read_small(path, "results file").decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise CliError(f"the results file {path} is not valid JSON ({e})") from None
    if (not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT
            or not isinstance(data.get("results"), list)):
        raise CliError(f"the results file {path} is not a {RESULTS_FORMAT} file")
    results = []
    for k, r in enumerate(data["results"], 1):
        if not (isinstance(r, dict) and isinstance(r.get("date"), str)
                and isinstance(r.get("preset"), str) and isinstance(r.get("points"), int)):
            raise CliError(f"the results file {path}: result {k} is damaged")
        results.append(r)
    return results


def save_results(path: Path, results: list[dict[str, Any]]) -> None:
    from ristiseiska.commands.common import CliError

    text = json.dumps({"format": RESULTS_FORMAT, "version": 1, "results": results},
                      ensure_ascii=False, indent=1)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        tmp.write_text(text + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as e:
        raise CliError(f"cannot write the results file {path}: {e.strerror or e}") from None


def _find(results: list[dict[str, Any]], day: date, preset: str) -> dict[str, Any] | None:
    return next((r for r in results if r["date"] == day.isoformat() and r["preset"] == preset),
                None)


def _entry(day: date, preset: str, reference: str, c: Any) -> dict[str, Any]:
    d = c.difference
    return {"date": day.isoformat(), "preset": preset, "points": c.points, "place": c.place,
            "table": list(c.table), "reference": reference,
            "reference_points": c.reference_points, "reference_place": c.reference_place,
            "difference": None if d is None else {"index": d.index, "turn": d.turn,
                                                   "player": d.player.text(),
                                                   "reference": d.reference.text()}}


def _comparison_of(entry: dict[str, Any]) -> Any:
    """A stored result back as a Comparison (for --show)."""
    from ristiseiska.commands.common import CliError
    from ristiseiska.daily import Comparison, Difference
    from ristiseiska.moves import MoveError, parse_move

    try:
        d = entry.get("difference")
        diff = None if d is None else Difference(int(d["index"]), int(d["turn"]),
                                                 parse_move(d["player"]), parse_move(d["reference"]))
        return Comparison(int(entry["points"]), int(entry["place"]),
                          tuple(int(x) for x in entry["table"]), int(entry["reference_points"]),
                          int(entry["reference_place"]), (), diff)
    except (KeyError, TypeError, ValueError, MoveError) as e:
        raise CliError(f"the stored result of {entry['date']} is damaged ({e})") from None


def _streak(results: list[dict[str, Any]], today: date) -> Any:
    from ristiseiska.daily import streaks

    days = set()
    for r in results:
        try:
            d = date.fromisoformat(r["date"])
        except ValueError:
            continue
        if d <= today:
            days.add(d)
    return streaks(days, today)


# -- the command ------------------------------------------------------------------------------

def run(args: argparse.Namespace) -> int:
    from ristiseiska.commands.common import CliError
    from ristiseiska.daily import DailyError, check_played, daily_deal, day_of, parse_day
    from ristiseiska.daily.deal import check_preset
    from ristiseiska.paths import data_dir

    lang = args.lang or "fi"
    now = datetime.now(UTC)
    today = day_of(now)
    try:
        check_preset(args.preset)
        day = check_played(parse_day(args.date), now) if args.date else today
    except DailyError as e:
        raise CliError(str(e)) from None
    base = data_dir(args.data_dir)
    if args.server:
        from .daily_server import run_server

        return run_server(args, day, base, lang)
    results_path = base / RESULTS_FILE
    results = load_results(results_path)
    if args.show:
        return _show(results, day, today, args.preset, lang)
    if args.auto and args.moves:
        raise CliError("give --auto or --moves, not both")
    auto = _bot_level(args.auto, "--auto") if args.auto else None
    moves = _read_moves(Path(args.moves)) if args.moves else None
    reference = _bot_level(args.reference, "--reference")
    secret = load_secret(Path(args.secret_file) if args.secret_file else base / SECRET_FILE)
    deal = daily_deal(secret, day, args.preset)
    counted = day == today and _find(results, day, args.preset) is None
    if moves is not None:
        from ristiseiska.daily import play_moves

        try:
            game = play_moves(deal, moves, _names(lang))
        except DailyError as e:
            raise CliError(f"{args.moves}: {e}") from None
    else:
        try:
            game = _play(deal, auto, lang, base, counted)
        except DailyError as e:  # a bot's move the engine refused: named, not a traceback
            raise CliError(str(e)) from None
    if game is None:
        return 0
    try:
        _finish(deal, game, reference, lang, base, counted, results, results_path, today)
    except DailyError as e:
        raise CliError(str(e)) from None
    return 0


def _finish(deal: Any, game: Any, reference: str, lang: str, base: Path, counted: bool,
            results: list[dict[str, Any]], results_path: Path, today: date) -> None:
    from ristiseiska.bots import get_bot
    from ristiseiska.daily import (
        SEAT,
        bot_seed,
        compare,
        play,
        result_lines,
        share_text,
        streak_line,
    )
    from ristiseiska.daily.share import capital, level_name
    from ristiseiska.i18n import t

    print(capital(t("daily.result.thinking", lang, level=level_name(reference, lang))),
          file=sys.stderr)
    if reference.startswith("master") or reference == "neural":
        _warm(lang)
    ref_game = play(deal, get_bot(reference, seed=bot_seed(deal.seed, SEAT)).choose)
    c = compare(deal, game, ref_game)
    for line in result_lines(deal.day, deal.preset, c, reference, lang):
        print(line)
    if counted:
        results.append(_entry(deal.day, deal.preset, reference, c))
        save_results(results_path, results)
    else:
        print(t("daily.result.practice" if deal.day == today else "daily.result.past", lang))
    path = _write_record(deal, game, base, counted)
    if path is not None:
        print(t("daily.result.record", lang, path=str(path)))
        if deal.day < today:
            command = f"ristiseiska replay --check --verify-seed {shlex.quote(str(path))}"
            print(t("daily.result.seed", lang, seed=deal.seed, command=command))
    print(streak_line(_streak(results, today), lang))
    print(t("daily.result.share", lang))
    print(share_text(deal.day, deal.preset, c.points, reference, c.reference_points, lang=lang))


def _write_record(deal: Any, game: Any, base: Path, counted: bool) -> Path | None:
    """The deal's record (the last practice try of a day replaces the one before)."""
    from ristiseiska.record import dumps_record, record_from_game

    name = f"{deal.day.isoformat()}-{deal.preset}{'' if counted else '-practice'}.jsonl"
    path = base / "daily" / "records" / name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(dumps_record(record_from_game(game, extra=deal.record_extra())) + "\n",
                        encoding="utf-8")
    except OSError as e:
        print(f"ristiseiska: cannot write the record {path}: {e.strerror or e}", file=sys.stderr)
        return None
    return path


def _show(results: list[dict[str, Any]], day: date, today: date, preset: str, lang: str) -> int:
    from ristiseiska.daily import result_lines, share_text, streak_line
    from ristiseiska.daily.share import game_name
    from ristiseiska.i18n import t

    entry = _find(results, day, preset)
    if entry is None:
        print(t("daily.show.none", lang, game=game_name(preset, lang), date=day.isoformat()))
    else:
        c = _comparison_of(entry)
        reference = str(entry.get("reference") or "master")
        for line in result_lines(day, preset, c, reference, lang):
            print(line)
        print(t("daily.result.share", lang))
        print(share_text(day, preset, c.points, reference, c.reference_points, lang=lang))
    print(streak_line(_streak(results, today), lang))
    return 0

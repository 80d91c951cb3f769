"""``ristiseiska replay``: check game records, or step through one recorded deal.

    ristiseiska replay --check games.jsonl [more.jsonl …] [--verify-seed] [--commitment HEX]
                       [--allow-mixed]
    ristiseiska replay games.jsonl [--deal K] [--lang LANG] [--text]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from typing import Any

HELP = "check game records (--check) or show one recorded deal move by move"
DESCRIPTION = (
    "With --check, replay every record of the files and print FILE:LINE: problem for each bad "
    "one, then a summary; the exit status is 1 when a record is bad and 2 when a file cannot "
    "be read. Records downloaded from a finished web match carry the revealed match seed: "
    "it is always checked against the commitment the server published before play, and the "
    "hands against the seed; a record with a commitment but no revealed seed, an empty file, "
    "a file mixing several matches and a deal given twice are bad too (--commitment checks "
    "against the commitment you noted when the match began). Without --check, show one deal of a file (the first, or --deal K)."
)


def add_arguments(p: argparse.ArgumentParser) -> None:
    from ristiseiska.i18n import LANGS

    p.add_argument("files", nargs="+", metavar="FILE", help="record file (.jsonl; '-' reads standard input)")
    p.add_argument("--check", action="store_true", help="check every record: each event legal, the result as the rules give it")
    p.add_argument("--verify-seed", action="store_true", help="with --check: the hands must also be the shuffle of the record's seed")
    p.add_argument("--commitment", metavar="HEX", default=None, help="with --check: every record must be a deal of the match whose seed commitment (64 hex digits) you noted when it began")
    p.add_argument("--allow-mixed", action="store_true", help="with --check: accept records of several matches in one file")
    p.add_argument("--deal", type=int, default=1, metavar="K", help="show the K-th record of the file (from 1; default 1)")
    p.add_argument("--lang", choices=LANGS, default="fi", help="language of the shown deal (default fi)")
    p.add_argument("--text", action="store_true", help="print the deal as plain text even when the terminal viewer is available")


def _lines(path: str) -> Iterator[tuple[int, dict[str, Any] | str]]:
    from ristiseiska.commands.common import input_lines
    from ristiseiska.record import read_records

    if path == "-":
        return read_records(sys.stdin.buffer)
    return read_records(input_lines(path, ""))  # (bounded: a record line is small)


def run(args: argparse.Namespace) -> int:
    from ristiseiska.commands.common import CliError

    if args.check:
        return _check(args.files, args.verify_seed, args.commitment, args.allow_mixed)
    if len(args.files) != 1:
        raise CliError("show one file at a time (or use --check for several)")
    if args.deal < 1:
        raise CliError(f"--deal counts from 1, not {args.deal}")
    return _show(args.files[0], args.deal, args.lang, args.text)


def _check(files: list[str], verify_seed: bool, commitment: str | None = None,
           allow_mixed: bool = False) -> int:
    from ristiseiska.commands.common import CliError
    from ristiseiska.record import check_record
    from ristiseiska.vouch import FileChecks, normalise_commitment

    if commitment is not None:
        try:
            commitment = normalise_commitment(commitment)
        except ValueError as e:
            raise CliError(str(e)) from None
    vouch = FileChecks(commitment, allow_mixed)
    checked = bad = unseeded = file_problems = 0
    unreadable = False
    for path in files:
        try:
            for line_no, rec in _lines(path):
                checked += 1
                if verify_seed and isinstance(rec, dict) and rec.get("seed") is None:
                    unseeded += 1
                problem = rec if isinstance(rec, str) else check_record(rec, verify_seed)
                # a record that replays must also be vouched for (fairness, match, once only)
                if problem is not None:
                    vouch.skip()
                    problems = [problem]
                else:
                    assert isinstance(rec, dict)
                    problems = vouch.record(line_no, rec)
                if problems:
                    bad += 1
                    for one in problems:
                        print(f"{path}:{line_no}: {one}")
        except (OSError, CliError) as e:  # (CliError: not a file, or a line past the bound)
            unreadable = True
            why = str(e) if isinstance(e, CliError) else f"cannot read {path}: {e.strerror or e}"
            print(f"ristiseiska: {why}", file=sys.stderr)
            vouch.end_file(path)
            continue
        for one in vouch.end_file(path):
            file_problems += 1
            print(one)
    note = f" ({unseeded} without a seed to verify)" if unseeded else ""
    whole = (f", {file_problems} file problem{'s' if file_problems != 1 else ''}"
             if file_problems else "")
    print(f"{checked} record{'s' if checked != 1 else ''} checked, {bad} bad{whole}{note}")
    return 2 if unreadable else (1 if bad or file_problems else 0)


def _show(path: str, k: int, lang: str, force_text: bool) -> int:
    from ristiseiska.commands.common import CliError
    from ristiseiska.record import RecordError, replay_record

    found: tuple[int, dict[str, Any] | str] | None = None
    count = 0
    try:
        for line_no, rec in _lines(path):
            count += 1
            if count == k:
                found = (line_no, rec)
                break
    except OSError as e:
        raise CliError(f"cannot read {path}: {e.strerror or e}") from None
    if found is None:
        raise CliError(f"{path} has {count} record{'s' if count != 1 else ''}, not {k}")
    line_no, rec = found
    if isinstance(rec, str):
        raise CliError(f"{path}:{line_no}: {rec}")
    try:
        replay_record(rec)
    except RecordError as e:
        raise CliError(f"{path}:{line_no}: {e}") from None
    if not force_text and _terminal():
        try:  # the terminal viewer (Textual), with the move analysis keys a, s and w
            from ristiseiska.tui.analysis import run_replay
        except ImportError as e:  # Textual missing from this install: the plain text still works
            print(f"ristiseiska: the terminal viewer is not available ({e}); showing the deal as text",
                  file=sys.stderr)
        else:
            return run_replay(rec, lang)
    for line in describe_record(rec, lang):
        print(line)
    return 0


def _seat(you: Any) -> int | None:
    return you if isinstance(you, int) and not isinstance(you, bool) else None


def _terminal() -> bool:
    """True when both the keyboard and the screen are a terminal (the viewer needs both: with
    the output or the input redirected, the deal is printed as text)."""
    try:
        return sys.stdin.isatty() and sys.stdout.isatty()
    except (AttributeError, ValueError):  # closed or replaced streams
        return False


# -- plain text ---------------------------------------------------------------------------------

# The event and result sentences come from the shared catalogs (ristiseiska.i18n); these few
# lines are only the deal's heading.
def _texts(lang: str) -> dict[str, str]:
    from ristiseiska.i18n import t

    return {k: t(f"cli.replay.{k}", lang)
            for k in ("head", "custom", "hands", "stock", "table", "unfinished")}


def describe_record(rec: dict[str, Any], lang: str = "fi") -> list[str]:
    """The deal of a valid record as lines of text, one per event."""
    from ristiseiska.i18n import describe_event, reader_names, result_lines

    t = _texts(lang)
    you = rec.get("you")  # the reader's own seat, in records the terminal game saved
    names = reader_names(rec["players"], you, lang)
    seed = rec.get("seed")
    lines = [t["head"].format(rules=rec.get("preset") or t["custom"], n=len(names),
                              dealer=names[rec["dealer"]], seed="–" if seed is None else seed)]
    lines.append(t["hands"])
    for who, hand in zip(names, rec["hands"], strict=True):
        lines.append(f"  {who}: {' '.join(hand)}")
    if rec.get("stock"):
        lines.append(f"{t['stock']} {' '.join(rec['stock'])}")
    if rec.get("table"):
        lines.append(f"{t['table']} {' '.join(rec['table'])}")
    width = len(str(len(rec["events"])))
    for i, ev in enumerate(rec["events"], 1):
        lines.append(f"{i:>{width}}. {describe_event(ev, names, lang, _seat(you))}")
    if rec.get("result") is None:
        lines.append(t["unfinished"])
    else:
        lines.extend(result_lines(rec["result"], names, lang, _seat(you)))
    return lines

"""Helpers shared by the commands."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from typing import IO, Any

from ristiseiska.i18n import LANGS, t


class CliError(Exception):
    """A problem to report in one line, without a traceback (``ristiseiska: message``, exit
    status 2)."""


# Input files are read with a bound (a rules file, --paired figures) or line by line with a
# bound on each line (records, puzzles, a ceiling log): ``--rules /dev/zero`` is one line of
# error, never a MemoryError after filling the memory.
MAX_FILE = 10 * 1024 * 1024
MAX_LINE = 10 * 1024 * 1024


def _megabytes(n: int) -> str:
    return f"{n // (1024 * 1024)} MB"


def open_input(path: str, option: str) -> IO[bytes]:
    """``path`` opened for reading in binary, if it is a regular file or a pipe (raises
    ``CliError`` naming ``option``: ``--rules /dev/zero: not a regular file``)."""
    label = f"{option} {path}".strip()
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        raise CliError(f"{label}: cannot read it ({e.strerror or e})") from None
    if stat.S_ISDIR(mode):
        raise CliError(f"{label}: a directory, not a file")
    if not (stat.S_ISREG(mode) or stat.S_ISFIFO(mode)):
        raise CliError(f"{label}: not a regular file")
    try:
        return open(path, "rb")  # noqa: SIM115 - the caller closes it
    except OSError as e:
        raise CliError(f"{label}: cannot read it ({e.strerror or e})") from None


def read_input(path: str, option: str, limit: int = MAX_FILE) -> bytes:
    """The whole of a small input file, at most ``limit`` bytes (else ``CliError``:
    ``--rules big.toml: larger than 10 MB``)."""
    with open_input(path, option) as f:
        try:
            data = f.read(limit + 1)
        except OSError as e:
            raise CliError(f"{option} {path}: cannot read it ({e.strerror or e})") from None
    if len(data) > limit:
        raise CliError(f"{option} {path}: larger than {_megabytes(limit)}".lstrip())
    return data


def input_lines(path: str, option: str, limit: int = MAX_LINE) -> Iterator[bytes]:
    """The lines of an input file, each at most ``limit`` bytes (else ``CliError``:
    ``replay /dev/zero: not a regular file``, ``… line 3 is longer than 10 MB``)."""
    with open_input(path, option) as f:
        for no, line in enumerate(iter(lambda: f.readline(limit + 1), b""), 1):
            if len(line) > limit:
                raise CliError(f"{option} {path}: line {no} is longer than "
                               f"{_megabytes(limit)}".lstrip())
            yield line


def check_output(path: str, option: str) -> None:
    """Make sure an output file can be written before the work starts (raises ``CliError``
    naming ``option``: ``--json /proc/self/mem: cannot write it (Invalid argument)``). An
    existing file is opened for appending (nothing is changed); a new one is made and removed
    again. ``-`` (standard output) passes."""
    if path == "-":
        return
    label = f"{option} {path}"
    if os.path.isdir(path):
        raise CliError(f"{label}: a directory, not a file")
    parent = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(parent):
        raise CliError(f"{label}: cannot write it: folder {parent} does not exist")
    try:
        if os.path.lexists(path):
            with open(path, "ab"):
                pass
        else:
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644))
            os.unlink(path)
    except OSError as e:
        raise CliError(f"{label}: cannot write it ({e.strerror or e})") from None


def load_rules(preset_name: str | None, rules_file: str | None) -> Any:
    """The rules from ``--preset`` and ``--rules`` (raises ``CliError``)."""
    from ristiseiska.rules import RulesError, load_rules_toml, parse_toml, preset

    try:
        if rules_file is None:
            return preset(preset_name or "ristiseiska")
        raw = read_input(rules_file, "--rules")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise CliError(f"rules file {rules_file} is not UTF-8 text") from None
        if preset_name is not None:
            try:
                has_preset = "preset" in parse_toml(text, rules_file)
            except RulesError:
                has_preset = True  # let the loader report the TOML error
            if not has_preset:  # --preset is the base the file's options change
                text = f"preset = {json.dumps(preset_name)}\n" + text
        return load_rules_toml(text, source=rules_file)
    except RulesError as e:
        raise CliError(str(e)) from None


# Every numeric option of every command is bounded (issue 19): a value out of range is one
# clear line (``--worlds must be at most 100,000, not 10000000000``), never a traceback or an
# attempt to allocate more memory than any machine has. Per command, option (its ``dest``) →
# (lowest, highest); None leaves that side to the command's own check, which words it for its
# option. An option not named here (a new one) still gets the generic bounds below.
SEEDS = (-(2**64) + 1, 2**64 - 1)
GENERIC_INT = SEEDS
GENERIC_FLOAT = (-1e9, 1e9)
NUMERIC_BOUNDS: dict[str, dict[str, tuple[float | None, float | None]]] = {
    "analyze": {"deal": (None, 10_000_000), "seat": (None, None), "seed": SEEDS,
                "worlds": (4, 100_000)},
    "ceiling": {"deals": (1, 1_000_000), "start": (0, 10_000_000), "players": (2, 8),
                "seed": SEEDS},
    "bench": {"deals": (1, 1_000_000), "kernel_deals": (1, 2_000_000), "players": (2, 8),
              "seed": SEEDS},
    "play": {"players": (2, 8), "deals": (1, 1000), "target": (1, 1_000_000), "seed": SEEDS,
             "pace": (None, 60)},
    "replay": {"deal": (None, 10_000_000)},
    "simulate": {"players": (2, 8), "games": (1, 100_000_000), "seed": SEEDS, "workers": (1, 256)},
    "tournament": {"players": (2, 8), "games": (1, 10_000_000), "seed": SEEDS,
                   "workers": (1, 256), "move_limit": (0.001, 3600)},
    "ladder": {"players": (2, 8), "deals": (1, 1_000_000), "seed": SEEDS, "workers": (1, 256),
               "move_limit": (0.001, 3600)},
}


def _number(value: float) -> str:
    text = f"{value:g}" if isinstance(value, float) else str(value)
    return text if len(text) <= 24 else f"a number of {len(text)} digits"


def _bound(b: float) -> str:
    return f"{b:,}" if isinstance(b, int) else f"{b:g}"


def check_numbers(command: str, args: Any) -> None:
    """Raise ``CliError`` for the first numeric option of ``args`` out of its bounds."""
    import math

    bounds = NUMERIC_BOUNDS.get(command, {})
    for dest, value in sorted(vars(args).items()):
        if dest.startswith("_") or isinstance(value, bool) or not isinstance(value, int | float):
            continue
        flag = "--" + dest.replace("_", "-")
        if isinstance(value, float) and not math.isfinite(value):
            raise CliError(f"{flag} must be a finite number, not {value}")
        generic = GENERIC_FLOAT if isinstance(value, float) else GENERIC_INT
        lo, hi = bounds.get(dest, generic)
        if lo is not None and value < lo:
            raise CliError(f"{flag} must be at least {_bound(lo)}, not {_number(value)}")
        if hi is not None and value > hi:
            raise CliError(f"{flag} must be at most {_bound(hi)}, not {_number(value)}")
        glo, ghi = generic
        if not glo <= value <= ghi:  # a side left to the command, still bounded
            raise CliError(f"{flag} must be from {_bound(glo)} to {_bound(ghi)}, not "
                           f"{_number(value)}")


# The lines a long compilation prints (issue 50), in the language of --lang (English by default).
WARMING = {lang: {k: t(f"cli.warming.{k}", lang) for k in ("wait", "ready")} for lang in LANGS}


def warm_kernel(neural: bool = False, lang: str = "en", say: Any = None,
                first: float = 2.0, every: float = 10.0) -> float:
    """Compile (or load from the disk cache) the numba kernel in this process, and with
    ``neural`` the network's environment too, so that worker processes started afterwards load
    it from the disk cache. A wait over ``first`` seconds prints a line on standard error and
    another every ``every`` seconds, then one when it is ready: never a silent minute (on a
    terminal the line is rewritten in place). ``say`` takes the lines instead. The seconds it
    took (0 without numba)."""
    import sys
    import threading
    import time

    texts = WARMING.get(lang, WARMING["en"])
    tty = say is None and sys.stderr.isatty()

    def emit(line: str, last: bool = False) -> None:
        if say is not None:
            say(line)
        elif tty:  # on a terminal one line, rewritten
            sys.stderr.write("\r" + line + "\x1b[K" + ("\n" if last else ""))
            sys.stderr.flush()
        else:
            print(line, file=sys.stderr, flush=True)

    done = threading.Event()
    spoke: list[bool] = []
    start = time.perf_counter()

    def ticker() -> None:
        wait = first
        while not done.wait(wait):
            emit(texts["wait"].format(s=int(time.perf_counter() - start)))
            spoke.append(True)
            wait = min(every, 1.0) if tty else every  # a line in place can count each second

    thread = threading.Thread(target=ticker, daemon=True, name="ristiseiska-warm")
    thread.start()
    try:
        from ..bots.pool import compile_kernel

        compile_kernel(neural)
    finally:
        done.set()
        thread.join()
    took = time.perf_counter() - start
    if spoke:
        emit(texts["ready"].format(s=f"{took:.0f}"), last=True)
    return took

"""Every command option that reads or writes a file (issue 63's hosting defects): an input is
read with a bound (``--rules /dev/zero`` is one line of error, not a MemoryError), and an
output is found unwritable before the work starts, not after it. Exit status 2, one line."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from ristiseiska.cli import main
from ristiseiska.commands.common import MAX_FILE

ZERO = "/dev/zero"


def _fails(argv: list[str], capsys: pytest.CaptureFixture[str], *words: str) -> str:
    t0 = time.monotonic()
    assert main(argv) == 2, argv
    err = capsys.readouterr().err
    assert "Traceback" not in err and "MemoryError" not in err, err
    for w in words:
        assert w in err, (argv, err)
    assert time.monotonic() - t0 < 60, argv  # refused at once, not after the work
    return err


RULES_USERS = [
    ["rules"],
    ["simulate", "--games", "1"],
    ["tournament", "--games", "1", "--bots", "random,random"],
    ["ceiling", "--deals", "1"],
]


@pytest.mark.parametrize("argv", RULES_USERS, ids=lambda a: a[0])
def test_rules_of_every_command_are_read_with_a_bound(argv: list[str], tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    _fails([*argv, "--rules", ZERO], capsys, f"--rules {ZERO}: not a regular file")
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:  # sparse: 10 MB and one byte of nothing
        f.truncate(MAX_FILE + 1)
    _fails([*argv, "--rules", str(big)], capsys, f"--rules {big}: larger than 10 MB")
    _fails([*argv, "--rules", str(tmp_path)], capsys, "a directory")


def _long_line(tmp_path: Path) -> Path:
    p = tmp_path / "long.jsonl"
    with open(p, "wb") as f:  # one line of zeros past the bound on a line
        f.truncate(MAX_FILE + 10)
    return p


@pytest.mark.parametrize("argv", [
    ["replay", "{}"],
    ["replay", "--check", "{}"],
    ["analyze", "{}"],
    ["puzzles", "check", "{}"],
    ["puzzles", "train", "--file", "{}"],
    ["tournament", "--games", "1", "--bots", "random,random", "--paired", "{}"],
    ["ceiling", "--deals", "1", "--resume", "{}"],
], ids=lambda a: "-".join(x for x in a if x.startswith("-") and x != "--games") or a[0])
def test_every_input_file_is_read_with_a_bound(argv: list[str], tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    zero = [ZERO if a == "{}" else a for a in argv]
    _fails(zero, capsys, ZERO, "not a regular file")
    long = [str(_long_line(tmp_path)) if a == "{}" else a for a in argv]
    _fails(long, capsys, "long.jsonl", "10 MB")


@pytest.mark.parametrize("argv, option", [
    (["tournament", "--games", "1000000", "--bots", "random,random", "--json", "{}"], "--json"),
    (["tournament", "--games", "1000000", "--bots", "random,random", "--plot", "{}.png"],
     "--plot"),
    (["simulate", "--games", "1000000", "--records", "{}"], "--records"),
    (["ceiling", "--deals", "100000", "--json", "{}"], "--json"),
    (["puzzles", "make", "--games", "10000", "--out", "{}"], "--out"),
    (["analyze", "DEAL", "--plot", "{}.png"], "--plot"),
], ids=lambda a: a if isinstance(a, str) else a[0])
def test_every_output_file_is_checked_before_the_work(argv: list[str], option: str,
                                                      tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    if "DEAL" in argv:  # a record to analyse: one simulated deal
        rec = tmp_path / "deal.jsonl"
        assert main(["simulate", "--games", "1", "--records", str(rec)]) == 0
        capsys.readouterr()
        argv = [str(rec) if a == "DEAL" else a for a in argv]
    for bad, words in (("/proc/self/mem", ["cannot write"]),
                       (str(tmp_path / "no" / "such"), ["does not exist"]),
                       (str(tmp_path / "adir"), ["a directory"])):
        if bad.endswith("adir"):
            os.makedirs(bad + (".png" if any(a.endswith(".png") for a in argv) else ""),
                        exist_ok=True)
        if bad == "/proc/self/mem" and any(a.endswith(".png") for a in argv):
            bad, words = "/proc/self", ["cannot write"]  # /proc/self/mem.png: not made there
        _fails([a.replace("{}", bad) for a in argv], capsys, option, *words)

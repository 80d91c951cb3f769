"""The issue-49 table in docs/bots-internals.md is read from the plays in docs/notes/epimc-plays.csv:
every cell's win rate is recomputed here, each line covers deals 0-499 of both test seeds from
every seat, and a play in which the exact leaves never acted is the master's own play."""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PLAYS = ROOT / "docs" / "notes" / "epimc-plays.csv"
STRENGTH = ROOT / "docs" / "bots-internals.md"
ROW = {"random": "| + 3 random |", "expert": "| + 3 expert |",
       "master-classic": "| + 3 master-classic |"}


def _plays() -> dict[tuple[str, int], list[dict[str, str]]]:
    by: dict[tuple[str, int], list[dict[str, str]]] = defaultdict(list)
    with PLAYS.open(encoding="utf-8") as f:
        for r in csv.DictReader(f):
            by[(r["line"], int(r["seed"]))].append(r)
    return by


def test_every_line_is_whole_deals_zero_to_499_from_every_seat() -> None:
    by = _plays()
    assert set(by) == {(line, s) for line in ROW for s in (2201, 2202)}
    for rows in by.values():
        assert sorted((int(r["deal"]), int(r["rotation"])) for r in rows) == [
            (d, q) for d in range(500) for q in range(4)]


def test_a_play_without_exact_values_is_the_masters_own() -> None:
    for rows in _plays().values():
        for r in rows:
            if r["exact_decisions"] == "0":
                assert (r["epimc_win"], r["epimc_points"]) == (r["master_win"],
                                                               r["master_points"]), r


def test_the_table_shows_the_win_rates_of_the_plays() -> None:
    text = STRENGTH.read_text(encoding="utf-8")
    section = text[text.index("## Beyond plain determinization"):]
    by = _plays()
    for line, start in ROW.items():
        row = next(x for x in section.splitlines() if x.startswith(start))
        for seed in (2201, 2202):
            rows = by[(line, seed)]
            for key in ("epimc_win", "master_win"):
                rate = 100 * sum(float(r[key]) for r in rows) / len(rows)
                assert f"{rate:.1f}%" in row, (line, seed, key, rate, row)

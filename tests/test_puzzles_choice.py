"""How much choice the shipped puzzles offer (issue 45: "52 of 82 sampled puzzles offer only
two moves"). The decision, in docs/analysis.md (*Why two moves is often right*): two-move
positions stay, because they are real decisions of the game; the figures the docs give are
those of the shipped set, and each two-move puzzle's both moves are legal in its position."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from ristiseiska.puzzles import MARGIN, position_of, shipped

DOC = (Path(__file__).resolve().parents[1] / "docs" / "analysis.md").read_text("utf-8")
SECTION = DOC.split("**Why two moves is often right.**", 1)[1].split("\n\n", 1)[0]


def _kind(p: dict) -> str:
    answer, alts = p["answer"], [a["move"] for a in p["alternatives"]]
    if answer == "stop":
        return "stop"
    if answer.startswith("give:"):
        return "give"
    return "extra" if alts == ["stop"] else "card"


def test_the_documented_figures_are_the_shipped_sets() -> None:
    ps = shipped()
    two = [p for p in ps if len(p["alternatives"]) == 1]
    kinds = Counter(_kind(p) for p in two)
    grades = Counter(p["difficulty"]["grade"] for p in ps)
    two_grades = Counter(p["difficulty"]["grade"] for p in two)
    more = len(ps) - len(two)
    words = " ".join(SECTION.split())
    assert f"{len(two)} of the {len(ps)} puzzles offer exactly two moves" in words
    assert f"Of the {len(two)}, {kinds['card']} are" in words
    assert f"{kinds['stop']} are \"end the turn or play the extra card\"" in words
    assert f"{kinds['extra']} \"play the extra card or end the turn\"" in words
    assert f"{kinds['give']} \"which of two cards to give\"" in words
    assert f"the whole easy grade ({two_grades['easy']} of {grades['easy']})" in words
    assert two_grades["easy"] == grades["easy"]
    harder = grades["medium"] + grades["hard"]
    assert f"{len(two) - two_grades['easy']} of the {harder} medium and hard ones" in words
    assert f"would hold {more} puzzles and no easy one" in words
    assert f"where {more} of the {harder} puzzles have three moves or more" in words
    assert re.search(r"leads by at least 4 points", words) and MARGIN == 4


def test_every_two_move_puzzle_is_a_real_choice() -> None:
    for p in shipped():
        if len(p["alternatives"]) != 1:
            continue
        view = position_of(p).view(p["seat"])
        legal = {str(m) for m in view.legal_moves}
        assert legal == {p["answer"], p["alternatives"][0]["move"]}, p["id"]
        assert p["alternatives"][0]["loss"] >= MARGIN, p["id"]

"""Finnish numbers carry a decimal comma everywhere a Finnish reader meets them: the analysis
table and "where did I lose points?", the replay's analysis panel, the terminal's F2 hint and
the puzzles; English keeps the point (issue 45). One formatter does it: ``i18n.number``."""

from __future__ import annotations

import re

from ristiseiska import Game, preset
from ristiseiska.analysis import Decision, MoveValue, SeatAnalysis
from ristiseiska.analysis.hint import hint_reason
from ristiseiska.analysis.text import describe, where_lines
from ristiseiska.i18n import number
from ristiseiska.puzzles.text import cost_text
from ristiseiska.tui.analysis import decision_text

POINT = re.compile(r"\d\.\d")
COMMA = re.compile(r"\d,\d")


def _analysis() -> SeatAnalysis:
    d = Decision(index=4, seat=0, move="H8", best="H6", loss=3.34, se=1.25, verdict="mistake",
                 moves=[MoveValue("H6", 10.16, 0.25), MoveValue("H8", 13.5, 0.1)], hand=9)
    return SeatAnalysis(seat=0, decisions=[d], accuracy=75.0, worlds=64, seed=1, points=12)


def test_the_formatter() -> None:
    assert number(3.34, "fi") == "3,3" and number(3.34, "en") == "3.3"
    assert number(13.46, "fi", 2) == "13,46" and number(float("nan"), "fi") == "–"
    assert number(40.0, "fi") == "40,0"


def test_analysis_text_writes_a_decimal_comma_in_finnish() -> None:
    a = _analysis()
    rec = {"players": ["Aino", "Olli"], "you": None}
    fi = "\n".join(describe(a, rec, 1, "fi") + where_lines(a, "fi"))
    assert COMMA.search(fi) and not POINT.search(fi), fi
    en = "\n".join(describe(a, rec, 1, "en") + where_lines(a, "en"))
    assert POINT.search(en) and not COMMA.search(en), en


def test_the_replay_panel_writes_a_decimal_comma_in_finnish() -> None:
    a = _analysis()
    fi = decision_text(a, 4, ["Aino", "Olli"], "fi").plain
    assert "3,3 ± 1,2" in fi or "3,3 ± 1,3" in fi, fi
    assert "10,2 p" in fi and "13,5 p" in fi and not POINT.search(fi), fi
    assert "13.5 p" in decision_text(a, 4, ["Aino", "Olli"], "en").plain


def test_the_hint_writes_a_decimal_comma_in_finnish() -> None:
    g = Game(preset("ristiseiska"), players=4, seed=7)
    g.push(g.legal_moves()[0])
    view = g.view(g.to_move)
    legal = g.legal_moves()
    values = [MoveValue(str(m), 40.0 + i, 0.1) for i, m in enumerate(legal)]
    fi = hint_reason(view, legal, values, "fi")
    assert "40,0 pisteeseen" in fi and not POINT.search(fi), fi
    assert "40.0" in hint_reason(view, legal, values, "en")


def test_puzzle_costs_keep_the_comma() -> None:
    assert "5,2" in cost_text(5.2, "fi") and "5.2" in cost_text(5.2, "en")

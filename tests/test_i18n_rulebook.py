"""The examples of the rule book (docs/rules.fi.md, docs/rules.en.md §3) run on the engine, and
the rule book names every option, value and preset the engine has."""

from __future__ import annotations

import doctest
import importlib
import re
from pathlib import Path

import pytest

from engine_kit import drive, game_with, legal, legal_plays, push
from ristiseiska.cards import parse_cards
from ristiseiska.i18n import LANGS
from ristiseiska.match import Match
from ristiseiska.rules import CHOICES, OPTION_NAMES, Rules, preset_names
from ristiseiska.scoring import Result, hand_points

DOCS = Path(__file__).resolve().parent.parent / "docs"
ELINA, MATTI, KAISA, JUHO = range(4)
NAMES = ["Elina", "Matti", "Kaisa", "Juho"]


def test_opening_example():
    # Juho deals; Kaisa holds the seven of clubs; Juho the seven of hearts and the eight of clubs.
    g = game_with(4, {KAISA: "C7 S2 S3", JUHO: "H7 C8 S4", ELINA: "C6 D2 D3"}, rest=MATTI,
                  dealer=JUHO, names=NAMES)
    assert g.to_move == KAISA and legal(g) == {"C7"}
    push(g, "C7")
    assert g.to_move == JUHO and legal_plays(g) == {"H7"}  # C8 waits for C6
    push(g, "H7")
    assert g.to_move == ELINA
    push(g, "C6")
    g.push(g.legal_moves()[0])  # Matti
    push(g, "token")  # Kaisa: S2 and S3 do not fit
    assert g.to_move == JUHO and "C8" in legal_plays(g)


def test_choice_example():
    g = game_with(3, {0: "C7 D5 D8 S4 H2", 1: "D7 H3"}, rest=2, dealer=2)
    push(g, "C7", "D7", "D6")
    assert g.to_move == 0 and legal(g) == {"D8"}


def test_token_example():
    g = game_with(4, {ELINA: "C7 D7 HK", MATTI: "C8 H2 H3", KAISA: "C6 S2 S3"}, rest=JUHO,
                  dealer=JUHO, names=NAMES)
    push(g, "C7", "token", "C6", "S7", "D7")
    assert g.token_holder == MATTI
    push(g, "C8")  # Matti plays a card and keeps the token
    assert g.token_holder == MATTI
    assert legal(g) == {"token"}  # Kaisa cannot play
    push(g, "token")
    assert g.token_holder == KAISA


# Y holds clubs and diamonds that never fit (X keeps C6 and never opens diamonds' way past D7).
Y_CARDS = "DA D2 D3 D4 D5 D6 D8 D9 D10 DJ DQ DK CA C2 C3 C4 C5 C8 C9 C10 CJ CQ CK"
HEARTS_TO_TWO = ["C7", "H7", "H6", "H8", "H5", "H4", "H3", "H2"]


@pytest.mark.parametrize("spades, jack_fits", [
    (["S7", "S6", "S8", "S9", "S10"], True),
    (["S7", "S6", "S8", "S9"], False),
])
def test_extra_card_example(spades, jack_fits):
    g = game_with(2, {1: Y_CARDS}, rest=0)
    script = HEARTS_TO_TWO + spades
    drive(g, {0: script},
          until=lambda g: g.to_move == 0 and sum(e.seat == 0 for e in g.events) == len(script))
    assert {"HA"} <= legal_plays(g)
    push(g, "HA")
    assert g.phase == "more"
    assert ("SJ" in legal(g)) == jack_fits
    if jack_fits:
        push(g, "SJ")
        assert g.to_move == 1


def test_scoring_example():
    rules = Rules()
    cards = hand_points(parse_cards("SQ HA C3"), rules)
    assert cards == 29
    assert cards + rules.token_value == 50


def _result(points: list[int]) -> Result:
    winner = points.index(0)
    return Result(winner=winner, card_points=tuple(points), token_points=(0, 0, 0),
                  points=tuple(points), token_holder=None, out_order=(winner,))


@pytest.mark.parametrize("tie, over", [("draw", True), ("extra", False)])
def test_match_example(tie, over):
    m = Match(Rules(tie=tie, match_deals=3), 3, seed=1, names=NAMES[:3])
    for row in ([0, 31, 12], [17, 0, 28], [25, 9, 0]):
        m.add_result(_result(row))
    assert m.totals == [42, 40, 40]
    assert m.is_over() == over
    assert m.leaders == [MATTI, KAISA]


# --- the rule book is complete ---------------------------------------------------------------

@pytest.mark.parametrize("lang", LANGS)
def test_rule_book_names_every_option_value_and_preset(lang):
    text = (DOCS / f"rules.{lang}.md").read_text("utf-8")
    for name in OPTION_NAMES:
        assert f"`{name}`" in text, f"rules.{lang}.md does not describe option {name}"
    for name, values in CHOICES.items():
        for v in values:
            assert f"`{v}`" in text or f'"{v}"' in text, f"rules.{lang}.md: {name}={v}"
    for p in preset_names():
        assert f"`{p}`" in text, f"rules.{lang}.md does not describe preset {p}"
    # the glossary has the Finnish card words
    for word in ("ristiseiska", "herttakuutonen", "pataässä", "pantti", "pihtaus", "ohi"):
        assert f"**{word}**" in text


def test_rule_books_have_the_same_structure():
    heads = {lang: re.findall(r"^#{2,3} ", (DOCS / f"rules.{lang}.md").read_text("utf-8"), re.M)
             for lang in LANGS}
    assert all(len(h) == len(heads["fi"]) for h in heads.values()), {k: len(v) for k, v in heads.items()}


@pytest.mark.parametrize("name", ["ristiseiska.i18n", "ristiseiska.explain"])
def test_module_docstrings(name):
    failures, tried = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert tried and failures == 0

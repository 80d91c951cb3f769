"""Cards: ids, notation, every parse form of RULES.md §1, names, and malformed input."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ristiseiska.cards import (
    CARDS,
    JOKERS,
    Card,
    CardError,
    card,
    full_deck,
    parse_card,
    parse_cards,
    sort_key,
)


def test_ids_and_fields() -> None:
    c7 = card(0, 7)
    assert int(c7) == 6 and c7.suit == 0 and c7.rank == 7 and c7.deck == 0
    sa = card(3, 1)
    assert int(sa) == 39 and str(sa) == "SA"
    second = card(2, 10, deck=1)
    assert int(second) == 52 + 26 + 9 and second.deck == 1 and str(second) == "H10"
    assert second.notation(mark_deck=True) == "H10+"
    assert JOKERS[0].is_joker and str(JOKERS[0]) == "X1" and JOKERS[1].notation() == "X2"
    assert JOKERS[0].suit == -1 and JOKERS[0].rank == 0


def test_full_deck() -> None:
    d = full_deck()
    assert len(d) == 52 and len(set(d)) == 52
    assert {str(c) for c in d} == {s + r for s in "CDHS" for r in
                                   "A 2 3 4 5 6 7 8 9 10 J Q K".split()}
    assert len(full_deck(2, 2)) == 106


@pytest.mark.parametrize("text", [
    "C7", "c7", "♣7", "7C", "7c", "7♣", "ristiseiska", "Ristiseiska", " C7 ", "risti seiska",
    "risti-seiska", "seven of clubs", "Seven of Clubs", "♧7",
])
def test_forms_of_the_seven_of_clubs(text: str) -> None:
    assert parse_card(text) == card(0, 7)


@pytest.mark.parametrize("text,canonical", [
    ("H10", "H10"), ("h10", "H10"), ("10h", "H10"), ("♥10", "H10"), ("HT", "H10"),
    ("herttakymppi", "H10"),
    ("herttakuutonen", "H6"), ("HERTTAKUUTONEN", "H6"), ("herttakuutosen", "H6"),
    ("pataässä", "SA"), ("SA", "SA"), ("sa", "SA"), ("as", "SA"), ("♠A", "SA"), ("S1", "SA"),
    ("ace of spades", "SA"),
    ("ruutukolmonen", "D3"), ("♦3", "D3"), ("3D", "D3"),
    ("patakuningatar", "SQ"), ("patarouva", "SQ"), ("SQ", "SQ"), ("queen of spades", "SQ"),
    ("patakuningas", "SK"), ("ristijätkä", "CJ"), ("ristisotilas", "CJ"), ("DJ", "DJ"),
    ("ruutukasi", "D8"), ("herttaysi", "H9"), ("patakakkonen", "S2"), ("ristinelonen", "C4"),
    ("ruutuviitonen", "D5"), ("H13", "HK"), ("C11", "CJ"),
])
def test_parse_forms(text: str, canonical: str) -> None:
    assert str(parse_card(text)) == canonical


def test_every_card_round_trips_through_all_its_names() -> None:
    for c in full_deck():
        assert parse_card(str(c)) == c
        assert parse_card(str(c).lower()) == c
        assert parse_card(c.symbol()) == c
        assert parse_card(c.name("fi")) == c
        assert parse_card(c.name("fi", case="acc")) == c
        assert parse_card(c.name("en")) == c
    for j in JOKERS:
        assert parse_card(str(j)) == j


def test_second_deck_mark() -> None:
    c = parse_card("C7+")
    assert c.deck == 1 and c.kind == int(parse_card("C7"))
    assert repr(c) == "Card('C7+')"


@pytest.mark.parametrize("c,fi,fi_acc,en,symbol", [
    ("C7", "ristiseiska", "ristiseiskan", "seven of clubs", "♣7"),
    ("H6", "herttakuutonen", "herttakuutosen", "six of hearts", "♥6"),
    ("SA", "pataässä", "pataässän", "ace of spades", "♠A"),
    ("D3", "ruutukolmonen", "ruutukolmosen", "three of diamonds", "♦3"),
    ("SQ", "patakuningatar", "patakuningattaren", "queen of spades", "♠Q"),
    ("HK", "herttakuningas", "herttakuninkaan", "king of hearts", "♥K"),
])
def test_names(c: str, fi: str, fi_acc: str, en: str, symbol: str) -> None:
    x = parse_card(c)
    assert x.name("fi") == fi and x.name() == fi
    assert x.name("fi", case="acc") == fi_acc
    assert x.name("en") == en
    assert x.symbol() == symbol


@pytest.mark.parametrize("bad", [
    "", "  ", "C", "7", "C0", "C14", "Z7", "C77", "CC7", "7", "ristiseitsemänkymmentä",
    "hertta", "kuutonen", "X3", "joker3", "C7++", "+", "seven of cups", "eleven of clubs",
    "C 7 8", "\x00", "♣", "10", "H1O", "ristiseiska!",
])
def test_malformed_text_is_a_card_error(bad: str) -> None:
    with pytest.raises(CardError) as info:
        parse_card(bad)
    assert "is not a card" in str(info.value)
    assert repr(bad) in str(info.value)  # the message names what was typed


@pytest.mark.parametrize("bad", [None, 7, 7.0, b"C7", ["C7"], Card(6)])
def test_non_text_is_a_card_error(bad) -> None:
    with pytest.raises(CardError, match="text"):
        parse_card(bad)


def test_card_constructor_checks() -> None:
    for args in ((4, 7), (0, 0), (0, 14), (-1, 7), (0, 7, 2)):
        with pytest.raises(CardError):
            card(*args)


def test_parse_cards() -> None:
    assert [str(c) for c in parse_cards("C7, h6  SA")] == ["C7", "H6", "SA"]
    assert [str(c) for c in parse_cards(["ristiseiska", "♥6"])] == ["C7", "H6"]
    with pytest.raises(CardError, match="Q9"):
        parse_cards("C7 Q9")


def test_sort_key() -> None:
    cs = parse_cards("SA X1 C10 C9 HK D2")
    assert [str(c) for c in sorted(cs, key=sort_key)] == ["C9", "C10", "D2", "HK", "SA", "X1"]


def test_cards_table() -> None:
    assert len(CARDS) == 106 and all(int(c) == i for i, c in enumerate(CARDS))


@settings(max_examples=400, deadline=None)
@given(st.text(max_size=30))
def test_fuzz_parse_card_never_raises_anything_but_card_error(text: str) -> None:
    try:
        c = parse_card(text)
    except CardError:
        return
    # Whatever parses is a real card whose canonical text parses back to it.
    assert isinstance(c, Card)
    assert parse_card(c.notation(mark_deck=True)) == c


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="CDHSXcdhsx♣♦♥♠AJQKTakqjt0123456789+@= -", max_size=8))
def test_fuzz_card_like_text(text: str) -> None:
    try:
        c = parse_card(text)
    except CardError:
        return
    assert parse_card(c.notation(mark_deck=True)) == c

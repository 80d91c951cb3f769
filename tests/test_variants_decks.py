"""Scenario tests of the two-deck variants: V9 (two identical decks) and V10 (two different
decks, eight suits), RULES.md §3."""

from __future__ import annotations

import pytest

from ristiseiska.cards import parse_card
from ristiseiska.game import Game, IllegalMoveError
from ristiseiska.record import check_record, record_from_game
from ristiseiska.rules import preset
from variant_kit import game, lay, legal, plays, row_ranks, suit_cards, until_turn

V9 = preset("kaksi-pakkaa")
V10 = preset("kaksi-erilaista-pakkaa")
# Both copies of diamonds and hearts without their sevens: unplayable while the sevens wait.
# With SA SA+ S2 S2+ it is 52 cards: two players get equal hands, as a real deal gives.
DH2 = " ".join(
    suit_cards(s, [r for r in range(1, 14) if r != 7], mark)
    for s in "DH" for mark in ("", "+")
) + " SA SA+ S2 S2+"


def finish(g: Game) -> None:
    while not g.is_over():
        g.push(g.legal_moves()[0])


# -- V9: two identical decks ---------------------------------------------------------------------

@pytest.mark.parametrize("n", [2, 3, 4, 5, 8])
def test_v9_deals_104_cards(n: int) -> None:
    g = Game(V9, n, seed=11)
    sizes = g.hand_sizes()
    assert sum(sizes) == 104 and max(sizes) - min(sizes) <= 1
    assert sorted(int(c) for h in g.initial_hands for c in h) == list(range(104))


def test_v9_the_clubs_seven_nearest_the_dealers_left_opens() -> None:
    # dealer 0: the order from the dealer's left is 1, 2, 3, 0; seats 2 and 3 hold the C7s
    g = game(V9, 4, {2: "C7", 3: "C7+ C6"}, rest=0, dealer=0)
    assert g.to_move == 2 and legal(g) == {"C7"}
    g = game(V9, 4, {3: "C7", 0: "C7+"}, rest=1, dealer=2)
    assert g.to_move == 3
    g = game(V9, 4, {0: "C7", 1: "C7+"}, rest=2, dealer=0)
    assert g.to_move == 1


def test_v9_the_second_clubs_seven_is_like_any_seven() -> None:
    g = game(V9, 4, {2: "C7 DA", 3: "C7+ C6"}, rest=0, dealer=0)
    g.push_text("C7")
    assert g.to_move == 3 and {"C7", "C6"} <= plays(g)
    g.push_text("C7")  # the second clubs row opens
    assert row_ranks(g, "C", 0) == [7] and row_ranks(g, "C", 1) == [7]
    assert g.events[-1].to_dict() == {"seat": 3, "type": "play", "card": "C7"}


def test_v9_rows_in_the_same_state_are_offered_once() -> None:
    g = game(V9, 2, {1: DH2}, rest=0)
    lay(g, "C7 C7")
    until_turn(g, 0)
    # both clubs rows hold just their 7: C6 fits either, but they cannot be told apart
    c6 = [m for m in g.legal_moves() if str(m.card) == "C6"]
    assert [str(m) for m in c6] == ["C6"]
    lay(g, "C6 C6 C8 C8")
    until_turn(g, 0)
    assert [str(m) for m in g.legal_moves() if str(m.card) == "C5"] == ["C5"]


def test_v9_row_choice_named_when_both_rows_fit_and_it_decides_later_moves() -> None:
    g = game(V9, 2, {1: DH2}, rest=0)
    lay(g, "C7 C7 C6 C6 C8 C8 C5")
    until_turn(g, 0)
    # rows differ (row 0 down to 5, row 1 to 6) and C9 fits on both: the move names the row
    c9 = sorted(str(m) for m in g.legal_moves() if str(m.card) == "C9")
    assert c9 == ["C9@0", "C9@1"]
    with pytest.raises(IllegalMoveError, match="name the row"):
        g.push_text("C9")
    g.push_text("C9@1")
    assert g.events[-1].to_dict() == {"seat": 0, "type": "play", "card": "C9", "row": 1}
    assert row_ranks(g, "C", 0) == [5, 6, 7, 8] and row_ranks(g, "C", 1) == [6, 7, 8, 9]
    until_turn(g, 0)
    # later: C10 has one place (above the 9 on row 1), the other C9 one place (row 0)
    assert [str(m) for m in g.legal_moves() if str(m.card) == "C10"] == ["C10"]
    assert [str(m) for m in g.legal_moves() if str(m.card) == "C9"] == ["C9"]
    g.push_text("C10")
    assert row_ranks(g, "C", 1) == [6, 7, 8, 9, 10]
    until_turn(g, 0)
    with pytest.raises(IllegalMoveError):
        g.push_text("C9@1")  # row 1 no longer takes a 9
    g.push_text("C9@0")  # naming the only row is fine
    assert row_ranks(g, "C", 0) == [5, 6, 7, 8, 9]


def test_v9_a_closing_card_closes_its_own_row_only() -> None:
    g = game(V9, 2, {1: DH2}, rest=0)
    lay(g, "C7 C6 C8 C9 C10 CJ CQ C7")
    until_turn(g, 0)
    lay(g, "CK")
    assert g.phase == "more"  # the king completed row 0's high pile
    v = g.view(0)
    assert v.rows[0].high_closed and not v.rows[4].high_closed


def test_v9_record_replays() -> None:
    g = game(V9, 2, {1: DH2}, rest=0)
    lay(g, "C7 C7 C6 C6 C8 C8 C5 C9@1")
    finish(g)
    rec = record_from_game(g)
    assert check_record(rec) is None
    assert any(e.get("row") == 1 for e in rec["events"])


# -- V10: two different decks --------------------------------------------------------------------

def test_v10_eight_rows_and_either_clubs_seven_opens() -> None:
    g = game(V10, 3, {1: "C7+ DA", 2: "C7 HA"}, rest=0, dealer=0)
    assert g.table.nrows == 8
    # seat 1 (dealer's left) holds the second deck's C7: it opens with it
    assert g.to_move == 1 and legal(g) == {"C7+"}
    g.push_text("C7+")
    assert g.events[-1].to_dict(True) == {"seat": 1, "type": "play", "card": "C7+"}
    # the first deck's C7 is now like any seven
    assert g.to_move == 2 and "C7" in plays(g)


def test_v10_holder_of_both_clubs_sevens_chooses() -> None:
    g = game(V10, 3, {1: "C7 C7+"}, rest=0, dealer=0)
    assert legal(g) == {"C7", "C7+"}
    g.push_text("c7+")
    assert row_ranks(g, "C", 1) == [7] and row_ranks(g, "C", 0) == []


def test_v10_cards_only_continue_their_own_decks_rows() -> None:
    sevens = "C7 D7 D7+ H7 H7+ S7 S7+"
    g = game(V10, 2, {0: "C7+ C6 C6+ " + sevens}, rest=1, dealer=1)
    g.push_text("C7+")
    assert g.to_move == 1
    until_turn(g, 0)
    assert "C6+" in plays(g) and "C6" not in plays(g)
    with pytest.raises(IllegalMoveError, match="C7 must be played before C6"):
        g.push_text("C6")
    g.push_text("C6+")
    assert [c.notation(True) for c in g.view(0).rows[4].cards] == ["C6+", "C7+"]


def test_v10_notation_tells_the_decks_apart() -> None:
    g = game(V10, 2, {0: "C7+ C6"}, rest=1, dealer=1)
    assert parse_card("C7+").deck == 1 and parse_card("C7").deck == 0
    assert g.view(0).to_dict()["legal_moves"] == ["C7+"]
    g.push_text("C7+")
    d = g.view(1).to_dict()
    assert d["rows"][4]["cards"] == ["C7+"] and d["rows"][4]["deck"] == 1
    assert d["history"] == [{"seat": 0, "type": "play", "card": "C7+"}]



def test_v10_random_deals_replay_and_mark_the_second_deck() -> None:
    marked = 0
    for seed in range(20):
        g = Game(V10, 2 + seed % 5, seed=seed)
        finish(g)
        rec = record_from_game(g)
        assert check_record(rec) is None
        marked += sum(1 for e in rec["events"] if str(e.get("card", "")).endswith("+"))
        assert rec["events"][0]["card"] in ("C7", "C7+")
    assert marked > 0


def test_v9_hands_given_as_text_keep_both_copies_apart() -> None:
    # both queens of spades written "SQ" in different hands (as records write them): a
    # give must not merge them into one
    r = V9.replace(failure="ask")
    g0 = game(r, 2, {1: "C7 SQ+ DA"}, rest=0, dealer=0)
    g = Game(r, 2, hands=[[str(c) for c in g0.hand(s)] for s in range(2)], dealer=0)
    g.push_text("C7")
    g.push_text("C6")
    assert legal(g) == {"ask"}
    g.push_text("ask")
    g.push_text("give:SQ")
    assert [str(c) for c in g.hand(1)].count("SQ") == 2
    assert sum(g.hand_sizes()) == 104 - 2


def test_v9_holder_of_both_clubs_sevens_opens_with_one_then_the_other_is_a_seven() -> None:
    g = game(V9, 2, {1: "C7 C7+ DA"}, rest=0, dealer=0)
    assert g.to_move == 1 and [str(m) for m in g.legal_moves()] == ["C7"]
    g.push_text("C7")
    g.push_text("D7")  # seat 0
    assert g.to_move == 1 and plays(g) == {"C7"}  # the second copy now opens clubs' second row
    g.push_text("C7")
    assert row_ranks(g, "C", 0) == [7] and row_ranks(g, "C", 1) == [7]

"""Scenario tests of V11, jokers with asking a card (RULES.md §3), played move by move.

Two players; the moves of both seats are written out, so each test reads as the deal it plays.
"""

from __future__ import annotations

import random

import pytest

from ristiseiska.cards import parse_card, parse_cards
from ristiseiska.game import Game, IllegalMoveError
from ristiseiska.moves import Move, parse_move
from ristiseiska.record import check_record, record_from_game
from ristiseiska.rules import Rules, RulesError, preset
from ristiseiska.scoring import card_value
from variant_kit import game, legal, plays

J1 = Rules(failure="ask", jokers=1)
# seat 1 opens (dealer 0) and holds every seven; seat 0 holds the rest and the joker
SEVENS = "C7 D7 H7 S7"


def push(g: Game, seat: int, *texts: str) -> None:
    for t in texts:
        assert g.to_move == seat, f"seat {g.to_move} is to move, not {seat} (for {t})"
        g.push_text(t)


def sevens_game() -> Game:
    return game(J1, 2, {1: SEVENS + " C6 DA HA SA DK HK SK"}, rest=0, dealer=0)


def test_jokers_need_asking_and_a_count_of_one_or_two() -> None:
    with pytest.raises(RulesError, match="failure='ask'"):
        Rules(jokers=1)
    with pytest.raises(RulesError, match="0, 1 or 2"):
        Rules(failure="ask", jokers=3)
    r = preset("jokerit")
    assert (r.failure, r.jokers, r.end) == ("ask", 2, "last-left")
    assert len(Game(r, 4, seed=1).hand(0)) + sum(Game(r, 4, seed=1).hand_sizes()[1:]) == 54


def test_joker_is_played_as_a_named_legal_card_and_counts_as_playable() -> None:
    g = sevens_game()
    assert g.to_move == 1 and legal(g) == {"C7"}  # a joker never opens (it is not the C7)
    push(g, 1, "C7")
    # seat 0 has no real card that fits, but the joker does: no asking, it must play
    assert legal(g) == {"X1=C6", "X1=D7", "X1=H7", "X1=S7"}
    with pytest.raises(IllegalMoveError, match="name the card"):
        g.push_text("X1")
    with pytest.raises(IllegalMoveError, match="fits now"):
        g.push_text("X1=C5")
    with pytest.raises(IllegalMoveError, match="only a joker"):
        g.push(Move(PLAY_KIND, parse_card("C8"), as_=parse_card("C6")))
    push(g, 0, "X1=C6")
    assert g.events[-1].to_dict() == {"seat": 0, "type": "play", "card": "X1", "as": "C6"}
    row = g.view(1).rows[0]
    assert [str(c) for c in row.cards] == ["X1", "C7"]
    assert row.jokers == ((parse_card("X1"), parse_card("C6"), True),)
    # the joker's place is C6's: the table goes on from it (C8 now fits; C6 does not)
    assert "C6" not in plays(g) and "swap:C6" in legal(g)


PLAY_KIND = "play"


def test_swap_is_the_turns_play_and_the_joker_can_be_played_again() -> None:
    g = sevens_game()
    push(g, 1, "C7")
    push(g, 0, "X1=C6")
    push(g, 1, "swap:C6")
    assert g.events[-1].to_dict() == {"seat": 1, "type": "swap", "card": "C6"}
    assert g.to_move == 0, "a swap ends the turn"
    assert parse_card("X1") in g.hand(1) and parse_card("C6") not in g.hand(1)
    assert [str(c) for c in g.view(0).rows[0].cards] == ["C6", "C7"]
    assert g.view(0).rows[0].jokers == ()
    push(g, 0, "C8")
    # the joker taken back is a playable card again
    assert {"X1=C5", "X1=C9", "X1=D7"} <= legal(g)
    push(g, 1, "X1=C9")
    assert g.table.jokers == {104: (0, 8)}


def test_covered_joker_cannot_be_swapped_and_the_real_card_is_dead() -> None:
    g = sevens_game()
    push(g, 1, "C7")
    push(g, 0, "X1=C6")
    push(g, 1, "D7")
    push(g, 0, "C8")
    push(g, 1, "H7")
    assert "swap:C6" in legal(g) or g.to_move == 0
    push(g, 0, "C5")  # covers the joker
    assert g.view(0).rows[0].jokers[0][2] is False
    assert g.dead_cards(1) == [parse_card("C6")]
    assert g.view(1).dead == (parse_card("C6"),)
    assert g.view(1).to_dict()["dead"] == ["C6"]
    assert legal(g) == {"S7"}
    with pytest.raises(IllegalMoveError, match="covered"):
        g.push_text("swap:C6")
    with pytest.raises(IllegalMoveError, match="dead card"):
        g.push_text("C6")
    push(g, 1, "S7")
    # the dead card stays in hand, whatever is played later
    assert parse_card("C6") in g.hand(1)


def test_joker_standing_for_a_seven_can_always_be_swapped() -> None:
    g = sevens_game()
    push(g, 1, "C7")
    push(g, 0, "X1=D7")
    push(g, 1, "H7")
    push(g, 0, "D6")
    push(g, 1, "S7")
    push(g, 0, "D8")  # the joker is now covered on both sides
    assert "swap:D7" in legal(g)
    push(g, 1, "swap:D7")
    assert [str(c) for c in g.view(0).rows[1].cards] == ["D6", "D7", "D8"]


def test_joker_closing_a_pile_kills_the_swap_at_once_and_gives_the_extra_move() -> None:
    # seat 0 builds clubs to the queen; seat 1 holds CK but plays diamonds meanwhile
    r = Rules(failure="ask", jokers=2)
    g = game(r, 2, {1: "CK D6 D5 D4 D3"}, rest=0, dealer=1)
    push(g, 0, "C7")
    push(g, 1, "pass")  # first round: cannot play, passes
    for card, junk in (("C6", "SA"), ("C8", "S2"), ("C9", "S3"), ("C10", "S4"), ("CJ", "S5")):
        push(g, 0, card)
        push(g, 1, "ask")
        push(g, 0, "give:" + junk)
    push(g, 0, "D7")
    push(g, 1, "D6")
    push(g, 0, "X2=D8")  # seat 0 itself holds D8: it may swap it back later
    push(g, 1, "D5")
    push(g, 0, "CQ")
    assert plays(g) == {"CK", "D4"}
    push(g, 1, "D4")  # holds CK back (a choice: any legal card will do)
    assert "swap:D8" in legal(g)
    push(g, 0, "X1=CK")
    assert g.view(0).rows[0].high_closed
    assert g.phase == "more" and g.to_move == 0  # the joker closed a pile: extra move
    assert "swap:D8" not in legal(g), "a swap is a turn's play, not an extra card"
    with pytest.raises(IllegalMoveError, match="whole play of a turn"):
        g.push_text("swap:D8")
    push(g, 0, "stop")
    assert g.dead_cards(1) == [parse_card("CK")]
    assert "swap:CK" not in legal(g) and "CK" not in plays(g)
    push(g, 1, "D3")
    assert "swap:D8" in legal(g)
    push(g, 0, "swap:D8")
    assert parse_card("X2") in g.hand(0)


def test_jokers_may_be_given_when_asked() -> None:
    g = game(J1, 2, {1: "CK D6 D5 D4 D3"}, rest=0, dealer=1)
    push(g, 0, "C7")
    push(g, 1, "pass")
    push(g, 0, "C6")
    push(g, 1, "ask")
    assert g.phase == "give" and "give:X1" in legal(g)
    push(g, 0, "give:X1")
    assert parse_card("X1") in g.hand(1)
    assert g.view(0).history[-1] == {"seat": 0, "type": "give", "card": "X1", "to": 1}


def test_two_decks_row_choice_decides_whether_a_joker_can_still_be_swapped() -> None:
    r = Rules(failure="ask", jokers=1, decks=2)
    # seat 1 opens and holds one C6 and a few sevens to play meanwhile; seat 0 the rest
    g = game(r, 2, {1: "C7 C7+ C6 D7 D7+ H7 DA HA SA DK HK SK"}, rest=0, dealer=0)
    push(g, 1, "C7")
    push(g, 0, "X1=C6")
    push(g, 1, "C7")  # the second clubs seven opens the second clubs row
    push(g, 0, "C6")  # the other real six goes to row 1
    push(g, 1, "D7")
    # rows 0 and 1 are both 6-7 but row 0's six is the joker: they are told apart
    assert {"C8@0", "C8@1"} <= legal(g)
    push(g, 0, "C8@1")
    push(g, 1, "D7")
    push(g, 0, "C8")  # one place left
    push(g, 1, "H7")
    assert {"C5@0", "C5@1"} <= legal(g)
    covered = g.copy()
    push(covered, 0, "C5@0")  # covers the joker: seat 1's six is dead
    assert "swap:C6" not in legal(covered)
    assert covered.dead_cards(1) == [parse_card("C6")]
    push(g, 0, "C5@1")  # leaves it visible: seat 1 may still swap
    assert "swap:C6" in legal(g) and g.dead_cards(1) == []
    push(g, 1, "swap:C6")
    assert parse_card("X1") in g.hand(1)


def test_deal_ends_when_nothing_left_can_be_played() -> None:
    # random deals with two jokers, played to the last player: when the deal ends for want
    # of playable cards, every card left is dead and everyone holding cards loses
    r = preset("jokerit")
    stuck = 0
    for seed in range(120):
        g = Game(r, 3 + seed % 3, seed=seed, dealer=seed % 3)
        rng = random.Random(seed)
        while not g.is_over():
            for s in range(g.n):  # a dead card never turns up among the legal moves
                if s == g.to_move and g.phase != "give":
                    dead = set(g.dead_cards(s))
                    assert not any(m.kind in ("play", "swap") and m.card in dead
                                   for m in g.legal_moves())
            g.push(rng.choice(g.legal_moves()))
        res = g.result
        assert res is not None
        holding = [s for s in range(g.n) if g.hand(s)]
        if res.end == "stuck":
            stuck += 1
            for s in holding:
                assert g.dead_cards(s) == g.hand(s)
            want = holding[0] if len(holding) == 1 else tuple(holding)
            assert res.loser == want
            most = max(len(g.hand(s)) for s in holding)
            order = [(g.dealer + 1 + k) % g.n for k in range(g.n)]
            assert res.next_dealer == next(s for s in order if s in holding
                                           and len(g.hand(s)) == most)
        else:
            assert len(holding) <= 1 or res.end == "stall"
        assert check_record(record_from_game(g)) is None
    assert stuck > 0


def test_joker_scores_twenty_and_a_dead_card_its_face_value() -> None:
    r = Rules(failure="ask", jokers=2, end="first-out")
    seen_joker = seen_dead = 0
    for seed in range(150):
        g = Game(r, 4, seed=seed)
        rng = random.Random(seed)
        dead_at_end: set[int] = set()
        while not g.is_over():
            g.push(rng.choice(g.legal_moves()))
        assert g.result is not None
        for s in range(4):
            hand = g.hand(s)
            dead_at_end |= {int(c) for c in g.dead_cards(s)}
            want = sum(20 if c.is_joker else (14 if c.rank == 1 else c.rank) for c in hand)
            if g.result.winner == s:
                assert not hand
            assert g.result.card_points[s] == want
            seen_joker += any(c.is_joker for c in hand)
            seen_dead += any(not c.is_joker and int(c) in dead_at_end for c in hand)
            assert g.result.card_points[s] == sum(card_value(c, r) for c in hand)
    assert seen_joker and seen_dead


def test_joker_moves_parse_and_print() -> None:
    m = parse_move("X1=H6")
    assert (m.kind, str(m.card), str(m.as_), str(m)) == ("play", "X1", "H6", "X1=H6")
    assert str(parse_move("x2=sa@high")) == "X2=SA@high"
    assert str(parse_move("swap:h6")) == "swap:H6"
    assert parse_cards("X1 X2") == [parse_card("jokeri"), parse_card("jokeri2")]


def test_either_joker_may_be_named_as_jokeri() -> None:
    # seat 0 holds X2 only: "jokeri" (read as X1) means the joker it holds
    g = game(Rules(failure="ask", jokers=2), 2, {0: "X2", 1: SEVENS + " C6 DA HA SA DK HK SK X1"},
             rest=0, dealer=0)
    push(g, 1, "C7")
    push(g, 0, "jokeri=C6")
    assert g.events[-1].to_dict() == {"seat": 0, "type": "play", "card": "X2", "as": "C6"}


def test_first_ace_closing_a_pile_at_once_ends_the_swap_of_its_joker() -> None:
    # V5 with jokers; V12 lets seat 0 lay everything out in one turn, so seat 1 (holding the
    # real SK) never gets a turn in between
    r = Rules(ace="first-decides", failure="ask", jokers=1, multi_play=True)
    g = game(r, 2, {1: "SK DA HA"}, rest=0, dealer=1)
    for card in "C7 C6 C8 C5 C4 C3 C2 S7 S6 S8 S9 S10 SJ SQ X1=SK".split():
        push(g, 0, card)
    # before the first ace the king does not close the pile: the joker is still visible
    assert g.view(0).rows[3].jokers == ((parse_card("X1"), parse_card("SK"), True),)
    assert g.dead_cards(1) == []
    push(g, 0, "CA@low")  # the first ace is low: every high pile at K closes at once
    assert g.view(0).rows[3].high_closed
    assert g.view(0).rows[3].jokers[0][2] is False
    assert g.dead_cards(1) == [parse_card("SK")]
    push(g, 0, "stop")
    assert g.to_move == 1 and "swap:SK" not in legal(g)

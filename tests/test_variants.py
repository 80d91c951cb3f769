"""Scenario tests of the layout variants V5, V6, V8 and V16 (RULES.md §3), played by moves.

Two players: seat 0 lays the cards out; seat 1 holds only cards that stay unplayable during the
set-up, so its moves are forced (token). Each test names the rule it checks.
"""

from __future__ import annotations

import pytest

from ristiseiska.game import Game, IllegalMoveError
from ristiseiska.rules import Rules, preset
from variant_kit import game, lay, legal, plays, row_ranks, suit_cards, until_turn

FIRST_ACE = Rules(ace="first-decides")
# Seat 1: diamonds and hearts without their sevens: never playable while D7/H7 stay in seat 0.
DH_NO_SEVENS = " ".join(
    suit_cards(s, [r for r in range(1, 14) if r != 7]) for s in "DH"
)
SPADES_UP = "S7 S6 S8 S9 S10 SJ SQ SK"
SPADES_DOWN = "S5 S4 S3 S2"


def v5_game() -> Game:
    # seat 0: all clubs and spades, D7, H7; seat 1: the other diamonds and hearts
    return game(FIRST_ACE, 2, {1: DH_NO_SEVENS}, rest=0)


# -- V5: the first ace decides ------------------------------------------------------------------

def test_v5_king_and_two_neither_close_nor_give_extra_move_before_first_ace() -> None:
    g = v5_game()
    lay(g, "C7 " + SPADES_UP)
    # SK completed 8..K, but aces may still go above it: no closing, no extra move
    assert g.to_move == 1 and g.phase == "turn"
    assert not g.view(0).rows[3].high_closed
    lay(g, SPADES_DOWN)
    assert g.to_move == 1 and g.phase == "turn"
    assert not g.view(0).rows[3].low_closed
    until_turn(g, 0)
    assert {"SA@low", "SA@high"} <= plays(g)


def test_v5_ace_needs_an_end_when_both_fit() -> None:
    g = v5_game()
    lay(g, "C7 " + SPADES_UP + " " + SPADES_DOWN)
    until_turn(g, 0)
    before = len(g.events)
    with pytest.raises(IllegalMoveError, match="name the end"):
        g.push_text("SA")
    assert g.to_move == 0 and len(g.events) == before


def test_v5_only_one_end_open_needs_no_choice_but_carries_the_end() -> None:
    g = v5_game()
    lay(g, "C7 " + SPADES_UP)
    until_turn(g, 0)
    ace = [m for m in g.legal_moves() if m.kind == "play" and str(m.card) == "SA"]
    assert [str(m) for m in ace] == ["SA@high"]
    g.push_text("SA")  # one place: the end need not be typed
    assert g.events[-1].to_dict() == {"seat": 0, "type": "play", "card": "SA", "end": "high"}


def test_v5_first_ace_low_closes_every_high_pile_already_at_king() -> None:
    g = v5_game()
    lay(g, "C7 C6 C8 C9 C10 CJ CQ CK " + SPADES_UP + " " + SPADES_DOWN)
    v = g.view(0)
    assert not v.rows[0].high_closed and not v.rows[3].high_closed
    until_turn(g, 0)
    g.push_text("SA@low")
    v = g.view(0)
    assert v.rows[3].low_closed and v.rows[3].high_closed   # spades complete
    assert v.rows[0].high_closed and not v.rows[0].low_closed  # clubs high at K closed at once
    assert row_ranks(g, "S") == [1] + list(range(2, 14))
    # the ace gives the extra move (seat 0 still holds playable clubs)
    assert g.phase == "more" and g.to_move == 0
    g.push_text("C5")  # the extra card; no more extra moves from a non-closing card
    assert g.to_move == 1
    # from now on aces go low only: no end choice, and the high end takes none
    lay(g, "C4 C3 C2")
    until_turn(g, 0)
    assert "CA" in plays(g) and "CA@high" not in plays(g)


def test_v5_first_ace_high_closes_low_piles_at_two_then_piles_close_as_in_the_base_game() -> None:
    g = v5_game()
    lay(g, "C7 C6 C8 C5 C4 C3 C2 " + SPADES_UP)
    until_turn(g, 0)
    g.push_text("SA@high")
    v = g.view(0)
    assert v.rows[3].high_closed and not v.rows[3].low_closed
    assert v.rows[0].low_closed  # clubs' low pile at 2 is complete under "ace high"
    assert row_ranks(g, "S") == list(range(6, 14)) + [1]
    g.push_text("stop")
    # After the first ace (RULES.md V5, revised): a 2 completing a low pile closes it and
    # gives the extra move, as the closing card of the base game does.
    lay(g, SPADES_DOWN)
    assert g.view(0).rows[3].low_closed
    assert g.phase == "more" and g.to_move == 0 and str(g.events[-1].card) == "S2"
    g.push_text("stop")
    # a king is not a closing card with the ace high: the ace after it is
    lay(g, "C9 C10 CJ CQ CK")
    assert g.phase == "turn"
    lay(g, "CA")
    assert g.phase == "more"


def test_v5_after_first_ace_low_a_king_completing_a_pile_gives_the_extra_move() -> None:
    # The case of issue 13: aces low fixed by the first ace, then a king completes a high pile.
    g = v5_game()
    lay(g, "C7 S7 S6 S8 " + SPADES_DOWN)
    until_turn(g, 0)
    g.push_text("SA@low")  # the first ace: spades' low pile closes, the end is low for all
    assert g.phase == "more" and g.to_move == 0
    g.push_text("stop")
    lay(g, "C6 C8 C9 C10 CJ CQ")
    lay(g, "CK")  # completes clubs' high pile: closes it and gives the extra move
    assert g.view(0).rows[0].high_closed
    assert g.phase == "more" and g.events[-1].card is not None and str(g.events[-1].card) == "CK"


def test_v5_refuses_the_wrong_end() -> None:
    g = v5_game()
    lay(g, "C7 " + SPADES_UP)
    until_turn(g, 0)
    with pytest.raises(IllegalMoveError):
        g.push_text("SA@low")
    assert g.phase == "turn" and g.to_move == 0


# -- V6: eight before six, ace high --------------------------------------------------------------

V6 = Rules(ace="high", order="high-first")


def test_v6_eight_before_six_then_ace_above_king() -> None:
    g = game(V6, 2, {1: DH_NO_SEVENS}, rest=0)
    lay(g, "C7")
    until_turn(g, 0)
    assert "C8" in plays(g) and "C6" not in plays(g)
    with pytest.raises(IllegalMoveError, match="C8"):
        g.push_text("C6")
    lay(g, "C8")
    until_turn(g, 0)
    # by analogy with 7-6-8: the 9 waits until the 6 is down, as the 5 waits for the 8
    assert "C6" in plays(g) and "C9" not in plays(g)
    lay(g, "C6")
    until_turn(g, 0)
    assert {"C5", "C9"} <= plays(g)
    lay(g, "C9 C10 CJ CQ CK")
    assert g.to_move == 1, "the king does not close in V6"
    lay(g, "CA")
    assert g.phase == "more" and g.view(0).rows[0].high_closed
    assert row_ranks(g, "C") == [6, 7, 8, 9, 10, 11, 12, 13, 1]
    lay(g, "C5 C4 C3 C2")
    assert g.phase == "more" and g.view(0).rows[0].low_closed  # the 2 closes the low pile
    assert row_ranks(g, "C") == list(range(2, 14)) + [1]


def test_v6_ace_not_below_two() -> None:
    g = game(V6, 2, {1: DH_NO_SEVENS}, rest=0)
    lay(g, "C7 C8 C6 C5 C4 C3 C2")
    g.push_text("stop")
    until_turn(g, 0)
    assert "CA" not in plays(g)
    with pytest.raises(IllegalMoveError, match="CA"):
        g.push_text("CA")


# -- V8: Ristikasi -------------------------------------------------------------------------------

def test_v8_clubs_eight_opens_then_seven_then_nine() -> None:
    r = preset("ristikasi")
    assert (r.center, r.opening, r.token_value, r.ace) == (8, "C8", 20, "low")
    # dealer 2: seat 0 is the dealer's left, but seat 1 holds C8 and opens
    g = game(r, 3, {1: "C8 C9 DA", 2: "C7 HA SA"}, rest=0)
    assert g.to_move == 1 and legal(g) == {"C8"}
    with pytest.raises(IllegalMoveError, match="C8"):
        g.push_text("C9")
    g.push_text("C8")
    # seat 2 holds C7: the 7 below the 8 comes first
    assert g.to_move == 2 and plays(g) == {"C7"}
    g.push_text("C7")
    # seat 0: the 9 is seat 1's; C6 and C10 wait for it; other suits open with their 8
    assert g.to_move == 0 and plays(g) == {"D8", "H8", "S8"}
    g.push_text("D8")
    assert g.to_move == 1 and plays(g) == {"C9"}
    g.push_text("C9")
    assert g.to_move == 2 and legal(g) == {"token"}
    g.push_text("token")
    # now clubs extend both ways; diamonds continue with its 7 (not yet its 9)
    assert {"C6", "C10", "D7", "H8", "S8"} <= plays(g) and "D9" not in plays(g)


def test_v8_ace_low_after_two_and_token_twenty() -> None:
    r = preset("ristikasi")
    # seat 0 lays clubs out; seat 1 holds diamonds and hearts without their eights
    one = " ".join(suit_cards(s, [x for x in range(1, 14) if x != 8]) for s in "DH")
    g = game(r, 2, {1: one}, rest=0)
    lay(g, "C8 C7 C9 C6 C5 C4 C3 C2")
    until_turn(g, 0)
    assert "CA" in plays(g)
    lay(g, "CA")
    assert g.phase == "more"
    assert row_ranks(g, "C") == list(range(1, 10))
    assert g.token_holder == 1  # it could not play while clubs were laid out
    # play on until the deal ends: seat 0 goes out, seat 1 pays the token, worth 20 here
    while not g.is_over():
        g.push(g.legal_moves()[0])
    res = g.result
    assert res is not None and res.winner == 0 and res.token_holder == 1
    assert res.token_points == (0, 20)
    assert res.points[1] == res.card_points[1] + 20


# -- V16: free Fan Tan ---------------------------------------------------------------------------

def test_v16_any_start_rank_then_upward_with_wrap() -> None:
    r = preset("free-fan-tan")
    g = Game(r, 3, seed=5, dealer=2)
    assert g.to_move == 0
    first = g.hand(0)[0]
    assert {str(m) for m in g.legal_moves()} == {str(c) for c in g.hand(0)}, "any card may start"
    g.push_text(str(first))
    s = first.rank
    # every suit opens with its card of the starting rank; the first suit continues upward
    nxt = s % 13 + 1
    want = {f"{x}{_r(s)}" for x in "CDHS"} - {str(first)}
    want.add(f"{'CDHS'[first.suit]}{_r(nxt)}")
    while not g.is_over():
        playable = {str(m) for m in g.legal_moves() if m.kind == "play"}
        held = {str(c) for c in g.hand(g.to_move)}
        assert playable == want & held
        m = g.legal_moves()[0]
        g.push(m)
        if m.kind == "play":
            c = m.card
            assert c is not None
            want.discard(str(c))
            up = c.rank % 13 + 1
            if up != s:
                want.add(f"{'CDHS'[c.suit]}{_r(up)}")
        if g.phase == "more":
            g.push_text("stop")
    assert g.result is not None and g.result.chips is not None
    assert sum(g.result.chips) == 0  # chips only change hands


def _r(rank: int) -> str:
    return {1: "A", 11: "J", 12: "Q", 13: "K"}.get(rank, str(rank))


def test_v16_start_with_king_wraps_to_ace() -> None:
    r = preset("free-fan-tan")
    # seat 0 (dealer's left) holds the spades and the other kings; seat 2 some low clubs
    g = game(r, 3, {0: suit_cards("S") + " CK DK HK", 2: "CA C2 C3"}, rest=1, dealer=2)
    g.push_text("SK")
    until_turn(g, 0)
    assert "SA" in plays(g) and "SQ" not in plays(g)
    lay(g, "SA S2 S3 S4 S5 S6 S7 S8 S9 S10 SJ")
    # SQ is the thirteenth spade: the suit is complete, nothing more fits after it
    lay(g, "SQ")
    assert row_ranks(g, "S") == [13] + list(range(1, 13))
    assert g.view(0).rows[3].high_closed
    until_turn(g, 0)
    assert plays(g) == {"CK", "DK", "HK"}


def test_v16_chips_for_cannot_play() -> None:
    # The preset has V15's extra chip rules off (RULES.md V16: "as V15"); they stay options.
    base = preset("free-fan-tan")
    assert (base.ante, base.short_hand_chip, base.pay_per_card) == (False, False, False)
    r = base.replace(ante=True, short_hand_chip=True, pay_per_card=True)
    g = game(r, 3, {0: suit_cards("S"), 2: "H6 H7 H8"}, rest=1, dealer=2)
    pot = g.pot
    assert pot == 3 + 2  # everyone antes; seats 0 and 2 were dealt fewer cards and add one
    g.push_text("S5")
    assert g.to_move == 1 and {"C5", "D5", "H5"} == plays(g)
    g.push_text("C5")
    # seat 2's hearts wait for H5: it pays a chip
    assert g.to_move == 2 and legal(g) == {"chip"}
    g.push_text("chip")
    assert g.pot == pot + 1 and g.chips_paid[2] == 3


def _king_after_first_ace_deal(rules: Rules) -> Game:
    """A seeded deal played until a king or 2 completes a pile after the first ace (a king
    or 2 that gives the extra move only under the revised V5), then on to its end."""
    for seed in range(400):
        g = Game(rules, 3, seed=seed)
        rng = __import__("random").Random(seed)
        hit = False
        while not g.is_over():
            m = rng.choice(g.legal_moves())
            fixed = g.table.ace_end is not None
            seat = g.to_move
            g.push(m)
            if not (fixed and m.kind == "play" and m.card is not None
                    and m.card.rank in (2, 13) and not g.is_over()):
                continue
            end = "high" if m.card.rank == 13 else "low"
            can_go_on = any((g.table.playable >> int(c)) & 1 for c in g.hand(seat))
            if g.table.is_closed(m.card.suit, end) and can_go_on:
                hit = True  # under the base rule this card gives the extra move
        if hit:
            return g
    raise AssertionError("no deal with a closing king or 2 after the first ace")


def test_v5_old_records_replay_with_aces_only_and_new_ones_with_the_base_rule() -> None:
    """Issue 13 changed V5. A record written before ``first_ace_closing`` existed lacks the
    option and replays under the older reading (aces only); new records carry ``base``."""
    import json

    from ristiseiska.record import check_record, dumps_record, record_from_game, rules_of_record

    new = _king_after_first_ace_deal(FIRST_ACE)
    rec = json.loads(dumps_record(record_from_game(new)))
    assert rec["rules"]["first_ace_closing"] == "base" and check_record(rec) is None
    # the same deal in an old record (no option): it does not replay, the rules differ
    del rec["rules"]["first_ace_closing"]
    assert rules_of_record(rec).first_ace_closing == "aces-only"
    assert check_record(rec) is not None
    # a deal played under the older reading, written as an old record, replays
    old = _king_after_first_ace_deal(FIRST_ACE.replace(first_ace_closing="aces-only"))
    old_rec = json.loads(dumps_record(record_from_game(old)))
    del old_rec["rules"]["first_ace_closing"]
    assert check_record(old_rec) is None
    # without the first-ace rule an old record is unaffected
    plain = json.loads(dumps_record(record_from_game(Game(Rules(), 3, seed=1))))
    del plain["rules"]["first_ace_closing"]
    assert rules_of_record(plain).first_ace_closing == "base"


def test_v5_aces_only_needs_the_first_ace_rule() -> None:
    with pytest.raises(Exception, match="first_ace_closing='aces-only' needs ace='first-decides'"):
        Rules(first_ace_closing="aces-only")

"""The worked examples E1–E9 of RULES.md §2, each played through the engine."""

from __future__ import annotations

import pytest

from engine_kit import cards, drive, game_with, legal, legal_plays, push
from ristiseiska.cards import parse_card
from ristiseiska.game import IllegalMoveError
from ristiseiska.match import Match
from ristiseiska.rules import Rules
from ristiseiska.scoring import score_deal

# Cards that stay unplayable while only the middle ranks (4..9) are down.
FAR = "A 2 3 10 J Q K".split()


def far_cards(suits: str = "CDHS") -> str:
    return " ".join(s + r for s in suits for r in FAR)


# -- E1 opening --------------------------------------------------------------------------------

LEENA, TONI, SARA, VILLE = range(4)


def e1_game(dealer: int = 3):
    spec = {
        LEENA: "C7 C5 D7",
        TONI: "H7 C4 H6 H5 H8",
        SARA: "C6",
    }
    # Ville gets every other middle card (C8, C9, S7, diamonds…); far cards go round the table.
    g = game_with(4, spec, rest=VILLE, dealer=dealer)
    # Move the far cards out of Ville's hand evenly so every hand is a normal size.
    hands = [list(h) for h in g.initial_hands]
    far = cards(far_cards())
    hands[VILLE] = [c for c in hands[VILLE] if c not in far]
    for i, c in enumerate(far):
        hands[i % 4].append(c)
    from ristiseiska.game import Game

    return Game(Rules(), 4, hands=hands, dealer=dealer,
                names=["Leena", "Toni", "Sara", "Ville"])


@pytest.mark.parametrize("dealer", [0, 1, 2, 3])
def test_e1_clubs_seven_opens_whoever_dealt(dealer: int) -> None:
    g = e1_game(dealer)
    assert g.to_move == LEENA
    assert legal(g) == {"C7"}
    # Anything else is refused with a reason naming the opening card.
    with pytest.raises(IllegalMoveError, match="C7"):
        g.push_text("C5")
    g.push_text("C7")
    assert g.to_move == TONI  # the turn passes to the left


def test_e1_opening_sequence() -> None:
    g = e1_game()
    push(g, "C7")
    assert legal(g) == {"H7"}
    push(g, "H7")
    assert legal(g) == {"C6"}
    push(g, "C6")
    # Ville holds C8 and S7 (legal); his C9 must wait for C8.
    assert legal(g) == {"C8", "S7"}
    push(g, "C8")
    # Leena: both C5 and D7 legal, she plays exactly one.
    assert g.to_move == LEENA
    assert legal(g) == {"C5", "D7"}
    push(g, "C5")
    assert g.to_move == TONI
    # In hearts only H6 is legal (not H5, not H8); C4 follows C5.
    assert legal(g) == {"H6", "C4"}
    for bad in ("H5", "H8"):
        with pytest.raises(IllegalMoveError):
            g.push_text(bad)
    # Diamonds stay closed until D7 is down.
    for d in ("D6", "D8"):
        assert not (g.table.playable >> int(parse_card(d))) & 1
    push(g, "C4")
    assert not (g.table.playable >> int(parse_card("D6"))) & 1


def test_e1_leena_plays_only_one_card() -> None:
    g = e1_game()
    push(g, "C7", "H7", "C6", "C8", "D7")
    assert g.to_move == TONI  # one card, then the turn passed
    assert g.hand(LEENA) == sorted(g.hand(LEENA)) and parse_card("C5") in g.hand(LEENA)
    assert (g.table.playable >> int(parse_card("D6"))) & 1


def test_e1_refusal_leaves_state_unchanged() -> None:
    g = e1_game()
    push(g, "C7", "H7", "C6", "C8", "C5")
    before = (g.hand_sizes(), list(g.events), g.to_move, g.table.lo[:], g.table.hi[:])
    with pytest.raises(IllegalMoveError, match="H5"):
        g.push_text("H5")
    assert (g.hand_sizes(), list(g.events), g.to_move, g.table.lo[:], g.table.hi[:]) == before


# -- E2 choice ---------------------------------------------------------------------------------

def test_e2_choice() -> None:
    g = game_with(3, {0: "C7 C6 " + far_cards("C"), 1: "H7 " + far_cards("D"),
                      2: "H6 H5 S7 " + far_cards("HS")}, rest=0)
    push(g, "C7", "H7")
    assert g.to_move == 2
    assert legal(g) == {"H6", "S7"}
    with pytest.raises(IllegalMoveError, match="H5"):
        g.push_text("H5")


# -- E3 / E4 token moves and counts once -------------------------------------------------------

SANNA_W, AINO, OLLI = 0, 1, 2


def e3_game():
    # Seat 0 (the winner-to-be) holds the sevens and S6; Olli holds C6 and the unplayable queens
    # and kings; Aino holds everything else except C6 and the sevens.
    return game_with(3, {SANNA_W: "C7 D7 H7 S7 S6",
                         OLLI: "C6 CQ DQ HQ SQ CK DK HK SK"}, rest=AINO,
                     names=["Sara", "Aino", "Olli"])


def test_e3_token_moves_and_e4_counts_once() -> None:
    g = e3_game()
    push(g, "C7")
    assert g.to_move == AINO and legal(g) == {"token"}  # nothing fits: the token is forced
    push(g, "token")
    assert g.token_holder == AINO
    push(g, "C6", "D7")
    # Aino plays a card: the token stays with her.
    assert legal_plays(g)
    g.push(next(m for m in g.legal_moves() if m.kind == "play"))
    assert g.token_holder == AINO
    # Olli cannot play: the token moves to him, Aino is free of it.
    assert legal(g) == {"token"}
    push(g, "token")
    assert g.token_holder == OLLI
    # He takes it twice more (E4), the deal ends when seat 0 plays the last card.
    drive(g, {SANNA_W: ["H7", "S7", "S6"]},
          other=lambda g: next((m for m in g.legal_moves() if m.kind == "play"),
                               g.legal_moves()[0]))
    tokens_olli = sum(1 for e in g.events if e.type == "token" and e.seat == OLLI)
    assert tokens_olli == 3
    res = g.result
    assert res is not None and res.winner == SANNA_W
    assert res.token_holder == OLLI
    assert res.token_points == (0, 0, 21)  # counted once, Aino nothing for the token
    olli_cards = 2 * (12 + 13) * 2  # four queens and four kings
    assert res.card_points[OLLI] == olli_cards
    assert res.points[OLLI] == olli_cards + 21
    assert res.points[AINO] == res.card_points[AINO] > 0
    assert res.points[SANNA_W] == 0


# -- E5 extra move -----------------------------------------------------------------------------

X, Y = 0, 1
# Y holds cards that never become playable: diamonds and clubs whose way is blocked by X's D7
# and C6 (which X never plays).
Y_CARDS = ("DA D2 D3 D4 D5 D6 D8 D9 D10 DJ DQ DK CA C2 C3 C4 C5 C8 C9 C10 CJ CQ CK")


def e5_game():
    return game_with(2, {Y: Y_CARDS}, rest=X)


def test_e5_extra_move_needs_the_card_below() -> None:
    g = e5_game()
    drive(g, {X: ["C7", "S7", "S6", "S8", "S5", "S4", "S3", "S2", "H7", "H6", "H8"]},
          until=lambda g: g.to_move == X and len([e for e in g.events if e.seat == X]) == 11)
    assert g.to_move == X and g.token_holder == Y
    push(g, "SA")  # closing card: the player may go on
    assert g.phase == "more" and g.to_move == X
    assert "stop" in legal(g) and "H9" in legal(g)
    push(g, "H9")  # the extra card
    assert g.to_move == Y and g.phase == "turn"


def test_e5_extra_move_cannot_skip() -> None:
    g = e5_game()
    drive(g, {X: ["C7", "S7", "S6", "S8", "S5", "S4", "S3", "S2", "H7", "H6"]},
          until=lambda g: g.to_move == X and len([e for e in g.events if e.seat == X]) == 10)
    push(g, "SA")
    assert g.phase == "more"
    assert "H9" not in legal(g) and "H8" in legal(g)
    with pytest.raises(IllegalMoveError, match="H8"):
        g.push_text("H9")


def test_extra_move_is_optional() -> None:
    g = e5_game()
    drive(g, {X: ["C7", "S7", "S6", "S8", "S5", "S4", "S3", "S2"]},
          until=lambda g: g.to_move == X and len([e for e in g.events if e.seat == X]) == 8)
    push(g, "SA", "stop")
    assert g.to_move == Y
    assert [e.type for e in g.events[-2:]] == ["play", "stop"]


def test_no_extra_move_after_an_ordinary_card() -> None:
    g = e5_game()
    push(g, "C7", "token", "S7")
    assert g.to_move == Y and g.phase == "turn"
    with pytest.raises(IllegalMoveError):
        g.push_text("stop")


# -- E6 going out in an extra move -------------------------------------------------------------

def test_e6_going_out_in_an_extra_move() -> None:
    # X holds clubs and spades, Y diamonds and hearts; Y always plays one card (or the token).
    g = game_with(2, {X: " ".join(s + r for s in "CS" for r in
                                  "A 2 3 4 5 6 7 8 9 10 J Q K".split())}, rest=Y)
    script = ["C7", "S7", "C6", "S6", "C8", "S8", "C5", "S5", "C4", "S4", "C3", "S3",
              "C2", "S2", "CA", "stop", "C9", "S9", "C10", "S10", "CJ", "SJ", "CQ", "SQ",
              "SK", "stop"]
    drive(g, {X: script}, until=lambda g: g.to_move == X and g.hand_size(X) == 2
          and g.phase == "turn")
    assert {str(c) for c in g.hand(X)} == {"SA", "CK"}
    assert legal(g) == {"SA", "CK"}
    y_left = g.hand_size(Y)
    assert y_left > 0
    push(g, "SA")
    assert g.phase == "more" and legal(g) == {"CK", "stop"}
    events_before = len(g.events)
    push(g, "CK")
    assert g.is_over()
    assert len(g.events) == events_before + 1  # nobody else got a turn
    assert g.result is not None and g.result.winner == X
    assert g.result.out_order == (X,)
    assert g.hand_size(Y) == y_left
    assert g.legal_moves() == []


# -- E7 scoring --------------------------------------------------------------------------------

WIN, SANNA, OTHER = 0, 1, 2


def e7_game(rules: Rules | None = None):
    return game_with(3, {WIN: "C7 D7 H7 S7", SANNA: "SA SK S4"}, rest=OTHER, rules=rules,
                     names=["W", "Sanna", "O"])


def _play_e7(g) -> None:
    # W plays the sevens; Sanna can never play; the other player plays the first legal card
    # (clubs and diamonds, never spades).
    drive(g, {WIN: ["C7", "D7", "H7", "S7"]})


def test_e7_scoring_with_token() -> None:
    g = e7_game()
    _play_e7(g)
    res = g.result
    assert res is not None and res.winner == WIN
    assert all(e.type == "token" for e in g.events if e.seat == SANNA)
    assert res.card_points[SANNA] == 31
    assert res.token_points[SANNA] == 21
    assert res.points[SANNA] == 52
    assert res.token_holder == SANNA


@pytest.mark.parametrize("values,expected", [("ace14", 31), ("ace1", 18), ("one", 3)])
def test_e7_card_values(values: str, expected: int) -> None:
    g = e7_game(Rules(card_values=values))
    _play_e7(g)
    assert g.result is not None
    assert g.result.card_points[SANNA] == expected
    assert g.result.points[SANNA] == expected + 21


# -- E8 match ----------------------------------------------------------------------------------

def _result(rules: Rules, left: list[str], winner: int, dealer: int):
    hands = [cards(t) if t else [] for t in left]
    return score_deal(rules, hands, winner, [winner], None, [0, 0, 0], None, 0, "out",
                      [17, 17, 18], dealer)


def test_e8_match_totals() -> None:
    rules = Rules(match_deals=3)
    m = Match(rules, 3, seed=1, names=["Aino", "Olli", "Sara"])
    # Deal by deal, hands left that score Aino 0, 21, 8; Olli 18, 0, 14; Sara 27, 16, 0.
    deals = [
        (["", "SK S5", "SK SA"], 0),
        (["SK S8", "", "S10 S6"], 1),
        (["S8", "SA", ""], 2),
    ]
    for left, winner in deals:
        assert not m.is_over()
        m.new_deal()  # the engine deals (the shuffled hands are not used here)
        m.add_result(_result(rules, left, winner, m.dealer))
    assert m.totals == [29, 32, 43]
    assert m.is_over()
    assert m.winners == [0]
    assert [row.points for row in m.sheet] == [(0, 18, 27), (21, 0, 16), (8, 14, 0)]
    # The deal passes to the left after each deal.
    assert [row.dealer for row in m.sheet] == [0, 1, 2]


# -- E9 winner holds the token -----------------------------------------------------------------

def test_e9_winner_holds_the_token() -> None:
    # Seat 1 cannot play at first and takes the token, then plays C8 and C9 and goes out.
    g = game_with(3, {0: "C7 " + far_cards("DH"), 1: "C8 C9",
                      2: "C6 H7 S7 " + far_cards("S")},
                  rest=0, dealer=2)
    push(g, "C7")
    assert legal(g) == {"token"}
    push(g, "token")
    drive(g, {2: ["C6"], 1: ["C8", "C9"]},
          other=lambda g: next(m for m in g.legal_moves()
                               if not (m.kind == "play" and str(m.card) in ("C8", "C9"))))
    res = g.result
    assert res is not None and res.winner == 1
    assert res.token_holder == 1
    assert res.token_points == (0, 0, 0)
    assert all(p == c for p, c in zip(res.points, res.card_points, strict=True))

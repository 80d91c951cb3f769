"""The default game (RULES.md §2) checked piece by piece: deal, opening, turn order, legal
cards, closing cards, the token, the end, refusals with reasons, undo and copies."""

from __future__ import annotations

import random

import pytest

from engine_kit import cards, drive, game_with, legal, push
from ristiseiska.cards import CARDS, full_deck, parse_card
from ristiseiska.game import Game, IllegalMoveError, SetupError, deal
from ristiseiska.moves import Move, MoveError
from ristiseiska.rules import Rules, RulesError, preset

FAR = "A 2 3 10 J Q K".split()


def far(suits: str = "CDHS") -> str:
    return " ".join(s + r for s in suits for r in FAR)


# -- deal --------------------------------------------------------------------------------------

@pytest.mark.parametrize("n,dealer,sizes", [
    (2, 0, [26, 26]),
    (3, 0, [17, 18, 17]),
    (3, 1, [17, 17, 18]),
    (3, 2, [18, 17, 17]),
    (4, 3, [13, 13, 13, 13]),
    (5, 0, [10, 11, 11, 10, 10]),
    (5, 4, [11, 11, 10, 10, 10]),
    (8, 0, [6, 7, 7, 7, 7, 6, 6, 6]),
])
def test_uneven_hands_from_the_dealers_left(n: int, dealer: int, sizes: list[int]) -> None:
    g = Game(Rules(), n, seed=11, dealer=dealer)
    assert g.hand_sizes() == sizes
    assert sorted(c for h in g.initial_hands for c in h) == full_deck()


def test_deal_is_one_card_at_a_time_from_the_dealers_left() -> None:
    hands, stock, table = deal(Rules(), 3, seed=4, dealer=1)
    assert stock == [] and table == []
    shuffled = full_deck()
    random.Random(4).shuffle(shuffled)
    assert hands[2][:2] == [shuffled[0], shuffled[3]]
    assert hands[0][:2] == [shuffled[1], shuffled[4]]


def test_seed_determines_the_deal() -> None:
    a = Game(Rules(), 4, seed=123)
    b = Game(Rules(), 4, seed=123)
    c = Game(Rules(), 4, seed=124)
    assert a.initial_hands == b.initial_hands != c.initial_hands


# -- opening and turn order --------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("dealer", [0, 2])
def test_clubs_seven_opens_and_play_passes_left(seed: int, dealer: int) -> None:
    g = Game(Rules(), 4, seed=seed, dealer=dealer)
    assert g.to_move == g.holder_of("C7")
    assert legal(g) == {"C7"}
    rng = random.Random(seed)
    while not g.is_over():
        seat, phase = g.to_move, g.phase
        m = rng.choice(g.legal_moves())
        g.push(m)
        if g.is_over():
            break
        if g.phase == "more":
            assert g.to_move == seat  # the same player decides on the extra card
        else:
            assert g.to_move == (seat + 1) % 4, (phase, m)


def test_two_decks_the_clubs_seven_nearest_the_dealers_left_opens() -> None:
    r = preset("kaksi-pakkaa")
    deck = full_deck(2)
    c7a, c7b = CARDS[6], CARDS[58]
    rest = [c for c in deck if c not in (c7a, c7b)]
    hands: list[list] = [[], [c7a], [], [c7b]]
    for i, c in enumerate(rest):
        hands[i % 4].append(c)
    for dealer, opener in ((0, 1), (1, 3), (2, 3), (3, 1)):
        g = Game(r, 4, hands=hands, dealer=dealer)
        assert g.to_move == opener
        assert {m.card.kind for m in g.legal_moves()} == {6}
        g.push(g.legal_moves()[0])
        # The second seven of clubs is then like any other seven.
        later = 3 if opener == 1 else 1
        while g.to_move != later:
            g.push(g.legal_moves()[0])
        assert any(m.kind == "play" and m.card.kind == 6 for m in g.legal_moves())


# -- legal cards -------------------------------------------------------------------------------

def test_right_rank_wrong_suit_is_never_legal() -> None:
    g = game_with(3, {0: "C7 " + far("C"), 1: "D6 D8 H6 " + far("D")}, rest=2)
    push(g, "C7")
    assert legal(g) == {"token"}  # a 6 and an 8, but not of clubs


def test_five_not_before_eight() -> None:
    g = game_with(2, {0: "C7 C6 C5", 1: "C8 D7 H7 S7 " + far("DHS")}, rest=0)
    push(g, "C7", "D7", "C6", "H7")
    assert g.to_move == 0
    assert "C5" not in legal(g)
    with pytest.raises(IllegalMoveError, match="C5 must wait until C8 is down"):
        g.push_text("C5")
    push(g, "S7" if "S7" in legal(g) else g.legal_moves()[0].text())
    push(g, "C8")
    assert "C5" in legal(g)


def test_after_ace_low_the_low_pile_is_closed() -> None:
    g = game_with(2, {0: "C7 C6 C8 C5 C4 C3 C2 CA", 1: far("DHS")}, rest=0)
    for c in ["C7", "C6", "C8", "C5", "C4", "C3", "C2"]:
        push(g, c)
        if g.to_move == 1:
            push(g, "token")
    push(g, "CA")
    assert g.table.is_closed(0, "low") and not g.table.is_closed(0, "high")
    assert g.phase == "more"  # C9 follows C8


# -- closing cards -----------------------------------------------------------------------------

def test_closing_card_as_extra_card_gives_the_choice_again() -> None:
    x = "C7 C6 C8 C5 C4 C3 C2 CA S7 S8 S6 S9 S10 SJ SQ SK D7 H7"
    g = game_with(2, {0: x, 1: far("DH")}, rest=0)
    for c in ["C7", "C6", "S7", "S6", "C8", "S8", "C5", "S9", "C4", "S10", "C3", "SJ", "C2",
              "SQ"]:
        push(g, c)
        assert g.to_move == 1
        push(g, "token")
    assert g.to_move == 0
    push(g, "CA")
    assert g.phase == "more" and "SK" in legal(g) and "stop" in legal(g)
    push(g, "SK")  # closing again: the choice repeats
    assert g.phase == "more" and g.to_move == 0
    assert {"D7", "H7", "stop"} <= legal(g)
    push(g, "D7")  # an ordinary card ends the turn
    assert g.to_move == 1


def test_closing_card_with_nothing_more_to_play_just_ends_the_turn() -> None:
    g = game_with(2, {0: "C7 C6 C5 C4 C3 C2 CA DK"}, rest=1)
    drive(g, {0: ["C7", "C6", "C5", "C4", "C3", "C2"]},
          until=lambda g: g.to_move == 0 and g.hand_size(0) == 2)
    assert legal(g) == {"CA"}
    push(g, "CA")
    assert g.to_move == 1 and g.phase == "turn"
    assert g.token_holder is None
    assert g.events[-1].to_dict() == {"seat": 0, "type": "play", "card": "CA"}


# -- the end -----------------------------------------------------------------------------------

def test_nobody_moves_after_the_end() -> None:
    g = game_with(3, {0: "C7 D7"}, rest=[1, 2])
    push(g, "C7")
    g.push(g.legal_moves()[0])
    g.push(g.legal_moves()[0])
    push(g, "D7")
    assert g.is_over() and g.phase == "over" and g.legal_moves() == []
    with pytest.raises(IllegalMoveError, match="the deal is over"):
        g.push(Move("token"))
    assert g.result is not None and g.result.out_order == (0,)
    assert g.result.next_dealer == (g.dealer + 1) % 3


# -- refusals with reasons ---------------------------------------------------------------------

def e1_like():
    # Seat 1 (Toni) holds H6 H5 H8 C4; after C7 H7 C6 C8 C5 it is Toni's turn.
    g = game_with(4, {0: "C7 C5 D7 " + far("C"), 1: "H7 C4 H6 H5 H8 " + far("D"),
                      2: "C6 " + far("H"), 3: "C8 D6 " + far("S")}, rest=3)
    push(g, "C7", "H7", "C6", "C8", "C5")
    assert g.to_move == 1
    return g


@pytest.mark.parametrize("text,reason", [
    ("H5", "H5 cannot skip: H6 comes first"),
    ("H8", "H8 must wait until H6 is down"),
    ("D6", "D6 is not in your hand"),
    ("SK", "SK is not in your hand"),
    ("token", "you must play a card: you hold a playable card"),
    ("stop", "you can stop only after a closing card"),
    ("pass", "you hold a playable card, so you must play"),
    ("ask", "you hold a playable card, so you must play"),
    ("give:H6", "nobody has asked you for a card"),
])
def test_refusals_name_the_reason(text: str, reason: str) -> None:
    g = e1_like()
    before = (g.hand_sizes(), list(g.events), g.to_move, g.phase, g.token_holder, g.moves)
    with pytest.raises(IllegalMoveError) as info:
        g.push_text(text)
    assert reason in str(info.value)
    assert (g.hand_sizes(), list(g.events), g.to_move, g.phase, g.token_holder,
            g.moves) == before


def test_card_not_opened_yet_reason() -> None:
    g2 = game_with(3, {0: "C7 " + far("C"), 1: "D6 D8 " + far("D")}, rest=2)
    push(g2, "C7")
    with pytest.raises(IllegalMoveError, match="D7 must be played before D6"):
        g2.push_text("D6")


def test_opening_card_reason() -> None:
    g = game_with(3, {0: "C7 C6"}, rest=[1, 2])
    with pytest.raises(IllegalMoveError, match="the deal opens with C7: it must be played first"):
        g.push_text("C6")


@pytest.mark.parametrize("bad", [
    "C7", None, 5, ("play", CARDS[6], None, None, None), ("token",), Move("play", None),
    Move("fly"),
])
def test_push_refuses_what_is_not_a_legal_move(bad) -> None:
    g = game_with(3, {0: "C7 C6"}, rest=[1, 2])
    with pytest.raises(IllegalMoveError):
        g.push(bad)
    assert g.moves == [] and g.events == [] and g.to_move == 0


@pytest.mark.parametrize("text", ["", "xyz", "C7@2", "give:", "H0", "play"])
def test_push_text_refuses_garbage_with_move_error(text: str) -> None:
    g = game_with(3, {0: "C7 C6"}, rest=[1, 2])
    with pytest.raises((MoveError, IllegalMoveError)):
        g.push_text(text)
    assert g.moves == []


def test_parse_move_in_context_accepts_names() -> None:
    g = game_with(3, {0: "C7 " + far("C"), 1: "D7 " + far("D")}, rest=2)
    assert g.parse_move("ristiseiska") == Move.play(parse_card("C7"))
    push(g, "♣7")
    assert str(g.parse_move("ruutuseiska")) == "D7"
    push(g, "7d")
    assert g.events[-1].card == parse_card("D7")


# -- set-up errors -----------------------------------------------------------------------------

def test_setup_errors() -> None:
    deck = full_deck()
    with pytest.raises(SetupError, match="missing: SK"):
        Game(Rules(), 2, hands=[deck[:26], deck[26:-1]])
    with pytest.raises(SetupError, match="too many or unknown: C7"):
        Game(Rules(), 2, hands=[deck[:26], deck[26:] + cards("C7")])
    with pytest.raises(SetupError, match="3 hands given for 2 players"):
        Game(Rules(), 2, hands=[deck[:20], deck[20:40], deck[40:]])
    with pytest.raises(SetupError, match="dealer"):
        Game(Rules(), 3, seed=1, dealer=3)
    with pytest.raises(SetupError, match="names"):
        Game(Rules(), 3, seed=1, names=["a", "b"])
    with pytest.raises(RulesError, match="2–8 players, not 9"):
        Game(Rules(), 9, seed=1)
    with pytest.raises(RulesError, match="3–8 players, not 2"):
        Game(preset("sjuan"), 2, seed=1)


# -- undo and copies ---------------------------------------------------------------------------

def test_pop_restores_and_copy_is_independent() -> None:
    g = Game(Rules(), 4, seed=9)
    rng = random.Random(9)
    for _ in range(30):
        g.push(rng.choice(g.legal_moves()))
    snap = (g.hand_sizes(), [g.hand(s) for s in range(4)], list(g.events), g.to_move,
            g.phase, g.token_holder, g.table.lo[:], g.table.hi[:])
    c = g.copy()
    m = rng.choice(g.legal_moves())
    g.push(m)
    assert g.pop() == m
    assert (g.hand_sizes(), [g.hand(s) for s in range(4)], list(g.events), g.to_move,
            g.phase, g.token_holder, g.table.lo[:], g.table.hi[:]) == snap
    while not c.is_over():
        c.push(c.legal_moves()[0])
    assert (g.hand_sizes(), list(g.events), g.table.lo[:]) == (snap[0], snap[2], snap[6])
    with pytest.raises(IndexError):
        Game(Rules(), 4, seed=9).pop()


# -- records of events and results -------------------------------------------------------------

def test_event_and_result_dicts_have_the_record_keys() -> None:
    g = game_with(3, {0: "C7 D7 H7 S7", 1: "SA SK S4"}, rest=2)
    drive(g, {0: ["C7", "D7", "H7", "S7"]})
    kinds = {e.type for e in g.events}
    assert kinds == {"play", "token"}
    assert g.events[0].to_dict() == {"seat": 0, "type": "play", "card": "C7"}
    assert g.events[1].to_dict() == {"seat": 1, "type": "token"}
    d = g.result.to_dict()
    for key in ("winner", "card_points", "token_points", "points", "token_holder",
                "out_order"):
        assert key in d
    assert d["winner"] == 0 and d["token_holder"] == 1 and d["points"][1] == 52


# -- an independent oracle for the turn variants ----------------------------------------------
# Legality and turn flow recomputed from scratch from the public history, for every rule set of
# this issue (one deck, centre 7, ace low), and compared with the engine at every step.

def _oracle_legal_ranks(down: set[int], order: str) -> set[int]:
    c = 7
    if not down:
        return {c}
    out = set()
    for r in range(1, 14):
        if r in down:
            continue
        if order == "both":
            ok = r in (c - 1, c + 1) or (r < c - 1 and r + 1 in down) or (
                r > c + 1 and r - 1 in down)
        else:
            first, second = (c - 1, c + 1) if order == "low-first" else (c + 1, c - 1)
            if r == first:
                ok = True
            elif r == second:
                ok = first in down
            else:
                ok = first in down and second in down and (
                    (r < c and r + 1 in down) or (r > c and r - 1 in down))
        if ok:
            out.add(r)
    return out


def _oracle_down(g: Game) -> dict[int, set[int]]:
    down: dict[int, set[int]] = {s: set() for s in range(4)}
    for c in g.initial_table:
        down[c.suit].add(c.rank)
    for e in g.events:
        if e.type == "play":
            down[e.card.suit].add(e.card.rank)
    return down


def _oracle_plays(g: Game, seat: int) -> set[str]:
    down = _oracle_down(g)
    hand = g.hand(seat)
    if not any(down.values()) and g.rules.opening != "any":
        return {str(c) for c in hand if str(c) == g.rules.opening}
    return {str(c) for c in hand if c.rank in _oracle_legal_ranks(down[c.suit], g.rules.order)}


def _oracle_expected(g: Game) -> set[str]:
    r = g.rules
    seat = g.to_move
    if g.phase == "give":
        return {f"give:{c}" for c in g.hand(seat)}
    anything_down = any(_oracle_down(g).values())
    plays = _oracle_plays(g, seat)
    if g.phase == "more":
        return plays | {"stop"}
    if plays:
        ranks = {parse_card(p).rank for p in plays}
        hoard = {
            "none": False,
            "any-with-penalty": True,
            "sevens-sixes-eights": ranks <= {6, 7, 8},
            "all-but-sevens": 7 not in ranks,
        }[r.hoarding]
        return plays | ({"token"} if hoard and anything_down else set())
    if r.stock and g.stock:
        return {"draw"}
    if r.failure != "ask":
        return {r.failure}
    # Asking: a first turn passes; otherwise the previous player holding two or more cards.
    earlier_turn = any(e.seat == seat and e.type != "give" for e in g.events)
    if r.first_round_pass and not earlier_turn:
        return {"pass"}
    sizes = g.hand_sizes()
    if not any(sizes[(seat - k) % g.n] >= 2 for k in range(1, g.n)):
        return {"pass"}
    return {"ask"}


def _oracle_next(g: Game, seat: int, move: Move, was_out: bool) -> tuple[int, str] | None:
    """Where the turn goes after ``seat`` made ``move`` (None: the deal ended)."""
    r = g.rules
    if g.is_over():
        return None
    sizes = g.hand_sizes()
    if move.kind == "ask":
        giver = next((seat - k) % g.n for k in range(1, g.n) if sizes[(seat - k) % g.n] >= 2)
        return giver, "give"
    if move.kind == "play" and not was_out:
        closing = move.card.rank in (1, 13)
        if r.multi_play or (closing and r.extra_move):
            if _oracle_plays(g, seat):  # only if a card still fits
                return seat, "more"
    turn_seat = g.events[-1].other if move.kind == "give" else seat
    nxt = (turn_seat + 1) % g.n
    while sizes[nxt] == 0:
        nxt = (nxt + 1) % g.n
    return nxt, "turn"


ORACLE_RULES = [
    preset("ristiseiska"), preset("ristiseiska-pyynto"), preset("ristiseiska-pantti25"),
    preset("wikipedia"), preset("sjuan"), preset("fan-tan"), preset("kahdestaan-pakka"),
    Rules(order="high-first"), Rules(multi_play=True), Rules(extra_move=False),
    Rules(end="last-left"), Rules(hoarding="sevens-sixes-eights"),
    Rules(hoarding="all-but-sevens"), Rules(hoarding="any-with-penalty"),
    Rules(failure="ask", end="last-left", first_round_pass=False),
    Rules(failure="pass", order="both", multi_play=True),
]


@pytest.mark.parametrize("rules", ORACLE_RULES, ids=[
    r.name or ",".join(f"{k}={v}" for k, v in r.differences().items()) for r in ORACLE_RULES])
@pytest.mark.parametrize("seed", range(4))
def test_engine_agrees_with_an_independent_oracle(rules: Rules, seed: int) -> None:
    n = rules.min_players + seed % (min(rules.max_players, 6) - rules.min_players + 1)
    g = Game(rules, n, seed=seed, dealer=seed % n)
    rng = random.Random(seed)
    hoarded = [0] * n
    while not g.is_over():
        assert legal(g) == _oracle_expected(g), (len(g.moves), g.phase)
        seat = g.to_move
        move = rng.choice(g.legal_moves())
        if move.kind == "token" and _oracle_plays(g, seat):
            hoarded[seat] += 1
        g.push(move)
        was_out = move.kind == "play" and g.hand_size(seat) == 0
        if was_out and rules.end == "first-out":
            assert g.is_over()
            break
        expected = _oracle_next(g, seat, move, was_out)
        if expected is None:
            assert g.is_over()
            break
        assert (g.to_move, g.phase) == expected, (move, len(g.moves))
    res = g.result
    assert res is not None
    if res.end == "out":
        assert res.winner == g.events[-1].seat and g.hand_size(res.winner) == 0
    _check_result_with_oracle(g, hoarded)


def _check_result_with_oracle(g: Game, hoarded: list[int]) -> None:
    r = g.rules
    res = g.result
    assert res is not None
    n = g.n
    hands = [g.hand(s) for s in range(n)]
    tokens = [e.seat for e in g.events if e.type == "token"]
    holder = tokens[-1] if tokens else None
    assert res.token_holder == holder

    def value(c) -> int:
        if r.card_values == "one":
            return 1
        if c.rank == 1:
            return 14 if r.card_values == "ace14" else 1
        return c.rank

    if r.failure == "chip":
        sizes = [len(h) for h in g.initial_hands]
        paid = [(1 if r.ante else 0) + (1 if r.short_hand_chip and sizes[s] < max(sizes) else 0)
                + sum(1 for e in g.events if e.type == "chip" and e.seat == s)
                for s in range(n)]
        net = paid[:]
        if res.winner is not None:
            net[res.winner] -= sum(paid)
            if r.pay_per_card:
                for s in range(n):
                    if s != res.winner:
                        net[s] += len(hands[s])
                        net[res.winner] -= len(hands[s])
        assert res.chips == tuple(net) and res.points == tuple(net)
        return
    if r.end == "last-left" and r.last_left_scoring == "losses":
        expected = [1 if hands[s] else 0 for s in range(n)]
    else:
        expected = [sum(value(c) for c in hands[s])
                    + (r.token_value if r.failure == "token" and s == holder and hands[s] else 0)
                    for s in range(n)]
    pen = [h * r.hoarding_penalty if r.hoarding == "any-with-penalty" else 0 for h in hoarded]
    assert list(res.penalty_points) == pen
    assert list(res.points) == [e + p for e, p in zip(expected, pen, strict=True)]


def test_finnish_words_for_moves() -> None:
    g = game_with(3, {0: "C7 D7 H7 S7 SA", 1: "CQ DQ HQ SQ CK DK HK SK"}, rest=2,
                  rules=preset("ristiseiska-pyynto"))
    push(g, "ristiseiska", "ohi")
    assert g.events[-1].type == "pass"
    g.push(g.legal_moves()[0])
    push(g, "ruutuseiska", "pyydä", "anna:pataässä")
    assert g.events[-1].to_dict() == {"seat": 0, "type": "give", "card": "SA", "to": 1}
    t = game_with(3, {0: "C7 SA", 1: "CQ DQ HQ SQ CK DK HK SK"}, rest=2)
    push(t, "C7", "pantti")
    assert t.token_holder == 1
    s = Game(preset("kahdestaan-pakka"), 2, seed=1)
    while "draw" not in legal(s):
        s.push(s.legal_moves()[0])
    s.push_text("nosta")
    assert s.events[-1].type == "draw"

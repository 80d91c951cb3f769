"""Scenario tests for the turn variants of RULES.md §3: V1 asking, V2 last left, V3/V4 values,
V7 hoarding, V12 several cards, V13 stock, V14 Sjuan, V15 Fan Tan, and the V1 turn cap."""

from __future__ import annotations

import random

import pytest

from engine_kit import cards, drive, game_with, hands_with, legal, legal_plays, push
from ristiseiska.cards import parse_card
from ristiseiska.game import Game, IllegalMoveError
from ristiseiska.rules import Rules, preset

FAR = "A 2 3 10 J Q K".split()


def far(suits: str = "CDHS") -> str:
    return " ".join(s + r for s in suits for r in FAR)


QK = "CQ DQ HQ SQ CK DK HK SK"


def first_play(g: Game):
    """Deterministic filler player: the first legal card, else the forced move; stops after
    a closing card."""
    lm = g.legal_moves()
    if any(m.kind == "stop" for m in lm):
        return next(m for m in lm if m.kind == "stop")
    return next((m for m in lm if m.kind == "play"), lm[0])


# == V1 asking a card =========================================================================

def v1_game(rules: Rules | None = None, seat0: str = "C7 D7 H7 S7 SA"):
    return game_with(3, {0: seat0, 1: QK}, rest=2, rules=rules or preset("ristiseiska-pyynto"))


def test_v1_first_round_pass_then_ask_and_the_giver_chooses() -> None:
    g = v1_game()
    push(g, "C7")
    assert legal(g) == {"pass"}  # first turn: just pass ("Ohi")
    push(g, "pass")
    assert g.events[-1].type == "pass" and g.token_holder is None
    g.push(first_play(g))  # seat 2
    push(g, "D7")
    assert g.to_move == 1 and legal(g) == {"ask"}
    push(g, "ask")
    assert g.events[-1].to_dict() == {"seat": 1, "type": "ask", "from": 0}
    # The previous player chooses which card to hand over: any of their cards.
    assert g.phase == "give" and g.to_move == 0 and g.turn_seat == 1
    assert legal(g) == {"give:H7", "give:S7", "give:SA"}
    with pytest.raises(IllegalMoveError, match="give"):
        g.push_text("H7")  # playing is not what is asked now
    with pytest.raises(IllegalMoveError):
        g.push_text("give:C9")  # not in the giver's hand
    push(g, "give:H7")  # a card that fits…
    assert g.events[-1].to_dict() == {"seat": 0, "type": "give", "card": "H7", "to": 1}
    assert parse_card("H7") in g.hand(1)
    # …but the receiver may not play it this turn: the turn has passed on.
    assert g.to_move == 2 and g.phase == "turn"
    g.push(first_play(g))
    g.push(first_play(g))  # seat 0
    assert g.to_move == 1 and "H7" in legal(g)  # next turn it is a normal legal card


def test_v1_given_card_is_seen_only_by_giver_and_receiver() -> None:
    g = v1_game()
    push(g, "C7", "pass")
    g.push(first_play(g))
    push(g, "D7", "ask", "give:SA")
    for seat, sees in ((0, True), (1, True), (2, False)):
        ev = g.view(seat).history[-1]
        assert ev["type"] == "give" and ev["to"] == 1
        assert ("card" in ev) is sees
        assert (ev.get("card") == "SA") is sees
        assert ("SA" in g.view(seat).to_dict()["history"][-1].values()) is sees
    assert "SA" in [str(c) for c in g.view(1).hand]
    assert g.view(2).hand_sizes[1] == len(QK.split()) + 1


def test_v1_skips_a_previous_player_with_one_card() -> None:
    g = v1_game(seat0="C7 D7 SA")
    push(g, "C7", "pass")
    g.push(first_play(g))
    push(g, "D7")
    assert g.hand_size(0) == 1
    push(g, "ask")
    assert g.events[-1].other == 2  # seat 0 has one card: the one before is asked
    assert g.to_move == 2 and g.phase == "give"


def test_v1_nobody_to_ask_is_a_pass() -> None:
    # Five players, no first-round pass. After C7 everyone else holds exactly one card.
    rules = preset("wikipedia")
    g = game_with(5, {0: "C7 C6", 2: "D7", 3: "H7", 4: "S7"}, rest=1, rules=rules)
    push(g, "C7")
    assert g.to_move == 1 and legal(g) == {"pass"}
    push(g, "pass")
    assert g.events[-1].to_dict() == {"seat": 1, "type": "pass"}
    push(g, "D7")
    assert g.is_over() and g.result is not None and g.result.winner == 2


def test_v1_without_first_round_pass_asks_at_once() -> None:
    g = v1_game(rules=preset("wikipedia"))
    push(g, "C7")
    assert legal(g) == {"ask"}


def test_v1_first_round_pass_counts_each_players_own_first_turn() -> None:
    # Seat 2 plays on its first turn; seat 1 passes on its first and asks on its second.
    g = v1_game()
    push(g, "C7", "pass")
    assert g.turns_taken(1) == 1
    g.push(first_play(g))
    push(g, "D7")
    assert g.turns_taken(1) == 2 and legal(g) == {"ask"}


def _circulating_deal(stall_turns: int) -> Game:
    """Play V1 deals where every giver hands over a card that fits (the adversarial choice)
    until one circulates a playable card; returns that finished deal."""
    rules = preset("wikipedia").replace(stall_turns=stall_turns)
    for seed in range(400):
        g = Game(rules, 3, seed=seed)
        rng = random.Random(seed)
        while not g.is_over():
            lm = g.legal_moves()
            if g.phase == "give":
                fit = [m for m in lm if (g.table.playable >> int(m.card)) & 1]
                g.push(fit[0] if fit else rng.choice(lm))
            else:
                g.push(rng.choice(lm))
        if g.result is not None and g.result.end == "stall":
            return g
    raise AssertionError("no circulating deal found")


def test_v1_turn_cap_ends_a_circulating_deal() -> None:
    """[decision] The deal ends after ``stall_turns`` turns in a row without a card played and
    is scored as it stands: nobody wins it; cards left in hand count."""
    g = _circulating_deal(stall_turns=12)
    res = g.result
    assert res is not None and res.end == "stall" and res.winner is None
    # The last 12 turns were ask + give with the same card going round the table.
    tail = g.events[-24:]
    assert [e.type for e in tail] == ["ask", "give"] * 12
    assert len({e.card for e in tail if e.type == "give"}) == 1
    assert res.card_points == tuple(
        sum(14 if c.rank == 1 and g.rules.card_values == "ace14" else
            (1 if c.rank == 1 else c.rank) for c in g.hand(s)) for s in range(3))
    assert g.legal_moves() == []


def test_turn_cap_counts_only_turns_in_a_row() -> None:
    # stall_turns=2: one pass and then a play does not end the deal; two passes in a row do.
    rules = preset("sjuan").replace(stall_turns=2)
    g = game_with(3, {0: "H7 H6", 1: QK, 2: "C7 D7"}, rest=0, rules=rules, dealer=2)
    push(g, "H7")
    assert legal(g) == {"pass"}
    push(g, "pass")  # 1 turn without a card
    push(g, "C7")  # seat 2 plays: the count starts again
    g.push(first_play(g))
    push(g, "pass")
    assert not g.is_over()
    push(g, "D7")
    assert g.is_over() and g.result is not None and g.result.winner == 2


def test_turn_cap_two_passes_end_the_deal() -> None:
    rules = preset("sjuan").replace(stall_turns=2)
    # Seat 0 plays H7 then holds only unplayable cards, seat 1 too: two passes in a row.
    g = game_with(3, {0: "H7 " + QK, 1: "CA C2 C3 DA D2 D3 SA S2 S3"}, rest=2, rules=rules,
                  dealer=2)
    push(g, "H7", "pass")
    g.push(first_play(g))
    assert g.events[-1].type == "play"
    push(g, "pass")
    assert not g.is_over()
    assert legal(g) == {"pass"}
    push(g, "pass")
    assert g.is_over() and g.result is not None
    assert g.result.end == "stall" and g.result.winner is None


# == V2 end when one player is left ===========================================================

def test_v2_out_players_are_skipped_and_the_last_one_loses() -> None:
    rules = Rules(end="last-left")
    g = game_with(3, {0: "C7", 1: "D7 D6"}, rest=2, rules=rules, dealer=2)
    push(g, "C7")
    assert not g.is_over() and g.out_order == [0]
    assert g.to_move == 1
    push(g, "D7")
    g.push(first_play(g))
    assert g.to_move == 1  # seat 0 is out and skipped
    push(g, "D6")
    res = g.result
    assert g.is_over() and res is not None
    assert res.out_order == (0, 1) and res.loser == 2
    assert res.points == (0, 0, 1)  # losses are counted
    assert res.next_dealer == 2  # the loser deals next
    assert res.end == "last"


def test_v2_with_card_scoring() -> None:
    rules = Rules(end="last-left", last_left_scoring="cards")
    g = game_with(3, {0: "C7", 1: "D7 D6"}, rest=2, rules=rules, dealer=2)
    push(g, "C7", "D7")
    g.push(first_play(g))
    push(g, "D6")
    res = g.result
    assert res is not None and res.loser == 2
    left = g.hand(2)
    assert res.card_points[2] == sum(14 if c.rank == 1 else c.rank for c in left)
    assert res.points[:2] == (0, 0)


def test_v2_ask_skips_players_who_are_out() -> None:
    rules = Rules(end="last-left", failure="ask", first_round_pass=False)
    # Seat 0 goes out at once; seat 1 cannot play and asks: seat 0 (out) is skipped.
    g = game_with(3, {0: "C7", 1: QK}, rest=2, rules=rules, dealer=2)
    push(g, "C7", "ask")
    assert g.events[-1].other == 2


# == V3 card values and V4 token value ========================================================

def e7_like(rules: Rules) -> Game:
    # Seat 0 plays the four sevens and goes out; seat 1 (A, K, 4 of spades) never can play.
    g = game_with(3, {0: "C7 D7 H7 S7", 1: "SA SK S4"}, rest=2, rules=rules)
    drive(g, {0: ["C7", "D7", "H7", "S7"]}, other=first_play)
    return g


@pytest.mark.parametrize("values,points", [("ace14", 31), ("ace1", 18), ("one", 3)])
@pytest.mark.parametrize("token", [21, 25, 20, 50])
def test_v3_v4_values(values: str, points: int, token: int) -> None:
    g = e7_like(Rules(card_values=values, token_value=token))
    res = g.result
    assert res is not None and res.winner == 0 and res.token_holder == 1
    assert res.card_points[1] == points
    assert res.token_points == (0, token, 0)
    assert res.points[1] == points + token


def test_v4_presets_token_values() -> None:
    assert preset("ristiseiska-pantti25").token_value == 25
    assert preset("ristikasi").token_value == 20


# == V7 hoarding ==============================================================================

HOARDING = ["none", "sevens-sixes-eights", "all-but-sevens", "any-with-penalty"]


@pytest.mark.parametrize("hoarding", HOARDING)
def test_v7_opening_card_can_never_be_hoarded(hoarding: str) -> None:
    g = game_with(3, {0: "C7"}, rest=[1, 2], rules=Rules(hoarding=hoarding))
    assert legal(g) == {"C7"}
    with pytest.raises(IllegalMoveError):
        g.push_text("token")


@pytest.mark.parametrize("hoarding,seat1,expected", [
    # Only a seven is legal.
    ("none", "D7", {"D7"}),
    ("sevens-sixes-eights", "D7", {"D7", "token"}),
    ("all-but-sevens", "D7", {"D7"}),
    ("any-with-penalty", "D7", {"D7", "token"}),
    # Only a six is legal.
    ("none", "C6", {"C6"}),
    ("sevens-sixes-eights", "C6", {"C6", "token"}),
    ("all-but-sevens", "C6", {"C6", "token"}),
    # A six and a seven.
    ("sevens-sixes-eights", "C6 D7", {"C6", "D7", "token"}),
    ("all-but-sevens", "C6 D7", {"C6", "D7"}),
])
def test_v7_token_exactly_when_no_legal_card_must_be_played(hoarding, seat1, expected) -> None:
    g = game_with(3, {0: "C7 " + far("CD"), 1: seat1 + " " + far("HS")}, rest=2,
                  rules=Rules(hoarding=hoarding))
    push(g, "C7")
    assert legal(g) == expected


def _v7_must_play_position(hoarding: str) -> Game:
    # Seat 1 holds C5 and D7; after C7, C6, C8 the five is legal too.
    g = game_with(3, {0: "C7 C8 " + far("C"), 1: "C5 D7 " + far("HS"), 2: "C6 " + far("D")},
                  rest=0, rules=Rules(hoarding=hoarding))
    push(g, "C7", "D7", "C6", "C8")
    return g


@pytest.mark.parametrize("hoarding,expected", [
    ("none", {"C5"}),
    ("sevens-sixes-eights", {"C5"}),  # a five must be played
    ("all-but-sevens", {"C5", "token"}),
    ("any-with-penalty", {"C5", "token"}),
])
def test_v7_a_five_must_be_played_unless_all_but_sevens(hoarding, expected) -> None:
    g = _v7_must_play_position(hoarding)
    assert g.to_move == 1
    assert legal(g) == expected
    if "token" not in expected:
        with pytest.raises(IllegalMoveError, match="must play"):
            g.push_text("token")


def test_v7_hoarding_penalty() -> None:
    g = game_with(3, {0: "C7 C8 " + far("C"), 1: "C5 D7 " + far("HS"), 2: "C6 " + far("D")},
                  rest=0, rules=Rules(hoarding="any-with-penalty", hoarding_penalty=50))
    push(g, "C7", "token")  # D7 could be played: penalised
    assert g.penalties == [0, 50, 0]
    push(g, "C6", "C8", "token")  # C5 and D7 could be played: penalised again
    assert g.penalties == [0, 100, 0]
    drive(g, {}, other=first_play)
    res = g.result
    assert res is not None
    assert res.penalty_points[1] == 100
    for s in range(3):
        assert res.points[s] == res.card_points[s] + res.token_points[s] + res.penalty_points[s]


def test_v7_forced_token_is_not_penalised() -> None:
    rules = Rules(hoarding="any-with-penalty")
    g = game_with(3, {0: "C7 SA", 1: QK}, rest=2, rules=rules)
    push(g, "C7", "token")
    assert g.penalties == [0, 0, 0]


# == V12 several cards at once ================================================================

def test_v12_play_several_cards_and_go_out() -> None:
    g = game_with(2, {0: "C7 C6 C8 C9"}, rest=1, rules=Rules(multi_play=True))
    push(g, "C7")
    assert g.phase == "more" and legal(g) == {"C6", "stop"}
    push(g, "C6")
    assert legal(g) == {"C8", "stop"}
    push(g, "C8", "C9")
    assert g.is_over() and g.result is not None and g.result.winner == 0
    assert [e.seat for e in g.events] == [0, 0, 0, 0]


def test_v12_stop_after_any_card() -> None:
    g = game_with(2, {0: "C7 C6 C8 C9"}, rest=1, rules=Rules(multi_play=True))
    push(g, "C7", "C6", "stop")
    assert g.to_move == 1 and g.phase == "turn"
    assert g.events[-1].type == "stop"


def test_v12_turn_ends_when_nothing_fits() -> None:
    g = game_with(2, {0: "C7 " + QK}, rest=1, rules=Rules(multi_play=True))
    push(g, "C7")
    assert g.to_move == 1 and g.phase == "turn"


def test_v12_each_card_must_fit_when_played() -> None:
    g = game_with(2, {0: "C7 C6 C8 C9"}, rest=1, rules=Rules(multi_play=True))
    push(g, "C7")
    with pytest.raises(IllegalMoveError, match="C8"):
        g.push_text("C9")
    assert g.phase == "more" and g.to_move == 0


# == V13 two players with a stock =============================================================

def test_v13_deal_from_a_seed() -> None:
    r = preset("kahdestaan-pakka")
    for dealer in (0, 1):
        g = Game(r, 2, seed=5, dealer=dealer)
        assert g.hand_sizes() == [17, 17] and len(g.stock) == 17
        assert [str(c) for c in g.initial_table] == ["C7"]
        assert g.holder_of("C7") is None
        assert g.to_move == 1 - dealer  # the non-dealer starts
        openers = {"C6", "D7", "H7", "S7"}
        hand = {str(c) for c in g.hand(g.to_move)}
        plays = legal_plays(g)
        assert plays == hand & openers
        if not plays:
            assert legal(g) == {"draw"}


def v13_game(stock: str, rules: Rules | None = None):
    """Seat 0 (the dealer) holds only far cards; the stock is ``stock`` (top first)."""
    rules = rules or preset("kahdestaan-pakka")
    in_stock = cards(stock)
    mine = " ".join(str(c) for c in cards(far()) if c not in in_stock)
    hands = hands_with(2, {0: mine}, rest=1, rules=rules, exclude=in_stock + cards("C7"))
    return Game(rules, 2, hands=hands, stock=in_stock, dealer=0)


def test_v13_draw_ends_the_turn_and_the_card_waits() -> None:
    g = v13_game("C6 HQ")
    assert g.to_move == 1  # the non-dealer
    push(g, "D7")
    assert legal(g) == {"draw"}
    push(g, "draw")
    assert g.events[-1].to_dict() == {"seat": 0, "type": "draw", "card": "C6"}
    assert parse_card("C6") in g.hand(0) and len(g.stock) == 1
    assert g.to_move == 1  # the drawn card fits but is not played this turn
    # Only the drawer sees which card was drawn.
    assert g.view(1).history[-1] == {"seat": 0, "type": "draw"}
    assert g.view(0).history[-1]["card"] == "C6"
    g.push(first_play(g))
    assert "C6" in legal(g)


def test_v13_empty_stock_means_the_base_failure_rule() -> None:
    # kahdestaan-pakka is V13 on the default game: once the stock is empty, the token.
    g = v13_game("HQ")
    push(g, "D7", "draw")
    assert g.stock == []
    g.push(first_play(g))
    seat = g.to_move
    assert legal(g) == {"token"}
    push(g, "token")
    assert g.events[-1].type == "token" and g.token_holder == seat


def test_v13_empty_stock_with_pass_rules() -> None:
    g = v13_game("HQ", preset("kahdestaan-pakka").replace(failure="pass"))
    push(g, "D7", "draw")
    g.push(first_play(g))
    assert legal(g) == {"pass"}
    push(g, "pass")
    assert g.events[-1].type == "pass" and g.token_holder is None


# == V14 Sjuan ================================================================================

def test_v14_hearts_seven_opens_and_six_and_eight_both_fit() -> None:
    r = preset("sjuan")
    g = game_with(4, {2: "H7 SK", 3: "H6 H8 H5 H9 C7"}, rest=[0, 1], rules=r, dealer=0)
    # The holder of H7 opens whoever sits at the dealer's left.
    assert g.to_move == 2 and legal(g) == {"H7"}
    push(g, "H7")
    assert legal_plays(g) == {"H6", "H8", "C7"}
    push(g, "H8")
    g.push(first_play(g))
    g.push(first_play(g))
    g.push(first_play(g))
    # Each pile extends on its own: H9 on H8 even before H6.
    assert {"H6", "H9"} <= legal_plays(g) and "H5" not in legal_plays(g)


def test_v14_pass_and_no_extra_move_and_one_point_a_card() -> None:
    r = preset("sjuan")
    g = game_with(3, {0: "H7 H8 H9 H10 HJ HQ HK C7"}, rest=[1, 2], rules=r, dealer=2)
    drive(g, {0: ["H7", "H8", "H9", "H10", "HJ", "HQ"]}, other=first_play,
          until=lambda g: g.to_move == 0 and g.hand_size(0) == 2)
    push(g, "HK")  # closes the high pile, C7 still fits: no extra move in Sjuan
    assert g.to_move != 0 and g.phase == "turn"
    assert g.token_holder is None and all(e.type != "token" for e in g.events)
    drive(g, {0: ["C7"]}, other=first_play)
    res = g.result
    assert res is not None and res.token_points == (0, 0, 0)
    if res.winner is not None:
        for s in range(3):
            assert res.points[s] == (0 if s == res.winner else g.hand_size(s))


def test_v14_pass_when_cannot_play() -> None:
    r = preset("sjuan")
    g = game_with(3, {0: "H7 C2", 1: QK}, rest=2, rules=r, dealer=2)
    push(g, "H7")
    assert legal(g) == {"pass"}
    with pytest.raises(IllegalMoveError):
        g.push_text("token")


# == V15 Fan Tan with chips ===================================================================

def test_v15_any_seven_starts_from_the_dealers_left() -> None:
    r = preset("fan-tan")
    g = game_with(3, {0: "D7 S7 " + far("C"), 1: "C7"}, rest=2, rules=r, dealer=2)
    assert g.to_move == 0 and legal_plays(g) == {"D7", "S7"}
    push(g, "S7", "C7")
    assert g.is_over() and g.result is not None and g.result.winner == 1


BICYCLE = {"ante": True, "short_hand_chip": True, "pay_per_card": True}


def test_v15_chips_ante_short_hand_pay_per_card_and_pot() -> None:
    r = preset("fan-tan").replace(**BICYCLE)
    # Seat 0 holds no seven (pays a chip), seat 1 holds only C7 and goes out.
    g = game_with(3, {0: "SQ SK", 1: "C7"}, rest=2, rules=r, dealer=2)
    assert g.pot == 3 + 2  # everyone antes; seats 0 and 1 were dealt fewer cards
    assert g.to_move == 0 and legal(g) == {"chip"}
    push(g, "chip")
    assert g.pot == 6 and g.chips_paid == [3, 2, 1]
    push(g, "C7")
    res = g.result
    assert res is not None and res.winner == 1
    assert res.chips == (3 + 2, 2 - 6 - 2 - 49, 1 + 49)
    assert res.points == res.chips
    assert sum(res.chips) == 0
    assert res.token_points == (0, 0, 0)


def test_v15_preset_as_the_sources_give_it() -> None:
    """RULES.md V15: a chip when you cannot play, the pot to the first out; nothing else."""
    r = preset("fan-tan")
    g = game_with(3, {0: "SQ SK", 1: "C7"}, rest=2, rules=r, dealer=2)
    assert g.pot == 0
    push(g, "chip", "C7")
    res = g.result
    assert res is not None and res.chips == (1, -1, 0)


def test_v15_six_and_eight_on_the_seven() -> None:
    r = preset("fan-tan")
    g = game_with(3, {0: "C7 SK", 1: "C6 C8 C5 C9 " + far("D")}, rest=2, rules=r, dealer=2)
    push(g, "C7")
    assert legal_plays(g) == {"C6", "C8"}


def test_v15_even_deal_has_no_short_hand_chip() -> None:
    g = Game(preset("fan-tan").replace(**BICYCLE), 4, seed=3)
    assert g.hand_sizes() == [13] * 4 and g.pot == 4


def test_v15_uneven_deal_short_hands() -> None:
    g = Game(preset("fan-tan").replace(**BICYCLE), 5, seed=3, dealer=1)
    # 52 = 11 + 11 + 10 + 10 + 10 dealt from the dealer's left (seats 2, 3 get 11).
    assert g.hand_sizes() == [10, 10, 11, 11, 10]
    assert g.chips_paid == [2, 2, 1, 1, 2]
    assert g.pot == 8


# == readings of docs/decisions.md ============================================================

def test_v13_deal_order_is_documented() -> None:
    """♣7 laid out; the other 51 shuffled in id order; 34 dealt one at a time from the
    dealer's left; the remaining 17 are the stock, drawn from the front."""
    from ristiseiska.cards import full_deck

    rules = preset("kahdestaan-pakka")
    deck = [c for c in full_deck() if str(c) != "C7"]
    random.Random(99).shuffle(deck)
    g = Game(rules, 2, seed=99, dealer=1)
    assert list(g.initial_hands[0]) == deck[0:34:2]
    assert list(g.initial_hands[1]) == deck[1:34:2]
    assert list(g.initial_stock) == deck[34:]


def test_v13_empty_stock_uses_the_base_failure_rule() -> None:
    rules = Rules(stock=True, min_players=2, max_players=2)  # token rules underneath
    in_stock = cards("HQ")
    mine = " ".join(str(c) for c in cards(far()) if c not in in_stock)
    hands = hands_with(2, {0: mine}, rest=1, rules=rules, exclude=in_stock + cards("C7"))
    g = Game(rules, 2, hands=hands, stock=in_stock, dealer=0)
    push(g, "D7", "draw")
    g.push(first_play(g))
    assert legal(g) == {"token"}


def test_v2_token_holder_who_went_out_does_not_pay() -> None:
    rules = Rules(end="last-left", last_left_scoring="cards")
    # Seat 1 takes the token, then plays C8 and C9 and goes out; seat 0 goes out next and
    # seat 2 is left holding cards.
    g = game_with(3, {0: "C7 D7 H7 S7", 1: "C8 C9"}, rest=2, rules=rules, dealer=2)
    drive(g, {0: ["C7", "D7", "H7", "S7"], 1: ["token", "C8", "C9"]}, other=first_play)
    res = g.result
    assert res is not None and res.out_order == (1, 0) and res.loser == 2
    assert res.token_holder == 1
    assert res.token_points == (0, 0, 0)
    assert res.points[:2] == (0, 0) and res.points[2] == res.card_points[2] > 0


def test_several_losers_the_one_with_most_cards_deals() -> None:
    from ristiseiska.scoring import score_deal

    rules = Rules(end="last-left")
    hands = [cards("S5"), [], cards("S6 S8"), cards("S9 S10")]
    res = score_deal(rules, hands, 1, [1], None, [0] * 4, None, 0, "stall", [13] * 4, 0)
    assert res.loser == (0, 2, 3)
    assert res.next_dealer == 2  # most cards (2), first from the dealer's left on a tie
    assert res.points == (1, 0, 1, 1)

"""Issue 52: a deal with jokers ends the moment no card left in any hand can ever be played,
whatever the last action was (RULES.md V11 [decision]; docs/variants.md, V11).

The position of the issue is built by real moves: two players lay the whole table out turn by
turn, seat 0 puts a joker on the diamonds seven and the other on the hearts king (killing its
own real hearts king), and seat 1 keeps the real diamonds seven to the end. The table is then
full; seat 1's only legal move is to swap the seven in, which takes the joker back into a hand
where it can never be played: nothing in any hand can be played, so the swap ends the deal.
"""

from __future__ import annotations

import dataclasses

import pytest

from ristiseiska.cards import parse_card
from ristiseiska.game import Game
from ristiseiska.record import check_record, record_from_game, replay_record
from ristiseiska.rules import Rules, preset

ORDER = ["C7", "X1=D7", "H7", "S7"]
for _low, _high in (("6", "8"), ("5", "9"), ("4", "10"), ("3", "J"), ("2", "Q"), ("A", "K")):
    for _suit in "CDHS":
        ORDER += [_suit + _low, _suit + _high]
ORDER[ORDER.index("HK")] = "X2=HK"
# every card is played by the seat whose turn it is: seat 1 opens, then the seats alternate
if ORDER.index("X2=HK") % 2 == 0:  # seat 0's cards are at the odd places
    i = ORDER.index("X2=HK")
    ORDER[i], ORDER[i + 1] = ORDER[i + 1], ORDER[i]


def _hands() -> list[list[str]]:
    seat1 = [c for i, c in enumerate(ORDER) if i % 2 == 0] + ["D7"]
    seat0 = [c.split("=")[0] for i, c in enumerate(ORDER) if i % 2 == 1] + ["HK"]
    return [seat0, seat1]


def stuck_position(rules: Rules, dealer: int = 0) -> Game:
    """The table full but for the swap: seat 1 to move, holding only the real diamonds seven."""
    g = Game(rules, 2, hands=_hands(), dealer=dealer)
    for i, text in enumerate(ORDER):
        assert g.to_move == (1 if i % 2 == 0 else 0), (i, text)
        g.push_text(text)
        if g.phase == "more":  # after a closing card: stop
            g.push_text("stop")
    assert g.table.is_complete() and not g.is_over()
    assert [str(c) for c in g.hand(0)] == ["HK"] and [str(c) for c in g.hand(1)] == ["D7"]
    assert g.to_move == 1 and [m.text() for m in g.legal_moves()] == ["swap:D7"]
    return g


@pytest.mark.parametrize("dealer", [0, 1])
def test_the_swap_that_leaves_nothing_playable_ends_the_deal_as_stuck(dealer: int) -> None:
    g = stuck_position(preset("jokerit"), dealer)
    g.push_text("swap:D7")
    assert g.is_over(), "nobody can ever play again: the swap ends the deal"
    res = g.result
    assert res is not None and res.end == "stuck"
    assert g.dead_cards(0) == [parse_card("HK")] and g.dead_cards(1) == [parse_card("X1")]
    assert res.loser == (0, 1) and res.winner is None
    # both hold one card: the first of them from the dealer's left deals next
    assert res.next_dealer == (dealer + 1) % 2
    assert res.points == (1, 1)  # jokerit counts losses
    rec = record_from_game(g)
    assert rec["events"][-1] == {"seat": 1, "type": "swap", "card": "D7"}
    assert rec["result"]["end"] == "stuck"
    assert check_record(rec) is None
    assert replay_record(rec).result == res


def test_with_points_the_joker_counts_twenty_and_the_dead_king_thirteen() -> None:
    r = dataclasses.replace(preset("jokerit"), end="first-out")
    g = stuck_position(r)
    g.push_text("swap:D7")
    res = g.result
    assert res is not None and res.end == "stuck"
    assert res.card_points == (13, 20) and res.points == (13, 20)
    assert res.loser == (0, 1) and res.next_dealer == 1


def test_a_record_that_goes_on_after_nobody_can_play_is_refused() -> None:
    # the old engine let the deal go on: both seats passed until the turn cap ended it
    g = stuck_position(preset("jokerit"))
    g.push_text("swap:D7")
    rec = record_from_game(g)
    n = len(rec["events"])
    rec["events"] += [{"seat": 0, "type": "pass"}, {"seat": 1, "type": "pass"}]
    rec["result"] = dict(rec["result"] or {}, end="stall")
    problem = check_record(rec)
    assert problem is not None
    assert problem.startswith(f"event {n} (pass by seat 0) comes after the end of the deal")
    assert "no card left in any hand can be played" in problem

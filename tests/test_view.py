"""Seat views (RULES.md §5): what each player may know, and nothing more."""

from __future__ import annotations

import json

import pytest

from engine_kit import game_with, push
from ristiseiska.game import Game
from ristiseiska.rules import Rules, preset

QK = "CQ DQ HQ SQ CK DK HK SK"


def test_view_basics() -> None:
    g = Game(Rules(), 4, seed=2, names=["Aino", "Olli", "Sara", "Ville"])
    opener = g.to_move
    for seat in range(4):
        v = g.view(seat)
        assert v.seat == seat and v.players == 4 and v.names[0] == "Aino"
        assert v.hand == tuple(g.hand(seat))
        assert v.hand_sizes == (13, 13, 13, 13)
        assert v.to_move == opener and v.phase == "turn"
        assert v.is_my_turn is (seat == opener)
        assert [str(m) for m in v.legal_moves] == (["C7"] if seat == opener else [])
        assert v.open_hands is None and v.token_holder is None
        assert all(not r.cards for r in v.rows)
    with pytest.raises(ValueError, match="no seat 4"):
        g.view(4)


def test_view_after_moves_shows_table_token_and_history() -> None:
    g = game_with(3, {0: "C7 D7 H7 S7", 1: "SA SK S4"}, rest=2)
    push(g, "C7", "token")
    v = g.view(2)
    assert v.token_holder == 1
    assert [str(c) for c in v.rows[0].cards] == ["C7"]
    assert v.history == ({"seat": 0, "type": "play", "card": "C7"}, {"seat": 1, "type": "token"})
    d = v.to_dict()
    json.dumps(d)
    assert d["rows"][0]["cards"] == ["C7"] and d["token_holder"] == 1
    assert d["legal_moves"] == [str(m) for m in g.legal_moves()]
    assert "open_hands" not in d
    assert sorted(d["hand"]) == sorted(str(c) for c in g.hand(2))


def test_open_cards_mode_shows_every_hand() -> None:
    g = Game(Rules(), 3, seed=5)
    v = g.view(0, open_cards=True)
    assert v.open_hands == {s: tuple(g.hand(s)) for s in range(3)}
    assert set(v.to_dict()["open_hands"]) == {"0", "1", "2"}


def test_give_phase_views() -> None:
    g = game_with(3, {0: "C7 D7 H7 S7 SA", 1: QK}, rest=2, rules=preset("wikipedia"))
    push(g, "C7", "ask")
    giver, receiver = g.view(0), g.view(1)
    assert giver.phase == "give" and giver.to_move == 0 and giver.turn_seat == 1
    assert {str(m) for m in giver.legal_moves} == {"give:D7", "give:H7", "give:S7", "give:SA"}
    assert receiver.legal_moves == () and not receiver.is_my_turn
    push(g, "give:S7")
    third = json.dumps(g.view(2).to_dict())
    assert "S7" not in third  # the card handed over is not named to the third seat
    assert "S7" in json.dumps(g.view(1).to_dict()["history"])
    assert "S7" in json.dumps(g.view(0).to_dict()["history"])


def test_drawn_card_only_seen_by_the_drawer() -> None:
    g = Game(preset("kahdestaan-pakka"), 2, seed=1)
    for _ in range(200):
        if g.is_over():
            break
        m = g.legal_moves()[0]
        g.push(m)
        if m.kind == "draw":
            drawer = g.events[-1].seat
            card = str(g.events[-1].card)
            assert g.view(drawer).history[-1]["card"] == card
            assert "card" not in g.view(1 - drawer).history[-1]
            assert g.view(1 - drawer).stock_size == len(g.stock)
            break
    else:
        pytest.fail("no draw happened")


def test_view_result_at_the_end() -> None:
    g = Game(Rules(), 4, seed=3)
    while not g.is_over():
        g.push(g.legal_moves()[0])
    v = g.view(1)
    assert v.result == g.result and v.phase == "over" and v.legal_moves == ()
    assert v.to_dict()["result"] == g.result.to_dict()

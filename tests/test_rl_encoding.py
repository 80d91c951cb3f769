"""The shared action table and observation layout (ristiseiska.rl.encoding): action id <->
Move round trips, masks, observation <-> view, and no hidden card in any observation. Needs
only numpy (no RL library)."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ristiseiska.bots.knowledge import infer
from ristiseiska.cards import parse_card
from ristiseiska.game import Game
from ristiseiska.moves import Move
from ristiseiska.rl.encoding import ActionError, Encoding
from ristiseiska.rules import PRESETS, preset


def players_for(name: str) -> int:
    r = preset(name)
    return max(r.min_players, min(4, r.max_players))


def random_positions(name: str, seed: int, every: int = 1):
    """(game, encoding) at every ``every``-th decision of a random deal."""
    r = preset(name)
    n = players_for(name)
    enc = Encoding(r, n)
    rng = random.Random(seed)
    g = Game(r, n, seed=seed, dealer=seed % n)
    k = 0
    while not g.is_over():
        if k % every == 0:
            yield g, enc
        g.push(rng.choice(g.legal_moves()))
        k += 1


def same_place(a: Move, b: Move) -> bool:
    """Equal, or the two alike jokers standing for the same card in the same place."""
    if a == b:
        return True
    return (a.kind == b.kind and a.card is not None and b.card is not None
            and a.card.is_joker and b.card.is_joker and a.row == b.row and a.end == b.end
            and a.as_ == b.as_)


def test_default_table_is_the_documented_one() -> None:
    enc = Encoding(preset("ristiseiska"), 4)
    assert enc.num_actions == 110 and enc.obs_size == 192
    assert enc.move_to_action(Move.play(parse_card("C7"))) == 6
    assert [enc.move_to_action(m) for m in (Move.stop(), Move.token(), Move.pass_(),
                                            Move.chip(), Move.ask(), Move.draw())] == list(
        range(52, 58))
    assert enc.move_to_action(Move.give(parse_card("SK"))) == 58 + 51
    assert enc.describe_action(58 + 51) == "give:SK"
    assert enc.describe_action(6) == "C7"


@pytest.mark.parametrize("name", list(PRESETS))
def test_action_round_trip_and_mask(name: str) -> None:
    for seed in range(3):
        for g, enc in random_positions(name, seed):
            legal = g.legal_moves()
            ids = [enc.move_to_action(m) for m in legal]
            assert all(0 <= a < enc.num_actions for a in ids)
            for m, a in zip(legal, ids, strict=True):
                back = enc.action_to_move(a, legal)
                assert same_place(back, m), (m, a, back)
                assert enc.describe_action(a) != "no such action"
            # distinct ids, except the two alike jokers
            plain = [a for m, a in zip(legal, ids, strict=True)
                     if not (m.card is not None and m.card.is_joker)]
            assert len(set(plain)) == len(plain)
            mask = enc.legal_mask(legal)
            assert mask.dtype == np.int8 and set(np.flatnonzero(mask)) == set(ids)
            illegal = int(np.flatnonzero(mask == 0)[0])
            with pytest.raises(ActionError, match="not a legal move"):
                enc.action_to_move(illegal, legal)


def test_bad_action_ids_are_refused() -> None:
    g = Game(preset("ristiseiska"), 4, seed=1)
    enc = Encoding(g.rules, 4)
    for bad in (-1, 110, 10**9, "C7", None, 2.5):
        with pytest.raises(ActionError):
            enc.action_to_move(bad, g.legal_moves())


@pytest.mark.parametrize("name", list(PRESETS))
def test_observation_reads_back_as_the_view(name: str) -> None:
    for g, enc in random_positions(name, 5, every=3):
        for seat in range(g.n):
            v = g.view(seat)
            obs = enc.observe(v)
            assert obs.shape == (enc.obs_size,) and obs.dtype == np.float32
            d = enc.read_observation(obs, seat)
            own = sorted(enc.card_type(int(c)) for c in v.hand if not c.is_joker)
            assert sorted(enc.card_type(int(c)) for c in d["hand"]) == own
            down = sorted(enc.card_type(int(c)) for row in v.rows for c in row.cards
                          if not c.is_joker)
            assert sorted(enc.card_type(int(c)) for c in d["table"]) == down
            assert d["playable"] == v.table.playable
            assert d["hand_sizes"] == list(v.hand_sizes)
            assert d["token_holder"] == v.token_holder
            fines = list(v.token_fines) if v.rules.fines_per_miss else [0] * g.n
            assert d["chips"] == [c + f for c, f in zip(v.chips_paid, fines, strict=True)]
            assert d["pot"] == v.pot
            assert d["phase"] == v.phase
            assert d["asking_seat"] == (v.turn_seat if v.phase == "give" else None)
            assert d["stock_size"] == v.stock_size
            assert d["start_rank"] == v.table.start_rank
            assert d["ace_end"] == v.table.ace_end
            if enc.jokers:
                assert d["jokers_in_hand"] == sum(1 for c in v.hand if c.is_joker)


@pytest.mark.parametrize("name", list(PRESETS))
def test_observation_carries_no_hidden_card(name: str) -> None:
    """Redeal every card the seat cannot see (as its view allows): the observation stays
    the same, so it cannot depend on the hidden cards."""
    rng = random.Random(3)
    checked = 0
    for g, enc in random_positions(name, 7, every=5):
        seat = g.to_move
        v = g.view(seat)
        hands, stock = infer(v).sample(rng)
        hands = [list(h) for h in hands]
        hands[seat] = list(v.hand)
        other = Game.from_view(v, hands, stock)
        assert np.array_equal(enc.observe(other.view(seat)), enc.observe(v))
        # and the hand block is exactly the seat's own cards
        h0, size = enc.offsets["hand"]
        held = {enc.card_type(int(c)) for c in v.hand if not c.is_joker}
        assert {int(t) for t in np.flatnonzero(enc.observe(v)[h0:h0 + size])} == held
        checked += 1
    assert checked > 0


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10**6), name=st.sampled_from(list(PRESETS)))
def test_every_legal_move_has_its_own_action(seed: int, name: str) -> None:
    for g, enc in random_positions(name, seed, every=4):
        legal = g.legal_moves()
        for m in legal:
            assert same_place(enc.action_to_move(enc.move_to_action(m), legal), m)

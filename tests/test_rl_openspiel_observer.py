"""The OpenSpiel observer honours IIGObservationType setting by setting (issue 59), as
pyspiel's python_kuhn_poker does: public_info, private_info, perfect_recall."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed")
from open_spiel.python.observation import make_observation  # noqa: E402

import ristiseiska.rl.openspiel  # noqa: E402,F401

PRIVATE = {"none": pyspiel.PrivateInfoType.NONE,
           "single": pyspiel.PrivateInfoType.SINGLE_PLAYER,
           "all": pyspiel.PrivateInfoType.ALL_PLAYERS}


@pytest.fixture(scope="module")
def game():
    return pyspiel.load_game("python_ristiseiska", {"preset": "ristiseiska", "players": 4})


@pytest.fixture(scope="module")
def midgame(game):
    rs = np.random.RandomState(3)
    state = game.new_initial_state()
    plays = 0
    while plays < 12 and not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(int(rs.choice([a for a, _ in state.chance_outcomes()])))
        else:
            state.apply_action(int(rs.choice(state.legal_actions())))
            plays += 1
    assert not state.is_terminal()
    return state


def _obs(game, public: bool, private: str, recall: bool):
    return make_observation(game, pyspiel.IIGObservationType(
        public_info=public, perfect_recall=recall, private_info=PRIVATE[private]))


@pytest.mark.parametrize("public, private, recall",
                         list(itertools.product((True, False), PRIVATE, (True, False))))
def test_each_setting(game, midgame, public, private, recall) -> None:
    obs = _obs(game, public, private, recall)
    obs.set_from(midgame, 1)
    d = obs.dict
    assert ("hands" in d) == (private == "all")
    assert ("dealt" in d) == ("history" in d) == recall
    assert d["hand"].any() == (private != "none")
    assert d["table"].any() == d["sizes"].any() == public
    if recall:
        assert d["dealt"].any() == (private != "none")
        assert d["history"].any() == public
    if private == "all":
        # three other hands: every card not on the table nor in the observer's hand
        view = midgame._g.view(1)
        others = d["hands"].reshape(3, -1).sum()
        assert others == 52 - sum(len(r.cards) for r in view.rows) - len(view.hand)
        assert others == sum(view.hand_sizes) - len(view.hand)
    text = obs.string_from(midgame, 1)
    assert text.startswith("p1")
    assert ("hand:" in text) == (private != "none")
    assert ("hands:" in text) == (private == "all")
    assert ("history:" in text) == (public and recall)
    assert ("table:" in text) == (public and not recall)
    assert ("phase:" in text) == public


def test_the_defaults_are_unchanged(game, midgame) -> None:
    """pyspiel's observation_tensor and information_state_tensor use the default types: the
    encoding's vector, and the perfect-recall state with private and public information."""
    enc = midgame._cfg.encoding
    view = midgame._g.view(2)
    np.testing.assert_array_equal(np.asarray(midgame.observation_tensor(2)), enc.observe(view))
    full = _obs(game, True, "single", True)
    full.set_from(midgame, 2)
    np.testing.assert_array_equal(np.asarray(midgame.information_state_tensor(2)), full.tensor)
    assert midgame.information_state_string(2) == full.string_from(midgame, 2)


def test_public_observation_is_the_same_whoever_holds_what(game, midgame) -> None:
    """Without private information, two seats' strings differ only by the seat's number, and
    the tensor is the full one with the private slots zeroed."""
    pub = _obs(game, True, "none", True)
    a, b = pub.string_from(midgame, 0), pub.string_from(midgame, 3)
    assert a[2:] == b[2:]
    full = _obs(game, True, "single", False)
    full.set_from(midgame, 0)
    plain = _obs(game, True, "none", False)
    plain.set_from(midgame, 0)
    differ = np.flatnonzero(full.tensor != plain.tensor)
    hand_at, hand_size = midgame._cfg.encoding.offsets["hand"]
    assert differ.size and all(hand_at <= i < hand_at + hand_size for i in differ)


def test_a_given_card_is_private() -> None:
    """In the asking game a card handed over is seen by giver and receiver only: without
    private information their history shows it as the others see it."""
    game = pyspiel.load_game("python_ristiseiska", {"preset": "ristiseiska-pyynto", "players": 3})
    rs = np.random.RandomState(0)
    for _deal in range(40):
        state = game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rs.choice([a for a, _ in state.chance_outcomes()])))
                continue
            gives = [e for e in state._g.events if e.type == "give"]
            if gives:
                giver = gives[0].seat
                with_private = _obs(game, True, "single", True)
                public = _obs(game, True, "none", True)
                assert f"{giver}:give:card=" in with_private.string_from(state, giver)
                assert f"{giver}:give:" in public.string_from(state, giver)
                assert f"{giver}:give:card=" not in public.string_from(state, giver)
                with_private.set_from(state, giver)
                public.set_from(state, giver)
                assert not np.array_equal(with_private.dict["history"], public.dict["history"])
                return
            state.apply_action(int(rs.choice(state.legal_actions())))
    pytest.fail("no card was given in 40 deals")

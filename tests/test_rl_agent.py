"""A Gymnasium-style policy played as a bot (issue 59): rl/agent.py."""

from __future__ import annotations

import sys
import textwrap

import gymnasium
import numpy as np
import pytest

import ristiseiska.rl  # noqa: F401 - registers the Gymnasium id
from ristiseiska.bots.plugins import IllegalMove, make_bot
from ristiseiska.game import Game
from ristiseiska.rl import GYM_ID
from ristiseiska.rl.agent import AgentBot
from ristiseiska.rules import Rules
from ristiseiska.tournament import run_tournament


class LinearPolicy:
    """A tiny numpy policy with an SB3-like predict: masked argmax of W @ x."""

    def __init__(self, obs_size: int, actions: int, seed: int = 0) -> None:
        self.W = np.random.default_rng(seed).normal(size=(actions, obs_size)).astype(np.float32)
        self.seen: list[dict[str, np.ndarray]] = []

    def predict(self, obs, action_masks=None, deterministic=True):
        self.seen.append(obs)
        logits = self.W @ obs["observation"]
        logits[np.asarray(action_masks) == 0] = -np.inf
        return np.array(int(np.argmax(logits))), None


def test_same_observation_and_action_ids_as_the_gym_env() -> None:
    env = gymnasium.make(GYM_ID, preset="ristiseiska", players=4, opponents="random").unwrapped
    obs, _ = env.reset(seed=5)
    pol = LinearPolicy(env.encoding.obs_size, env.encoding.num_actions)
    bot = AgentBot(pol, seed=1)
    for _ in range(200):
        view = env.game.view(env.seat)
        move = bot.choose(view)
        seen = pol.seen[-1]
        np.testing.assert_array_equal(seen["observation"], obs["observation"])
        np.testing.assert_array_equal(seen["action_mask"], obs["action_mask"])
        action, _ = pol.predict(obs, action_masks=obs["action_mask"])
        assert env.encoding.action_to_move(int(action), view.legal_moves) == move
        obs, _, term, trunc, info = env.step(int(action))
        assert not info.get("illegal")
        if term or trunc:
            break
    else:
        pytest.fail("the deal never ended")


def test_a_plain_callable_and_an_illegal_action() -> None:
    g = Game(Rules(), 4, seed=3)
    v = g.view(g.to_move)
    last = AgentBot(lambda obs: int(np.flatnonzero(obs["action_mask"])[-1]), seed=1)
    assert last.choose(v) in v.legal_moves
    masked_out = AgentBot(lambda obs: int(np.flatnonzero(obs["action_mask"] == 0)[0]))
    with pytest.raises(IllegalMove, match="not legal"):
        masked_out.choose(v)
    with pytest.raises(ValueError, match="needs a policy"):
        AgentBot(None)


AGENT_MODULE = '''
import numpy as np
from ristiseiska.rl.agent import AgentBot

class Greedy(AgentBot):
    """the first legal action: a stand-in for a trained model loaded from a file"""
    def __init__(self, seed=None):
        super().__init__(lambda obs: int(np.flatnonzero(obs["action_mask"])[0]), seed=seed)

class Masked(AgentBot):
    def __init__(self, seed=None):
        super().__init__(lambda obs: int(np.flatnonzero(obs["action_mask"] == 0)[0]), seed=seed)
'''


def test_agents_play_a_tournament_as_plugins(tmp_path, monkeypatch) -> None:
    (tmp_path / "p59agents.py").write_text(textwrap.dedent(AGENT_MODULE))
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        t = run_tournament(Rules(), ["p59agents:Greedy", "p59agents:Masked", "expert"], games=2,
                           seed=1, workers=1)
        s = t.stats()
        assert s["p59agents:Greedy"]["faults"] == {}
        assert s["p59agents:Masked"]["faults"]["illegal"] == s["p59agents:Masked"]["decisions"] > 0
        assert isinstance(make_bot("p59agents:Greedy", seed=1).inner, AgentBot)
    finally:
        sys.modules.pop("p59agents", None)


def test_module_example() -> None:
    import doctest

    import ristiseiska.rl.agent

    failures, tried = doctest.testmod(ristiseiska.rl.agent)
    assert failures == 0 and tried > 0

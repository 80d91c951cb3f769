"""The PettingZoo AEC environment: one deal per episode on the full engine, every rule set.

    >>> from ristiseiska.rl import env
    >>> e = env(preset="ristiseiska", players=4)
    >>> e.reset(seed=1)
    >>> for agent in e.agent_iter():
    ...     obs, reward, term, trunc, info = e.last()
    ...     action = None if term or trunc else int(obs["action_mask"].nonzero()[0][0])
    ...     e.step(action)

Agents are ``player_0 … player_{n-1}`` (seat numbers); the agent to act is the seat the engine
says is to move (the giver while a card is being given). Observations are
``{"observation": Box(float32), "action_mask": Box(int8)}`` from :mod:`.encoding`, built from
that seat's view only. Rewards come at the end of the deal (``reward="points"``: minus the
deal's points; ``"win"``: 1 for the winner). An illegal action ends the deal: the seat that
made it gets ``illegal_reward`` and the others 0.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ..game import Game
from .common import ILLEGAL_REWARD, check_reward, deal_rewards, next_deal, resolve_rules
from .encoding import ActionError, Encoding


class RistiseiskaAEC(AECEnv):  # type: ignore[misc]
    metadata = {"name": "ristiseiska_v0", "render_modes": ["ansi", "human"], "is_parallelizable": False,
                "render_fps": 1}

    def __init__(self, preset: str = "ristiseiska", players: int = 4, rules: Any = None,
                 render_mode: str | None = None, reward: str = "points",
                 illegal_reward: float | None = None, max_cycles: int | None = None,
                 knowledge: int | None = None) -> None:
        super().__init__()
        self.rules = resolve_rules(preset, rules)
        self.rules.check_players(players)
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        if max_cycles is not None and max_cycles < 1:
            raise ValueError(f"max_cycles must be at least 1, not {max_cycles}")
        self.render_mode = render_mode
        self.reward_mode = check_reward(reward)
        self.illegal_reward = (ILLEGAL_REWARD[reward] if illegal_reward is None
                               else float(illegal_reward))
        self.max_cycles = max_cycles
        self.n = players
        if knowledge is not None and (not isinstance(knowledge, int) or knowledge < 0):
            raise ValueError(f"knowledge must be a number of last plays (0 or more) or None, "
                             f"not {knowledge!r}")
        # knowledge=k: the optional knowledge block (docs/rl.md) with the last k plays
        self.encoding = Encoding(self.rules, players, knowledge)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        A, D = self.encoding.num_actions, self.encoding.obs_size
        obs_space = spaces.Dict({
            "observation": spaces.Box(0.0, np.inf, (D,), np.float32),
            "action_mask": spaces.Box(0, 1, (A,), np.int8),
        })
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(A) for a in self.possible_agents}
        self._rng = np.random.default_rng()
        self.game: Game | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    # -- episode ----------------------------------------------------------------------------
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        deal_seed, dealer = next_deal(self._rng, self.n)
        self.game = Game(self.rules, self.n, seed=deal_seed, dealer=dealer)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self._decisions = [0] * self.n
        self.agent_selection = self._agent(self.game.to_move)

    def _agent(self, seat: int) -> str:
        return self.possible_agents[seat]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.game is not None, "call reset() first"
        seat = self.possible_agents.index(agent)
        view = self.game.view(seat)
        return {"observation": self.encoding.observe(view),
                "action_mask": self.encoding.legal_mask(view.legal_moves)}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        g = self.game
        assert g is not None
        seat = self.possible_agents.index(agent)
        self._cumulative_rewards[agent] = 0.0
        self.rewards = dict.fromkeys(self.agents, 0.0)
        try:
            move = self.encoding.action_to_move(action, g.legal_moves())
        except ActionError as e:
            self.rewards[agent] = self.illegal_reward
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a] = {"illegal": a == agent, "reason": str(e)}
            self._accumulate_rewards()
            return
        g.push(move)
        self._decisions[seat] += 1
        if g.is_over():
            assert g.result is not None
            for s, r in enumerate(deal_rewards(g.result, self.n, self.reward_mode)):
                self.rewards[self._agent(s)] = r
            for a in self.agents:
                self.terminations[a] = True
                self.infos[a] = {"result": g.result.to_dict()}
        elif self.max_cycles is not None and min(self._decisions) >= self.max_cycles:
            for a in self.agents:
                self.truncations[a] = True
        self.agent_selection = self._agent(g.to_move) if not g.is_over() else agent
        self._accumulate_rewards()

    def render(self) -> str | None:
        """``"ansi"``: the table as text; ``"human"``: the same printed; ``None``: nothing."""
        if self.render_mode is None or self.game is None:
            return None
        text = render_text(self.game)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

    def close(self) -> None:
        pass


def render_text(game: Game) -> str:
    """The table, the hand sizes and the hand of the seat to move, as plain text."""
    lines = []
    view = game.view(game.to_move)
    for row in view.rows:
        cards = " ".join(str(c) for c in row.cards) or "-"
        lines.append(f"row {row.row}: {cards}")
    sizes = ", ".join(f"{name}: {k}" for name, k in zip(game.names, view.hand_sizes, strict=True))
    lines.append(f"cards in hand: {sizes}")
    if game.token_holder is not None:
        lines.append(f"token: {game.names[game.token_holder]}")
    if game.is_over():
        assert game.result is not None
        lines.append(f"over: points {list(game.result.points)}")
    else:
        lines.append(f"to move: {game.names[game.to_move]} ({game.phase}), hand: "
                     + " ".join(str(c) for c in view.hand))
        lines.append("legal: " + " ".join(str(m) for m in view.legal_moves))
    return "\n".join(lines)


def env(**kwargs: Any) -> RistiseiskaAEC:
    """``RistiseiskaAEC(**kwargs)`` (PettingZoo's factory convention)."""
    return RistiseiskaAEC(**kwargs)


raw_env = env

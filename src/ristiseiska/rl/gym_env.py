"""The Gymnasium single-agent environment: one seat learns, our bots play the others.

    >>> import gymnasium, ristiseiska.rl
    >>> e = gymnasium.make("ristiseiska/Ristiseiska-v0", preset="ristiseiska", players=4,
    ...                    opponents=("expert", "random", "random"))
    >>> obs, info = e.reset(seed=1)

``opponents``: one bot per other seat (or one name for all), written as in ``ristiseiska
tournament``: ``"expert"``, ``"master:iterations=50"``, ``"policy:path=policy.npz"``.
Observation and actions as in :mod:`.encoding` (the same Dict as the PettingZoo env). One
episode is one deal; the learner's seat (``seat``, default 0) acts whenever the engine says
it is to move. The reward comes at the end of the deal (``reward="points"``: minus the
learner's points; ``"win"``: 1 if it won). An illegal action ends the episode at once with
``illegal_reward`` (default -200 for points, -1 for win) and ``info["illegal"] = True``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces

from ..bots.plugins import make_bot
from ..game import Game
from ..tournament import parse_bot_spec
from .common import ILLEGAL_REWARD, check_reward, deal_rewards, next_deal, resolve_rules
from .encoding import ActionError, Encoding


class RistiseiskaGym(gymnasium.Env):
    metadata = {"render_modes": ["ansi", "human"], "render_fps": 1}

    def __init__(self, preset: str = "ristiseiska", players: int = 4, rules: Any = None,
                 opponents: Sequence[str] | str = "random", seat: int = 0,
                 reward: str = "points", illegal_reward: float | None = None,
                 render_mode: str | None = None, knowledge: int | None = None) -> None:
        self.rules = resolve_rules(preset, rules)
        self.rules.check_players(players)
        self.n = players
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be a seat from 0 to {players - 1}, not {seat!r}")
        self.seat = seat
        names = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
        if len(names) != players - 1:
            raise ValueError(f"give one opponent per other seat ({players - 1}), not {len(names)}")
        # bot specs as in the tournament: "expert", "master:iterations=50",
        # "policy:path=policy.npz" (unknown names and options are refused here)
        self.opponent_specs = [parse_bot_spec(str(name)) for name in names]
        self.opponent_names = names
        if render_mode not in (None, "ansi", "human"):
            raise ValueError(f"render_mode must be None, 'ansi' or 'human', not {render_mode!r}")
        self.render_mode = render_mode
        self.reward_mode = check_reward(reward)
        self.illegal_reward = (ILLEGAL_REWARD[reward] if illegal_reward is None
                               else float(illegal_reward))
        if knowledge is not None and (not isinstance(knowledge, int) or knowledge < 0):
            raise ValueError(f"knowledge must be a number of last plays (0 or more) or None, "
                             f"not {knowledge!r}")
        # knowledge=k: the optional knowledge block (docs/rl.md) with the last k plays
        self.encoding = Encoding(self.rules, players, knowledge)
        A, D = self.encoding.num_actions, self.encoding.obs_size
        self.observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, np.inf, (D,), np.float32),
            "action_mask": spaces.Box(0, 1, (A,), np.int8),
        })
        self.action_space = spaces.Discrete(A)
        self.game: Game | None = None
        self._bots: dict[int, Any] = {}
        self._abandoned = False

    def _obs(self) -> dict[str, np.ndarray]:
        assert self.game is not None
        view = self.game.view(self.seat)
        return {"observation": self.encoding.observe(view),
                "action_mask": self.encoding.legal_mask(view.legal_moves)}

    def _play_others(self) -> None:
        g = self.game
        assert g is not None
        while not g.is_over() and g.to_move != self.seat:
            s = g.to_move
            g.push(self._bots[s].choose(g.view(s)))

    def _final(self) -> float:
        g = self.game
        assert g is not None and g.result is not None
        return deal_rewards(g.result, self.n, self.reward_mode)[self.seat]

    def reset(self, *, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray], dict[str, Any]]:
        super().reset(seed=seed)
        others = [s for s in range(self.n) if s != self.seat]
        while True:
            deal_seed, dealer = next_deal(self.np_random, self.n)
            self.game = Game(self.rules, self.n, seed=deal_seed, dealer=dealer)
            self._abandoned = False
            self._bots = {s: make_bot(name, seed=int(self.np_random.integers(0, 1 << 62)),
                                      **opts)
                          for s, (name, opts) in zip(others, self.opponent_specs, strict=True)}
            self._play_others()
            # A deal the others finish before the learner's first move (possible in a short
            # stock game) is no episode: deal again, so reset never returns a finished deal.
            if not self.game.is_over():
                break
        if self.render_mode == "human":
            self.render()
        # Only what the learner's seat may know: the deal's seed (from which every hidden
        # hand follows) is never given out.
        return self._obs(), {"dealer": dealer}

    def action_masks(self) -> np.ndarray:
        """The legal actions now (1 = legal), as MaskablePPO (sb3-contrib) asks for them."""
        g = self.game
        if g is None or g.is_over() or self._abandoned:
            return np.zeros(self.encoding.num_actions, np.int8)
        return self.encoding.legal_mask(g.view(self.seat).legal_moves)

    def step(self, action: Any) -> tuple[dict[str, np.ndarray], float, bool, bool, dict[str, Any]]:
        g = self.game
        if g is None:
            raise RuntimeError("call reset() before step()")
        if g.is_over() or self._abandoned:
            raise RuntimeError("the episode is over: call reset()")
        try:
            move = self.encoding.action_to_move(action, g.legal_moves())
        except ActionError as e:
            self._abandoned = True  # the deal ends here; no move was applied
            return self._obs_over(), self.illegal_reward, True, False, {"illegal": True,
                                                                          "reason": str(e)}
        g.push(move)
        self._play_others()
        if self.render_mode == "human":
            self.render()
        if g.is_over():
            assert g.result is not None
            return self._obs(), self._final(), True, False, {"result": g.result.to_dict()}
        return self._obs(), 0.0, False, False, {}

    def _obs_over(self) -> dict[str, np.ndarray]:
        o = self._obs()
        o["action_mask"] = np.zeros_like(o["action_mask"])
        return o

    def render(self) -> str | None:
        """``"ansi"``: the table as text; ``"human"``: the same printed (also after every
        step); ``None``: nothing."""
        if self.render_mode is None or self.game is None:
            return None
        from .aec import render_text

        text = render_text(self.game)
        if self.render_mode == "human":
            print(text + "\n")
            return None
        return text

"""The PettingZoo parallel API over the AEC environment: every live agent is asked for an
action each step, and only the seat to move acts.

    >>> from ristiseiska.rl import parallel_env
    >>> e = parallel_env(preset="ristiseiska", players=4)
    >>> obs, infos = e.reset(seed=1)
    >>> while e.agents:
    ...     actions = {a: int(obs[a]["action_mask"].argmax()) for a in e.agents}
    ...     obs, rewards, terms, truncs, infos = e.step(actions)

Ristiseiska is a turn-based game, so a step is one decision: the action of the agent to move
(``infos[agent]["to_move"]`` names it, and its ``action_mask`` is the only one with a legal
action; every other agent's mask is all zeros) is played and the others' actions are ignored
(they may be left out). Observations, rewards and the end of the deal are those of the AEC
environment (:mod:`.aec`), which takes the same keyword arguments; after the last step
``agents`` is empty. ``max_cycles`` truncates the deal after that many steps.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

from .aec import RistiseiskaAEC


class RistiseiskaParallel(ParallelEnv):  # type: ignore[misc]
    metadata = {"name": "ristiseiska_parallel_v0", "render_modes": ["ansi", "human"],
                "render_fps": 1}

    def __init__(self, **kwargs: Any) -> None:
        self.max_cycles: int | None = kwargs.pop("max_cycles", None)
        if self.max_cycles is not None and self.max_cycles < 1:
            raise ValueError(f"max_cycles must be at least 1, not {self.max_cycles}")
        self.aec = RistiseiskaAEC(**kwargs)
        self.possible_agents = list(self.aec.possible_agents)
        self.agents: list[str] = []
        self.render_mode = self.aec.render_mode
        self._steps = 0

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.aec.observation_space(agent)

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.aec.action_space(agent)

    @property
    def to_move(self) -> str | None:
        """The agent whose action the next step plays (``None`` once the deal is over)."""
        return self.aec.agent_selection if self.agents else None

    def _infos(self) -> dict[str, dict[str, Any]]:
        mover = self.to_move
        return {a: {**self.aec.infos.get(a, {}), "to_move": mover} for a in self.agents}

    def reset(self, seed: int | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        self.aec.reset(seed=seed, options=options)
        self.agents = list(self.aec.agents)
        self._steps = 0
        return {a: self.aec.observe(a) for a in self.agents}, self._infos()

    def step(self, actions: dict[str, Any]) -> tuple[dict[str, Any], dict[str, float],
                                                     dict[str, bool], dict[str, bool],
                                                     dict[str, Any]]:
        if not self.agents:
            raise RuntimeError("the deal is over: call reset()")
        mover = self.aec.agent_selection
        if not isinstance(actions, dict) or actions.get(mover) is None:
            raise ValueError(f"{mover} is to move and needs an action in the step's dict")
        self.aec.step(actions[mover])
        self._steps += 1
        live = self.agents
        obs = {a: self.aec.observe(a) for a in live}
        rewards = {a: float(self.aec.rewards.get(a, 0.0)) for a in live}
        terms = {a: bool(self.aec.terminations.get(a, False)) for a in live}
        truncs = {a: bool(self.aec.truncations.get(a, False)) for a in live}
        if self.max_cycles is not None and self._steps >= self.max_cycles and not any(terms.values()):
            truncs = dict.fromkeys(live, True)
        done = any(terms.values()) or any(truncs.values())
        if done:  # a deal ends for everyone at once: its masks say nobody is to move
            for a in live:
                obs[a] = {**obs[a], "action_mask": np.zeros_like(obs[a]["action_mask"])}
            self.agents = []
        infos = {a: {**self.aec.infos.get(a, {}),
                     "to_move": None if done else self.aec.agent_selection} for a in live}
        return obs, rewards, terms, truncs, infos

    def render(self) -> str | None:
        return self.aec.render()

    def close(self) -> None:
        self.aec.close()


def parallel_env(**kwargs: Any) -> RistiseiskaParallel:
    """``RistiseiskaParallel(**kwargs)`` (PettingZoo's factory convention)."""
    return RistiseiskaParallel(**kwargs)

"""Shared pieces of the environments: rule sets by name, rewards, seeds (no RL library)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from ..rules import Rules, RulesError, preset

REWARDS = ("points", "win")
# An illegal action ends the deal; the seat that made it gets this (per reward scheme).
ILLEGAL_REWARD = {"points": -200.0, "win": -1.0}


def resolve_rules(preset_name: str | None = "ristiseiska", rules: Any = None) -> Rules:
    """A rule set from a preset name and optional overrides (a :class:`Rules`, which wins, or
    a mapping of option = value on top of the preset)."""
    if isinstance(rules, Rules):
        return rules
    base = preset(preset_name or "ristiseiska")
    if rules is None:
        return base
    if not isinstance(rules, Mapping):
        raise RulesError("rules must be a Rules object or a mapping of option = value")
    return Rules.from_dict(dict(rules), base=base)


def check_reward(reward: str) -> str:
    if reward not in REWARDS:
        raise ValueError(f"reward must be one of {', '.join(REWARDS)}, not {reward!r}")
    return reward


def deal_rewards(result: Any, players: int, reward: str) -> list[float]:
    """Per seat reward of a finished deal: ``points``: minus the deal's points (lower points
    are better, so higher reward is better); ``win``: 1 for the winner, 0 for the others."""
    if reward == "win":
        return [1.0 if result.winner == s else 0.0 for s in range(players)]
    return [float(-p) for p in result.points]


def next_deal(rng: np.random.Generator, players: int) -> tuple[int, int]:
    """A deal seed and a dealer from the environment's generator."""
    return int(rng.integers(0, 1 << 62)), int(rng.integers(0, players))

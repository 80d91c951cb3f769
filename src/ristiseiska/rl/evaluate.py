"""Play a trained policy against our bots on the full engine (the Gymnasium env) and count.

    >>> from ristiseiska.rl.evaluate import evaluate
    >>> stats = evaluate(lambda obs, mask: int(mask.nonzero()[0][0]), opponents="expert",
    ...                  deals=200, seed=1)
    >>> stats["win_rate"], stats["points"]

``policy(obs, mask) -> action`` gets one observation vector and its mask (int8). Used by the
examples in ``examples/`` for the baseline table of docs/rl.md.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """The 95% Wilson interval of a win rate."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    d = 1 + z * z / n
    c = (p + z * z / (2 * n)) / d
    h = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / d
    return c - h, c + h


def evaluate(policy: Callable[[np.ndarray, np.ndarray], Any], *, preset: str = "ristiseiska",
             players: int = 4, opponents: str | Sequence[str] = "random", deals: int = 500,
             seed: int = 0, knowledge: int | None = None) -> dict[str, Any]:
    """Play ``deals`` deals (seat 0, every deal from ``seed``), return the win rate with its
    95% interval and the mean points a deal (lower is better)."""
    import gymnasium

    from . import GYM_ID

    env = gymnasium.make(GYM_ID, preset=preset, players=players, opponents=opponents,
                         reward="points", knowledge=knowledge).unwrapped
    wins = 0
    points: list[float] = []
    for k in range(deals):
        obs, _ = env.reset(seed=seed * 1_000_003 + k)
        done = False
        reward = 0.0
        while not done:
            a = int(policy(obs["observation"], obs["action_mask"]))
            obs, r, term, trunc, info = env.step(a)
            reward = float(r)
            done = term or trunc
        res = info.get("result", {})
        wins += res.get("winner") == 0
        points.append(-float(reward))
    lo, hi = wilson(wins, deals)
    return {"deals": deals, "win_rate": wins / deals, "win_ci": (lo, hi),
            "points": float(np.mean(points)),
            "points_ci": 1.96 * float(np.std(points)) / math.sqrt(max(1, deals))}


__all__ = ["evaluate", "wilson"]

"""Play a trained policy against our bots on the full engine and count.

    >>> from ristiseiska.rl.evaluate import evaluate
    >>> stats = evaluate(lambda obs, mask: int(mask.nonzero()[0][0]), opponents="expert",
    ...                  deals=3, seed=1)
    >>> stats["seat_deals"], stats["duplicate"]
    (12, True)

``policy(obs, mask) -> action`` gets one observation vector and its mask (int8), as the
Gymnasium environment gives them, and answers with an action id of :mod:`.encoding`.

By default the deals are duplicate (docs/rl.md, *Evaluating a policy*): deal ``i`` is dealt
from :func:`~ristiseiska.sim.derive_seed` ``(seed, i)`` with dealer ``i mod n``, as in
``ristiseiska tournament --duplicate``, and played once with the policy in every seat, the
opponents in the other seats in the order given starting from the policy's left, so that the
luck of the cards cancels. The intervals come from the per-deal means over the seats (the
plays of one deal are not independent). A masked-out action is counted in ``illegal`` and
played by the ``basic`` bot instead. ``duplicate=False`` is the older measure: the policy in
seat 0 of the Gymnasium environment, one play a deal (an illegal action ends that deal).
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
             seed: int = 0, knowledge: int | None = None,
             duplicate: bool = True) -> dict[str, Any]:
    """Play ``deals`` deals from ``seed``, return the win rate with its 95% interval and the
    mean points a deal (lower is better) with the half-width of its 95% interval."""
    if not isinstance(deals, int) or deals < 1:
        raise ValueError(f"deals must be at least 1, not {deals!r}")
    if duplicate:
        return _duplicate(policy, preset, players, opponents, deals, seed, knowledge)
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
    return {"deals": deals, "seat_deals": deals, "duplicate": False, "win_rate": wins / deals,
            "win_ci": (lo, hi), "points": float(np.mean(points)),
            "points_ci": 1.96 * float(np.std(points)) / math.sqrt(max(1, deals))}


def _duplicate(policy: Callable[[np.ndarray, np.ndarray], Any], preset: str, players: int,
               opponents: str | Sequence[str], deals: int, seed: int,
               knowledge: int | None) -> dict[str, Any]:
    from ..bots import BasicBot
    from ..bots.plugins import IllegalMove, make_bot
    from ..game import Game
    from ..sim import derive_seed
    from ..tournament import parse_bot_spec
    from .agent import AgentBot
    from .common import resolve_rules

    rules = resolve_rules(preset)
    rules.check_players(players)
    names = [opponents] * (players - 1) if isinstance(opponents, str) else list(opponents)
    if len(names) != players - 1:
        raise ValueError(f"give one opponent per other seat ({players - 1}), not {len(names)}")
    specs = [parse_bot_spec(str(name)) for name in names]
    agent = AgentBot(lambda obs: policy(obs["observation"], obs["action_mask"]), seed=seed,
                     knowledge=knowledge)
    win_means: list[float] = []
    point_means: list[float] = []
    illegal = 0
    for i in range(deals):
        deal_seed = derive_seed(seed, i)
        wins = points = 0.0
        for me in range(players):
            g = Game(rules, players, seed=deal_seed, dealer=i % players)
            bots: dict[int, Any] = {}
            for k, (name, opts) in enumerate(specs):
                s = (me + 1 + k) % players
                bots[s] = make_bot(name, seed=derive_seed(deal_seed, 1 + me * players + s), **opts)
            stand_in = BasicBot(seed=derive_seed(deal_seed, me))
            while not g.is_over():
                s = g.to_move
                legal = g.legal_moves()
                if len(legal) == 1:
                    g.push(legal[0])
                    continue
                view = g.view(s)
                if s != me:
                    g.push(bots[s].choose(view))
                    continue
                try:
                    g.push(agent.choose(view))
                except IllegalMove:
                    illegal += 1
                    g.push(stand_in.choose(view))
            res = g.result
            assert res is not None
            if res.winner is not None:
                wins += res.winner == me
            else:  # nobody went out: the lowest points share the win
                low = min(res.points)
                wins += (res.points[me] == low) / sum(1 for p in res.points if p == low)
            points += float(res.points[me])
        win_means.append(wins / players)
        point_means.append(points / players)

    def ci(xs: list[float]) -> float:
        return 1.96 * float(np.std(xs, ddof=1)) / math.sqrt(len(xs)) if len(xs) > 1 else 0.0

    w = float(np.mean(win_means))
    return {"deals": deals, "seat_deals": deals * players, "duplicate": True, "win_rate": w,
            "win_ci": (max(0.0, w - ci(win_means)), min(1.0, w + ci(win_means))),
            "points": float(np.mean(point_means)), "points_ci": ci(point_means),
            "illegal": illegal}


__all__ = ["evaluate", "wilson"]

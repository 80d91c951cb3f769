"""Values of a seat's legal moves over sampled deals, by the compiled kernel's playouts.

Every move is made once, in the first deal, and its change of the hands carried to every deal
(:func:`ristiseiska.search.worlds_after`: only the mover's own, known cards move); then each
deal is played to its end ``rollouts`` times by the kernel policies ``policy`` (one per seat),
with the searching seat's next choices searched inside the playouts as ``lookahead`` says
(``(seat, choices, tries, win_bonus)``: each of its next ``choices`` options played out
``tries`` times in that deal and the best kept; ``choices`` 0 leaves them to the policy). All
moves share the same deals and playout seeds, so their differences are measured much more
precisely than their levels.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..moves import Move
from .worlds import game_of_world, worlds_after


def kernel_values(view: Any, legal: list[Move], masks: Any, rng: Any, *, policy: list[str],
                  rollouts: int, lookahead: tuple[int, int, int, float],
                  batches: int = 1) -> tuple[Any, Any]:
    """The seat's mean points and chance of going out first after each move of ``legal``, as
    two (moves × ``batches``) arrays: the deals ``masks`` (rows of seat hand masks,
    :meth:`ristiseiska.search.Sampler.masks`) split into ``batches`` independent batches, each
    with its own playout seed. A move that ends the deal has its one value in every batch.
    ``rng`` draws the stock's order and the seeds."""
    from .. import kernel

    me = view.seat
    n = view.players
    count = masks.shape[0]
    base = game_of_world(view, masks[0], rng)
    seeds = [rng.getrandbits(63) for _ in range(batches)]
    edges = np.linspace(0, count, batches + 1).astype(int)
    pts = np.zeros((len(legal), batches))
    wins = np.zeros((len(legal), batches))
    won = np.zeros(n)
    for i, m in enumerate(legal):
        g = base.copy()
        g.push(m)
        if g.is_over():  # the seat went out (or the deal ended): the same in every world
            assert g.result is not None
            pts[i, :] = float(g.result.points[me])
            wins[i, :] = float(g.result.winner == me)
            continue
        pos = kernel.position_from_game(g)
        hands = worlds_after(masks, base, g)
        for b in range(batches):
            pos["hands"] = np.ascontiguousarray(hands[edges[b]:edges[b + 1]])
            k = edges[b + 1] - edges[b]
            mean = kernel.rollout_values(**pos, n_rollouts=k * rollouts, seed=seeds[b],
                                         policy=policy, wins=won, lookahead=lookahead)
            pts[i, b] = float(mean[me])
            wins[i, b] = float(won[me])
    return pts, wins

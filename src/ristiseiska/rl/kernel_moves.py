# mypy: ignore-errors
# (numba-compiled code: numba types it)
"""The kernel policies' moves for chosen rows of a :class:`~ristiseiska.kernel.vecenv.VecEnv`,
made outside the kernel's own step: the vector environment plays its kernel-policy seats this
way when a ``"neural"`` opponent sits at the table, so that it sees (and tracks the public
knowledge of) every move. The same choice as the kernel's step makes for that seat, from the
row's own random stream (the card to give when asked and hoarding included:
``vecrows.choose_action``).
Numba's disk cache of this module does not notice a change of the functions it inlines from
``kernel/``: after editing them, delete the ``__pycache__`` folders or touch this file."""

from __future__ import annotations

import numpy as np
from numba import njit

from ..kernel import WEIGHTS
from ..kernel.vecrows import choose_action, row_playable


@njit(cache=True)
def _kernel_actions(rows, pols, n, st, hands, lines, poss, params, rng, behind, values, weights,
                    mask, out):
    for j in range(rows.shape[0]):
        i = rows[j]
        playable = row_playable(st, i, params, lines[i])
        out[j] = choose_action(i, n, pols[j], st, hands, playable, rng, behind, values,
                               weights, mask[i], poss, params)


def kernel_actions(vec, rows: np.ndarray, policy: int) -> np.ndarray:
    """The move of kernel policy ``policy`` (a code of :data:`ristiseiska.kernel.POLICIES`) for
    each of ``rows`` of ``vec`` (their seat to move is the policy's; their masks are current)."""
    rows = np.asarray(rows, np.int64)
    out = np.zeros(rows.shape[0], np.int64)
    pols = np.full(rows.shape[0], policy, np.int64)
    _kernel_actions(rows, pols, vec.n, vec.st, vec.hands, vec.lines, vec.poss, vec.params, vec.rng,
                    vec.behind, vec.values, WEIGHTS, vec.mask, out)
    return out

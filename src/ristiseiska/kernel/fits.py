# mypy: ignore-errors
# (numba-compiled code: numba types it)
"""What fits on the table (a suit's next cards along its line, the free Fan Tan line) and
what a seat may hold back instead of playing (hoarding), in the compiled kernel (numba)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import _ONE, _ZERO
from .codes import HOARD_678, HOARD_ANY, HOARD_NOT_7, ORDER_BOTH, ORDER_LOW_FIRST, P_CENTER, P_ORDER

_RANK7 = np.uint64(sum(1 << (s * 13 + 6) for s in range(4)))
_RANK678 = np.uint64(sum(1 << (s * 13 + r) for s in range(4) for r in (5, 6, 7)))


@njit(inline="always")
def suit_fits(s, lo, hi, params, line, opened):
    """The cards of suit ``s`` that fit on the table now (Table._row_fits)."""
    base = s * 13
    c = params[P_CENTER]
    lo_s = lo[s]
    if lo_s == 0:
        if opened:
            return _ONE << np.uint64(base + line[c - 1])
        return _ZERO
    hi_s = hi[s]
    order = params[P_ORDER]
    if order == ORDER_BOTH:
        low_ok = True
        high_ok = True
    elif order == ORDER_LOW_FIRST:
        low_ok = lo_s == c or hi_s > c or c == 13
        high_ok = lo_s < c or c == 1
    else:
        low_ok = hi_s > c or c == 13
        high_ok = hi_s == c or lo_s < c or c == 1
    m = _ZERO
    if lo_s > 1 and low_ok:
        m |= _ONE << np.uint64(base + line[lo_s - 2])
    if hi_s < 13 and high_ok:
        m |= _ONE << np.uint64(base + line[hi_s])
    return m


@njit(inline="always")
def _upward_line(start, line, pos_of):
    """Free Fan Tan: the line starts at rank ``start`` and wraps from the king to the ace."""
    for p in range(13):
        off = (start - 1 + p) % 13
        line[p] = off
        pos_of[off] = p + 1


@njit(inline="always")
def _may_hoard(lm, hoard):
    if hoard == HOARD_ANY:
        return True
    if hoard == HOARD_NOT_7:
        return (lm & _RANK7) == _ZERO
    if hoard == HOARD_678:
        return (lm & ~_RANK678) == _ZERO
    return False


@njit(inline="always")
def _shown_lacking(playable, hoard):
    """The cards a seat that took the token is seen not to hold: where hoarding is allowed it
    may have kept back cards it could hoard, so only those it could not (``knowledge``'s
    ``_mandatory_mask``: the others cannot tell a forced take from a hoard)."""
    if hoard == HOARD_ANY:
        return _ZERO
    if hoard == HOARD_NOT_7:
        return playable & _RANK7
    if hoard == HOARD_678:
        return playable & ~_RANK678
    return playable

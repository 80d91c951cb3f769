# mypy: ignore-errors
# (numba-compiled code: numba types it)
"""The playout policies' choices in the compiled kernel (numba): the heuristic rows of
weights (:data:`ristiseiska.kernel.WEIGHTS`), the expert bot's rule, hoarding and the card to
give when asked. :func:`~ristiseiska.kernel.playout.play_until` calls them."""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .bits import _ONE, _ZERO, next_random, popcount
from .codes import (
    AUX_HOLDER,
    HOARD_ANY,
    P_CENTER,
    P_HOARD,
    P_TOKEN_MODE,
    P_TOKEN_VALUE,
    TOKEN_PER_MISS,
)
from .fits import suit_fits

_URG1, _URG2, _URG3 = 1.0, 0.45, 0.15  # the expert bot's URGENCY by an opponent's hand size
_INV53 = 1.0 / 9007199254740992.0


@njit(inline="always")
def _behind_key(c, h, others, behind, w):
    """The heuristics' first measure of card ``c``: its own cards behind it (weight ``w[0]``)
    against the others' (``w[1]``)."""
    b = behind[c]
    return w[0] * popcount(b & h) - w[1] * popcount(b & others)


@njit(inline="always")
def _heuristic_pick(lm, h, hands, n, seat, behind, values, state, w):
    """An expert-like choice among the legal cards ``lm`` of ``seat`` (hand ``h``): prefer the
    card behind which (``behind[c]``: the cards that can only follow it) lie most of one's own
    cards (weight ``w[0]``) and fewest of the others' (``w[1]``; so sixes and eights stay
    back as blocks); when an opponent is down to two cards, dump expensive cards (``w[2]`` per
    point); ties are broken by noise of size ``w[3]``. Returns the new state, the chosen
    card's index among the bits of ``lm`` and its score. A seat's last card is always
    played: going out ends the deal in its favour, whatever the card opens for the others
    (after a closing card the score decides whether to go on, and it once let a seat stop
    with its last card playable)."""
    if popcount(h) == 1:
        return state, 0, 1e18
    others = _ZERO
    near = False
    for j in range(n):
        if j != seat:
            others |= hands[j]
            if popcount(hands[j]) <= 2:
                near = True
    best_k = 0
    best_key = -1e18
    m = lm
    i = 0
    while m != _ZERO:
        c = trailing_zeros(m)
        m &= m - _ONE
        key = _behind_key(c, h, others, behind, w)
        if near:
            key += w[2] * values[c]
        state, r = next_random(state)
        key += w[3] * np.float64(r >> np.uint64(11)) * _INV53
        if key > best_key:
            best_key = key
            best_k = i
        i += 1
    return state, best_k, best_key


@njit(inline="always")
def _threat(hands, n, seat, pool, excl, playable):
    """The expert bot's ``Features.threat``: how likely an opponent of ``seat`` with three
    cards or fewer goes out soon with ``playable`` on the table, each opponent's cards drawn
    from ``pool`` less what it is known not to hold (``excl``)."""
    safe = 1.0
    for j in range(n):
        if j == seat:
            continue
        k = popcount(hands[j])
        if k == 0 or k > 3:
            continue
        u = _URG1 if k == 1 else (_URG2 if k == 2 else _URG3)
        cands = pool & ~excl[j]
        total = popcount(cands)
        p = popcount(cands & playable) / total if total > 0 else 0.0
        safe *= 1.0 - u * (1.0 - (1.0 - p) ** k)
    return 1.0 - safe


@njit(inline="always")
def _expert_pick(lm, h, hands, n, seat, behind, values, w, lo, hi, params, line, pos_of, fits,
                 playable, excl, holder):
    """The expert bot's choice among the legal cards ``lm`` (``ExpertBot._score_play``, as
    far as the kernel's position holds it): weights ``w`` for the own and the others' cards
    freed behind the card and the own and others' cards it makes playable at once; a card's
    points count by how near someone is to going out, and opening a way out for an opponent
    who is nearly out costs half of what the seat still holds. Ties go to the lowest card.
    Returns the chosen card's index among the bits of ``lm``, its score and the threat now
    (the hoarding score needs it)."""
    others = _ZERO
    near = False
    for j in range(n):
        if j != seat:
            others |= hands[j]
            if popcount(hands[j]) <= 3:
                near = True
    t_now = _threat(hands, n, seat, others, excl, playable) if near else 0.0
    if popcount(h) == 1:  # its last card: going out beats everything
        return 0, 1000.0, t_now
    exposure = 0.0  # what it still stands to pay; only an opponent near going out makes it count
    if near:
        m = h
        while m != _ZERO:
            c = trailing_zeros(m)
            m &= m - _ONE
            exposure += values[c]
        if holder == seat:
            exposure += params[P_TOKEN_VALUE]
    best_k = 0
    best_key = -1e18
    m = lm
    i = 0
    while m != _ZERO:
        c = trailing_zeros(m)
        m &= m - _ONE
        s = c // 13
        key = _behind_key(c, h, others, behind, w)
        # the table after the card: its suit's new fits
        lo_s, hi_s = lo[s], hi[s]
        p = pos_of[c - s * 13]
        if lo_s == 0:
            lo[s] = p
            hi[s] = p
        elif p < lo_s:
            lo[s] = p
        else:
            hi[s] = p
        f2 = suit_fits(s, lo, hi, params, line, True)
        lo[s], hi[s] = lo_s, hi_s
        after = (playable & ~fits[s]) | f2
        new = after & ~playable
        key += w[2] * popcount(new & h) - w[3] * popcount(new & others)
        key += values[c] * (0.03 + t_now)
        if near:
            t_after = _threat(hands, n, seat, others, excl, after)
            if t_after > t_now:
                key -= (t_after - t_now) * exposure * 0.5
        if key > best_key:
            best_key = key
            best_k = i
        i += 1
    return best_k, best_key, t_now


@njit(inline="always")
def _hoard_pick(lm, h, hands, n, seat, behind, values, state, w, aux, params, cnt):
    """A heuristic seat that may take the token instead of a card (hoarding): it plays its
    best card (:func:`_heuristic_pick`) unless the token is already its own, so that taking
    it again costs nothing, and that card would help the others clearly more than itself
    (its score below ``-w[4]``), the expert bot's rule (with the token elsewhere a take
    costs half its points, and a fine or penalty always costs: the expert then never
    hoards). Returns the new state and the option: ``cnt`` takes the token. Without it every heuristic seat took the token at
    random, one choice in ``cnt + 1``, however much it cost."""
    state, k, key = _heuristic_pick(lm, h, hands, n, seat, behind, values, state, w)
    free = (aux[AUX_HOLDER] == seat and params[P_TOKEN_MODE] != TOKEN_PER_MISS
            and params[P_HOARD] != HOARD_ANY)
    if free and key < -w[4]:
        k = cnt
    return state, k


@njit(cache=True)  # a plain call: a give is rare next to the plays
def _give_pick(h, lo, hi, pos_of, params, playable, behind, values):
    """The card a sensible player gives when asked (the expert bot's rule): far from the
    table, expensive, not one that its own cards wait behind, not one that fits now. Without
    it every playout's giver handed over a random card, often one that fits at once, which
    the real players (and the expert) avoid."""
    best_c = np.int64(-1)
    best_key = -1e18
    center = params[P_CENTER]
    m = h
    while m != _ZERO:
        c = np.int64(trailing_zeros(m))
        m &= m - _ONE
        s = c // 13
        p = pos_of[c - s * 13]
        if lo[s] == 0:
            d = p - center if p > center else center - p
        elif p < lo[s]:
            d = lo[s] - p - 1
        elif p > hi[s]:
            d = p - hi[s] - 1
        else:
            d = 0
        key = d + 0.15 * values[c] - 1.5 * popcount(behind[c] & h)
        if (playable >> np.uint64(c)) & _ONE:
            key -= 3.0
        if key > best_key:
            best_key = key
            best_c = c
    return best_c

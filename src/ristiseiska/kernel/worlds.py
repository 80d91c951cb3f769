# mypy: ignore-errors
# (numba-compiled code: numba types it)
"""Compiled determinization for search bots: sampling the hidden hands and weighting the samples
by an opponent model, on one-deck bitboards.

The twins of :meth:`ristiseiska.bots.knowledge.Knowledge.sample` and
:meth:`~ristiseiska.bots.knowledge.Knowledge.seat_log_likelihoods` (same algorithm, same
model), about a hundred times faster, so that the ``master`` bot spends its time on playouts.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .bits import _ONE, _ZERO, below, kth_bit, mix64, popcount


@njit(cache=True)
def sample_hands(seed, count, n, me, pool, sizes, known, excl, free, free_excl, stock_size,
                 tries, out):
    """Fill ``out`` (count × n bitmasks; ``out[:, me]`` stays 0) with deals of the hidden
    cards ``pool`` (a bitmask): seat ``s`` gets ``known[s]`` and ``sizes[s]`` cards in all, of
    which at most ``free[s]`` (cards received unseen) avoid only ``free_excl[s]`` and the rest
    avoid ``excl[s]``; ``stock_size`` cards stay over. Most constrained slot first, uniformly
    among the eligible cards; after ``tries`` failures one deal drops the exclusions. Returns
    the number of deals that had to drop them."""
    state = mix64(np.uint64(seed))
    relaxed = 0
    all_known = _ZERO
    for s in range(n):
        all_known |= known[s]
    base = pool & ~all_known
    # slots: (seat, mask, count), sorted once by eligible cards minus need (as in Python)
    slot_seat = np.zeros(2 * n, np.int64)
    slot_mask = np.zeros(2 * n, np.uint64)
    slot_need = np.zeros(2 * n, np.int64)
    slot_key = np.zeros(2 * n, np.int64)
    ns = 0
    for s in range(n):
        if s == me:
            continue
        rest = sizes[s] - popcount(known[s])
        f = min(free[s], rest)
        if rest - f > 0:
            slot_seat[ns] = s
            slot_mask[ns] = excl[s]
            slot_need[ns] = rest - f
            ns += 1
        if f > 0:
            slot_seat[ns] = s
            slot_mask[ns] = free_excl[s]
            slot_need[ns] = f
            ns += 1
    for i in range(ns):
        slot_key[i] = popcount(base & ~slot_mask[i]) - slot_need[i]
    order = np.argsort(slot_key[:ns], kind="mergesort")
    for d in range(count):
        attempt = 0
        while True:
            relax = attempt >= tries
            avail = base
            ok = True
            for s in range(n):
                out[d, s] = known[s] if s != me else _ZERO
            for j in range(ns):
                i = order[j]
                s = slot_seat[i]
                elig = avail if relax else avail & ~slot_mask[i]
                need = slot_need[i]
                cnt = popcount(elig)
                if cnt < need:
                    ok = False
                    break
                for _ in range(need):
                    state, k = below(state, cnt)
                    c = kth_bit(elig, k)
                    bit = _ONE << np.uint64(c)
                    elig ^= bit
                    avail ^= bit
                    out[d, s] |= bit
                    cnt -= 1
            if ok and popcount(avail) == stock_size:
                if relax:
                    relaxed += 1
                break
            attempt += 1
            if relax:  # pragma: no cover - counts always fit without exclusions
                break
    return relaxed


@njit(cache=True)
def seat_log_likelihoods(hands, obs_seat, obs_type, obs_playable, obs_later, obs_received,
                         obs_near, behind, values, w_own, w_others, w_value, noise, sharp, out):
    """``out[d, s, 0]`` / ``out[d, s, 1]``: the log-likelihood of seat ``s``'s observed
    choices in deal ``hands[d]`` if it plays at random / sensibly (see the Python twin)."""
    count = hands.shape[0]
    m = obs_seat.shape[0]
    scores = np.zeros(64, np.float64)
    for d in range(count):
        for s in range(hands.shape[1]):
            out[d, s, 0] = 0.0
            out[d, s, 1] = 0.0
        for i in range(m):
            s = obs_seat[i]
            t = obs_type[i]
            then = (hands[d, s] | obs_later[i]) & ~obs_received[i]
            legal = (then & obs_playable[i]) | (_ONE << np.uint64(t))
            if legal & (legal - _ONE) == _ZERO:
                continue
            k = 0
            chosen = 0.0
            top = -1e300
            mm = legal
            while mm != _ZERO:
                low = mm & (~mm + _ONE)
                u = kth_bit(low, 0)
                mm ^= low
                b = behind[u]
                own = popcount(b & then)
                x = w_own * own - w_others * (popcount(b) - own)
                if obs_near[i]:
                    x += w_value * values[u]
                x *= sharp
                scores[k] = x
                if u == t:
                    chosen = x
                if x > top:
                    top = x
                k += 1
            z = 0.0
            for j in range(k):
                z += math.exp(scores[j] - top)
            p = (1.0 - noise) * math.exp(chosen - top) / z + noise / k
            out[d, s, 0] -= math.log(k)
            out[d, s, 1] += math.log(p)


def warm_up() -> None:
    """Compile (or load from the disk cache) both functions, with the argument types the
    master bot passes (numba compiles once per type signature: an ``int`` seed here once left
    the bot's ``np.uint64`` seed to compile during the first move on a fresh install)."""
    out = np.zeros((1, 2), np.uint64)
    z = np.zeros(2, np.uint64)
    zi = np.zeros(2, np.int64)
    sample_hands(np.uint64(1), 1, 2, 0, np.uint64(3), np.array([0, 2], np.int64), z, z, zi, z, 0, 3, out)
    ll = np.zeros((1, 2, 2))
    seat_log_likelihoods(out, np.zeros(0, np.int64), np.zeros(0, np.int64),
                         np.zeros(0, np.uint64), np.zeros(0, np.uint64), np.zeros(0, np.uint64),
                         np.zeros(0, np.bool_), np.zeros(52, np.uint64), np.zeros(52),
                         1.0, 1.0, 1.0, 0.05, 1.0, ll)

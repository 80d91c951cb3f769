# mypy: ignore-errors
# (numba-compiled code: numba types it)
"""Many playouts from one position, summed per seat, in the compiled kernel (numba): plain
(:func:`rollouts`) and with one seat's first choices searched (:func:`rollouts_lookahead`).
:func:`ristiseiska.kernel.rollout_values` calls them."""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import mix64
from .codes import END_PAUSED, END_STALL, N_AUX
from .deals import score
from .playout import play_out, play_until


@njit(inline="always")
def _set_position(hands, lo, hi, aux, turns, chips, pens, hs, los, his, auxs, turnss, chipss,
                  penss):
    """Copy a position (the second seven arrays) into the first seven."""
    for s in range(hands.shape[0]):
        hands[s] = hs[s]
        turns[s] = turnss[s]
        chips[s] = chipss[s]
        pens[s] = penss[s]
    for s in range(4):
        lo[s] = los[s]
        hi[s] = his[s]
    for j in range(N_AUX):
        aux[j] = auxs[j]


@njit(cache=True)
def rollouts(hands0, n, lo0, hi0, seat, more, receiver, aux0, turns0, chips0, pens0, params,
             line, pos_of, values, stock, n_rollouts, seed, out, policy, behind, wins, weights):
    """Sum of each seat's points over ``n_rollouts`` playouts from one position
    (``hands0`` is k × n: k determinizations, used in turn; ``stock``: the stock's cards, top
    first, from ``aux0[AUX_STOCK]``). ``out`` (n) is added to; ``wins`` (n) counts the
    playouts each seat won. ``policy``/``behind``: per-seat playout policy, see
    :func:`play_out`. Returns the number of playouts that ended by the stall limit."""
    hands = np.zeros(n, np.uint64)
    lo = np.zeros(4, np.int64)
    hi = np.zeros(4, np.int64)
    aux = np.zeros(N_AUX, np.int64)
    turns = np.zeros(n, np.int64)
    chips = np.zeros(n, np.int64)
    pens = np.zeros(n, np.int64)
    card_pts = np.zeros(n, np.int64)
    token_pts = np.zeros(n, np.int64)
    net = np.zeros(n, np.int64)
    points = np.zeros(n, np.int64)
    dummy = np.zeros(1, np.int16)
    k = hands0.shape[0]
    state = mix64(seed)
    stalled = 0
    for r in range(n_rollouts):
        _set_position(hands, lo, hi, aux, turns, chips, pens, hands0[r % k], lo0, hi0, aux0,
                      turns0, chips0, pens0)
        winner, end, nm, state = play_out(hands, n, lo, hi, seat, more, receiver, aux, turns,
                                          chips, pens, params, line, pos_of, stock, state,
                                          dummy, False, policy, behind, values, weights)
        if end == END_STALL:
            stalled += 1
        score(hands, n, winner, aux, chips, pens, params, values, card_pts, token_pts, net,
              points)
        for s in range(n):
            out[s] += points[s]
        if winner >= 0:
            wins[winner] += 1
    return stalled


@njit(cache=True)
def rollouts_lookahead(hands0, n, lo0, hi0, seat, more, receiver, aux0, turns0, chips0, pens0,
                       params, line, pos_of, values, stock, n_rollouts, seed, out, policy,
                       behind, wins, weights, me, depth, tries, win_bonus):
    """:func:`rollouts` with the first ``depth`` choices of seat ``me`` in every playout
    searched instead of left to its policy: each option is played out ``tries`` times in the
    same deal (every seat, ``me`` included, by ``policy``; every option from the same random
    numbers, so that they differ by the option and not by luck) and the option with the
    least points, less ``win_bonus`` per playout won, is taken."""
    # the playout's position, and a copy of it for each try of an option
    hands, lo, hi, aux = hands0[0].copy(), lo0.copy(), hi0.copy(), aux0.copy()
    turns, chips, pens = turns0.copy(), chips0.copy(), pens0.copy()
    h2, lo2, hi2, aux2 = hands.copy(), lo.copy(), hi.copy(), aux.copy()
    turns2, chips2, pens2 = turns.copy(), chips.copy(), pens.copy()
    sheet = np.zeros((4, n), np.int64)  # score()'s outputs
    points = sheet[3]
    dummy = np.zeros(1, np.int16)
    k = hands0.shape[0]
    state = mix64(seed)
    stalled = 0
    for r in range(n_rollouts):
        _set_position(hands, lo, hi, aux, turns, chips, pens, hands0[r % k], lo0, hi0, aux0,
                      turns0, chips0, pens0)
        left = depth
        forced = -1
        at = seat
        mo = more
        rc = receiver
        while True:
            pause = me if left > 0 else -1
            winner, end, nm, state, at, mo, opts = play_until(
                hands, n, lo, hi, at, mo, rc, aux, turns, chips, pens, params, line, pos_of,
                stock, state, dummy, False, policy, behind, values, weights, forced, pause)
            rc = -1
            forced = -1
            if end != END_PAUSED:
                break
            left -= 1
            base = state
            best = -1e300
            for o in range(opts):
                st = base
                total = 0.0
                for _t in range(tries):
                    _set_position(h2, lo2, hi2, aux2, turns2, chips2, pens2, hands, lo, hi, aux,
                                  turns, chips, pens)
                    w2, _e, _nm, st, _a, _m, _o = play_until(
                        h2, n, lo2, hi2, at, mo, -1, aux2, turns2, chips2, pens2, params, line,
                        pos_of, stock, st, dummy, False, policy, behind, values, weights, o, -1)
                    score(h2, n, w2, aux2, chips2, pens2, params, values, sheet[0], sheet[1],
                          sheet[2], points)
                    total -= points[me]
                    if w2 == me:
                        total += win_bonus
                if total > best:
                    best = total
                    forced = o
                state = st
        if end == END_STALL:
            stalled += 1
        score(hands, n, winner, aux, chips, pens, params, values, sheet[0], sheet[1], sheet[2],
              points)
        for s in range(n):
            out[s] += points[s]
        if winner >= 0:
            wins[winner] += 1
    return stalled

# mypy: ignore-errors
# (numba-compiled code: numba types it; its intrinsics have no stubs)
"""Exact leaves for the search (numba): one sampled deal solved by :func:`.ceiling.solve`.

The searching seat (``me``) is to choose at the root. The deal — a sampled world, every hand
filled in — is solved exactly against uniformly random seats (expectimax with the other
seats as chance nodes, ``joint``: the one objective ``joint * win - points``), unless it has
more positions than a bound. :func:`world_values` then gives

* each root option's clairvoyant value (the best play of the rest of the deal seeing every
  hand: what a determinized search's leaf would say), and
* with ``pooled``, the pieces the search needs to keep the seat's **next** choice on its
  information set (extended PIMC): from each root option, every way the random seats' plays
  can go until the seat chooses again (each with its probability; a path of more than ``n``
  such plays, the seat's own moves forced meanwhile, is cut there and valued exactly), a record per option
  there of its exact value, keyed by what the seat would see (the option at the root, the
  position, and which cards each other seat played since). The caller pools the records of
  the same key over the worlds and takes the best option per key: one choice for all the
  worlds that look the same to the seat, not one per world.

Everything here reuses the solver's own moves and table (:mod:`.ceiling`).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .ceiling import (
    S_CHOICE,
    _fill_fits,
    _settle,
    _terminal,
    lookup,
    position_key,
    solve,
)
from .core import mix64, popcount

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
STACK = 1024  # pending positions of the random seats' plays before the seat's next choice

# what world_values returns besides the positions solved
TOO_BIG, STACK_FULL, RECORDS_FULL = -1, -2, -3


@njit(inline="always")
def _child(hands, n, played, seat, more, holder, stall, lo, hi, params, line, pos_of, values,
           code, tab, v, clo, chi, cfits):
    """The position after ``seat`` plays ``code`` (a card; -1 stop): settled. Its values
    into ``v`` (terminal, or from the table); returns the settled state and whether the
    deal goes on with a choice (and whether the values were found)."""
    clo[:] = lo
    chi[:] = hi
    _fill_fits(clo, chi, params, line, cfits)
    st, c_played, c_seat, c_more, c_holder, c_stall, winner, opts = _settle(
        hands, n, played, seat, more, holder, stall, clo, chi, cfits, params, line, pos_of,
        code)
    found = True
    if st != S_CHOICE:
        _terminal(hands, n, st, c_played, winner, c_holder, params, values, v)
    else:
        found = lookup(tab, n, position_key(c_played, c_seat, c_more, c_holder, c_stall,
                                            params, n), v)
    return st, c_played, c_seat, c_more, c_holder, c_stall, opts, found


@njit(cache=True)
def world_values(hands, n, me, played, more, holder, stall, lo, hi, params, line, pos_of,
                 values, tab, limit, joint, codes, pooled, root_out, direct, rec_k, rec_h,
                 rec_c, rec_v, nrec, win_pts):
    """Solve one sampled deal at the seat ``me``'s choice (see the module docstring).

    ``hands``: the deal's hands now (every card not in ``played`` in one); ``codes``: the
    root options (card ids, -1 for stop); ``root_out[k]`` (in place): option ``k``'s
    clairvoyant ``joint * win - points``, ``win_pts[k]`` its two parts. With ``pooled``: ``direct[k]`` adds the value of
    the ways the deal ends before the seat chooses again (times their probability) and the
    records ``rec_*[nrec[0]:]`` (option ``k``, key, the seat's next option, probability times
    value) are appended, ``nrec[0]`` moved on. Returns ``(states, tab)``: the positions
    solved, or :data:`TOO_BIG` (over ``limit``), :data:`STACK_FULL`, :data:`RECORDS_FULL`."""
    w = 2 * n
    _, states, tab = solve(hands, n, played, me, more, holder, stall, lo, hi, params, line,
                           pos_of, values, tab, limit, joint)
    if states < 0:
        return TOO_BIG, tab
    v = np.zeros(w, np.float64)
    clo = np.zeros(4, np.int64)
    chi = np.zeros(4, np.int64)
    cfits = np.zeros(4, np.uint64)
    s_played = np.zeros(STACK, np.uint64)
    s_seat = np.zeros(STACK, np.int64)
    s_more = np.zeros(STACK, np.bool_)
    s_holder = np.zeros(STACK, np.int64)
    s_stall = np.zeros(STACK, np.int64)
    s_lo = np.zeros((STACK, 4), np.int64)
    s_hi = np.zeros((STACK, 4), np.int64)
    s_opts = np.zeros(STACK, np.uint64)
    s_reach = np.zeros(STACK, np.float64)
    s_depth = np.zeros(STACK, np.int64)
    p_lo = np.zeros(4, np.int64)
    p_hi = np.zeros(4, np.int64)
    for k in range(codes.shape[0]):
        st, c_played, c_seat, c_more, c_holder, c_stall, opts, found = _child(
            hands, n, played, me, more, holder, stall, lo, hi, params, line, pos_of, values,
            codes[k], tab, v, clo, chi, cfits)
        root_out[k] = joint * v[me] - v[n + me]
        win_pts[k, 0] = v[me]
        win_pts[k, 1] = v[n + me]
        if not pooled:
            continue
        if st != S_CHOICE:
            direct[k] += root_out[k]
            continue
        top = 0
        s_played[0] = c_played
        s_seat[0] = c_seat
        s_more[0] = c_more
        s_holder[0] = c_holder
        s_stall[0] = c_stall
        s_lo[0, :] = clo
        s_hi[0, :] = chi
        s_opts[0] = opts
        s_reach[0] = 1.0
        s_depth[0] = 0
        top = 1
        while top > 0:
            top -= 1
            p_played = s_played[top]
            p_seat = s_seat[top]
            p_more = s_more[top]
            p_holder = s_holder[top]
            p_stall = s_stall[top]
            p_lo[:] = s_lo[top, :]
            p_hi[:] = s_hi[top, :]
            rem = s_opts[top]
            reach = s_reach[top]
            depth = s_depth[top]
            if p_seat == me:  # the seat's next choice: one record per option
                h = mix64(position_key(p_played, p_seat, p_more, p_holder, p_stall, params, n)
                          ^ mix64(np.uint64(k + 1)))
                gone = p_played & ~played
                for u in range(n):
                    if u != me:
                        h = mix64(h ^ (hands[u] & gone) ^ np.uint64(u + 1))
                stop = p_more
                while rem != _ZERO or stop:
                    if rem != _ZERO:
                        c = np.int64(trailing_zeros(rem))
                        rem &= rem - _ONE
                    else:
                        c = np.int64(-1)
                        stop = False
                    _child(hands, n, p_played, p_seat, p_more, p_holder, p_stall, p_lo, p_hi,
                           params, line, pos_of, values, c, tab, v, clo, chi, cfits)
                    i = nrec[0]
                    if i >= rec_k.shape[0]:
                        return RECORDS_FULL, tab
                    rec_k[i] = k
                    rec_h[i] = h
                    rec_c[i] = c
                    rec_v[i] = reach * (joint * v[me] - v[n + me])
                    nrec[0] = i + 1
                continue
            if depth >= n:  # the seat's choices were forced for a round: stop pooling here
                lookup(tab, n, position_key(p_played, p_seat, p_more, p_holder, p_stall,
                                            params, n), v)
                direct[k] += reach * (joint * v[me] - v[n + me])
                continue
            k_opts = popcount(rem) + (1 if p_more else 0)
            q = reach / k_opts
            stop = p_more
            while rem != _ZERO or stop:
                if rem != _ZERO:
                    c = np.int64(trailing_zeros(rem))
                    rem &= rem - _ONE
                else:
                    c = np.int64(-1)
                    stop = False
                st, c_played, c_seat, c_more, c_holder, c_stall, opts, found = _child(
                    hands, n, p_played, p_seat, p_more, p_holder, p_stall, p_lo, p_hi,
                    params, line, pos_of, values, c, tab, v, clo, chi, cfits)
                if st != S_CHOICE:
                    direct[k] += q * (joint * v[me] - v[n + me])
                    continue
                if top >= STACK:
                    return STACK_FULL, tab
                s_played[top] = c_played
                s_seat[top] = c_seat
                s_more[top] = c_more
                s_holder[top] = c_holder
                s_stall[top] = c_stall
                s_lo[top, :] = clo
                s_hi[top, :] = chi
                s_opts[top] = opts
                s_reach[top] = q
                s_depth[top] = depth + 1
                top += 1
    return states, tab

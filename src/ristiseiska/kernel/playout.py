# mypy: ignore-errors
# (numba-compiled code: numba types it)
"""The compiled playout (numba): legal moves from a position to the end of the deal, each
seat's choices by its policy, with an optional forced first choice and a pause at a seat's
choice (the searched playouts of :mod:`~ristiseiska.kernel.rollouts` build on it)."""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import _FULL, _ONE, _ZERO, below, kth_bit, popcount
from .codes import (
    ASK,
    AUX_HOLDER,
    AUX_POT,
    AUX_STALL,
    AUX_START,
    AUX_STOCK,
    CHIP,
    DRAW,
    END_BROKEN,
    END_OUT,
    END_PAUSED,
    END_STALL,
    FAIL_ASK,
    FAIL_CHIP,
    FAIL_TOKEN,
    GIVE,
    HOARD_ANY,
    HOARD_NONE,
    P_EXTRA_MOVE,
    P_FAILURE,
    P_FIRST_ROUND_PASS,
    P_HOARD,
    P_HOARD_PENALTY,
    P_MULTI,
    P_OPENING,
    P_STALL,
    P_TOKEN_MODE,
    P_TOKEN_VALUE,
    P_UPWARD,
    PASS,
    POLICY_EPSILON,
    POLICY_EXPERT,
    POLICY_GREEDY,
    POLICY_RANDOM,
    POLICY_SENSIBLE,
    SEAT_SHIFT,
    STOP,
    TOKEN,
    TOKEN_PER_MISS,
)
from .fits import _may_hoard, _shown_lacking, _upward_line, suit_fits
from .policies import _expert_pick, _give_pick, _heuristic_pick, _hoard_pick


@njit(cache=True)
def play_out(hands, n, lo, hi, seat, more, receiver, aux, turns, chips, pens, params, line0,
             pos_of0, stock, state, moves, record, policy, behind, values, weights):
    """Play random legal moves from the given position to the end of the deal.

    ``hands``, ``lo``, ``hi``, ``aux``, ``turns``, ``chips`` and ``pens`` change in place;
    see :func:`play_until` (this is it without a forced choice or a pause). Returns
    ``(winner, end, number of moves, rng state)``."""
    winner, end, nm, state, _s, _m, _o = play_until(
        hands, n, lo, hi, seat, more, receiver, aux, turns, chips, pens, params, line0,
        pos_of0, stock, state, moves, record, policy, behind, values, weights, -1, -1)
    return winner, end, nm, state


@njit(cache=True)
def play_until(hands, n, lo, hi, seat, more, receiver, aux, turns, chips, pens, params, line0,
               pos_of0, stock, state, moves, record, policy, behind, values, weights, forced,
               pause):
    """Play random legal moves from the given position to the end of the deal.

    ``hands``, ``lo``, ``hi``, ``aux``, ``turns``, ``chips`` and ``pens`` change in place;
    ``stock`` holds the stock's cards, top first, from ``aux[AUX_STOCK]`` on.
    ``seat`` is the seat to decide; ``more``: it is in the optional further move (it may stop);
    ``receiver`` >= 0: ``seat`` is choosing a card to give to ``receiver``. Returns
    ``(winner, end, number of moves, rng state)``; with ``record`` the moves are written to
    ``moves`` as ``seat * SEAT_SHIFT + code``. ``policy[seat]``: ``POLICY_RANDOM`` (uniform
    over the legal moves), ``POLICY_GREEDY`` (:func:`_heuristic_pick`, needs ``behind`` and
    ``values``), ``POLICY_EPSILON`` (greedy, one choice in ten at random) or
    ``POLICY_SENSIBLE`` (the heuristic weighted like the expert bot) or ``POLICY_STRONG`` (the
    best-playing weights found) or ``POLICY_EXPERT`` (the expert bot's own rule,
    :func:`_expert_pick`, with its stop and hoard scores; what a seat showed it lacks by not
    playing is remembered from the playout's start; the first card of a deal and the free
    Fan Tan layout fall back to ``POLICY_SENSIBLE``); a seat asked for a card gives a
    uniformly random one under ``POLICY_RANDOM`` and the expert bot's choice
    (:func:`_give_pick`) under the others, and a seat that may take the token instead of a
    card (hoarding) takes it at random under ``POLICY_RANDOM`` and as the expert would
    (:func:`_hoard_pick`, or the expert's own scores) under the others;
    with every seat random the playout is exactly the uniform one.

    A *choice* is a decision with two or more options: option ``k`` below the number of
    legal cards plays the ``k``-th of them (in card-id order); the next one stops (in an
    optional further move) or takes the token (hoarding). ``forced`` >= 0: the first choice
    takes that option instead of asking the policy. ``pause`` >= 0: stop before any other
    choice of that seat and return ``END_PAUSED``, the position left in place, so that the
    caller can pick the option and resume with ``forced``. Returns ``(winner, end, number of
    moves, rng state, seat to move, more, options)`` (the last three mean something only
    when paused)."""
    extra = params[P_EXTRA_MOVE] != 0
    multi = params[P_MULTI] != 0
    failure = params[P_FAILURE]
    hoard = params[P_HOARD]
    stall_limit = params[P_STALL]
    per_miss = params[P_TOKEN_MODE] == TOKEN_PER_MISS
    upward = params[P_UPWARD] != 0
    line = line0
    pos_of = pos_of0
    if upward:  # the line is set by the first card: a copy of our own
        line = line0.copy()
        pos_of = pos_of0.copy()
        if aux[AUX_START] > 0:
            _upward_line(aux[AUX_START], line, pos_of)
    opened = params[P_OPENING] < 0
    for s in range(4):
        if lo[s] != 0:
            opened = True
    fits = np.zeros(4, np.uint64)
    if upward and aux[AUX_START] == 0:
        playable = _FULL  # any card may start
    elif opened:
        for s in range(4):
            fits[s] = suit_fits(s, lo, hi, params, line, True)
        playable = fits[0] | fits[1] | fits[2] | fits[3]
    else:
        playable = _ONE << np.uint64(params[P_OPENING])
    nm = 0
    limit = moves.shape[0] if record else 1 << 62
    excl = np.zeros(n, np.uint64)  # per seat: cards it showed it lacks (POLICY_EXPERT's view)
    while True:
        if nm + 2 >= limit:  # no room left to record (the caller sizes it so this never is)
            return -1, END_BROKEN, nm, state, seat, more, 0
        if receiver >= 0:  # the giver chooses a card
            h = hands[seat]
            if policy[seat] == POLICY_RANDOM:  # uniform over the hand
                state, k = below(state, popcount(h))
                c = kth_bit(h, k)
            else:
                c = _give_pick(h, lo, hi, pos_of, params, playable, behind, values)
            hands[seat] = h ^ (_ONE << np.uint64(c))
            hands[receiver] |= _ONE << np.uint64(c)
            if record:
                moves[nm] = seat * SEAT_SHIFT + GIVE + c
            nm += 1
            seat = receiver
            receiver = -1
            played = False
            end_turn = True
        else:
            h = hands[seat]
            lm = h & playable
            end_turn = False
            played = False
            code = -1
            pol = policy[seat]
            if pol == POLICY_EPSILON:
                state, k = below(state, 10)
                pol = POLICY_RANDOM if k == 0 else POLICY_GREEDY
            elif pol == POLICY_EXPERT and (upward or not opened):
                pol = POLICY_SENSIBLE  # the first card of a deal: the sensible rule
            k_set = -1
            if forced >= 0 or pause >= 0:
                if more:
                    opts = popcount(lm) + 1
                elif lm == _ZERO:
                    opts = 0
                elif opened and hoard != HOARD_NONE and _may_hoard(lm, hoard):
                    opts = popcount(lm) + 1
                else:
                    opts = popcount(lm)
                if opts > 1:
                    if forced >= 0:
                        k_set = forced
                        forced = -1
                    elif seat == pause:
                        return -1, END_PAUSED, nm, state, seat, more, opts
            # The expert's choice, scored once for whichever kind of choice this is (a card,
            # stopping after a closing card, the token instead of a card).
            e_k, e_key, e_threat = 0, 0.0, 0.0
            if (pol == POLICY_EXPERT and k_set < 0 and lm != _ZERO
                    and (more or hoard != HOARD_NONE or popcount(lm) > 1)):
                e_k, e_key, e_threat = _expert_pick(lm, h, hands, n, seat, behind, values,
                                                    weights[pol], lo, hi, params, line, pos_of,
                                                    fits, playable, excl, aux[AUX_HOLDER])
            if more:
                cnt = popcount(lm)
                if k_set >= 0:
                    k = k_set
                elif pol == POLICY_EXPERT:  # plays gain 2.5 in this phase, a stop scores -2.5
                    k = e_k if e_key >= -5.0 else cnt
                elif pol != POLICY_RANDOM:  # a heuristic: its row of weights
                    state, k, key = _heuristic_pick(lm, h, hands, n, seat, behind, values, state,
                                                    weights[pol])
                    if key < 0.0:  # the best next card helps the others more: stop
                        k = cnt
                else:
                    state, k = below(state, cnt + 1)
                if k == cnt:
                    code = STOP
                    end_turn = True
                    played = True  # the turn had a card: no stall
            elif lm == _ZERO:
                if aux[AUX_STOCK] < stock.shape[0]:  # draw; the card is not played now
                    c = stock[aux[AUX_STOCK]]
                    aux[AUX_STOCK] += 1
                    hands[seat] |= _ONE << np.uint64(c)
                    code = DRAW + c
                elif failure == FAIL_TOKEN:
                    code = TOKEN
                    if per_miss:  # a fine of its own; the token does not move
                        chips[seat] += 1
                    else:
                        aux[AUX_HOLDER] = seat
                elif failure == FAIL_CHIP:
                    code = CHIP
                    chips[seat] += 1
                    aux[AUX_POT] += 1
                elif failure == FAIL_ASK:
                    code = PASS
                    if not (params[P_FIRST_ROUND_PASS] != 0 and turns[seat] == 1):
                        for j in range(1, n):
                            g = seat - j
                            if g < 0:
                                g += n
                            if popcount(hands[g]) >= 2:
                                code = ASK
                                receiver = seat
                                if record:
                                    moves[nm] = seat * SEAT_SHIFT + ASK
                                nm += 1
                                seat = g
                                break
                else:
                    code = PASS
                if code < DRAW:  # it could not play with these cards open: it holds none
                    excl[seat] |= _shown_lacking(playable, hoard) if code == TOKEN else playable
                if code == ASK:
                    continue
                end_turn = True
            else:
                cnt = popcount(lm)
                hoarding = opened and hoard != HOARD_NONE and _may_hoard(lm, hoard)
                if hoarding:
                    if k_set >= 0:
                        k = k_set
                    elif pol == POLICY_EXPERT:  # ExpertBot._score_hoard against its best card
                        k = e_k
                        cost = 0.0 if aux[AUX_HOLDER] == seat else params[P_TOKEN_VALUE] * 0.5
                        if per_miss:
                            cost = np.float64(params[P_TOKEN_VALUE])
                        if hoard == HOARD_ANY:
                            cost += params[P_HOARD_PENALTY]
                        if -cost - 1.5 - 10.0 * e_threat > e_key:
                            k = cnt
                    elif pol != POLICY_RANDOM:
                        state, k = _hoard_pick(lm, h, hands, n, seat, behind, values, state,
                                               weights[pol], aux, params, cnt)
                    else:
                        state, k = below(state, cnt + 1)
                    if k == cnt:
                        code = TOKEN
                        if per_miss:
                            chips[seat] += 1
                        else:
                            aux[AUX_HOLDER] = seat
                        if hoard == HOARD_ANY:
                            pens[seat] += params[P_HOARD_PENALTY]
                        end_turn = True
                elif cnt > 1:
                    if k_set >= 0:
                        k = k_set
                    elif pol == POLICY_EXPERT:
                        k = e_k
                    elif pol != POLICY_RANDOM:  # a heuristic: its row of weights
                        state, k, key = _heuristic_pick(lm, h, hands, n, seat, behind, values,
                                                        state, weights[pol])
                    else:
                        state, k = below(state, cnt)
                else:
                    k = 0
            if code >= 0:
                if record:
                    moves[nm] = seat * SEAT_SHIFT + code
                nm += 1
            else:  # play the k-th legal card
                c = kth_bit(lm, k)
                h ^= _ONE << np.uint64(c)
                hands[seat] = h
                if record:
                    moves[nm] = seat * SEAT_SHIFT + c
                nm += 1
                s = c // 13
                if upward and aux[AUX_START] == 0:
                    aux[AUX_START] = c - s * 13 + 1
                    _upward_line(aux[AUX_START], line, pos_of)
                    opened = False  # so that every suit's fits are computed below
                p = pos_of[c - s * 13]
                closing = False
                if lo[s] == 0:
                    lo[s] = p
                    hi[s] = p
                    if not opened:
                        opened = True
                        for t in range(4):
                            fits[t] = suit_fits(t, lo, hi, params, line, True)
                    else:
                        fits[s] = suit_fits(s, lo, hi, params, line, True)
                else:
                    if p < lo[s]:
                        lo[s] = p
                        closing = p == 1
                    else:
                        hi[s] = p
                        closing = p == 13
                    fits[s] = suit_fits(s, lo, hi, params, line, True)
                playable = fits[0] | fits[1] | fits[2] | fits[3]
                aux[AUX_STALL] = 0
                if h == _ZERO:
                    return seat, END_OUT, nm, state, seat, more, 0
                if (multi or (extra and closing)) and (h & playable) != _ZERO:
                    more = True
                else:
                    if multi or (extra and closing):  # its turn ends silently: none fits
                        excl[seat] |= playable
                    end_turn = True
                    played = True
        if end_turn:
            more = False
            if not played:
                aux[AUX_STALL] += 1
                if aux[AUX_STALL] >= stall_limit:
                    return -1, END_STALL, nm, state, seat, more, 0
            seat = seat + 1 if seat + 1 < n else 0
            turns[seat] += 1

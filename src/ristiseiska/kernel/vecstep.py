# mypy: ignore-errors
# (numba-compiled code: numba types it)
"""The steps of the vectorised environment in the compiled kernel (numba): every row's action
applied, the kernel policies' seats played, finished deals scored and dealt anew
(:func:`vec_step`); the same for some rows with the optional knowledge block and the learner's
final observation (:func:`vec_step_ex`); uniform random actions and the first deals."""

from __future__ import annotations

import numpy as np
from numba import njit

from .bits import _ONE, _ZERO, below
from .codes import HOARD_NONE, P_HOARD, P_OPENING, P_UPWARD
from .vecrows import (
    A_DRAW,
    A_GIVE,
    A_STOP,
    A_TOKEN,
    C_DEAL,
    C_RECV,
    C_SEAT,
    NUM_ACTIONS,
    _apply,
    _finish,
    _fits,
    _mask,
    _new_deal,
    _observe,
    _opened,
    choose_action,
    row_playable,
)


@njit(cache=True)
def vec_step(actions, apply_actions, n, num_envs, seed, policy, reward_mode, st, hands, turns,
             chips, pens, stock, stock_len, lines, poss, rng, line0, pos0, params, values,
             behind, weights, dealt, dealt_stock, tab, obs, mask, rewards, dones, winners,
             points_out):
    """One step of every row: check and apply ``actions`` (if ``apply_actions``), play the
    kernel policies' seats, restart finished deals; write observations, masks, rewards.
    ``stock_len``: the stock's size at the start of a deal (0 without a stock). Returns the
    first row whose action is illegal (nothing is changed then), or -1."""
    if apply_actions:
        for i in range(num_envs):
            a = actions[i]
            if a < 0 or a >= NUM_ACTIONS or mask[i, a] == 0:
                return i
    card_pts = np.zeros(n, np.int64)
    token_pts = np.zeros(n, np.int64)
    net = np.zeros(n, np.int64)
    points = np.zeros(n, np.int64)
    for i in range(num_envs):
        dones[i] = False
        for s in range(n):
            rewards[i, s] = 0.0
        winner = -2
        if apply_actions:
            winner = _apply(i, n, actions[i], st, hands, turns, chips, pens, stock, lines,
                            poss, params, tab)
        while True:
            if winner != -2:  # the deal is over: score it, start the next one
                _finish(i, n, winner, st, hands, chips, pens, params, values, reward_mode,
                        rewards, card_pts, token_pts, net, points)
                for s in range(n):
                    points_out[i, s] = points[s]
                dones[i] = True
                winners[i] = winner
                st[i, C_DEAL] += num_envs
                _new_deal(i, n, seed, st, hands, turns, chips, pens, stock, lines, poss, rng,
                          line0, pos0, params, dealt, dealt_stock, tab)
                winner = -2
            fits = _fits(st, i, params, lines[i])
            playable = fits
            if params[P_UPWARD] == 0 and not _opened(st, i, params):
                playable = _ONE << np.uint64(params[P_OPENING])
            _mask(i, n, st, hands, turns, params, playable, stock_len, mask[i])
            pol = policy[st[i, C_SEAT]]
            if pol == -1:
                break
            a = choose_action(i, n, pol, st, hands, playable, rng, behind, values, weights, mask[i],
                        poss, params)
            winner = _apply(i, n, a, st, hands, turns, chips, pens, stock, lines, poss, params,
                            tab)
        _observe(i, n, st, hands, chips, tab, fits, stock_len, obs[i])
    return -1


# -- the extended step (additive: vec_step above is unchanged) --------------------------------
# Knowledge block (optional, after the base observation): for each opponent (relative seat
# 1..n-1) 52 bits "card type known absent", then the last ``K`` card plays, most recent
# first, each a one-hot relative seat (n) and a one-hot card (52). See docs/rl.md.


def knowledge_size(players: int, recent: int) -> int:
    return (players - 1) * 52 + recent * (players + 52)


@njit(inline="always")
def _know_before(i, n, a, st, params, playable, absent, recent):
    """Update the knowledge arrays of row ``i`` for action ``a`` of its seat to move, before
    the action is applied (``playable``: the cards that may be played now)."""
    seat = st[i, C_SEAT]
    if st[i, C_RECV] >= 0:  # a give, seen by giver and receiver only
        recv = st[i, C_RECV]
        bit = _ONE << np.uint64(a - A_GIVE)
        for o in range(n):
            if o == seat:
                absent[i, o, recv] &= ~bit
            elif o != recv:
                absent[i, o, recv] = _ZERO  # a card the observer did not see
        return
    if a < 52:  # a card play: into the last plays, most recent first
        k = recent.shape[1]
        for j in range(k - 1, 0, -1):
            recent[i, j] = recent[i, j - 1]
        if k > 0:
            recent[i, 0] = seat * 64 + a
        return
    if a == A_STOP:
        return
    # a failure move: no card that could be played now (unless the token may be taken
    # instead of a card: hoarding rules tell nothing)
    if _opened(st, i, params) and not (a == A_TOKEN and params[P_HOARD] != HOARD_NONE):
        for o in range(n):
            if o != seat:
                absent[i, o, seat] |= playable
    if a == A_DRAW:
        for o in range(n):
            if o != seat:
                absent[i, o, seat] = _ZERO  # a card nobody else saw


@njit(inline="always")
def _know_clear(i, n, absent, recent):
    for o in range(n):
        for s in range(n):
            absent[i, o, s] = _ZERO
    for j in range(recent.shape[1]):
        recent[i, j] = -1


@njit(inline="always")
def _know_observe(i, n, me, base, absent, recent, out):
    at = base
    for k in range(1, n):
        s = me + k
        if s >= n:
            s -= n
        m = absent[i, me, s]
        for c in range(52):
            out[at + c] = np.float32((m >> np.uint64(c)) & _ONE)
        at += 52
    for j in range(recent.shape[1]):
        for x in range(n + 52):
            out[at + x] = 0.0
        e = recent[i, j]
        if e >= 0:
            k = e // 64 - me
            if k < 0:
                k += n
            out[at + k] = 1.0
            out[at + n + e % 64] = 1.0
        at += n + 52


@njit(cache=True)
def vec_step_ex(actions, active, learner, n, num_envs, seed, policy, reward_mode, st, hands,
                turns, chips, pens, stock, stock_len, lines, poss, rng, line0, pos0, params,
                values, behind, weights, dealt, dealt_stock, tab, obs, mask, rewards, dones,
                winners, points_out, know, absent, recent, acted, final_obs):
    """:func:`vec_step` for the rows with ``active[i]`` only (the others are left exactly as
    they are), with three additions. ``actions[i] == -1`` abandons row ``i``'s deal (it is
    dealt anew, no reward, not done); ``-2`` applies nothing (only the kernel's seats play). With ``learner >= 0`` a deal that ends before that
    seat has moved is not reported (dealt anew silently), and a reported deal's last
    position, as the learner sees it (phase none, as in the engine), goes to
    ``final_obs[i]``. With ``know`` the observation carries the knowledge block after the
    base layout. Returns the first active row whose action is illegal (nothing changed), or
    -1."""
    base = 176 + 4 * n
    for i in range(num_envs):
        if active[i]:
            a = actions[i]
            if a >= -2 and a < 0:
                continue
            if (a < 0 or a >= NUM_ACTIONS or mask[i, a] == 0):
                return i
    card_pts = np.zeros(n, np.int64)
    token_pts = np.zeros(n, np.int64)
    net = np.zeros(n, np.int64)
    points = np.zeros(n, np.int64)
    for i in range(num_envs):
        if not active[i]:
            continue
        dones[i] = False
        for s in range(n):
            rewards[i, s] = 0.0
        winner = -2
        a = actions[i]
        if a == -2:
            pass  # no action: only play the kernel's seats
        elif a == -1:
            st[i, C_DEAL] += num_envs
            _new_deal(i, n, seed, st, hands, turns, chips, pens, stock, lines, poss, rng,
                      line0, pos0, params, dealt, dealt_stock, tab)
            acted[i] = False
            if know:
                _know_clear(i, n, absent, recent)
        else:
            if st[i, C_SEAT] == learner:
                acted[i] = True
            if know:
                _know_before(i, n, a, st, params, row_playable(st, i, params, lines[i]), absent,
                             recent)
            winner = _apply(i, n, a, st, hands, turns, chips, pens, stock, lines, poss,
                            params, tab)
        while True:
            if winner != -2:  # the deal is over: score it, start the next one
                report = learner < 0 or acted[i]
                if report:
                    _finish(i, n, winner, st, hands, chips, pens, params, values,
                            reward_mode, rewards, card_pts, token_pts, net, points)
                    for s in range(n):
                        points_out[i, s] = points[s]
                    dones[i] = True
                    winners[i] = winner
                    if learner >= 0:
                        keep = st[i, C_SEAT]
                        st[i, C_SEAT] = learner
                        f = _fits(st, i, params, lines[i])
                        _observe(i, n, st, hands, chips, tab, f, stock_len, final_obs[i])
                        for k in range(3):
                            final_obs[i, 156 + 3 * n + 1 + k] = 0.0
                        if know:
                            _know_observe(i, n, learner, base, absent, recent, final_obs[i])
                        st[i, C_SEAT] = keep
                st[i, C_DEAL] += num_envs
                _new_deal(i, n, seed, st, hands, turns, chips, pens, stock, lines, poss, rng,
                          line0, pos0, params, dealt, dealt_stock, tab)
                acted[i] = False
                if know:
                    _know_clear(i, n, absent, recent)
                winner = -2
            fits = _fits(st, i, params, lines[i])
            playable = fits
            if params[P_UPWARD] == 0 and not _opened(st, i, params):
                playable = _ONE << np.uint64(params[P_OPENING])
            _mask(i, n, st, hands, turns, params, playable, stock_len, mask[i])
            pol = policy[st[i, C_SEAT]]
            if pol == -1:
                break
            a = choose_action(i, n, pol, st, hands, playable, rng, behind, values, weights, mask[i],
                        poss, params)
            if know:
                _know_before(i, n, a, st, params, playable, absent, recent)
            winner = _apply(i, n, a, st, hands, turns, chips, pens, stock, lines, poss, params,
                            tab)
        _observe(i, n, st, hands, chips, tab, fits, stock_len, obs[i])
        if know:
            _know_observe(i, n, st[i, C_SEAT], base, absent, recent, obs[i])
    return -1


@njit(cache=True)
def random_actions(mask, state_box, out):
    """A uniform legal action per row (SplitMix64 stream ``state_box[0]``, advanced)."""
    state = state_box[0]
    legal = np.empty(mask.shape[1], np.int64)
    for i in range(mask.shape[0]):
        cnt = 0
        row = mask[i]
        for a in range(row.shape[0]):
            if row[a] != 0:
                legal[cnt] = a
                cnt += 1
        state, k = below(state, cnt)
        out[i] = legal[k]
    state_box[0] = state


@njit(cache=True)
def reset_all(n, num_envs, seed, st, hands, turns, chips, pens, stock, lines, poss, rng, line0,
              pos0, params, dealt, dealt_stock, tab):
    for i in range(num_envs):
        st[i, C_DEAL] = i
        _new_deal(i, n, seed, st, hands, turns, chips, pens, stock, lines, poss, rng, line0,
                  pos0, params, dealt, dealt_stock, tab)

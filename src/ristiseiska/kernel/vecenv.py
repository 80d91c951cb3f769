# mypy: ignore-errors
# (numba-compiled code: numba types it)
"""A vectorised environment on the compiled kernel: ``N`` deals stepped together in numba.

The same action ids and observation layout as the PettingZoo environment
(:mod:`ristiseiska.rl.encoding`; for the one-deck rule sets the kernel plays: ``0..51`` play
a card, ``52`` stop, ``53`` token, ``54`` pass, ``55`` chip, ``56`` ask, ``57`` draw,
``58..109`` give a card), for every rule set :func:`ristiseiska.kernel.unsupported` accepts.
Needs only numpy and numba (no RL library)::

    >>> import numpy as np
    >>> from ristiseiska.rules import preset
    >>> from ristiseiska.kernel.vecenv import VecEnv
    >>> env = VecEnv(preset("ristiseiska"), players=4, num_envs=64, seed=1)
    >>> obs, mask, seat = env.reset()
    >>> rng = np.random.default_rng(0)
    >>> for _ in range(100):
    ...     actions = env.random_actions(rng)
    ...     obs, mask, seat, rewards, done = env.step(actions)

Each row is one deal; :meth:`VecEnv.step` applies each row's action for the seat to move
(``seat``), plays the seats given to the kernel's own policies (``opponents``), and when a
deal ends it reports the deal's rewards for every seat (``rewards[i]``, ``done[i]``) and
starts the row's next deal at once (the returned observation is already the new deal's).
Deal ``k`` of row ``i`` is deal number ``i + k * N`` of the run seeded with ``seed``
(:func:`ristiseiska.kernel.derive_seed`), dealer ``deal number % players``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from ..rules import Rules
from . import WEIGHTS, behind_array, policy_array, rule_arrays, stock_size, unsupported
from .bits import _FULL, _ONE, _ZERO, below, derive_seed, kth_bit, popcount
from .codes import (
    AUX_HOLDER,
    AUX_POT,
    AUX_STALL,
    AUX_START,
    AUX_STOCK,
    FAIL_ASK,
    FAIL_CHIP,
    FAIL_TOKEN,
    HOARD_ANY,
    HOARD_NONE,
    N_AUX,
    P_EXTRA_MOVE,
    P_FAILURE,
    P_FIRST_ROUND_PASS,
    P_HOARD,
    P_HOARD_PENALTY,
    P_LAID,
    P_MULTI,
    P_OPENING,
    P_STALL,
    P_STOCK,
    P_TOKEN_MODE,
    P_UPWARD,
    POLICY_EXPERT,
    POLICY_RANDOM,
    STOCK_MAX,
    TOKEN_PER_MISS,
)
from .deals import _setup_chips, deal_hands, deal_stock_laid, first_seat, score
from .fits import _may_hoard, _upward_line, suit_fits
from .policies import _give_pick, _heuristic_pick, _hoard_pick

# action ids (one-deck rule sets; see ristiseiska.rl.encoding)
A_STOP, A_TOKEN, A_PASS, A_CHIP, A_ASK, A_DRAW = 52, 53, 54, 55, 56, 57
A_GIVE = 58
NUM_ACTIONS = 110
EXTERNAL = -1  # a seat whose moves come from the caller

# columns of the per-deal integer state
C_SEAT, C_MORE, C_RECV, C_DEALER, C_DEAL, C_DONE = 0, 1, 2, 3, 4, 5
C_AUX = 6
C_LO = C_AUX + N_AUX
C_HI = C_LO + 4
N_COLS = C_HI + 4

REWARD_POINTS, REWARD_WIN = 0, 1


def obs_size(players: int) -> int:
    return 3 * 52 + 4 * players + 1 + 3 + 1 + 13 + 2


@njit(inline="always")
def _opened(st, i, params):
    if params[P_OPENING] < 0:
        return True
    for s in range(4):
        if st[i, C_LO + s] != 0:
            return True
    return False


@njit(inline="always")
def _fits(st, i, params, line):
    """The cards that fit on the table now (the engine's ``table.playable``)."""
    if params[P_UPWARD] != 0 and st[i, C_AUX + AUX_START] == 0:
        return _FULL
    if not _opened(st, i, params):
        return _ZERO
    lo = st[i, C_LO:C_LO + 4]
    hi = st[i, C_HI:C_HI + 4]
    m = _ZERO
    for s in range(4):
        m |= suit_fits(s, lo, hi, params, line, True)
    return m


@njit(inline="always")
def _playable(st, i, params, line):
    if params[P_UPWARD] == 0 and not _opened(st, i, params):
        return _ONE << np.uint64(params[P_OPENING])
    return _fits(st, i, params, line)


@njit(inline="always")
def _giver(hands, i, n, seat):
    for j in range(1, n):
        g = seat - j
        if g < 0:
            g += n
        if popcount(hands[i, g]) >= 2:
            return g
    return -1


@njit(cache=True)
def _mask(i, n, st, hands, turns, params, playable, stock_len, out):
    """Write the legal actions of row ``i``'s seat to move into ``out`` (int8);
    ``playable``: the cards that may be played now (:func:`_playable`)."""
    seat = st[i, C_SEAT]
    h = hands[i, seat]
    giving = st[i, C_RECV] >= 0
    lm = _ZERO if giving else h & playable
    g = h if giving else _ZERO
    for c in range(52):  # branch-free: the compiler vectorises these loops
        out[c] = np.int8((lm >> np.uint64(c)) & _ONE)
        out[A_GIVE + c] = np.int8((g >> np.uint64(c)) & _ONE)
    for a in range(A_STOP, A_GIVE):
        out[a] = 0
    if giving:
        return
    if st[i, C_MORE] != 0:
        out[A_STOP] = 1
    elif lm == _ZERO:
        out[_failure(i, n, st, hands, turns, params, stock_len)] = 1
    elif params[P_HOARD] != HOARD_NONE and _opened(st, i, params) and _may_hoard(
            lm, params[P_HOARD]):
        out[A_TOKEN] = 1


@njit(inline="always")
def _failure(i, n, st, hands, turns, params, stock_len):
    if st[i, C_AUX + AUX_STOCK] < stock_len:
        return A_DRAW
    f = params[P_FAILURE]
    if f == FAIL_TOKEN:
        return A_TOKEN
    if f == FAIL_CHIP:
        return A_CHIP
    if f == FAIL_ASK:
        seat = st[i, C_SEAT]
        if params[P_FIRST_ROUND_PASS] != 0 and turns[i, seat] == 1:
            return A_PASS
        if _giver(hands, i, n, seat) < 0:
            return A_PASS
        return A_ASK
    return A_PASS


@njit(cache=True)
def _observe(i, n, st, hands, chips, tab, fits, stock_len, out):
    """Row ``i``'s observation for its seat to move (layout of ristiseiska.rl.encoding);
    ``tab``: the cards on the table, ``fits``: the cards that fit now (:func:`_fits`)."""
    me = st[i, C_SEAT]
    h = hands[i, me]
    t = tab[i]
    for c in range(52):  # branch-free: the compiler vectorises these loops
        sh = np.uint64(c)
        out[c] = np.float32((h >> sh) & _ONE)
        out[52 + c] = np.float32((t >> sh) & _ONE)
        out[104 + c] = np.float32((fits >> sh) & _ONE)
    for k in range(156, out.shape[0]):
        out[k] = 0.0
    o_sizes = 156
    o_token = o_sizes + n
    o_chips = o_token + n
    o_pot = o_chips + n
    o_phase = o_pot + 1
    o_recv = o_phase + 3
    o_stock = o_recv + n
    o_start = o_stock + 1
    for s in range(n):
        k = s - me
        if k < 0:
            k += n
        out[o_sizes + k] = popcount(hands[i, s])
        out[o_chips + k] = chips[i, s]
    holder = st[i, C_AUX + AUX_HOLDER]
    if holder >= 0:
        k = holder - me
        if k < 0:
            k += n
        out[o_token + k] = 1.0
    out[o_pot] = st[i, C_AUX + AUX_POT]
    recv = st[i, C_RECV]
    if recv >= 0:
        out[o_phase + 2] = 1.0
        k = recv - me
        if k < 0:
            k += n
        out[o_recv + k] = 1.0
    elif st[i, C_MORE] != 0:
        out[o_phase + 1] = 1.0
    else:
        out[o_phase] = 1.0
    out[o_stock] = stock_len - st[i, C_AUX + AUX_STOCK]
    start = st[i, C_AUX + AUX_START]
    if start > 0:
        out[o_start + start - 1] = 1.0


@njit(cache=True)
def _new_deal(i, n, seed, st, hands, turns, chips, pens, stock, lines, poss, rng, line0, pos0,
              params, dealt, dealt_stock, tab):
    deal = st[i, C_DEAL]
    dealer = deal % n
    state = derive_seed(seed, np.uint64(deal))
    for s in range(4):
        st[i, C_LO + s] = 0
        st[i, C_HI + s] = 0
    for k in range(13):
        lines[i, k] = line0[k]
        poss[i, k] = pos0[k]
    tab[i] = _ZERO
    if params[P_STOCK] != 0:
        laid = params[P_LAID]
        state = deal_stock_laid(n, dealer, state, hands[i], stock[i], laid)
        if laid >= 0:  # the opening card lies on the table before the deal
            tab[i] = _ONE << np.uint64(laid)
            st[i, C_LO + laid // 13] = pos0[laid % 13]
            st[i, C_HI + laid // 13] = pos0[laid % 13]
        for j in range(STOCK_MAX):
            dealt_stock[i, j] = stock[i, j]
    else:
        state = deal_hands(n, dealer, state, hands[i])
    for s in range(n):
        dealt[i, s] = hands[i, s]
        turns[i, s] = 0
        chips[i, s] = 0
        pens[i, s] = 0
    for j in range(N_AUX):
        st[i, C_AUX + j] = 0
    st[i, C_AUX + AUX_HOLDER] = -1
    _setup_chips(hands[i], n, params, chips[i], st[i, C_AUX:C_AUX + N_AUX])
    seat = first_seat(hands[i], n, dealer, params[P_OPENING])
    turns[i, seat] = 1
    st[i, C_SEAT] = seat
    st[i, C_MORE] = 0
    st[i, C_RECV] = -1
    st[i, C_DEALER] = dealer
    st[i, C_DONE] = 0
    rng[i] = state


@njit(inline="always")
def _end_turn(i, n, st, turns, played, params):
    """Pass the turn on; returns False when the stall limit ends the deal."""
    st[i, C_MORE] = 0
    if not played:
        st[i, C_AUX + AUX_STALL] += 1
        if st[i, C_AUX + AUX_STALL] >= params[P_STALL]:
            return False
    seat = st[i, C_SEAT] + 1
    if seat >= n:
        seat = 0
    st[i, C_SEAT] = seat
    turns[i, seat] += 1
    return True


@njit(cache=True)
def _apply(i, n, a, st, hands, turns, chips, pens, stock, lines, poss, params, tab):
    """Apply a legal action for row ``i``'s seat to move. Returns -2 while the deal goes on,
    else the winner (-1 when the stall limit ended it)."""
    seat = st[i, C_SEAT]
    aux = st[i, C_AUX:C_AUX + N_AUX]
    if a >= A_GIVE:  # give a card to the seat that asked; then its turn ends
        c = a - A_GIVE
        bit = _ONE << np.uint64(c)
        recv = st[i, C_RECV]
        hands[i, seat] ^= bit
        hands[i, recv] |= bit
        st[i, C_SEAT] = recv
        st[i, C_RECV] = -1
        return -2 if _end_turn(i, n, st, turns, False, params) else -1
    if a == A_STOP:
        return -2 if _end_turn(i, n, st, turns, True, params) else -1
    if a == A_TOKEN:
        if params[P_HOARD] == HOARD_ANY and (hands[i, seat] & _playable(st, i, params,
                                                                      lines[i])) != _ZERO:
            pens[i, seat] += params[P_HOARD_PENALTY]
        if params[P_TOKEN_MODE] == TOKEN_PER_MISS:  # a fine of its own; nothing moves
            chips[i, seat] += 1
        else:
            aux[AUX_HOLDER] = seat
        return -2 if _end_turn(i, n, st, turns, False, params) else -1
    if a == A_PASS:
        return -2 if _end_turn(i, n, st, turns, False, params) else -1
    if a == A_CHIP:
        chips[i, seat] += 1
        aux[AUX_POT] += 1
        return -2 if _end_turn(i, n, st, turns, False, params) else -1
    if a == A_DRAW:
        c = stock[i, aux[AUX_STOCK]]
        aux[AUX_STOCK] += 1
        hands[i, seat] |= _ONE << np.uint64(c)
        return -2 if _end_turn(i, n, st, turns, False, params) else -1
    if a == A_ASK:
        st[i, C_RECV] = seat
        st[i, C_SEAT] = _giver(hands, i, n, seat)
        return -2
    # play card a
    c = a
    h = hands[i, seat] ^ (_ONE << np.uint64(c))
    hands[i, seat] = h
    tab[i] |= _ONE << np.uint64(c)
    s = c // 13
    if params[P_UPWARD] != 0 and aux[AUX_START] == 0:
        aux[AUX_START] = c - s * 13 + 1
        _upward_line(aux[AUX_START], lines[i], poss[i])
    p = poss[i, c - s * 13]
    closing = False
    lo = st[i, C_LO + s]
    if lo == 0:
        st[i, C_LO + s] = p
        st[i, C_HI + s] = p
    elif p < lo:
        st[i, C_LO + s] = p
        closing = p == 1
    else:
        st[i, C_HI + s] = p
        closing = p == 13
    aux[AUX_STALL] = 0
    if h == _ZERO:
        return seat
    extra = params[P_EXTRA_MOVE] != 0
    multi = params[P_MULTI] != 0
    if (multi or (extra and closing)) and (h & _playable(st, i, params, lines[i])) != _ZERO:
        st[i, C_MORE] = 1
        return -2
    return -2 if _end_turn(i, n, st, turns, True, params) else -1


@njit(cache=True)
def _choose(i, n, pol, st, hands, playable, rng, behind, values, weights, mask_row, poss,
            params):
    """An action of a kernel policy for row ``i`` (its legal mask in ``mask_row``)."""
    state = rng[i]
    seat = st[i, C_SEAT]
    h = hands[i, seat]
    if st[i, C_RECV] >= 0:  # asked for a card: as in the kernel's playouts (playout.play_until)
        if pol != POLICY_RANDOM:
            c = _give_pick(h, st[i, C_LO:C_LO + 4], st[i, C_HI:C_HI + 4], poss[i], params,
                           playable, behind, values)
            return A_GIVE + np.int64(c)  # (written as one sum, numba typed it a float)
        state, k = below(state, popcount(h))
        rng[i] = state
        return A_GIVE + kth_bit(h, k)
    lm = h & playable
    cnt = popcount(lm)
    if cnt == 0:  # the one failure move
        for a in range(A_STOP, A_GIVE):
            if mask_row[a] != 0:
                return a
    extra = 1 if (st[i, C_MORE] != 0 or mask_row[A_TOKEN] != 0) else 0  # stop or hoard
    if pol == POLICY_RANDOM:
        state, k = below(state, cnt + extra)
    elif extra == 1 and st[i, C_MORE] == 0:  # hoarding: as in the kernel's playouts
        state, k = _hoard_pick(lm, h, hands[i], n, seat, behind, values, state, weights[pol],
                               st[i, C_AUX:C_AUX + N_AUX], params, cnt)
    else:
        hs = hands[i]
        state, k, key = _heuristic_pick(lm, h, hs, n, seat, behind, values, state, weights[pol])
        if extra == 1 and key < 0.0:
            k = cnt
    rng[i] = state
    if k == cnt:
        return A_STOP if st[i, C_MORE] != 0 else A_TOKEN
    return kth_bit(lm, k)


@njit(cache=True)
def _finish(i, n, winner, st, hands, chips, pens, params, values, reward_mode, rewards,
            card_pts, token_pts, net, points):
    aux = st[i, C_AUX:C_AUX + N_AUX]
    score(hands[i], n, winner, aux, chips[i], pens[i], params, values, card_pts, token_pts,
          net, points)
    for s in range(n):
        if reward_mode == REWARD_WIN:
            rewards[i, s] = 1.0 if s == winner else 0.0
        else:
            rewards[i, s] = -points[s]


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
            a = _choose(i, n, pol, st, hands, playable, rng, behind, values, weights, mask[i],
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
                _know_before(i, n, a, st, params, _playable(st, i, params, lines[i]), absent,
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
            a = _choose(i, n, pol, st, hands, playable, rng, behind, values, weights, mask[i],
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


class VecEnv:
    """``num_envs`` deals of ``rules`` at a table of ``players``, stepped together.

    ``opponents``: per seat, ``None`` for a seat the caller plays, or a kernel policy name
    (``"random"``, ``"greedy"``, ``"sensible"``, ``"strong"``) for a seat played inside the
    kernel; by default the caller plays every seat. ``reward``: ``"points"`` (minus the
    deal's points) or ``"win"`` (1 for the winner).

    Optional (all off by default, so that existing callers see no change):
    ``knowledge=k`` adds the knowledge block (:func:`knowledge_size`: card types each
    opponent is known not to hold, and the last ``k`` card plays) after the base
    observation; ``learner=seat`` never reports a deal that ends before that seat moved
    (it is dealt anew) and keeps each reported deal's final observation as that seat saw it
    in :attr:`final_obs`. :meth:`step_rows` steps only some rows."""

    def __init__(self, rules: Rules, players: int = 4, num_envs: int = 1, seed: int = 0,
                 opponents: Any = None, reward: str = "points", knowledge: int | None = None,
                 learner: int | None = None) -> None:
        why = unsupported(rules, players)
        if why:
            raise ValueError(why)
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        if reward not in ("points", "win"):
            raise ValueError(f"reward must be 'points' or 'win', not {reward!r}")
        self.rules = rules
        self.n = n = players
        self.num_envs = N = num_envs
        self.seed = seed
        self.reward = reward
        self.params, self.line0, self.pos0, self.values = rule_arrays(rules)
        self.behind = behind_array(rules)
        if opponents is None:
            opponents = [None] * n
        if len(opponents) != n:
            raise ValueError(f"opponents needs one entry per seat ({n}), got {len(opponents)}")
        names = ["random" if o is None else o for o in opponents]
        self.policy = policy_array(names, n).astype(np.int64)
        if (self.policy == POLICY_EXPERT).any():  # _choose has not the table rows it needs
            raise ValueError("opponents: the 'expert' kernel policy is for the search's "
                             "playouts only; use 'sensible', 'strong', 'greedy', 'epsilon' "
                             "or 'random' here")
        for s, o in enumerate(opponents):
            if o is None:
                self.policy[s] = EXTERNAL
        if (self.policy == EXTERNAL).sum() == 0:
            raise ValueError("at least one seat must be played by the caller (opponents=None)")
        self.num_actions = NUM_ACTIONS
        self.obs_size = obs_size(n)
        self.st = np.zeros((N, N_COLS), np.int64)
        self.hands = np.zeros((N, n), np.uint64)
        self.turns = np.zeros((N, n), np.int64)
        self.chips = np.zeros((N, n), np.int64)
        self.pens = np.zeros((N, n), np.int64)
        self.stock = np.zeros((N, STOCK_MAX), np.int64)
        self.stock_len = stock_size(rules)
        self.lines = np.zeros((N, 13), np.int64)
        self.poss = np.zeros((N, 13), np.int64)
        self.rng = np.zeros(N, np.uint64)
        self.dealt = np.zeros((N, n), np.uint64)
        self.tab = np.zeros(N, np.uint64)  # the cards on the table
        self.dealt_stock = np.zeros((N, STOCK_MAX), np.int64)
        self.obs = np.zeros((N, self.obs_size), np.float32)
        self.mask = np.zeros((N, NUM_ACTIONS), np.int8)
        self.rewards = np.zeros((N, n), np.float32)
        self.dones = np.zeros(N, np.bool_)
        self.winners = np.full(N, -1, np.int64)
        self.points = np.zeros((N, n), np.int64)
        self._noop = np.zeros(N, np.int64)
        self._rand_state = np.array([seed & ((1 << 64) - 1)], np.uint64)
        self._started = False
        if knowledge is not None and (not isinstance(knowledge, int) or knowledge < 0):
            raise ValueError(f"knowledge must be a number of last plays (0 or more) or None, "
                             f"not {knowledge!r}")
        if learner is not None and (not isinstance(learner, int) or not 0 <= learner < n
                                    or self.policy[learner] != EXTERNAL):
            raise ValueError(f"learner must be a seat the caller plays, not {learner!r}")
        self.knowledge = knowledge
        self.learner = learner
        self._ex = knowledge is not None or learner is not None
        if knowledge is not None:
            self.base_obs_size = self.obs_size
            self.obs_size += knowledge_size(n, knowledge)
            self.obs = np.zeros((N, self.obs_size), np.float32)
        self.absent = np.zeros((N, n, n), np.uint64)
        self.recent = np.full((N, knowledge or 0), -1, np.int64)
        self.acted = np.zeros(N, np.bool_)
        self.final_obs = np.zeros((N, self.obs_size), np.float32)
        self._all = np.ones(N, np.bool_)

    def _run_ex(self, actions: np.ndarray, active: np.ndarray) -> int:
        return vec_step_ex(actions, active, -1 if self.learner is None else self.learner,
                           self.n, self.num_envs, np.uint64(self.seed), self.policy,
                           1 if self.reward == "win" else 0, self.st, self.hands, self.turns,
                           self.chips, self.pens, self.stock, self.stock_len, self.lines,
                           self.poss, self.rng, self.line0, self.pos0, self.params,
                           self.values, self.behind, WEIGHTS, self.dealt, self.dealt_stock,
                           self.tab, self.obs, self.mask, self.rewards, self.dones,
                           self.winners, self.points, self.knowledge is not None,
                           self.absent, self.recent, self.acted, self.final_obs)

    def _run(self, actions: np.ndarray, apply: bool) -> int:
        if self._ex:
            return self._run_ex(actions if apply else np.full(self.num_envs, -2, np.int64),
                                self._all)
        return vec_step(actions, apply, self.n, self.num_envs, np.uint64(self.seed),
                        self.policy, 1 if self.reward == "win" else 0, self.st, self.hands,
                        self.turns, self.chips, self.pens, self.stock, self.stock_len,
                        self.lines, self.poss,
                        self.rng, self.line0, self.pos0, self.params, self.values, self.behind,
                        WEIGHTS, self.dealt, self.dealt_stock, self.tab, self.obs, self.mask,
                        self.rewards, self.dones, self.winners, self.points)

    def reset(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal every row again (from the first deals of the run); returns ``(obs, mask,
        seat)``: the observation and legal mask of each row's seat to move, and that seat."""
        reset_all(self.n, self.num_envs, np.uint64(self.seed), self.st, self.hands, self.turns,
                  self.chips, self.pens, self.stock, self.lines, self.poss, self.rng,
                  self.line0, self.pos0, self.params, self.dealt, self.dealt_stock, self.tab)
        self.absent[:] = 0
        self.recent[:] = -1
        self.acted[:] = False
        self._run(self._noop, False)
        self._started = True
        return self.obs, self.mask, self.st[:, C_SEAT]

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                           np.ndarray]:
        """Apply one action per row; returns ``(obs, mask, seat, rewards, done)``. The arrays
        are the environment's own buffers, overwritten by the next call (copy what you keep).
        An illegal action raises ``ValueError`` naming the row, and nothing changes."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, got shape {a.shape} "
                             f"of {a.dtype}")
        bad = self._run(a.astype(np.int64, copy=False), True)
        if bad >= 0:
            raise ValueError(f"row {bad}: action {int(a[bad])} is not legal now "
                             f"(legal: {np.flatnonzero(self.mask[bad]).tolist()})")
        return self.obs, self.mask, self.st[:, C_SEAT], self.rewards, self.dones

    def step_rows(self, actions: Any, active: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                            np.ndarray, np.ndarray]:
        """:meth:`step` for the rows where ``active`` is true only (the others keep their
        position, and their ``rewards``/``done`` entries from before). ``actions[i] = -1``
        abandons row ``i``'s deal (dealt anew, no reward); ``-2`` only lets the kernel's
        seats move."""
        if not self._started:
            raise RuntimeError("call reset() before step_rows()")
        a = np.asarray(actions)
        act = np.asarray(active, np.bool_)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer) or \
                act.shape != (self.num_envs,):
            raise ValueError(f"actions and active must be {self.num_envs} integers and "
                             f"booleans, got shapes {a.shape} and {act.shape}")
        bad = self._run_ex(a.astype(np.int64, copy=False), act)
        if bad >= 0:
            raise ValueError(f"row {bad}: action {int(a[bad])} is not legal now "
                             f"(legal: {np.flatnonzero(self.mask[bad]).tolist()})")
        return self.obs, self.mask, self.st[:, C_SEAT], self.rewards, self.dones

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniform legal action for every row (from ``rng``, else the env's own stream)."""
        out = np.zeros(self.num_envs, np.int64)
        if rng is not None:
            self._rand_state[0] = np.uint64(int(rng.integers(0, 1 << 63)))
        random_actions(self.mask, self._rand_state, out)
        return out

    def deal_setup(self, i: int) -> dict[str, Any]:
        """Row ``i``'s current deal as dealt: hands (card id lists per seat), stock, dealer and
        deal number (to replay it in the full engine)."""
        hands = [[c for c in range(52) if int(self.dealt[i, s]) >> c & 1] for s in range(self.n)]
        stock = self.dealt_stock[i, :self.stock_len].tolist()
        return {"hands": hands, "stock": stock, "dealer": int(self.st[i, C_DEALER]),
                "deal": int(self.st[i, C_DEAL])}

    @property
    def seats(self) -> np.ndarray:
        return self.st[:, C_SEAT]


def warm_up() -> None:
    """Compile the environment's functions once (cached on disk afterwards)."""
    from ..rules import Rules

    env = VecEnv(Rules(), 4, 2, seed=0, opponents=[None, "random", "greedy", "random"])
    env.reset()
    for _ in range(3):
        env.step(env.random_actions())
    # the extended step too (the knowledge block, some rows only: master-neural's playouts
    # against the kernel's models of the opponents)
    env = VecEnv(Rules(), 4, 2, seed=0, opponents=[None, "sensible", "random", "sensible"],
                 knowledge=0)
    env.reset()
    env.step_rows(env.random_actions(), np.array([True, False]))


__all__ = ["VecEnv", "NUM_ACTIONS", "obs_size", "knowledge_size", "warm_up"]

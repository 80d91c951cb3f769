# mypy: ignore-errors
# (numba-compiled code: numba types it)
"""One row of the vectorised environment (:class:`~ristiseiska.kernel.vecenv.VecEnv`) in the
compiled kernel (numba): the action ids, the columns of a row's integer state, and the rules
applied to one row: what fits and may be played, the legal-action mask, the observation, a new
deal, applying an action, a kernel policy's action, and the deal's rewards. The steps of
:mod:`~ristiseiska.kernel.vecstep` run them over every row."""

from __future__ import annotations

import numpy as np
from numba import njit

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
def row_playable(st, i, params, line):
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
    ``playable``: the cards that may be played now (:func:`row_playable`)."""
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
        if params[P_HOARD] == HOARD_ANY and (hands[i, seat] & row_playable(st, i, params,
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
    if (multi or (extra and closing)) and (h & row_playable(st, i, params, lines[i])) != _ZERO:
        st[i, C_MORE] = 1
        return -2
    return -2 if _end_turn(i, n, st, turns, True, params) else -1


@njit(cache=True)
def choose_action(i, n, pol, st, hands, playable, rng, behind, values, weights, mask_row, poss,
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


__all__ = ["NUM_ACTIONS", "obs_size", "row_playable", "choose_action"]

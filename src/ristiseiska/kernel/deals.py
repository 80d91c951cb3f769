# mypy: ignore-errors
# (numba-compiled code: numba types it)
"""Whole deals in the compiled kernel (numba): shuffling and dealing (the kernel's own
generator), the first seat, chips paid before the deal, scoring a finished deal, and a run of
deals played out (:func:`ristiseiska.kernel.play_deals` calls :func:`run_deals`)."""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .bits import _ONE, _ZERO, below, derive_seed, popcount
from .codes import (
    AUX_HOLDER,
    AUX_POT,
    AUX_STALL,
    AUX_START,
    AUX_STOCK,
    FAIL_CHIP,
    FAIL_TOKEN,
    N_AUX,
    P_ANTE,
    P_FAILURE,
    P_LAID,
    P_OPENING,
    P_PAY_PER_CARD,
    P_SHORT_CHIP,
    P_STOCK,
    P_TOKEN_MODE,
    P_TOKEN_VALUE,
    STOCK_HAND,
    TOKEN_PER_MISS,
)
from .playout import play_out


@njit(cache=True)
def _shuffle(deck, state):
    """Fisher–Yates in place, drawing from the kernel's generator; returns the new state."""
    for i in range(deck.shape[0] - 1, 0, -1):
        state, j = below(state, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    return state


@njit(cache=True)
def _deal_out(deck, count, n, dealer, hands):
    """The first ``count`` cards of ``deck``, one at a time from the dealer's left."""
    for s in range(n):
        hands[s] = _ZERO
    seat = dealer + 1 if dealer + 1 < n else 0
    for i in range(count):
        hands[seat] |= _ONE << np.uint64(deck[i])
        seat = seat + 1 if seat + 1 < n else 0


@njit(cache=True)
def deal_hands(n, dealer, state, hands):
    """Shuffle 52 cards and deal them one at a time from the dealer's left."""
    deck = np.arange(52)
    state = _shuffle(deck, state)
    _deal_out(deck, 52, n, dealer, hands)
    return state


@njit(cache=True)
def deal_stock_laid(n, dealer, state, hands, stock, laid):
    """The stock game (V13): the card ``laid`` aside (-1: none), shuffle the others, deal 17
    to each seat one at a time from the dealer's left; the rest (``stock``: 17 or 18 long)
    is the stock, top first (game.deal)."""
    size = 51 if laid >= 0 else 52
    deck = np.empty(size, np.int64)
    k = 0
    for c in range(52):
        if c != laid:
            deck[k] = c
            k += 1
    state = _shuffle(deck, state)
    dealt = STOCK_HAND * n
    _deal_out(deck, dealt, n, dealer, hands)
    for i in range(size - dealt):
        stock[i] = deck[dealt + i]
    return state


@njit(cache=True)
def deal_stock(n, dealer, state, hands, stock):
    """The stock game with ♣7 laid out (``kahdestaan-pakka``): a stock of 17."""
    return deal_stock_laid(n, dealer, state, hands, stock, 6)


@njit(inline="always")
def first_seat(hands, n, dealer, opening):
    if opening >= 0:
        bit = _ONE << np.uint64(opening)
        for k in range(n):
            seat = (dealer + 1 + k) % n
            if hands[seat] & bit:
                return seat
    return (dealer + 1) % n


@njit(cache=True)
def score(hands, n, winner, aux, chips, pens, params, values, card_pts, token_pts, net, points):
    """The result of a finished deal (scoring.score_deal for the rules the kernel plays)."""
    failure = params[P_FAILURE]
    total_cards = 0
    for s in range(n):
        h = hands[s]
        p = 0
        while h != _ZERO:
            c = trailing_zeros(h)
            p += values[c]
            h &= h - _ONE
        card_pts[s] = p
        token_pts[s] = 0
        net[s] = 0
    holder = aux[AUX_HOLDER]
    if failure == FAIL_TOKEN and params[P_TOKEN_MODE] == TOKEN_PER_MISS:
        for s in range(n):  # every fine stays with whoever took it (V18)
            token_pts[s] = params[P_TOKEN_VALUE] * chips[s]
            net[s] = chips[s]
    elif failure == FAIL_TOKEN and holder >= 0 and hands[holder] != _ZERO:
        token_pts[holder] = params[P_TOKEN_VALUE]
    if failure == FAIL_CHIP:
        for s in range(n):
            net[s] = chips[s]
            card_pts[s] = 0
        if winner >= 0:
            net[winner] -= aux[AUX_POT]
            if params[P_PAY_PER_CARD] != 0:
                for s in range(n):
                    if s != winner:
                        k = popcount(hands[s])
                        net[s] += k
                        total_cards += k
                net[winner] -= total_cards
        for s in range(n):
            points[s] = net[s] + pens[s]
    else:
        for s in range(n):
            points[s] = card_pts[s] + token_pts[s] + pens[s]


@njit(inline="always")
def _setup_chips(hands, n, params, chips, aux):
    if params[P_FAILURE] != FAIL_CHIP:
        return
    biggest = 0
    for s in range(n):
        biggest = max(biggest, popcount(hands[s]))
    for s in range(n):
        pay = 0
        if params[P_ANTE] != 0:
            pay += 1
        if params[P_SHORT_CHIP] != 0 and popcount(hands[s]) < biggest:
            pay += 1
        chips[s] += pay
        aux[AUX_POT] += pay


@njit(cache=True)
def run_deals(seed, start, count, n, first_dealer, params, line, pos_of, values,
              card_points, token_points, penalties, chips_net, points, winners, ends, holders,
              dealt, stocks, moves, nmoves, record, policy, behind, weights):
    """Play deals ``start .. start+count-1`` of a run (deal ``i`` has seed
    ``derive_seed(seed, i)`` and dealer ``(first_dealer + i) % n``). Outputs: one row per
    deal (``stocks``: count × the stock's size with the stock game, else count × 0); the move
    lists only with ``record``. ``chips_net`` holds the fines per seat under per-miss token
    rules."""
    hands = np.zeros(n, np.uint64)
    lo = np.zeros(4, np.int64)
    hi = np.zeros(4, np.int64)
    aux = np.zeros(N_AUX, np.int64)
    with_stock = params[P_STOCK] != 0
    laid = params[P_LAID]
    stock = np.zeros(stocks.shape[1] if with_stock else 0, np.int64)
    turns = np.zeros(n, np.int64)
    chips = np.zeros(n, np.int64)
    pens = np.zeros(n, np.int64)
    opening = params[P_OPENING]
    for d in range(count):
        i = start + d
        dealer = (first_dealer + i) % n
        state = derive_seed(seed, np.uint64(i))
        for s in range(4):
            lo[s] = 0
            hi[s] = 0
        if with_stock:
            state = deal_stock_laid(n, dealer, state, hands, stock, laid)
            for j in range(stock.shape[0]):
                stocks[d, j] = stock[j]
            if laid >= 0:  # the opening card lies on the table
                lo[laid // 13] = pos_of[laid % 13]
                hi[laid // 13] = pos_of[laid % 13]
        else:
            state = deal_hands(n, dealer, state, hands)
        for s in range(n):
            dealt[d, s] = hands[s]
            turns[s] = 0
            chips[s] = 0
            pens[s] = 0
        aux[AUX_HOLDER] = -1
        aux[AUX_STALL] = 0
        aux[AUX_POT] = 0
        aux[AUX_STOCK] = 0
        aux[AUX_START] = 0
        _setup_chips(hands, n, params, chips, aux)
        seat = first_seat(hands, n, dealer, opening)
        turns[seat] = 1
        row = d if record else 0
        winner, end, nm, state = play_out(hands, n, lo, hi, seat, False, -1, aux, turns,
                                          chips, pens, params, line, pos_of, stock, state,
                                          moves[row], record, policy, behind, values,
                                          weights)
        nmoves[row] = nm
        winners[d] = winner
        ends[d] = end
        holders[d] = aux[AUX_HOLDER]
        score(hands, n, winner, aux, chips, pens, params, values, card_points[d],
              token_points[d], chips_net[d], points[d])
        for s in range(n):
            penalties[d, s] = pens[s]

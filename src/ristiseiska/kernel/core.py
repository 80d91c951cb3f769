# mypy: ignore-errors
# (numba-compiled code: numba types it; its intrinsics have no stubs)
"""The compiled loop (numba). Everything here works on plain integers and numpy arrays.

Cards are bits of a ``uint64``: bit ``suit * 13 + rank - 1`` (the engine's card ids). A table
is ``lo[4]``/``hi[4]``: the lowest and highest rank down in each suit, ``0`` while the suit is
unopened. ``params`` (int64) holds the rule options the kernel knows, see ``P_*``; ``values``
(int64[52]) the points of each card left in hand.

Random numbers: SplitMix64, one uint64 state per deal, so a deal is a pure function of its
seed. A bounded draw uses the multiply-shift method on the top 32 bits (the bias, below 2^-32
for our tiny ranges, is far below anything a simulation can see).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit
from numba.core import cgutils
from numba.cpython.unsafe.numbers import trailing_zeros
from numba.extending import intrinsic

# params layout
P_TOKEN_VALUE = 0
P_EXTRA_MOVE = 1  # 1: after an ace or a king the player may play one more card or stop
P_ORDER = 2  # ORDER_*
P_TOKEN = 3  # 1: a player who cannot play takes the token; 0: they pass
P_OPENING = 4  # card id that opens the deal (a seven)
N_PARAMS = 5

ORDER_LOW_FIRST, ORDER_HIGH_FIRST, ORDER_BOTH = 0, 1, 2

# Move codes in the move list: 0..51 play that card, STOP, FAIL (token or pass: whatever the
# rules make a player who cannot play do).
STOP = 52
FAIL = 53
SEAT_SHIFT = 64  # a recorded move is seat * SEAT_SHIFT + code
MAX_MOVES = 512  # 52 plays + at most n-1 failures per play + stops: far below this

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)


@intrinsic
def _ctpop(typingctx, x):  # type: ignore[no-untyped-def]
    """LLVM's population count (one instruction on x86-64)."""
    sig = x(x)

    def codegen(context, builder, signature, args):  # type: ignore[no-untyped-def]
        t = context.get_value_type(x)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(t, [t]),
                                            "llvm.ctpop.i64")
        return builder.call(fn, args)

    return sig, codegen


@njit(inline="always")
def popcount(x: np.uint64) -> int:
    return np.int64(_ctpop(x))


@njit(inline="always")
def mix64(z: np.uint64) -> np.uint64:
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(inline="always")
def next_random(state: np.uint64) -> tuple[np.uint64, np.uint64]:
    state = state + _GOLDEN
    return state, mix64(state)


@njit(inline="always")
def below(state: np.uint64, k: int) -> tuple[np.uint64, int]:
    """A uniform integer in [0, k) and the new state."""
    state, r = next_random(state)
    return state, np.int64(((r >> np.uint64(32)) * np.uint64(k)) >> np.uint64(32))


@njit(cache=True)
def derive_seed(seed: np.uint64, i: np.uint64) -> np.uint64:
    """The seed of deal ``i`` of a run seeded with ``seed`` (twin of ``sim.derive_seed``)."""
    return mix64(mix64(seed) + i * _GOLDEN) >> np.uint64(1)


@njit(inline="always")
def suit_fits(s: int, lo: np.ndarray, hi: np.ndarray, order: int, opened: bool) -> np.uint64:
    """The cards of suit ``s`` that fit on the table now."""
    base = s * 13
    lo_s = lo[s]
    if lo_s == 0:
        if opened:
            return _ONE << np.uint64(base + 6)
        return _ZERO
    hi_s = hi[s]
    if order == ORDER_BOTH:
        low_ok = True
        high_ok = True
    elif order == ORDER_LOW_FIRST:
        low_ok = lo_s == 7 or hi_s > 7
        high_ok = lo_s < 7
    else:
        low_ok = hi_s > 7
        high_ok = hi_s == 7 or lo_s < 7
    m = _ZERO
    if lo_s > 1 and low_ok:
        m |= _ONE << np.uint64(base + lo_s - 2)
    if hi_s < 13 and high_ok:
        m |= _ONE << np.uint64(base + hi_s)
    return m


@njit(inline="always")
def table_playable(lo: np.ndarray, hi: np.ndarray, order: int, opened: bool,
                   opening: int) -> np.uint64:
    if not opened:
        return _ONE << np.uint64(opening)
    p = _ZERO
    for s in range(4):
        p |= suit_fits(s, lo, hi, order, opened)
    return p


@njit(cache=True)
def play_out(hands: np.ndarray, n: int, lo: np.ndarray, hi: np.ndarray, seat: int, more: bool,
             token_holder: int, params: np.ndarray, state: np.uint64,
             moves: np.ndarray, record: bool) -> tuple[int, int, int, np.uint64]:
    """Play random legal moves from the given position to the end of the deal.

    ``hands``, ``lo`` and ``hi`` are changed in place. ``seat`` is the player to move; ``more``
    says whether they are in the optional extra move after a closing card. Returns
    ``(winner, token_holder, number of moves, rng state)``; with ``record`` the moves are written
    to ``moves`` as ``seat * SEAT_SHIFT + code`` (code: card id, ``STOP``, ``FAIL``)."""
    order = params[P_ORDER]
    extra = params[P_EXTRA_MOVE] != 0
    token = params[P_TOKEN] != 0
    opening = params[P_OPENING]
    opened = False
    for s in range(4):
        if lo[s] != 0:
            opened = True
    fits = np.zeros(4, np.uint64)
    if opened:
        for s in range(4):
            fits[s] = suit_fits(s, lo, hi, order, True)
        playable = fits[0] | fits[1] | fits[2] | fits[3]
    else:
        playable = _ONE << np.uint64(opening)
    nm = 0
    fails = 0  # failures in a row: a full round of them means a broken position
    while True:
        h = hands[seat]
        lm = h & playable
        if more:
            cnt = popcount(lm)
            state, k = below(state, cnt + 1)
            if k == cnt:
                if record:
                    moves[nm] = seat * SEAT_SHIFT + STOP
                nm += 1
                more = False
                seat = seat + 1 if seat + 1 < n else 0
                continue
        else:
            if lm == _ZERO:
                if record:
                    moves[nm] = seat * SEAT_SHIFT + FAIL
                nm += 1
                fails += 1
                if fails > n:
                    return -1, token_holder, nm, state
                if token:
                    token_holder = seat
                seat = seat + 1 if seat + 1 < n else 0
                continue
            cnt = popcount(lm)
            if cnt > 1:
                state, k = below(state, cnt)
            else:
                k = 0
        fails = 0
        for _ in range(k):
            lm &= lm - _ONE
        c = np.int64(trailing_zeros(lm))
        h ^= _ONE << np.uint64(c)
        hands[seat] = h
        if record:
            moves[nm] = seat * SEAT_SHIFT + c
        nm += 1
        s = c // 13
        r = c - s * 13 + 1
        closing = False
        if lo[s] == 0:
            lo[s] = r
            hi[s] = r
            if not opened:
                opened = True
                for t in range(4):
                    fits[t] = suit_fits(t, lo, hi, order, True)
            else:
                fits[s] = suit_fits(s, lo, hi, order, True)
        else:
            if r < lo[s]:
                lo[s] = r
                closing = r == 1
            else:
                hi[s] = r
                closing = r == 13
            fits[s] = suit_fits(s, lo, hi, order, True)
        playable = fits[0] | fits[1] | fits[2] | fits[3]
        if h == _ZERO:
            return seat, token_holder, nm, state
        if extra and closing and (h & playable) != _ZERO:
            more = True
        else:
            more = False
            seat = seat + 1 if seat + 1 < n else 0


@njit(cache=True)
def deal_hands(n: int, dealer: int, state: np.uint64, hands: np.ndarray) -> np.uint64:
    """Shuffle 52 cards (Fisher–Yates) and deal them one at a time from the dealer's left."""
    deck = np.arange(52)
    for i in range(51, 0, -1):
        state, j = below(state, i + 1)
        t = deck[i]
        deck[i] = deck[j]
        deck[j] = t
    for s in range(n):
        hands[s] = _ZERO
    seat = dealer + 1 if dealer + 1 < n else 0
    for i in range(52):
        hands[seat] |= _ONE << np.uint64(deck[i])
        seat = seat + 1 if seat + 1 < n else 0
    return state


@njit(inline="always")
def first_seat(hands: np.ndarray, n: int, dealer: int, opening: int) -> int:
    bit = _ONE << np.uint64(opening)
    for k in range(n):
        seat = (dealer + 1 + k) % n
        if hands[seat] & bit:
            return seat
    return (dealer + 1) % n


@njit(cache=True)
def run_deals(seed: np.uint64, start: int, count: int, n: int, first_dealer: int,
              params: np.ndarray, values: np.ndarray, given: np.ndarray,
              card_points: np.ndarray, winners: np.ndarray, holders: np.ndarray,
              dealt: np.ndarray, moves: np.ndarray, nmoves: np.ndarray, record: bool) -> None:
    """Play deals ``start .. start+count-1`` of a run (deal ``i`` has seed
    ``derive_seed(seed, i)`` and dealer ``(first_dealer + i) % n``).

    ``given`` (count × n) holds hands to use instead of dealing, or has 0 rows to deal here.
    Outputs, one row per deal: ``card_points`` (count × n), ``winners``, ``holders`` (token
    holder at the end or -1), ``dealt`` (count × n, the hands dealt), and with ``record``
    ``moves`` (count × MAX_MOVES) and ``nmoves``."""
    hands = np.zeros(n, np.uint64)
    lo = np.zeros(4, np.int64)
    hi = np.zeros(4, np.int64)
    opening = params[P_OPENING]
    use_given = given.shape[0] > 0
    for d in range(count):
        i = start + d
        dealer = (first_dealer + i) % n
        state = derive_seed(seed, np.uint64(i))
        if use_given:
            for s in range(n):
                hands[s] = given[d, s]
        else:
            state = deal_hands(n, dealer, state, hands)
        for s in range(n):
            dealt[d, s] = hands[s]
        for s in range(4):
            lo[s] = 0
            hi[s] = 0
        seat = first_seat(hands, n, dealer, opening)
        if record:
            winner, holder, nm, state = play_out(hands, n, lo, hi, seat, False, -1, params,
                                                 state, moves[d], True)
            nmoves[d] = nm
        else:
            winner, holder, nm, state = play_out(hands, n, lo, hi, seat, False, -1, params,
                                                 state, moves[0], False)
        winners[d] = winner
        holders[d] = holder
        for s in range(n):
            h = hands[s]
            p = 0
            while h != _ZERO:
                c = trailing_zeros(h)
                p += values[c]
                h &= h - _ONE
            card_points[d, s] = p


@njit(cache=True)
def rollouts(hands0: np.ndarray, n: int, lo0: np.ndarray, hi0: np.ndarray, seat: int,
             more: bool, token_holder: int, params: np.ndarray, values: np.ndarray,
             n_rollouts: int, seed: np.uint64, out: np.ndarray) -> None:
    """Sum of each seat's points over ``n_rollouts`` random playouts from one position
    (``hands0`` may be k × n: k determinizations, used in turn). ``out`` (n) is added to."""
    hands = np.zeros(n, np.uint64)
    lo = np.zeros(4, np.int64)
    hi = np.zeros(4, np.int64)
    dummy = np.zeros(1, np.int16)
    tv = params[P_TOKEN_VALUE]
    k = hands0.shape[0]
    state = mix64(seed)
    for r in range(n_rollouts):
        row = r % k
        for s in range(n):
            hands[s] = hands0[row, s]
        for s in range(4):
            lo[s] = lo0[s]
            hi[s] = hi0[s]
        winner, holder, nm, state = play_out(hands, n, lo, hi, seat, more, token_holder,
                                             params, state, dummy, False)
        for s in range(n):
            h = hands[s]
            p = 0
            while h != _ZERO:
                c = trailing_zeros(h)
                p += values[c]
                h &= h - _ONE
            if s == holder and s != winner:
                p += tv
            out[s] += p

# mypy: ignore-errors
# (numba-compiled code: numba types it; its intrinsics have no stubs)
"""The exact ceiling against uniformly random players (numba): expectimax with every hand open.

One seat (``me``) chooses; every other seat is the ``random`` bot, which picks uniformly among
its legal moves (each card that fits; after a closing card also *stop*; a single legal move is
forced). With every hand known the deal is then a one-player problem against chance, and
expectimax over the random seats' choices gives, from any position, the best possible
expectation of the chooser's outcome. Each position is solved once (a transposition table keyed
on the whole state: the cards played — with the hands fixed they say who holds what —, the seat
to move, whether it is in the optional extra move, the token holder and the turns in a row
without a card). Two objectives are solved in the same pass, each by its own best play:

* ``win``: the greatest probability of winning the deal (going out first; a deal that ends by
  the stall limit is shared among the lowest scores, as in the tournament);
* ``points``: the least expected points (the deal's score for the chooser: its cards left in
  hand and the token);

and, for reference, the same two expectations when the chooser plays at random too.

Rules: what the kernel plays, less what moves cards between hands or keeps other counts that a
score depends on (see :func:`ceiling_unsupported`). States use the kernel's conventions
(``core``): card bits, ``lo``/``hi`` positions per suit, ``params``/``line``/``pos_of``/``values``.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .bits import mix64, popcount
from .codes import FAIL_TOKEN, P_EXTRA_MOVE, P_FAILURE, P_MULTI, P_OPENING, P_STALL, P_TOKEN_VALUE
from .fits import suit_fits

_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)  # no key has every bit set (the seat is below 8)
_FULL = np.uint64((1 << 52) - 1)
MAX_DEPTH = 256  # choice nodes on one path: at most two per card (a card, then stop)

# what :func:`_settle` found
S_CHOICE, S_OUT, S_STALL = 0, 1, 2


@njit(inline="always")
def _fill_fits(lo, hi, params, line, fits):
    """Each suit's cards that fit now (``fits``, in place); their union."""
    opened = params[P_OPENING] < 0
    for s in range(4):
        if lo[s] != 0:
            opened = True
    if not opened:  # only the opening card
        for s in range(4):
            fits[s] = _ZERO
        fits[params[P_OPENING] // 13] = _ONE << np.uint64(params[P_OPENING])
        return fits[params[P_OPENING] // 13]
    m = _ZERO
    for s in range(4):
        fits[s] = suit_fits(s, lo, hi, params, line, True)
        m |= fits[s]
    return m


@njit(cache=True)
def _settle(hands, n, played, seat, more, holder, stall, lo, hi, fits, params, line, pos_of,
            card):
    """Make the move ``card`` (a card id; -1: stop; -2: none, only settle) for ``seat``, then
    every forced move after it, until a seat has a choice or the deal ends. ``lo``/``hi`` and
    ``fits`` (each suit's cards that fit: :func:`_fill_fits`) change in place. Returns ``(status, played, seat, more, holder, stall, winner, options)``;
    ``options``: the cards ``seat`` may choose among (with ``more`` it may also stop)."""
    extra = params[P_EXTRA_MOVE] != 0
    multi = params[P_MULTI] != 0
    token = params[P_FAILURE] == FAIL_TOKEN
    limit = params[P_STALL]
    playable = fits[0] | fits[1] | fits[2] | fits[3]
    while True:
        if card == -1:  # stop after a closing card: the turn ends
            more = False
            seat = seat + 1 if seat + 1 < n else 0
        elif card >= 0:
            bit = _ONE << np.uint64(card)
            played |= bit
            s = card // 13
            p = pos_of[card - s * 13]
            closing = False
            if lo[s] == 0:
                lo[s] = p
                hi[s] = p
                first = True
                for t in range(4):
                    if t != s and lo[t] != 0:
                        first = False
                if first and params[P_OPENING] >= 0:  # the deal opens: every suit's sevens
                    _fill_fits(lo, hi, params, line, fits)
            elif p < lo[s]:
                lo[s] = p
                closing = p == 1
            else:
                hi[s] = p
                closing = p == 13
            fits[s] = suit_fits(s, lo, hi, params, line, True)
            playable = fits[0] | fits[1] | fits[2] | fits[3]
            stall = 0
            h = hands[seat] & ~played
            if h == _ZERO:
                return S_OUT, played, seat, more, holder, stall, seat, _ZERO
            if (multi or (extra and closing)) and (h & playable) != _ZERO:
                more = True
            else:
                more = False
                seat = seat + 1 if seat + 1 < n else 0
        card = -2
        h = hands[seat] & ~played
        lm = h & playable
        if more:  # lm is never empty here: the extra move is offered only when a card fits
            return S_CHOICE, played, seat, more, holder, stall, -1, lm
        if lm == _ZERO:  # the token (or a pass); the turn ends without a card
            if token:
                holder = seat
            stall += 1
            if stall >= limit:
                return S_STALL, played, seat, more, holder, stall, -1, _ZERO
            seat = seat + 1 if seat + 1 < n else 0
            continue
        if popcount(lm) == 1:
            card = np.int64(trailing_zeros(lm))
            continue
        return S_CHOICE, played, seat, more, holder, stall, -1, lm


@njit(inline="always")
def _points(hands, played, seat, winner, holder, params, values):
    if seat == winner:
        return 0.0
    h = hands[seat] & ~played
    p = 0
    while h != _ZERO:
        c = trailing_zeros(h)
        p += values[c]
        h &= h - _ONE
    if params[P_FAILURE] == FAIL_TOKEN and holder == seat:
        p += params[P_TOKEN_VALUE]
    return np.float64(p)


@njit(cache=True)
def _terminal(hands, n, status, played, winner, holder, params, values, out):
    """Every seat's win credit (``out[0:n]``) and points (``out[n:2n]``) at the end of a
    deal."""
    low = 1e300
    for s in range(n):
        q = _points(hands, played, s, winner, holder, params, values)
        out[n + s] = q
        if q < low:
            low = q
    if status == S_OUT:
        for s in range(n):
            out[s] = 1.0 if s == winner else 0.0
    else:  # the stall limit: the lowest points win, shared
        k = 0
        for s in range(n):
            if out[n + s] == low:
                k += 1
        for s in range(n):
            out[s] = 1.0 / k if out[n + s] == low else 0.0


@njit(inline="always")
def _key(played, seat, more, holder, stall, use_stall):
    k = (played | (np.uint64(seat) << np.uint64(52))
         | (np.uint64(holder + 1) << np.uint64(56)))
    if more:
        k |= _ONE << np.uint64(55)
    if use_stall:  # then stall < limit <= n <= 8
        k |= np.uint64(stall) << np.uint64(60)
    return k


# The transposition table: one flat uint32 array of records, ``2 + 2n`` words each: the key's
# low and high halves (high half ``_FREE``: an empty record; no key has bit 63 set), then the
# values as float32 (read through a float32 view of the same memory).
_FREE = np.uint32(0xFFFFFFFF)
_LOW = np.uint64(0xFFFFFFFF)


def table_words(capacity: int, players: int) -> np.ndarray:
    """An empty transposition table of ``capacity`` records (a power of two) for
    :func:`solve`."""
    if capacity < 2 or capacity & (capacity - 1):
        raise ValueError(f"capacity must be a power of two, not {capacity}")
    return np.empty(capacity * (2 + 2 * players), np.uint32)


@njit(inline="always")
def _find(tab, stride, key):
    """The record holding ``key``, or the empty one where it would go."""
    cap = np.uint64(tab.shape[0] // stride)
    mask = cap - _ONE
    klo = np.uint32(key & _LOW)
    khi = np.uint32(key >> np.uint64(32))
    i = mix64(key) & mask
    while True:
        r = np.int64(i) * stride
        h = tab[r + 1]
        if h == _FREE or (h == khi and tab[r] == klo):
            return r
        i = (i + _ONE) & mask


@njit(cache=True)
def _grow(tab, stride):
    old = tab.shape[0] // stride
    new = np.empty(2 * old * stride, np.uint32)
    for i in range(2 * old):
        new[i * stride + 1] = _FREE
    for i in range(old):
        r = i * stride
        if tab[r + 1] != _FREE:
            key = np.uint64(tab[r]) | (np.uint64(tab[r + 1]) << np.uint64(32))
            q = _find(new, stride, key)
            for j in range(stride):
                new[q + j] = tab[r + j]
    return new


@njit(inline="always")
def _add(acc, d, n, seat, v, joint):
    """Fold a child's values into node ``d`` (its chooser ``seat``). ``joint`` < 0: the
    chooser's two values each by their own best option; otherwise both from the one option
    with the greatest ``joint * win - points``."""
    for u in range(n):
        if u == seat:  # this seat chooses here: its best option
            if joint >= 0.0:
                if joint * v[u] - v[n + u] > joint * acc[d, u] - acc[d, n + u]:
                    acc[d, u] = v[u]
                    acc[d, n + u] = v[n + u]
                continue
            if v[u] > acc[d, u]:
                acc[d, u] = v[u]
            if v[n + u] < acc[d, n + u]:
                acc[d, n + u] = v[n + u]
        else:  # a random seat's choice: the mean
            acc[d, u] += v[u]
            acc[d, n + u] += v[n + u]


@njit(inline="always")
def _open_frame(acc, d, n, seat):
    for j in range(2 * n):
        acc[d, j] = 0.0
    acc[d, seat] = -1.0
    acc[d, n + seat] = 1e300


@njit(cache=True)
def solve(hands, n, played, seat, more, holder, stall, lo0, hi0, params, line, pos_of, values,
          tab, limit=0, joint=-1.0):
    """The exact values of a position for every seat as the chooser against random seats.

    ``hands``: each seat's cards now (uint64 masks; every card not in ``played``, the cards on
    the table, must be in a hand); ``seat``/``more``: the seat to decide and whether it is in
    the optional extra move; ``holder``: the token holder or -1; ``stall``: turns in a row
    without a card; ``lo0``/``hi0``: the suits' ends (not changed); ``tab``: the
    transposition table (:func:`table_words`; cleared here, doubled when half full). Returns
    ``(values, states, tab)``: ``values[0:n]`` the best win probability of each seat,
    ``values[n:2n]`` each seat's least expected points (each seat choosing alone, the others
    random); ``states``: the positions solved. ``limit`` > 0: give up once more positions
    than that would be solved (``states`` -1, the values and the table meaningless).
    ``joint`` ≥ 0: each chooser plays for the one objective ``joint * win - points`` (both
    values then come from that play; the search's leaves, :mod:`.epimc`). After a full solve
    every position below the root is in ``tab`` (:func:`lookup`)."""
    w = 2 * n
    stride = 2 + w
    out = np.zeros(w, np.float64)
    lo = lo0.copy()
    hi = hi0.copy()
    fits = np.zeros(4, np.uint64)
    _fill_fits(lo, hi, params, line, fits)
    st, played, seat, more, holder, stall, winner, opts = _settle(
        hands, n, played, seat, more, holder, stall, lo, hi, fits, params, line, pos_of, -2)
    if st != S_CHOICE:
        _terminal(hands, n, st, played, winner, holder, params, values, out)
        return out, 0, tab
    use_stall = params[P_STALL] <= n
    for i in range(tab.shape[0] // stride):
        tab[i * stride + 1] = _FREE
    tabf = tab.view(np.float32)
    count = 0
    f_played = np.zeros(MAX_DEPTH, np.uint64)
    f_seat = np.zeros(MAX_DEPTH, np.int64)
    f_more = np.zeros(MAX_DEPTH, np.bool_)
    f_holder = np.zeros(MAX_DEPTH, np.int64)
    f_stall = np.zeros(MAX_DEPTH, np.int64)
    f_lo = np.zeros((MAX_DEPTH, 4), np.int64)
    f_hi = np.zeros((MAX_DEPTH, 4), np.int64)
    f_fits = np.zeros((MAX_DEPTH, 4), np.uint64)
    f_rem = np.zeros(MAX_DEPTH, np.uint64)
    f_stop = np.zeros(MAX_DEPTH, np.bool_)
    f_nopt = np.zeros(MAX_DEPTH, np.int64)
    f_acc = np.zeros((MAX_DEPTH, w), np.float64)
    f_key = np.zeros(MAX_DEPTH, np.uint64)
    f_slot = np.zeros(MAX_DEPTH, np.int64)
    v = np.zeros(w, np.float64)
    clo = np.zeros(4, np.int64)
    chi = np.zeros(4, np.int64)
    cfits = np.zeros(4, np.uint64)

    d = 0
    f_played[0] = played
    f_seat[0] = seat
    f_more[0] = more
    f_holder[0] = holder
    f_stall[0] = stall
    f_lo[0, :] = lo
    f_hi[0, :] = hi
    f_fits[0, :] = fits
    f_rem[0] = opts
    f_stop[0] = more
    f_nopt[0] = popcount(opts) + (1 if more else 0)
    f_key[0] = _key(played, seat, more, holder, stall, use_stall)
    r = _find(tab, stride, f_key[0])
    tab[r] = np.uint32(f_key[0] & _LOW)
    tab[r + 1] = np.uint32(f_key[0] >> np.uint64(32))
    f_slot[0] = r
    count = 1
    _open_frame(f_acc, 0, n, seat)
    while True:
        if f_rem[d] != _ZERO:
            card = np.int64(trailing_zeros(f_rem[d]))
            f_rem[d] &= f_rem[d] - _ONE
        elif f_stop[d]:
            card = -1
            f_stop[d] = False
        else:  # every option seen: the position's values
            k = np.float64(f_nopt[d])
            t = f_seat[d]
            for j in range(w):
                v[j] = f_acc[d, j] / k
            v[t] = f_acc[d, t]
            v[n + t] = f_acc[d, n + t]
            r = f_slot[d]  # reserved when the position was opened
            for j in range(w):
                tabf[r + 2 + j] = v[j]
            d -= 1
            if d < 0:
                out[:] = v
                return out, count, tab
            _add(f_acc, d, n, f_seat[d], v, joint)
            continue
        clo[:] = f_lo[d, :]
        chi[:] = f_hi[d, :]
        cfits[:] = f_fits[d, :]
        st, c_played, c_seat, c_more, c_holder, c_stall, winner, opts = _settle(
            hands, n, f_played[d], f_seat[d], f_more[d], f_holder[d], f_stall[d], clo, chi,
            cfits, params, line, pos_of, card)
        if st != S_CHOICE:
            _terminal(hands, n, st, c_played, winner, c_holder, params, values, v)
            _add(f_acc, d, n, f_seat[d], v, joint)
            continue
        key = _key(c_played, c_seat, c_more, c_holder, c_stall, use_stall)
        r = _find(tab, stride, key)
        if tab[r + 1] != _FREE:
            for j in range(w):
                v[j] = tabf[r + 2 + j]
            _add(f_acc, d, n, f_seat[d], v, joint)
            continue
        if limit > 0 and count >= limit:  # over the bound: give up
            return out, -1, tab
        if 2 * (count + 1) > tab.shape[0] // stride:  # grow; the open positions move
            tab = _grow(tab, stride)
            tabf = tab.view(np.float32)
            for e in range(d + 1):
                f_slot[e] = _find(tab, stride, f_key[e])
            r = _find(tab, stride, key)
        # Reserve the record now (its values come when every option is seen): no position
        # recurs below itself (each turn without a card moves the seat on, and a full round
        # of them is impossible), so nothing reads it before then.
        tab[r] = np.uint32(key & _LOW)
        tab[r + 1] = np.uint32(key >> np.uint64(32))
        count += 1
        d += 1
        f_slot[d] = r
        f_played[d] = c_played
        f_seat[d] = c_seat
        f_more[d] = c_more
        f_holder[d] = c_holder
        f_stall[d] = c_stall
        f_lo[d, :] = clo
        f_hi[d, :] = chi
        f_fits[d, :] = cfits
        f_rem[d] = opts
        f_stop[d] = c_more
        f_nopt[d] = popcount(opts) + (1 if c_more else 0)
        f_key[d] = key
        _open_frame(f_acc, d, n, c_seat)


@njit(cache=True)
def lookup(tab, n, key, out):
    """The values of the position ``key`` (:func:`position_key`) from a table :func:`solve`
    filled (``out[0:2n]``, in place); False if it is not there."""
    stride = 2 + 2 * n
    r = _find(tab, stride, key)
    if tab[r + 1] == _FREE:
        return False
    tabf = tab.view(np.float32)
    for j in range(2 * n):
        out[j] = tabf[r + 2 + j]
    return True


@njit(inline="always")
def position_key(played, seat, more, holder, stall, params, n):
    """A position's key in :func:`solve`'s table."""
    return _key(played, seat, more, holder, stall, params[P_STALL] <= n)

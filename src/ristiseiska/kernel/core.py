# mypy: ignore-errors
# (numba-compiled code: numba types it; its intrinsics have no stubs)
"""The compiled loop (numba). Everything here works on plain integers and numpy arrays.

Cards are bits of a ``uint64``: bit ``suit * 13 + rank - 1`` (the engine's card ids). Each
suit is a line of 13 *positions* 1..13: ``A 2 … K`` with the ace low (position = rank), ``2 … K
A`` with the ace high. ``lo[s]``/``hi[s]`` are the lowest and highest position down in suit
``s``, ``0`` while the suit is unopened. ``params`` (int64) holds the rule options, see
``P_*``; ``line`` (int64[13]) maps a position (0-based) to the rank offset ``rank - 1``;
``values`` (int64[52]) gives the points of each card left in hand.

The per-deal counters live in ``aux`` (int64): token holder, turns in a row without a card
played (the stall limit), and the chip pot; per seat there are ``turns`` (turns started, for
the first-round pass), ``chips`` (chips paid; with token rules and ``P_TOKEN_MODE`` per-miss,
the fines taken, V18) and ``pens`` (hoarding penalties).

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
P_EXTRA_MOVE = 1  # 1: after a closing card the player may play one more card or stop
P_ORDER = 2  # ORDER_*
P_FAILURE = 3  # FAIL_*: what a player who cannot play does
P_OPENING = 4  # card id that opens the deal, or -1 when any centre card may start
P_CENTER = 5  # position (1..13) of the centre card on the line
P_MULTI = 6  # 1: after any card the player may play on or stop (V12)
P_HOARD = 7  # HOARD_*
P_HOARD_PENALTY = 8
P_FIRST_ROUND_PASS = 9  # with asking: a player who cannot play on their first turn passes
P_STALL = 10  # the deal ends after this many turns in a row without a card played
P_PAY_PER_CARD = 11  # chips: each loser pays the winner a chip per card in hand
P_ANTE = 12  # chips: everyone pays one chip into the pot before the deal
P_SHORT_CHIP = 13  # chips: players dealt a card fewer add one
P_UPWARD = 14  # 1: free Fan Tan layout, the first card's rank starts every suit (V16)
P_STOCK = 15  # 1: the two-player stock game (V13): 17 cards a hand, the rest is the stock
P_TOKEN_MODE = 16  # TOKEN_*: one token that moves, or a fine for every miss (V18)
P_LAID = 17  # stock game: the card id laid on the table before the deal, or -1 for none
N_PARAMS = 18
STOCK_SIZE = 17  # the stock with a card laid out (♣7); without one it is STOCK_MAX
STOCK_MAX = 18
STOCK_HAND = 17
FULL = (1 << 52) - 1

ORDER_LOW_FIRST, ORDER_HIGH_FIRST, ORDER_BOTH = 0, 1, 2
FAIL_PASS, FAIL_TOKEN, FAIL_ASK, FAIL_CHIP = 0, 1, 2, 3
HOARD_NONE, HOARD_678, HOARD_NOT_7, HOARD_ANY = 0, 1, 2, 3
TOKEN_OBJECT, TOKEN_PER_MISS = 0, 1

# Move codes in the move list: 0..51 play that card; GIVE + card: give that card (asking);
# DRAW + card: draw that card from the stock.
STOP, TOKEN, PASS, CHIP, ASK = 52, 53, 54, 55, 56
GIVE = 64
DRAW = 128
SEAT_SHIFT = 256  # a recorded move is seat * SEAT_SHIFT + code

# How a deal ended (``ends``): someone went out, the stall limit, or the move list was full
# (the caller sizes it from the rules so that this cannot happen).
END_OUT, END_STALL, END_BROKEN = 0, 1, 2
END_PAUSED = 3  # play_until only: the paused seat has a choice to make
AUX_HOLDER, AUX_STALL, AUX_POT, AUX_STOCK, AUX_START = 0, 1, 2, 3, 4
N_AUX = 5

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_ONE = np.uint64(1)
_ZERO = np.uint64(0)
_RANK7 = np.uint64(sum(1 << (s * 13 + 6) for s in range(4)))
_RANK678 = np.uint64(sum(1 << (s * 13 + r) for s in range(4) for r in (5, 6, 7)))
_FULL = np.uint64(FULL)


@intrinsic
def _ctpop(typingctx, x):
    """LLVM's population count (one instruction on x86-64)."""
    sig = x(x)

    def codegen(context, builder, signature, args):
        t = context.get_value_type(x)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(t, [t]),
                                            "llvm.ctpop.i64")
        return builder.call(fn, args)

    return sig, codegen


@njit(inline="always")
def popcount(x):
    return np.int64(_ctpop(x))


@njit(inline="always")
def mix64(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(inline="always")
def next_random(state):
    state = state + _GOLDEN
    return state, mix64(state)


@njit(inline="always")
def below(state, k):
    """A uniform integer in [0, k) and the new state."""
    state, r = next_random(state)
    return state, np.int64(((r >> np.uint64(32)) * np.uint64(k)) >> np.uint64(32))


@njit(cache=True)
def derive_seed(seed, i):
    """The seed of deal ``i`` of a run seeded with ``seed`` (twin of ``sim.derive_seed``)."""
    return mix64(mix64(seed) + i * _GOLDEN) >> np.uint64(1)


@njit(inline="always")
def kth_bit(m, k):
    for _ in range(k):
        m &= m - _ONE
    return np.int64(trailing_zeros(m))


@njit(inline="always")
def suit_fits(s, lo, hi, params, line, opened):
    """The cards of suit ``s`` that fit on the table now (Table._row_fits)."""
    base = s * 13
    c = params[P_CENTER]
    lo_s = lo[s]
    if lo_s == 0:
        if opened:
            return _ONE << np.uint64(base + line[c - 1])
        return _ZERO
    hi_s = hi[s]
    order = params[P_ORDER]
    if order == ORDER_BOTH:
        low_ok = True
        high_ok = True
    elif order == ORDER_LOW_FIRST:
        low_ok = lo_s == c or hi_s > c or c == 13
        high_ok = lo_s < c or c == 1
    else:
        low_ok = hi_s > c or c == 13
        high_ok = hi_s == c or lo_s < c or c == 1
    m = _ZERO
    if lo_s > 1 and low_ok:
        m |= _ONE << np.uint64(base + line[lo_s - 2])
    if hi_s < 13 and high_ok:
        m |= _ONE << np.uint64(base + line[hi_s])
    return m


@njit(inline="always")
def _upward_line(start, line, pos_of):
    """Free Fan Tan: the line starts at rank ``start`` and wraps from the king to the ace."""
    for p in range(13):
        off = (start - 1 + p) % 13
        line[p] = off
        pos_of[off] = p + 1


@njit(inline="always")
def _may_hoard(lm, hoard):
    if hoard == HOARD_ANY:
        return True
    if hoard == HOARD_NOT_7:
        return (lm & _RANK7) == _ZERO
    if hoard == HOARD_678:
        return (lm & ~_RANK678) == _ZERO
    return False


@njit(inline="always")
def _shown_lacking(playable, hoard):
    """The cards a seat that took the token is seen not to hold: where hoarding is allowed it
    may have kept back cards it could hoard, so only those it could not (``knowledge``'s
    ``_mandatory_mask``: the others cannot tell a forced take from a hoard)."""
    if hoard == HOARD_ANY:
        return _ZERO
    if hoard == HOARD_NOT_7:
        return playable & _RANK7
    if hoard == HOARD_678:
        return playable & ~_RANK678
    return playable


POLICY_RANDOM, POLICY_GREEDY, POLICY_EPSILON, POLICY_SENSIBLE, POLICY_STRONG = 0, 1, 2, 3, 4
POLICY_EXPERT = 5
_URG1, _URG2, _URG3 = 1.0, 0.45, 0.15  # the expert bot's URGENCY by an opponent's hand size
_INV53 = 1.0 / 9007199254740992.0


@njit(inline="always")
def _behind_key(c, h, others, behind, w):
    """The heuristics' first measure of card ``c``: its own cards behind it (weight ``w[0]``)
    against the others' (``w[1]``)."""
    b = behind[c]
    return w[0] * popcount(b & h) - w[1] * popcount(b & others)


@njit(inline="always")
def _heuristic_pick(lm, h, hands, n, seat, behind, values, state, w):
    """An expert-like choice among the legal cards ``lm`` of ``seat`` (hand ``h``): prefer the
    card behind which (``behind[c]``: the cards that can only follow it) lie most of one's own
    cards (weight ``w[0]``) and fewest of the others' (``w[1]``; so sixes and eights stay
    back as blocks); when an opponent is down to two cards, dump expensive cards (``w[2]`` per
    point); ties are broken by noise of size ``w[3]``. Returns the new state, the chosen
    card's index among the bits of ``lm`` and its score. A seat's last card is always
    played: going out ends the deal in its favour, whatever the card opens for the others
    (after a closing card the score decides whether to go on, and it once let a seat stop
    with its last card playable)."""
    if popcount(h) == 1:
        return state, 0, 1e18
    others = _ZERO
    near = False
    for j in range(n):
        if j != seat:
            others |= hands[j]
            if popcount(hands[j]) <= 2:
                near = True
    best_k = 0
    best_key = -1e18
    m = lm
    i = 0
    while m != _ZERO:
        c = trailing_zeros(m)
        m &= m - _ONE
        key = _behind_key(c, h, others, behind, w)
        if near:
            key += w[2] * values[c]
        state, r = next_random(state)
        key += w[3] * np.float64(r >> np.uint64(11)) * _INV53
        if key > best_key:
            best_key = key
            best_k = i
        i += 1
    return state, best_k, best_key


@njit(inline="always")
def _threat(hands, n, seat, pool, excl, playable):
    """The expert bot's ``Features.threat``: how likely an opponent of ``seat`` with three
    cards or fewer goes out soon with ``playable`` on the table, each opponent's cards drawn
    from ``pool`` less what it is known not to hold (``excl``)."""
    safe = 1.0
    for j in range(n):
        if j == seat:
            continue
        k = popcount(hands[j])
        if k == 0 or k > 3:
            continue
        u = _URG1 if k == 1 else (_URG2 if k == 2 else _URG3)
        cands = pool & ~excl[j]
        total = popcount(cands)
        p = popcount(cands & playable) / total if total > 0 else 0.0
        safe *= 1.0 - u * (1.0 - (1.0 - p) ** k)
    return 1.0 - safe


@njit(inline="always")
def _expert_pick(lm, h, hands, n, seat, behind, values, w, lo, hi, params, line, pos_of, fits,
                 playable, excl, holder):
    """The expert bot's choice among the legal cards ``lm`` (``ExpertBot._score_play``, as
    far as the kernel's position holds it): weights ``w`` for the own and the others' cards
    freed behind the card and the own and others' cards it makes playable at once; a card's
    points count by how near someone is to going out, and opening a way out for an opponent
    who is nearly out costs half of what the seat still holds. Ties go to the lowest card.
    Returns the chosen card's index among the bits of ``lm``, its score and the threat now
    (the hoarding score needs it)."""
    others = _ZERO
    near = False
    for j in range(n):
        if j != seat:
            others |= hands[j]
            if popcount(hands[j]) <= 3:
                near = True
    t_now = _threat(hands, n, seat, others, excl, playable) if near else 0.0
    if popcount(h) == 1:  # its last card: going out beats everything
        return 0, 1000.0, t_now
    exposure = 0.0  # what it still stands to pay; only an opponent near going out makes it count
    if near:
        m = h
        while m != _ZERO:
            c = trailing_zeros(m)
            m &= m - _ONE
            exposure += values[c]
        if holder == seat:
            exposure += params[P_TOKEN_VALUE]
    best_k = 0
    best_key = -1e18
    m = lm
    i = 0
    while m != _ZERO:
        c = trailing_zeros(m)
        m &= m - _ONE
        s = c // 13
        key = _behind_key(c, h, others, behind, w)
        # the table after the card: its suit's new fits
        lo_s, hi_s = lo[s], hi[s]
        p = pos_of[c - s * 13]
        if lo_s == 0:
            lo[s] = p
            hi[s] = p
        elif p < lo_s:
            lo[s] = p
        else:
            hi[s] = p
        f2 = suit_fits(s, lo, hi, params, line, True)
        lo[s], hi[s] = lo_s, hi_s
        after = (playable & ~fits[s]) | f2
        new = after & ~playable
        key += w[2] * popcount(new & h) - w[3] * popcount(new & others)
        key += values[c] * (0.03 + t_now)
        if near:
            t_after = _threat(hands, n, seat, others, excl, after)
            if t_after > t_now:
                key -= (t_after - t_now) * exposure * 0.5
        if key > best_key:
            best_key = key
            best_k = i
        i += 1
    return best_k, best_key, t_now


@njit(inline="always")
def _hoard_pick(lm, h, hands, n, seat, behind, values, state, w, aux, params, cnt):
    """A heuristic seat that may take the token instead of a card (hoarding): it plays its
    best card (:func:`_heuristic_pick`) unless the token is already its own, so that taking
    it again costs nothing, and that card would help the others clearly more than itself
    (its score below ``-w[4]``), the expert bot's rule (with the token elsewhere a take
    costs half its points, and a fine or penalty always costs: the expert then never
    hoards). Returns the new state and the option: ``cnt`` takes the token. Without it every heuristic seat took the token at
    random, one choice in ``cnt + 1``, however much it cost."""
    state, k, key = _heuristic_pick(lm, h, hands, n, seat, behind, values, state, w)
    free = (aux[AUX_HOLDER] == seat and params[P_TOKEN_MODE] != TOKEN_PER_MISS
            and params[P_HOARD] != HOARD_ANY)
    if free and key < -w[4]:
        k = cnt
    return state, k


@njit(cache=True)  # a plain call: a give is rare next to the plays
def _give_pick(h, lo, hi, pos_of, params, playable, behind, values):
    """The card a sensible player gives when asked (the expert bot's rule): far from the
    table, expensive, not one that its own cards wait behind, not one that fits now. Without
    it every playout's giver handed over a random card, often one that fits at once, which
    the real players (and the expert) avoid."""
    best_c = np.int64(-1)
    best_key = -1e18
    center = params[P_CENTER]
    m = h
    while m != _ZERO:
        c = np.int64(trailing_zeros(m))
        m &= m - _ONE
        s = c // 13
        p = pos_of[c - s * 13]
        if lo[s] == 0:
            d = p - center if p > center else center - p
        elif p < lo[s]:
            d = lo[s] - p - 1
        elif p > hi[s]:
            d = p - hi[s] - 1
        else:
            d = 0
        key = d + 0.15 * values[c] - 1.5 * popcount(behind[c] & h)
        if (playable >> np.uint64(c)) & _ONE:
            key -= 3.0
        if key > best_key:
            best_key = key
            best_c = c
    return best_c


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

"""The numbers in the kernel's arrays: the slots of ``params`` (the rule options) and ``aux``
(the per-deal counters), the codes of rule choices, of recorded moves, of how a deal ended,
and of the playout policies. Plain Python integers (numba freezes them into the compiled code).

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
"""

# the rule options' codes have one home, kernel_rules.py, which the offline app reads without
# numba; numba freezes them from here as from any global
from .. import kernel_rules as _kr

ORDER_LOW_FIRST, ORDER_HIGH_FIRST, ORDER_BOTH = _kr.ORDER_LOW_FIRST, _kr.ORDER_HIGH_FIRST, _kr.ORDER_BOTH
FAIL_PASS, FAIL_TOKEN, FAIL_ASK, FAIL_CHIP = _kr.FAIL_PASS, _kr.FAIL_TOKEN, _kr.FAIL_ASK, _kr.FAIL_CHIP
HOARD_NONE, HOARD_678, HOARD_NOT_7, HOARD_ANY = _kr.HOARD_NONE, _kr.HOARD_678, _kr.HOARD_NOT_7, _kr.HOARD_ANY

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

POLICY_RANDOM, POLICY_GREEDY, POLICY_EPSILON, POLICY_SENSIBLE, POLICY_STRONG = 0, 1, 2, 3, 4
POLICY_EXPERT = 5

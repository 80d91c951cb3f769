"""A compiled random-play kernel (numba) for fast simulation and for search bots' rollouts.

It plays one-deck row games with random legal moves (every choice uniform over the legal
moves: stopping, hoarding and the card to give included) on ``uint64`` bitboards. Rules it
knows (:func:`unsupported` tells why a rule set is outside them):

* one deck, no jokers, any centre rank, ace ``low`` or ``high`` (not ``first-decides``), the
  deal ends when the first player goes out, 2–8 players;
* layout ``rows`` or ``upward`` (free Fan Tan); the two-player stock game (V13) with the
  opening card laid out (17 in the stock) or dealt (18 in the stock), on any of these rules;
* opening by a named centre card (``C7``, ``H7``, ``C8``) or by any centre card (``any``);
* order ``low-first``, ``high-first`` or ``both``; the extra move after a closing card on or
  off; several cards a turn (``multi_play``);
* a player who cannot play takes the token, passes, asks a card (with or without the
  first-round pass) or pays a chip (ante, short-hand chip and pay-per-card included);
  every hoarding rule with its penalty; the stall limit;
* every card-value scheme and token value; one token that moves or a fine for every miss
  (``token_mode = "per-miss"``, V18: the per-seat ``chips`` counters then count the fines).

That covers every one-deck preset without jokers: ``ristiseiska``, ``ristiseiska-pyynto``,
``ristiseiska-pantti25``, ``wikipedia``, ``sjuan``, ``fan-tan``, ``free-fan-tan``, ``ristikasi``,
``kahdestaan-pakka`` and ``domino-fan-tan``.

Deals of a run: deal ``i`` of a run with seed ``S`` uses the random stream
``derive_seed(S, i)`` for the shuffle and the play, and the dealer ``(first_dealer + i) % n``,
so any deal can be played again alone. The kernel shuffles with its own generator, so its deals
are not the Python engine's deals for the same seed; records of kernel deals carry
``"seed": null`` and the kernel's deal seed under ``kernel_seed``.

Rollouts for search bots (:func:`rollout_values`)::

    >>> from ristiseiska import Game, Rules
    >>> from ristiseiska.kernel import position_from_game, rollout_values
    >>> g = Game(Rules(), players=4, seed=1)
    >>> pos = position_from_game(g)
    >>> v = rollout_values(**pos, n_rollouts=200, seed=7)
    >>> v.shape, bool(v.min() >= 0)
    ((4,), True)

A search bot that samples the hidden hands from a seat's view (determinization) uses
:func:`position_from_view` with one or several sampled deals instead of
:func:`position_from_game`.

The first call compiles (several seconds, cached on disk afterwards); :func:`warm_up` does it
on purpose. Numba's disk cache of a module does not notice a change in the functions it calls
from its sibling modules (``playout.py`` calls ``policies.py``, and so on): after editing one,
delete the kernel's ``__pycache__`` folders.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from ..cards import CARDS, sort_key
from ..kernel_rules import FAILURES, HOARDS, ORDERS
from ..kernel_rules import unsupported as unsupported
from ..rules import PRESETS, Rules
from ..table import held_back
from . import (
    bits,
    codes,
    core,  # noqa: F401  (so that kernel.core.<name> works without an import of its own)
    deals,
    rollouts,
)
from .codes import ASK, CHIP, DRAW, GIVE, PASS, SEAT_SHIFT, STOP, TOKEN

# the option codes and the question "does the kernel play these rules?" live in plain Python
# (kernel_rules.py), which the offline app can load without numba
_ORDERS, _FAILURES, _HOARDS = ORDERS, FAILURES, HOARDS
_ENDS = ("out", "stall", "broken")
_NOTATION = [CARDS[c].notation() for c in range(52)]
_HAND_ORDER = sorted(range(52), key=lambda c: sort_key(CARDS[c]))  # as records sort hands
M64 = (1 << 64) - 1


def _line(rules: Rules) -> list[int]:
    """Rank offsets (rank - 1) along a suit's line, low end first (Table's line)."""
    ranks = list(range(1, 14)) if rules.ace == "low" else list(range(2, 14)) + [1]
    return [r - 1 for r in ranks]


@lru_cache(maxsize=64)
def rule_arrays(rules: Rules) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(params, line, pos_of, values)`` for the compiled functions (cached per rule set:
    do not change the arrays)."""
    why = unsupported(rules)
    if why:
        raise ValueError(why)
    line = _line(rules)
    pos_of = [0] * 13
    for p, off in enumerate(line):
        pos_of[off] = p + 1
    params = np.zeros(codes.N_PARAMS, np.int64)
    params[codes.P_TOKEN_VALUE] = rules.token_value
    params[codes.P_EXTRA_MOVE] = int(rules.extra_move)
    params[codes.P_ORDER] = _ORDERS[rules.order]
    params[codes.P_FAILURE] = _FAILURES[rules.failure]
    params[codes.P_OPENING] = -1 if rules.opening == "any" else _card_id(rules.opening)
    params[codes.P_CENTER] = 1 if rules.layout == "upward" else pos_of[rules.center - 1]
    params[codes.P_UPWARD] = int(rules.layout == "upward")
    params[codes.P_STOCK] = int(rules.stock)
    params[codes.P_LAID] = -1 if rules.laid_out is None else _card_id(rules.laid_out)
    params[codes.P_TOKEN_MODE] = (codes.TOKEN_PER_MISS if rules.fines_per_miss
                                 else codes.TOKEN_OBJECT)
    params[codes.P_MULTI] = int(rules.multi_play)
    params[codes.P_HOARD] = _HOARDS[rules.hoarding]
    params[codes.P_HOARD_PENALTY] = rules.hoarding_penalty
    params[codes.P_FIRST_ROUND_PASS] = int(rules.first_round_pass)
    params[codes.P_STALL] = rules.stall_turns
    params[codes.P_PAY_PER_CARD] = int(rules.pay_per_card)
    params[codes.P_ANTE] = int(rules.ante)
    params[codes.P_SHORT_CHIP] = int(rules.short_hand_chip)
    values = np.zeros(52, np.int64)
    for c in range(52):
        rank = c % 13 + 1
        if rules.card_values == "one":
            values[c] = 1
        elif rank == 1:
            values[c] = 14 if rules.card_values == "ace14" else 1
        else:
            values[c] = rank
    return params, np.array(line, np.int64), np.array(pos_of, np.int64), values


POLICIES = {"random": codes.POLICY_RANDOM, "greedy": codes.POLICY_GREEDY,
            "epsilon": codes.POLICY_EPSILON, "sensible": codes.POLICY_SENSIBLE,
            "strong": codes.POLICY_STRONG, "expert": codes.POLICY_EXPERT}

# The heuristic policies' weights, one row per policy code: own cards freed, the others'
# cards freed, card points when an opponent is down to two cards, random tie-break noise,
# and (hoarding) how far below zero the best card's score must lie before a seat whose
# token it already is takes it again instead of playing (policies._hoard_pick; set so that each
# row hoards about as rarely as the expert bot does in the same positions, 1-4% of them, and
# agrees with it in 97-98% of them, tests/test_kernel_policy.py).
# "greedy" (and "epsilon") count own cards twice the others'; "sensible" has the proportions
# fitted to the expert bot's choices (own cards ten times the others') with much more noise:
# as a model of the opponents in playouts a near-deterministic one is brittle (with all
# hands open, the master won 36% against three experts so, 44% with this noise, 39% with
# random opponents in its playouts). "strong" is the best-playing row found by a small search
# over the weights in kernel self-play (48.4% wins against three random players, 27.9%
# against three sensible ones); the master's own later moves follow "greedy" by default
# (``master:own=strong`` is measured against it in docs/strength.md).
WEIGHTS = np.array([
    [0.0, 0.0, 0.0, 0.0, 0.0],  # random: unused
    [2.0, 1.0, 0.3, 0.5, 3.0],  # greedy
    [2.0, 1.0, 0.3, 0.5, 3.0],  # epsilon (greedy nine moves in ten)
    [10.0, 1.0, 0.5, 8.0, 2.0],  # sensible
    [10.0, 0.5, 0.5, 0.5, 2.0],  # strong
    [4.0, 0.4, 0.5, 0.2, 0.0],  # expert: ExpertBot's W_MINE, W_THEIRS, W_NEW_MINE, W_NEW_THEIRS
], np.float64)


@lru_cache(maxsize=64)
def behind_array(rules: Rules, far_side: bool = True) -> np.ndarray:
    """Per card (0..51): the bitmask of the cards of its suit that can only be laid after it
    (:func:`ristiseiska.table.held_back`, as uint64). The heuristic playout policies count one's
    own and the others' cards behind each legal card. ``far_side=False``: as the learned
    network's features were computed when the shipped weights were trained. (Do not change
    the array: it is cached.)"""
    why = unsupported(rules)
    if why:
        raise ValueError(why)
    masks = held_back(rules, far_side)
    assert masks is not None  # every rule set the kernel plays has a known line
    return np.array(masks, np.uint64)


def policy_array(policy: Any, n: int) -> np.ndarray:
    """Per-seat playout policies (int8) from ``None`` (all random), one name or code for every
    seat, or a sequence of names/codes (``"random"``, ``"greedy"``, ``"epsilon"``,
    ``"sensible"``, ``"strong"``, ``"expert"``)."""
    if policy is None:
        return np.zeros(n, np.int8)
    items = [policy] * n if isinstance(policy, str | int) else list(policy)
    if len(items) != n:
        raise ValueError(f"policy needs one entry per seat ({n}), got {len(items)}")
    out = np.zeros(n, np.int8)
    for s, x in enumerate(items):
        if isinstance(x, str):
            if x not in POLICIES:
                raise ValueError(f"unknown playout policy {x!r}; known: {', '.join(POLICIES)}")
            x = POLICIES[x]
        if x not in POLICIES.values():
            raise ValueError(f"unknown playout policy code {x!r}")
        out[s] = x
    return out


def max_moves(rules: Rules, players: int) -> int:
    """A bound on the number of moves of one deal (the size of a recorded move list).

    Without asking or hoarding, between two cards played at most ``players - 1`` turns pass
    without a card (a full round of them is impossible while every card is in some hand);
    otherwise the stall limit bounds them, and an ask takes two moves."""
    if rules.failure != "ask" and rules.hoarding == "none":
        gap = min(players, rules.stall_turns)
    else:
        gap = 2 * rules.stall_turns
    # draws from the stock are turns without a card on top of that
    return 52 * (gap + 2) + gap + 8 + (stock_size(rules) if rules.stock else 0)


def stock_size(rules: Rules) -> int:
    """Cards in the stock at the start of a stock game (V13): 17 with a card laid out, else 18."""
    if not rules.stock:
        return 0
    return codes.STOCK_SIZE if rules.laid_out is not None else codes.STOCK_MAX


def _card_id(text: str) -> int:
    from ..cards import parse_card

    return int(parse_card(text))


def derive_seed(seed: int, i: int) -> int:
    """The seed of deal ``i`` of a run seeded with ``seed`` (a 63-bit integer)."""
    return int(bits.derive_seed(np.uint64(seed & M64), np.uint64(i & M64)))


@dataclass
class KernelRun:
    """Deals ``start .. start+count-1`` of a kernel run; arrays have one row per deal."""

    rules: Rules
    players: int
    seed: int
    start: int
    first_dealer: int
    card_points: np.ndarray  # (count, n); zero under chip rules, as in the engine
    token_part: np.ndarray  # (count, n)
    penalties: np.ndarray  # (count, n)
    chips: np.ndarray  # (count, n) net chips paid (chip rules; the winner's is negative);
    # with per-miss token rules (V18) the fines each seat took
    total: np.ndarray  # (count, n) the points on the score sheet
    winners: np.ndarray  # (count,) seat, or -1 (a stalled deal)
    ends: np.ndarray  # (count,) 0 out, 1 stall
    holders: np.ndarray  # (count,) token holder at the end, -1 for none
    dealt: np.ndarray  # (count, n) uint64 hands as dealt
    stocks: np.ndarray  # (count, 17 or 18) the stock, top first (stock game), else (count, 0)
    moves: np.ndarray | None  # (count, max_moves) int16: seat * SEAT_SHIFT + code
    nmoves: np.ndarray | None

    @property
    def count(self) -> int:
        return int(self.winners.shape[0])

    def token_points(self) -> np.ndarray:
        return self.token_part

    def points(self) -> np.ndarray:
        return self.total

    def dealer(self, d: int) -> int:
        return (self.first_dealer + self.start + d) % self.players

    def records(self, names: Sequence[str] | None = None) -> Iterator[dict[str, Any]]:
        """Each deal as a game record (docs/records.md), built from the kernel's own moves and
        result, so that ``check_record`` checks the kernel against the engine."""
        for d in range(self.count):
            yield self.record(d, names)

    def record(self, d: int, names: Sequence[str] | None = None) -> dict[str, Any]:
        from ..record import FORMAT, VERSION

        if self.moves is None or self.nmoves is None:
            raise ValueError("this run was played without its move lists (record=False)")
        n = self.players
        rules = self.rules
        hands = []
        for s in range(n):
            h = int(self.dealt[d, s])
            hands.append([_NOTATION[c] for c in _HAND_ORDER if h >> c & 1])
        codes = self.moves[d, : int(self.nmoves[d])].tolist()
        events: list[dict[str, Any]] = []
        simple = {STOP: "stop", TOKEN: "token", PASS: "pass", CHIP: "chip"}
        for k, code in enumerate(codes):
            seat, m = divmod(code, SEAT_SHIFT)
            if m in simple:
                events.append({"seat": seat, "type": simple[m]})
            elif m == ASK:
                events.append({"seat": seat, "type": "ask", "from": codes[k + 1] // SEAT_SHIFT})
            elif m >= DRAW:
                events.append({"seat": seat, "type": "draw", "card": _NOTATION[m - DRAW]})
            elif m >= GIVE:
                events.append({"seat": seat, "type": "give", "card": _NOTATION[m - GIVE],
                               "to": codes[k - 1] // SEAT_SHIFT})
            else:
                events.append({"seat": seat, "type": "play", "card": _NOTATION[m]})
        winner = int(self.winners[d])
        holder = int(self.holders[d])
        dealer = self.dealer(d)
        result: dict[str, Any] = {
            "winner": winner if winner >= 0 else None,
            "card_points": self.card_points[d].tolist(),
            "token_points": self.token_part[d].tolist(),
            "points": self.total[d].tolist(),
            "token_holder": holder if holder >= 0 else None,
            "out_order": [winner] if winner >= 0 else [],
            "end": _ENDS[int(self.ends[d])],
            "next_dealer": (dealer + 1) % n,
        }
        if self.penalties[d].any():
            result["penalty_points"] = self.penalties[d].tolist()
        if rules.fines_per_miss:
            result["token_fines"] = self.chips[d].tolist()
        if rules.failure == "chip":
            result["chips"] = self.chips[d].tolist()
        base = rules.name.split("+", 1)[0]
        rec: dict[str, Any] = {
            "format": FORMAT,
            "version": VERSION,
            "preset": base if base in PRESETS else None,
            "rules": rules.to_dict(),
            "seed": None,
            "dealer": dealer,
            "players": list(names) if names is not None else [f"P{i + 1}" for i in range(n)],
            "hands": hands,
        }
        if rules.stock:
            rec["stock"] = [_NOTATION[c] for c in self.stocks[d].tolist()]
            if rules.laid_out is not None:
                rec["table"] = [rules.laid_out]
        rec["events"] = events
        rec["result"] = result
        rec["deal"] = self.start + d
        rec["kernel_seed"] = derive_seed(self.seed, self.start + d)
        return rec


def play_deals(rules: Rules, players: int, seed: int, count: int, start: int = 0,
               first_dealer: int = 0, record: bool = False,
               width: int | None = None, policy: Any = None) -> KernelRun:
    """Play deals ``start .. start+count-1`` of the run seeded with ``seed``; with ``record``
    keep each deal's move list (for :meth:`KernelRun.records`). ``width``: room for moves per
    deal to start with (it grows, up to :func:`max_moves`, when a deal needs more).
    ``policy``: the playout policy per seat (:func:`policy_array`; default: all random)."""
    why = unsupported(rules, players)
    if why:
        raise ValueError(why)
    params, line, pos_of, values = rule_arrays(rules)
    pol = policy_array(policy, players)
    behind = behind_array(rules)
    n = players
    bound = max_moves(rules, n)
    # Most deals are short; a deal that runs out of room is played again (deals are pure
    # functions of the seed) with more room, so a huge stall limit costs memory only if used.
    room = min(bound, width or 2048)
    while True:
        cp, tp, pen, chips, total = (np.zeros((count, n), np.int64) for _ in range(5))
        winners = np.zeros(count, np.int64)
        ends = np.zeros(count, np.int64)
        holders = np.zeros(count, np.int64)
        dealt = np.zeros((count, n), np.uint64)
        stocks = np.zeros((count, stock_size(rules)), np.int64)
        moves = np.zeros((count if record else 1, room if record else 1), np.int16)
        nmoves = np.zeros(count if record else 1, np.int64)
        deals.run_deals(np.uint64(seed & M64), start, count, n, first_dealer, params, line,
                       pos_of, values, cp, tp, pen, chips, total, winners, ends, holders, dealt,
                       stocks, moves, nmoves, record, pol, behind, WEIGHTS)
        if not (ends == codes.END_BROKEN).any():
            break
        if room >= bound:  # pragma: no cover - max_moves is a true bound
            raise RuntimeError("a kernel deal ran out of room for its moves")
        room = min(bound, room * 4)
    return KernelRun(rules, players, seed, start, first_dealer, cp, tp, pen, chips, total,
                     winners, ends, holders, dealt, stocks, moves if record else None,
                     nmoves if record else None)


def _table_ends(table: Any) -> tuple[np.ndarray, np.ndarray]:
    """Positions (1..13) of the lowest and highest card of each suit's row, 0 if unopened."""
    lo = np.zeros(4, np.int64)
    hi = np.zeros(4, np.int64)
    for s in range(4):
        if table.lo[s] >= 0:
            lo[s] = table.lo[s] + 1
            hi[s] = table.hi[s] + 1
    return lo, hi


def hand_mask(cards: Sequence[Any]) -> int:
    """The bitmask of a hand (cards or card texts)."""
    from ..cards import parse_card

    m = 0
    for c in cards:
        m |= 1 << int(c if isinstance(c, int) else parse_card(c))
    return m


def position_from_game(game: Any) -> dict[str, Any]:
    """The arguments of :func:`rollout_values` for a :class:`~ristiseiska.game.Game`'s current
    position with every hand known."""
    lo, hi = _table_ends(game.table)
    giving = game.phase == "give"
    return {
        "hands": np.array([game._hands[s] for s in range(game.n)], np.uint64),
        "lo": lo,
        "hi": hi,
        "to_move": game.to_move,
        "more": game.phase == "more",
        "token_holder": game.token_holder,
        "rules": game.rules,
        "receiver": game.turn_seat if giving else None,
        "turns": [game.turns_taken(s) for s in range(game.n)],
        "stall": game._stall,
        # the per-seat counters: chips paid, or the fines taken under per-miss token rules
        "chips": game.token_fines if game.rules.fines_per_miss else game.chips_paid,
        "pot": game.pot,
        "penalties": game.penalties,
        "stock": [int(c) for c in game.stock],
        "start_rank": game.table.start_rank or 0,
    }


def position_from_view(view: Any, hands: Sequence[Sequence[Any]],
                       stock: Sequence[Any] = ()) -> dict[str, Any]:
    """The arguments of :func:`rollout_values` for the position a seat's view shows, with the
    hidden hands filled in by the caller (determinization). ``hands`` is either one deal (a
    card list per seat, the view's own hand included) or a list of such deals; several deals
    are played in turn by the rollouts; ``stock``, the stock's cards top first (sampled too:
    the view shows only its size). Hand and stock sizes are checked against the view."""
    if not hands:
        raise ValueError("no hands given")
    deals = [hands] if _is_card_list(hands[0]) else hands
    rows = []
    for d in deals:
        if len(d) != view.players:
            raise ValueError(f"{len(d)} hands given for {view.players} players")
        masks = [hand_mask(h) for h in d]
        for s, m in enumerate(masks):
            if m.bit_count() != view.hand_sizes[s]:
                raise ValueError(f"seat {s} holds {view.hand_sizes[s]} cards, {m.bit_count()} given")
        rows.append(masks)
    if len(stock) != view.stock_size:
        raise ValueError(f"the stock holds {view.stock_size} cards, {len(stock)} given")
    lo, hi = _table_ends(view.table)
    return {
        "hands": np.array(rows, np.uint64),
        "lo": lo,
        "hi": hi,
        "to_move": view.to_move,
        "more": view.phase == "more",
        "token_holder": view.token_holder,
        "rules": view.rules,
        "receiver": view.turn_seat if view.phase == "give" else None,
        "turns": list(view.turns_taken),
        "stall": view.stall,
        "chips": list(view.token_fines if view.rules.fines_per_miss else view.chips_paid),
        "pot": view.pot,
        "penalties": list(view.penalties),
        "stock": [hand_mask([c]).bit_length() - 1 for c in stock],
        "start_rank": view.table.start_rank or 0,
    }


def _is_card_list(x: Any) -> bool:
    return not x or isinstance(x[0], (int, str))


def rollout_values(hands: Any, lo: Sequence[int], hi: Sequence[int], to_move: int,
                   token_holder: int | None, n_rollouts: int, seed: int, more: bool = False,
                   rules: Rules | None = None, receiver: int | None = None,
                   turns: Sequence[int] | None = None, stall: int = 0,
                   chips: Sequence[int] | None = None, pot: int = 0,
                   penalties: Sequence[int] | None = None, stock: Sequence[int] = (),
                   start_rank: int = 0, policy: Any = None,
                   wins: np.ndarray | None = None,
                   lookahead: tuple[int, int, int, float] | None = None) -> np.ndarray:
    """Mean points per seat (the score sheet's points: lower is better) of ``n_rollouts``
    random playouts to the end of the deal.

    ``hands``: one uint64 bitmask per seat (bit ``suit * 13 + rank - 1``: the engine's card
    ids), or a k × n array of k determinizations used in turn (rollout ``r`` uses row
    ``r % k``). ``lo``/``hi``: per suit (C D H S) the position (1..13) of the lowest and
    highest card on the table along the suit's line, 0 for a suit not yet opened; with the ace
    low a position is the rank. ``to_move``: the seat to decide; ``more``: it is in the
    optional further move (it may stop); ``receiver``: with asking, the seat ``to_move`` is
    choosing a card for. ``token_holder``: seat or ``None``. ``turns`` (turns started per
    seat, for the first-round pass; default: all past their first), ``stall`` (turns in a row
    without a card), ``chips``/``pot`` (chips paid per seat, or the fines taken under per-miss token rules; the pot) and ``penalties``
    complete the state, with ``stock`` (card ids left in the stock, top first; stock game)
    and ``start_rank`` (free Fan Tan: the rank that started every suit, 0 before the first
    card); :func:`position_from_game` and :func:`position_from_view` fill them all. ``rules``: default rules if ``None``; must be within :func:`unsupported`.
    ``policy``: the playout policy per seat (:func:`policy_array`; default: all random).
    ``wins`` (float, n): if given, set to each seat's share of playouts it won (went out).
    ``lookahead``: ``(seat, depth, tries, win_bonus)``: that seat's first ``depth`` choices
    in each playout are searched, each option played out ``tries`` times in the same deal
    (:func:`rollouts.rollouts_lookahead`).
    """
    rules = rules or Rules()
    h = np.asarray(hands, dtype=np.uint64)
    if h.ndim == 1:
        h = h.reshape(1, -1)
    n = h.shape[1]
    why = unsupported(rules, n)
    if why:
        raise ValueError(why)
    if n_rollouts < 1:
        raise ValueError("n_rollouts must be at least 1")
    if (h == 0).any():
        raise ValueError("a hand is empty: the deal is over (use its result)")
    if not 0 <= to_move < n:
        raise ValueError(f"to_move={to_move} is not a seat")
    params, line, pos_of, values = rule_arrays(rules)
    aux = np.zeros(codes.N_AUX, np.int64)
    aux[codes.AUX_HOLDER] = -1 if token_holder is None else int(token_holder)
    aux[codes.AUX_STALL] = int(stall)
    aux[codes.AUX_POT] = int(pot)
    aux[codes.AUX_START] = int(start_rank)

    def per_seat(x: Sequence[int] | None, default: int) -> np.ndarray:
        return np.array(list(x) if x is not None else [default] * n, np.int64)

    out = np.zeros(n, np.float64)
    won = np.zeros(n, np.int64)
    args = (np.ascontiguousarray(h), n, np.asarray(lo, np.int64).copy(),
            np.asarray(hi, np.int64).copy(), int(to_move), bool(more),
            -1 if receiver is None else int(receiver), aux, per_seat(turns, 2),
            per_seat(chips, 0), per_seat(penalties, 0), params, line, pos_of, values,
            np.array([int(c) for c in stock], np.int64), int(n_rollouts),
            np.uint64(seed & M64), out, policy_array(policy, n), behind_array(rules), won,
            WEIGHTS)
    if lookahead is not None and lookahead[1] > 0:
        me, depth, tries, bonus = lookahead
        if not 0 <= me < n or tries < 1:
            raise ValueError(f"lookahead={lookahead!r}: needs a seat and at least one try")
        rollouts.rollouts_lookahead(*args, int(me), int(depth), int(tries), float(bonus))
    else:
        rollouts.rollouts(*args)
    if wins is not None:
        wins[:] = won / n_rollouts
    return out / n_rollouts


def warm_up() -> None:
    """Compile (or load from the disk cache) every kernel function once."""
    from ..game import Game

    rules = Rules()
    play_deals(rules, 4, 0, 2, record=True)
    play_deals(rules, 4, 0, 2, record=False)
    pos = position_from_game(Game(rules, 4, seed=0))
    rollout_values(**pos, n_rollouts=1, seed=0)
    rollout_values(**pos, n_rollouts=1, seed=0, lookahead=(pos["to_move"], 1, 1, 0.0))
    from . import worlds

    worlds.warm_up()


__all__ = ["unsupported", "rule_arrays", "max_moves", "derive_seed", "KernelRun", "play_deals",
           "hand_mask", "position_from_game", "position_from_view", "rollout_values", "warm_up"]

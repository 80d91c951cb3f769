"""A compiled random-play kernel (numba) for fast simulation and for search bots' rollouts.

It plays the single-deck row games with random legal moves (every choice uniform over the
legal moves, stopping included) on ``uint64`` bitboards. Rules it knows (:func:`unsupported`
tells why a rule set is outside them):

* one deck, no jokers, no stock, centre 7, ace low, layout ``rows``;
* opening by any seven (``C7`` by default, ``H7`` in Sjuan);
* order ``low-first``, ``high-first`` or ``both``;
* extra move after an ace or a king on or off (no ``multi_play``);
* a player who cannot play takes the token (``token``) or passes (``pass``); no hoarding;
* card values ``ace14``, ``ace1`` or ``one``; any token value;
* the deal ends when the first player goes out; 2–8 players.

Deals of a run: deal ``i`` of a run with seed ``S`` uses the random stream
``derive_seed(S, i)`` for the shuffle and the play, and the dealer ``(first_dealer + i) % n``,
so any deal can be played again alone. The kernel shuffles with its own generator, so its deals
are not the Python engine's deals for the same seed; records of kernel deals carry
``"seed": null`` and the kernel's deal seed under ``kernel_seed``.

Rollouts for search bots (:func:`rollout_values`)::

    >>> import numpy as np
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

The first call compiles (a few seconds, cached on disk afterwards); :func:`warm_up` does it
on purpose.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..cards import CARDS, sort_key
from ..rules import Rules
from . import core
from .core import FAIL, MAX_MOVES, SEAT_SHIFT, STOP

_ORDERS = {"low-first": core.ORDER_LOW_FIRST, "high-first": core.ORDER_HIGH_FIRST,
           "both": core.ORDER_BOTH}
M64 = (1 << 64) - 1


def unsupported(rules: Rules, players: int | None = None) -> str | None:
    """Why the kernel cannot play these rules (one phrase), or ``None`` if it can."""
    checks = [
        (rules.decks == 1, "two decks"),
        (rules.jokers == 0, "jokers"),
        (not rules.stock, "the stock game"),
        (rules.layout == "rows", f"layout={rules.layout}"),
        (rules.center == 7, f"center={rules.center}"),
        (rules.ace == "low", f"ace={rules.ace}"),
        (rules.opening != "any" and rules.opening[1:] == "7", f"opening={rules.opening}"),
        (not rules.multi_play, "multi_play"),
        (rules.failure in ("token", "pass"), f"failure={rules.failure}"),
        (rules.hoarding == "none", f"hoarding={rules.hoarding}"),
        (rules.end == "first-out", f"end={rules.end}"),
        (rules.card_values in ("ace14", "ace1", "one"), f"card_values={rules.card_values}"),
    ]
    for ok, what in checks:
        if not ok:
            return f"the kernel does not play {what}"
    if players is not None:
        if not 2 <= players <= 8:
            return f"the kernel plays 2–8 players, not {players}"
        if not rules.min_players <= players <= rules.max_players:
            return f"these rules are for {rules.min_players}–{rules.max_players} players, not {players}"
        # A stall needs a full round of players who cannot play, which forced play with every
        # card in some hand cannot produce; a shorter limit could end a deal, so leave it.
        if rules.stall_turns < players:
            return f"stall_turns={rules.stall_turns} below the number of players"
    return None


def rule_arrays(rules: Rules) -> tuple[np.ndarray, np.ndarray]:
    """``(params, values)`` for the compiled functions."""
    why = unsupported(rules)
    if why:
        raise ValueError(why)
    params = np.zeros(core.N_PARAMS, np.int64)
    params[core.P_TOKEN_VALUE] = rules.token_value if rules.failure == "token" else 0
    params[core.P_EXTRA_MOVE] = int(rules.extra_move)
    params[core.P_ORDER] = _ORDERS[rules.order]
    params[core.P_TOKEN] = int(rules.failure == "token")
    params[core.P_OPENING] = int(CARDS[_card_id(rules.opening)])
    values = np.zeros(52, np.int64)
    for c in range(52):
        rank = c % 13 + 1
        if rules.card_values == "one":
            values[c] = 1
        elif rank == 1:
            values[c] = 14 if rules.card_values == "ace14" else 1
        else:
            values[c] = rank
    return params, values


def _card_id(text: str) -> int:
    from ..cards import parse_card

    return int(parse_card(text))


def derive_seed(seed: int, i: int) -> int:
    """The seed of deal ``i`` of a run seeded with ``seed`` (a 63-bit integer)."""
    return int(core.derive_seed(np.uint64(seed & M64), np.uint64(i & M64)))


@dataclass
class KernelRun:
    """Deals ``start .. start+count-1`` of a kernel run; arrays have one row per deal."""

    rules: Rules
    players: int
    seed: int
    start: int
    first_dealer: int
    card_points: np.ndarray  # (count, n)
    winners: np.ndarray  # (count,)
    holders: np.ndarray  # (count,) token holder at the end, -1 for none
    dealt: np.ndarray  # (count, n) uint64 hands as dealt
    moves: np.ndarray | None  # (count, MAX_MOVES) int16: seat * SEAT_SHIFT + code
    nmoves: np.ndarray | None

    @property
    def count(self) -> int:
        return int(self.winners.shape[0])

    def token_points(self) -> np.ndarray:
        tp = np.zeros_like(self.card_points)
        if self.rules.failure == "token":
            rows = np.nonzero((self.holders >= 0) & (self.holders != self.winners))[0]
            tp[rows, self.holders[rows]] = self.rules.token_value
        return tp

    def points(self) -> np.ndarray:
        total: np.ndarray = self.card_points + self.token_points()
        return total

    def dealer(self, d: int) -> int:
        return (self.first_dealer + self.start + d) % self.players

    def records(self, names: Sequence[str] | None = None) -> Iterator[dict[str, Any]]:
        """Each deal as a game record (RULES.md §6), built from the kernel's own moves and
        result, so that ``check_record`` checks the kernel against the engine."""
        for d in range(self.count):
            yield self.record(d, names)

    def record(self, d: int, names: Sequence[str] | None = None) -> dict[str, Any]:
        from ..record import FORMAT, VERSION
        from ..rules import PRESETS

        if self.moves is None or self.nmoves is None:
            raise ValueError("this run was played without its move lists (record=False)")
        n = self.players
        rules = self.rules
        hands = []
        for s in range(n):
            h = int(self.dealt[d, s])
            cards = sorted((CARDS[c] for c in range(52) if h >> c & 1), key=sort_key)
            hands.append([c.notation() for c in cards])
        fail_type = "token" if rules.failure == "token" else "pass"
        events: list[dict[str, Any]] = []
        for code in self.moves[d, : int(self.nmoves[d])].tolist():
            seat, m = divmod(code, SEAT_SHIFT)
            if m == STOP:
                events.append({"seat": seat, "type": "stop"})
            elif m == FAIL:
                events.append({"seat": seat, "type": fail_type})
            else:
                events.append({"seat": seat, "type": "play", "card": CARDS[m].notation()})
        winner = int(self.winners[d])
        holder = int(self.holders[d])
        tp = self.token_points()[d].tolist()
        cp = self.card_points[d].tolist()
        result = {
            "winner": winner,
            "card_points": cp,
            "token_points": tp,
            "points": [a + b for a, b in zip(cp, tp, strict=True)],
            "token_holder": holder if holder >= 0 else None,
            "out_order": [winner],
            "end": "out",
            "next_dealer": (self.dealer(d) + 1) % n,
        }
        return {
            "format": FORMAT,
            "version": VERSION,
            "preset": base if (base := rules.name.split("+", 1)[0]) in PRESETS else None,
            "rules": rules.to_dict(),
            "seed": None,
            "dealer": self.dealer(d),
            "players": list(names) if names is not None else [f"P{i + 1}" for i in range(n)],
            "hands": hands,
            "events": events,
            "result": result,
            "deal": self.start + d,
            "kernel_seed": derive_seed(self.seed, self.start + d),
        }


def play_deals(rules: Rules, players: int, seed: int, count: int, start: int = 0,
               first_dealer: int = 0, record: bool = False) -> KernelRun:
    """Play deals ``start .. start+count-1`` of the run seeded with ``seed``."""
    why = unsupported(rules, players)
    if why:
        raise ValueError(why)
    params, values = rule_arrays(rules)
    n = players
    card_points = np.zeros((count, n), np.int64)
    winners = np.zeros(count, np.int64)
    holders = np.zeros(count, np.int64)
    dealt = np.zeros((count, n), np.uint64)
    moves = np.zeros((count if record else 1, MAX_MOVES), np.int16)
    nmoves = np.zeros(count if record else 1, np.int64)
    given = np.zeros((0, n), np.uint64)
    core.run_deals(np.uint64(seed & M64), start, count, n, first_dealer, params, values, given,
                   card_points, winners, holders, dealt, moves, nmoves, record)
    return KernelRun(rules, players, seed, start, first_dealer, card_points, winners, holders,
                     dealt, moves if record else None, nmoves if record else None)


def _table_ends(table: Any) -> tuple[np.ndarray, np.ndarray]:
    lo = np.zeros(4, np.int64)
    hi = np.zeros(4, np.int64)
    for s in range(4):
        a, b = table.ends(s)
        if a is not None:
            lo[s], hi[s] = a, b
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
    return {
        "hands": np.array([game._hands[s] for s in range(game.n)], np.uint64),
        "lo": lo,
        "hi": hi,
        "to_move": game.to_move,
        "more": game.phase == "more",
        "token_holder": game.token_holder,
        "rules": game.rules,
    }


def position_from_view(view: Any, hands: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """The arguments of :func:`rollout_values` for the position a seat's view shows, with the
    hidden hands filled in by the caller (determinization). ``hands`` is either one deal (a
    card list per seat, the view's own hand included) or a list of such deals; several deals
    are played in turn by the rollouts. Hand sizes are checked against the view."""
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
    lo, hi = _table_ends(view.table)
    return {
        "hands": np.array(rows, np.uint64),
        "lo": lo,
        "hi": hi,
        "to_move": view.to_move,
        "more": view.phase == "more",
        "token_holder": view.token_holder,
        "rules": view.rules,
    }


def _is_card_list(x: Any) -> bool:
    return not x or isinstance(x[0], (int, str))


def rollout_values(hands: Any, lo: Sequence[int], hi: Sequence[int], to_move: int,
                   token_holder: int | None, n_rollouts: int, seed: int, more: bool = False,
                   rules: Rules | None = None) -> np.ndarray:
    """Mean points per seat (lower is better) of ``n_rollouts`` random playouts.

    ``hands``: one uint64 bitmask per seat (bit ``suit * 13 + rank - 1``: the engine's card
    ids), or a k × n array of k determinizations used in turn (rollout ``r`` uses row
    ``r % k``). ``lo``/``hi``: per suit (C D H S) the lowest and highest rank on the table,
    0 for a suit not yet opened. ``to_move``: the seat to play; ``more``: it is in the optional
    extra move after a closing card (it may stop). ``token_holder``: seat or ``None``.
    ``rules``: default rules if ``None``; must be within :func:`unsupported`. Points are the
    cards left in hand plus the token for its holder unless they went out.

    The position must be reachable: in particular a seat with ``more`` holds a playable card.
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
    params, values = rule_arrays(rules)
    out = np.zeros(n, np.float64)
    core.rollouts(np.ascontiguousarray(h), n, np.asarray(lo, np.int64).copy(),
                  np.asarray(hi, np.int64).copy(), int(to_move), bool(more),
                  -1 if token_holder is None else int(token_holder), params, values,
                  int(n_rollouts), np.uint64(seed & M64), out)
    return out / n_rollouts


def warm_up() -> None:
    """Compile (or load from the disk cache) every kernel function once."""
    rules = Rules()
    play_deals(rules, 4, 0, 2, record=True)
    play_deals(rules, 4, 0, 2, record=False)
    from ..game import Game

    rollout_values(**position_from_game(Game(rules, 4, seed=0)), n_rollouts=1, seed=0)


__all__ = ["unsupported", "rule_arrays", "derive_seed", "KernelRun", "play_deals", "hand_mask",
           "position_from_game", "position_from_view", "rollout_values", "warm_up"]

"""Sampling the hidden hands consistently with one seat's view, weighted by the opponents' plays.

:class:`Sampler` deals the cards a seat cannot see many times, each time consistently with
everything public (card counts, cards on the table, a player who took the token or passed held
no legal card at that moment, a card this seat gave is still with the receiver; see
:mod:`ristiseiska.bots.knowledge`). With ``beta`` > 0, ``oversample`` times as many deals are
drawn as kept, and they are resampled by how well they explain each opponent's earlier choices
if that opponent plays either at random or sensibly (a model fitted to the expert bot; ``beta``
sharpens or softens it); the same evidence gives each opponent's chance of being a sensible
player (:attr:`Sampler.sensible`).

Deals come in two forms: :meth:`Sampler.worlds` yields lists of cards (every rule set, Python),
:meth:`Sampler.masks` returns one row of seat hand bitmasks per deal (drawn and weighted by the
compiled twins in :mod:`ristiseiska.kernel.worlds`; one-deck row layouts without jokers).
:func:`game_of_world` rebuilds the game of one such row, :func:`worlds_after` carries every
row past a move.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

from ..cards import Card
from ..game import Game
from ..table import held_back

FULL_MASK = (1 << 52) - 1

DEFAULT_BETA = 2.0  # sharpness of the sensible-player model (1: as fitted; 0: no weighting)
DEFAULT_OVERSAMPLE = 10  # deals drawn per deal kept (compiled sampling; at most 3 in Python)
# The kernel's playout policies (ristiseiska.kernel.POLICIES), as the searches name them
KERNEL_POLICIES = ("random", "greedy", "epsilon", "sensible", "strong", "expert")


def behind_masks(rules: Any) -> tuple[int, ...] | None:
    """For each card type of a single-deck row layout: the bitmask of the card types that can
    only come after it (:func:`ristiseiska.table.held_back`). ``None`` for other layouts (the
    reading of the opponents was fitted on rows only)."""
    if rules.layout != "rows":
        return None
    return held_back(rules)


def check_policies(own: str, opp: str) -> None:
    """Raise ``ValueError`` unless ``own`` names a kernel playout policy and ``opp`` one or
    ``"auto"`` (each opponent as it seems to play: :meth:`Sampler.playout_policy`)."""
    for label, name in (("own", own), ("opp", opp)):
        known = ("auto",) + KERNEL_POLICIES if label == "opp" else KERNEL_POLICIES
        if name not in known:
            raise ValueError(f"{label} must be one of {', '.join(known)}, not {name!r}")


class Sampler:
    """Deals of the hidden cards for one seat's view (see the module docstring). After each
    draw, :attr:`sensible` holds each opponent's chance of playing sensibly (opponents whose
    choices told nothing are left out)."""

    def __init__(self, beta: float = DEFAULT_BETA, oversample: int = DEFAULT_OVERSAMPLE) -> None:
        self.beta = float(beta)
        self.oversample = oversample
        self.sensible: dict[int, float] = {}

    def worlds(self, view: Any, rng: Any, count: int) -> Iterator[tuple[list[list[Any]], list[Any]]]:
        """``count`` sampled deals of the hidden cards: (hands, stock). With ``beta`` > 0 and
        a single-deck row layout, more deals are drawn and ``count`` of them kept with
        probability proportional to how well they explain the opponents' past choices."""
        from ..bots.knowledge import infer

        me = view.seat
        if view.open_hands is not None:  # open-cards mode: only a stock stays hidden
            for _ in range(count):
                hands = [list(view.open_hands[s]) for s in range(view.players)]
                yield hands, _open_stock(view, rng)
            return
        know = infer(view)
        behind = behind_masks(view.rules)
        self.sensible = {}
        if self.beta > 0 and behind is not None and know.observations:
            pool = [know.sample(rng) for _ in range(count * min(self.oversample, 3))]
            ll = np.zeros((len(pool), view.players, 2))
            for k, (h, _) in enumerate(pool):
                for st, pair in know.seat_log_likelihoods(h, behind, self.beta).items():
                    ll[k, st] = pair
            for i in self._resample(ll, count, rng):
                hands, stock = pool[i]
                hands = [list(h) for h in hands]
                hands[me] = list(view.hand)
                yield hands, stock
            return
        for _ in range(count):
            hands, stock = know.sample(rng)
            hands[me] = list(view.hand)
            yield hands, stock

    def masks(self, view: Any, rng: Any, count: int) -> Any:
        """``count`` sampled deals as a (count × players) array of hand bitmasks, drawn and
        weighted by the compiled twins of :meth:`worlds` (same algorithm and model); ``None``
        where they do not apply (open cards, two decks, jokers, layouts without rows)."""
        rules = view.rules
        behind = behind_masks(rules)
        if view.open_hands is not None or behind is None or rules.jokers or rules.decks != 1:
            return None
        from ..bots.cardtypes import type_values
        from ..bots.knowledge import (
            SENSIBLE_NOISE,
            SENSIBLE_OTHERS,
            SENSIBLE_OWN,
            SENSIBLE_VALUE,
            infer,
        )
        from ..kernel import worlds as kw

        know = infer(view)
        n = view.players
        me = view.seat
        pool = 0
        for c in know.pool:
            pool |= 1 << int(c)
        sizes = np.zeros(n, np.int64)
        known = np.zeros(n, np.uint64)
        excl = np.zeros(n, np.uint64)
        free = np.zeros(n, np.int64)
        free_excl = np.zeros(n, np.uint64)
        for st, o in know.opponents.items():
            sizes[st] = o.size
            km = 0
            for c in o.known:
                km |= 1 << int(c)
            known[st] = km
            excl[st] = o.excluded & FULL_MASK
            free[st] = o.free
            free_excl[st] = o.free_excluded & FULL_MASK
        weigh = self.beta > 0 and bool(know.observations)
        total = count * (self.oversample if weigh else 1)
        hands = np.zeros((total, n), np.uint64)
        kw.sample_hands(np.uint64(rng.getrandbits(64)), total, n, me, np.uint64(pool), sizes,
                        known, excl, free, free_excl, know.stock_size, 30, hands)
        mine = 0
        for c in view.hand:
            mine |= 1 << int(c)
        self.sensible = {}
        if weigh:
            obs = know.observations
            ll = np.zeros((total, n, 2))
            kw.seat_log_likelihoods(
                hands, np.array([o[0] for o in obs], np.int64), np.array([o[1] for o in obs], np.int64),
                np.array([o[2] for o in obs], np.uint64), np.array([o[3] for o in obs], np.uint64),
                np.array([o[4] for o in obs], np.uint64), np.array([o[5] for o in obs], np.bool_),
                np.array(behind, np.uint64), np.array(type_values(rules), np.float64),
                SENSIBLE_OWN, SENSIBLE_OTHERS, SENSIBLE_VALUE, SENSIBLE_NOISE, self.beta, ll)
            hands = hands[self._resample(ll, count, rng)]
        hands[:, me] = mine
        return hands

    def _resample(self, ll: Any, count: int, rng: Any) -> Any:
        """Indices of ``count`` of the sampled deals, drawn by weight. ``ll[k, s]``: the
        log-likelihoods of seat ``s``'s past plays in deal ``k`` if it plays at random or
        sensibly. Each opponent is one or the other (even odds, unknown): a deal's weight is
        the product over opponents of the two likelihoods' mean; the same evidence sets
        :attr:`sensible`, each opponent's chance of being a sensible player."""
        logw = np.zeros(ll.shape[0])
        self.sensible = {}
        for st in range(ll.shape[1]):
            rand, sens = ll[:, st, 0], ll[:, st, 1]
            if not rand.any():
                continue  # no choice of this seat's told anything
            logw += np.logaddexp(rand, sens)
            self.sensible[st] = _sigmoid(_np_logmeanexp(sens) - _np_logmeanexp(rand))
        w = np.exp(logw - logw.max())
        # systematic resampling: low variance, deterministic given rng
        edges = (rng.random() + np.arange(count)) * (w.sum() / count)
        return np.minimum(np.searchsorted(np.cumsum(w), edges, side="right"), len(w) - 1)

    def playout_policy(self, players: int, me: int, own: str, opp: str) -> list[str]:
        """The kernel playout policy of every seat: ``own`` for ``me``, ``opp`` for the
        others (with ``"auto"``: each opponent as it seems to play in the last draw)."""
        if opp == "auto":
            policy = ["sensible" if self.sensible.get(s, 0.5) >= 0.5 else "random"
                      for s in range(players)]
        else:
            policy = [opp] * players
        policy[me] = own
        return policy


def worlds_after(masks: Any, base: Game, after: Game) -> Any:
    """The sampled worlds' hands (one row of seat masks per world) once ``base`` has become
    ``after``: the cards that left or joined each hand are known alike in every world."""
    hands = masks.copy()
    for s in range(base.n):
        gone, came = base._hands[s] & ~after._hands[s], after._hands[s] & ~base._hands[s]
        if gone or came:
            hands[:, s] = (hands[:, s] & np.uint64(FULL_MASK & ~gone)) | np.uint64(came)
    return hands


def game_of_world(view: Any, row: Any, rng: Any) -> Game:
    """The game of one sampled deal: ``row`` holds each seat's hand as a bitmask; the cards
    neither in a hand nor on the table form the stock, shuffled with ``rng``."""
    from ..bots.cardtypes import table_cards

    def cards(mask: int) -> list[Card]:
        return [Card(c) for c in range(52) if (mask >> c) & 1]

    stock: list[Card] = []
    if view.stock_size:
        rest = FULL_MASK & ~int(np.bitwise_or.reduce(row))
        for c in table_cards(view.table):
            rest &= ~(1 << int(c))
        stock = cards(rest)
        rng.shuffle(stock)
    return Game.from_view(view, [cards(int(row[s])) for s in range(view.players)], stock)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0


def _np_logmeanexp(xs: Any) -> float:
    hi = float(xs.max())
    return hi + math.log(float(np.exp(xs - hi).mean()))


def _open_stock(view: Any, rng: Any) -> list[Any]:
    from ..bots.knowledge import infer

    if not view.stock_size:
        return []
    know = infer(view)
    pool = list(know.pool)
    for s in range(view.players):
        if s != view.seat:
            for c in view.open_hands[s]:
                if c in pool:
                    pool.remove(c)
    rng.shuffle(pool)
    return pool[: view.stock_size]

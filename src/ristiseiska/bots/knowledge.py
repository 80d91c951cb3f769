"""What a seat can infer from its view alone: which cards are still hidden, which hidden cards
each opponent certainly does not hold, and which cards are known to be in an opponent's hand.

Everything here reads only a :class:`~ristiseiska.view.SeatView` (docs/architecture.md, "What a seat sees"). Inferences:

* a player who took the token, passed, asked, drew or paid a chip held no card that was legal at
  that moment (with hoarding allowed: no legal card of a rank that must be played);
* a player whose extra move (after a closing card) was offered by the rules but who did not play
  on held no legal card right then (the engine ends such a turn silently);
* a card this seat gave is in the receiver's hand until it is played (docs/architecture.md: giver and
  receiver both see it).

A card received unseen (given by someone else, drawn from the stock) escapes the exclusions made
before it arrived; the bookkeeping keeps such cards as "free" slots with their own, later
exclusions. This is an approximation of the exact information set that errs on the side of
fewer constraints, never wrong ones for the common cases.

:func:`infer` puts it together: the hidden cards here, the history's reading in
:mod:`.history` (:class:`~.history.ReplayCache` resumes it through a deal), the card types in
:mod:`.cardtypes`; :class:`Knowledge` samples hidden hands and weighs the opponents' choices.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cards import CARDS, Card, full_deck
from ..rules import Rules
from .cardtypes import _type_values, card_type, notation_map, table_cards
from .history import FAST, Opponent, ReplayCache, replay

# The "sensible player" model of an opponent's choice (see Knowledge.seat_log_likelihoods),
# fitted by likelihood to the expert bot's choices in self-play (default rules): own cards
# freed weigh ten times the others', and card points count when someone is near going out.
SENSIBLE_OWN = 20.0
SENSIBLE_OTHERS = 2.0
SENSIBLE_VALUE = 1.0
SENSIBLE_NOISE = 0.05


@dataclass
class Knowledge:
    rules: Rules
    seat: int
    pool: list[Card]  # hidden cards (in opponents' hands or the stock), one entry per copy
    opponents: dict[int, Opponent]
    stock_size: int
    reliable: bool  # whether the history could be replayed (exclusions were inferred)
    # opponents' past plays: (seat, type played, playable types then, types the seat played
    # later, types it received later that we know of, whether another player then held at
    # most two cards)
    observations: list[tuple[int, int, int, int, int, bool]] = field(default_factory=list)

    def seat_log_likelihoods(self, hands: list[list[Card]], behind: Sequence[int],
                             sharp: float = 1.0) -> dict[int, tuple[float, float]]:
        """For each opponent with observed choices: the log-likelihood of its past plays in
        the sampled deal ``hands`` under two models of how it chooses among its legal cards,
        ``(random, sensible)``. *Random*: uniform. *Sensible*: mostly the card behind which
        lie most of its own cards, then the one that frees fewest of the others' cards, and
        expensive cards first when someone is about to go out (a softmax over those scores,
        ``sharp`` times as sharp as fitted to the expert bot's play, mixed with 5% random so
        that one surprising play does not rule a deal out)."""
        out: dict[int, tuple[float, float]] = {}
        if not self.observations:
            return out
        r = self.rules
        values = _type_values(r)
        masks: dict[int, int] = {}
        for seat, t, playable, later, received, near in self.observations:
            m = masks.get(seat)
            if m is None:
                m = 0
                for c in hands[seat]:
                    if c < 52:
                        m |= 1 << card_type(r, c)
                masks[seat] = m
            then = (m | later) & ~received
            legal = (then & playable) | (1 << t)
            if legal & (legal - 1) == 0:
                continue  # only one choice: it tells nothing
            chosen = 0.0
            scores = []
            while legal:
                low = legal & -legal
                u = low.bit_length() - 1
                legal ^= low
                if u < len(behind):
                    b = behind[u]
                    own = (b & then).bit_count()
                    x = SENSIBLE_OWN * own - SENSIBLE_OTHERS * (b.bit_count() - own)
                    if near:
                        x += SENSIBLE_VALUE * values[u]
                else:
                    x = 0.0
                x *= sharp
                scores.append(x)
                if u == t:
                    chosen = x
            k = len(scores)
            top = max(scores)
            z = sum(math.exp(x - top) for x in scores)
            p = (1.0 - SENSIBLE_NOISE) * math.exp(chosen - top) / z + SENSIBLE_NOISE / k
            lr, ls = out.get(seat, (0.0, 0.0))
            out[seat] = (lr - math.log(k), ls + math.log(p))
        return out

    def candidates(self, seat: int) -> list[Card]:
        """Hidden cards that ``seat`` may hold (ignoring the free slots' looser constraint)."""
        o = self.opponents[seat]
        ex = o.excluded
        r = self.rules
        return [c for c in self.pool if not (ex >> card_type(r, c)) & 1]

    def sample(self, rng: random.Random, tries: int = 30) -> tuple[list[list[Card]], list[Card]]:
        """Hidden hands (every seat; this seat's entry left empty) and a stock, drawn at random
        among the deals consistent with what is known; constraints are dropped if no
        consistent deal is found quickly."""
        for attempt in range(tries + 1):
            relax = attempt == tries
            got = self._try_sample(rng, relax)
            if got is not None:
                return got
        raise RuntimeError("could not sample hidden hands")  # pragma: no cover - relax never fails

    def _try_sample(self, rng: random.Random, relax: bool
                    ) -> tuple[list[list[Card]], list[Card]] | None:
        r = self.rules
        pool = self.pool[:]
        rng.shuffle(pool)
        hands: dict[int, list[Card]] = {}
        slots: list[tuple[int, int, int]] = []  # (seat, exclusion mask, count)
        for s, o in self.opponents.items():
            hands[s] = []
            known = [c for c in o.known]
            for c in known:
                if c in pool:
                    pool.remove(c)
                    hands[s].append(c)
            rest = o.size - len(hands[s])
            free = min(o.free, rest)
            if relax:
                slots.append((s, 0, rest))
            else:
                if rest - free:
                    slots.append((s, o.excluded, rest - free))
                if free:
                    slots.append((s, o.free_excluded, free))
        # most constrained first: fewest eligible cards per needed card
        def eligible(mask: int) -> int:
            return sum(1 for c in pool if not (mask >> card_type(r, c)) & 1)

        slots.sort(key=lambda x: eligible(x[1]) - x[2])
        for s, mask, count in slots:
            if not count:
                continue
            if mask:
                chosen = [i for i, c in enumerate(pool) if not (mask >> card_type(r, c)) & 1]
            else:
                chosen = list(range(len(pool)))
            if len(chosen) < count:
                return None
            take = chosen[:count]  # the pool is shuffled: the first eligible ones are random
            for i in take:
                hands[s].append(pool[i])
            for i in reversed(take):
                pool.pop(i)
        if len(pool) != self.stock_size:
            return None
        out = [hands.get(s, []) for s in range(len(self.opponents) + 1)]
        return out, pool



_FULL_POOL: dict[tuple[int, int, bool], dict[int, int]] = {}


def _full_pool(decks: int, jokers: int, distinct: bool) -> dict[int, int]:
    """Every card id of the deck with its count (read only: callers copy it). Identical
    decks list both copies as ids c and c+52: folded to one id with count 2."""
    key = (decks, jokers, distinct)
    out = _FULL_POOL.get(key)
    if out is None:
        out = {}
        for c in full_deck(decks, jokers):
            out[int(c)] = out.get(int(c), 0) + 1
        if decks == 2 and not distinct:
            folded: dict[int, int] = {}
            for k, v in out.items():
                kk = k % 52 if k < 104 else k
                folded[kk] = folded.get(kk, 0) + v
            out = folded
        _FULL_POOL[key] = out
    return out


_SORTED_POOL: dict[tuple[int, int, bool], list[tuple[int, int, Card]]] = {}


def _sorted_pool(decks: int, jokers: int, distinct: bool) -> list[tuple[int, int, Card]]:
    """``_full_pool`` as ``(id, count, card)`` sorted by id (read only)."""
    key = (decks, jokers, distinct)
    out = _SORTED_POOL.get(key)
    if out is None:
        out = _SORTED_POOL[key] = [
            (k, v, CARDS[k] if k < len(CARDS) else Card(k))
            for k, v in sorted(_full_pool(decks, jokers, distinct).items())]
    return out


_CHUNKS: dict[tuple[int, int], tuple[Card, ...]] = {}  # (first id, 13-bit mask) -> cards
_SINGLE_MASK: dict[tuple[int, int, bool], int | None] = {}


def _single_pool_mask(decks: int, jokers: int, distinct: bool) -> int | None:
    """The deck's card ids as a bit mask when it holds one card of each id (and every id has
    its card in ``CARDS``); ``None`` otherwise (identical decks)."""
    key = (decks, jokers, distinct)
    if key not in _SINGLE_MASK:
        full = _full_pool(decks, jokers, distinct)
        ok = all(v == 1 and k < len(CARDS) for k, v in full.items())
        m = 0
        for k in full:
            m |= 1 << k
        _SINGLE_MASK[key] = m if ok else None
    return _SINGLE_MASK[key]



def infer(view: Any, cache: ReplayCache | None = None) -> Knowledge:
    """Read everything this seat may infer from its view. ``cache`` (one per seat that is
    asked again and again during a deal) replays only the events since its last call when
    the view's history holds the very same event objects as before (see ReplayCache)."""
    rules: Rules = view.rules
    me = view.seat
    n = view.players
    names = notation_map(rules)
    # the hidden cards: the deck less the table and the hand (a count never below zero)
    gone: dict[int, int] = {}
    ones = _single_pool_mask(rules.decks, rules.jokers, rules.distinct_decks)
    if ones is not None and FAST[0]:  # one card of each id: the pool is a bit mask
        m = 0
        for occ in view.table.occupant:
            for cid in occ.values():
                m |= 1 << cid
        for c in view.hand:
            m |= 1 << c
        ones &= ~m
    elif rules.decks == 2 and not rules.distinct_decks:
        for cid in table_cards(view.table):
            k = cid % 52 if cid < 104 else cid
            gone[k] = gone.get(k, 0) + 1
        for c in view.hand:
            k = c % 52 if c < 104 else int(c)
            gone[k] = gone.get(k, 0) + 1
    else:
        for cid in table_cards(view.table):
            gone[cid] = gone.get(cid, 0) + 1
        for c in view.hand:
            gone[c] = gone.get(c, 0) + 1

    opps = {s: Opponent(s, view.hand_sizes[s]) for s in range(n) if s != me}
    reliable = True
    observations: list[tuple[int, int, int, int, int, bool]] = []
    try:
        if cache is not None:
            cache.replay(view, rules, names, opps, observations)
        else:
            replay(view, rules, names, opps, observations)
    except Exception:
        reliable = False
        observations = []
        for o in opps.values():
            o.excluded = o.free_excluded = 0
            o.free = 0
            o.known = []
    pool: list[Card] = []
    if ones is not None and FAST[0]:
        base = 0
        while ones:  # 13 ids at a time (a suit of a deck): their cards remembered by mask
            chunk = ones & 0x1FFF
            if chunk:
                got = _CHUNKS.get((base, chunk))
                if got is None:
                    if len(_CHUNKS) > 50_000:
                        _CHUNKS.clear()
                    got = _CHUNKS[(base, chunk)] = tuple(
                        CARDS[base + i] for i in range(13) if (chunk >> i) & 1)
                pool.extend(got)
            ones >>= 13
            base += 13
    for k, v, card in (() if ones is not None and FAST[0] else
                       _sorted_pool(rules.decks, rules.jokers, rules.distinct_decks)):
        g = gone.get(k)
        if g is None:
            if v == 1:
                pool.append(card)
            else:
                pool.extend([card] * v)
        elif v > g:
            pool.extend([card] * (v - g))
    # known cards must be hidden cards; drop any that are not (approximation safety)
    for o in opps.values():
        if not o.known:
            o.known = []
            continue
        kept = []
        avail = list(pool)
        for c in o.known:
            cc = Card(card_type(rules, c)) if rules.decks == 2 and not rules.distinct_decks else c
            if cc in avail:
                avail.remove(cc)
                kept.append(cc)
        o.known = kept[: o.size]
    return Knowledge(rules, me, pool, opps, view.stock_size, reliable, observations)

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
"""

from __future__ import annotations

import math
import operator
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cards import CARDS, JOKER_BASE, Card, full_deck
from ..rules import Rules
from ..table import Table

FAILURES = ("token", "pass", "ask", "chip", "draw")
FAST = [True]  # the shortcuts of issue 24 (tests switch them off to compare)

# The "sensible player" model of an opponent's choice (see Knowledge.seat_log_likelihoods),
# fitted by likelihood to the expert bot's choices in self-play (default rules): own cards
# freed weigh ten times the others', and card points count when someone is near going out.
SENSIBLE_OWN = 20.0
SENSIBLE_OTHERS = 2.0
SENSIBLE_VALUE = 1.0
SENSIBLE_NOISE = 0.05

_VALUES: dict[Rules, list[int]] = {}


def _type_values(rules: Rules) -> list[int]:
    """Card points of each of the 52 card types under ``rules``."""
    got = _VALUES.get(rules)
    if got is None:
        from ..scoring import card_value

        got = _VALUES[rules] = [card_value(Card(t), rules) for t in range(52)]
    return got


def type_values(rules: Rules) -> list[int]:
    """Card points of each of the 52 card types under ``rules`` (cached; do not change it)."""
    return _type_values(rules)


def card_type(rules: Rules, c: int) -> int:
    """The type id of a card (both copies of a card share it with two identical decks)."""
    if rules.decks == 2 and not rules.distinct_decks and c < 104:
        return c % 52
    return int(c)


_NOTATION: dict[tuple[int, bool], dict[str, Card]] = {}


def notation_map(rules: Rules) -> dict[str, Card]:
    key = (rules.decks, rules.distinct_decks)
    m = _NOTATION.get(key)
    if m is None:
        m = {}
        for c in full_deck(rules.decks, 2):
            m.setdefault(c.notation(rules.distinct_decks), c)
        _NOTATION[key] = m
    return m


def table_cards(table: Table) -> list[int]:
    out: list[int] = []
    for occ in table.occupant:
        out.extend(occ.values())
    return out


@dataclass
class Opponent:
    seat: int
    size: int
    known: list[Card] = field(default_factory=list)  # cards we know are in this hand
    excluded: int = 0  # type bitmask this hand's original cards cannot hold
    free: int = 0  # cards received unseen since the exclusions started
    free_excluded: int = 0  # exclusions that also apply to the free cards


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


def _event_card(names: dict[str, Card], e: dict[str, Any], key: str = "card") -> Card | None:
    t = e.get(key)
    if t is None:
        return None
    return names.get(t)


def _mandatory_mask(rules: Rules, playable: int) -> int:
    """The part of ``playable`` that a player taking the token must not hold (hoarding)."""
    h = rules.hoarding
    if h == "none" or rules.failure != "token":
        return playable
    if h == "any-with-penalty":
        return 0
    keep = 0
    m = playable
    while m:
        low = m & -m
        t = low.bit_length() - 1
        m ^= low
        rank = t % 13 + 1
        if h == "all-but-sevens" and rank == 7:
            keep |= low
        elif h == "sevens-sixes-eights" and rank not in (6, 7, 8):
            keep |= low
    return keep


def _place(table: Table, rules: Rules, card: Card, row: int | None, end: str | None,
           as_: Card | None) -> bool:
    t = card_type(rules, int(as_ if as_ is not None else card))
    if FAST[0] and table.opened and not table.upward and not table.first_decides \
            and t < len(table.type_rows) and len(table.type_rows[t]) == 1:
        # Table.placements of a type with one row: one place at most, found on its ends
        prow = table.type_rows[t][0]
        if (table.fits[prow] >> t) & 1:
            pend = table.fixed_end_side(t, prow)
            if end is None or pend is None or pend == end:
                return table.place(t, prow, pend, int(card))
        raise ValueError("card does not fit")
    places = table.placements(t)
    for prow, pend in places:
        if row is not None and prow // 4 != row and len({p[0] for p in places}) > 1:
            continue
        if end is not None and pend is not None and pend != end:
            continue
        return table.place(t, prow, pend, int(card))
    raise ValueError("card does not fit")


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
            _replay(view, rules, names, opps, observations)
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


def _replay(view: Any, rules: Rules, names: dict[str, Card], opps: dict[int, Opponent],
            observations: list[tuple[int, int, int, int, int, bool]] | None = None) -> None:
    me = view.seat
    pending: list[list[int]] = []  # [seat, type, playable, later, received, near] being filled
    sizes = list(view.dealt_sizes)  # hand sizes as the history goes
    table = Table(rules)
    for c in view.laid_out:
        t = card_type(rules, int(c))
        table.place(t, table.type_rows[t][0], None, int(c))
    hist = view.history
    sizes_known = rules.multi_play or rules.extra_move
    for i, e in enumerate(hist):
        typ = e["type"]
        s = e["seat"]
        o = opps.get(s)
        if typ == "play":
            card = _event_card(names, e)
            if card is None:
                raise ValueError("play without a card")
            as_ = _event_card(names, e, "as")
            t_played = card_type(rules, int(as_ if as_ is not None else card))
            for obs in pending:
                if obs[0] == s:
                    obs[3] |= 1 << t_played
            if o is not None and as_ is None and table.opened:
                near = any(sizes[j] <= 2 for j in range(len(sizes)) if j != s)
                pending.append([s, t_played, table.playable, 0, 0, int(near)])
            sizes[s] -= 1
            closing = _place(table, rules, card, e.get("row"), e.get("end"), as_)
            if o is not None:
                _card_left(rules, o, card)
            # a turn that the rules would have continued but did not: no legal card then
            if o is not None and sizes_known:
                more = rules.multi_play or (
                    closing and rules.extra_move
                    and (rules.ace != "first-decides" or card_type(rules, int(as_ or card)) % 13 == 0)
                )
                if more and _ended_silently(view, hist, i) and not _out_at(view, s, hist, i):
                    _exclude(o, table.playable)
        elif typ in FAILURES:
            if o is not None and table.opened:
                if typ == "token":
                    _exclude(o, _mandatory_mask(rules, table.playable))
                else:
                    _exclude(o, table.playable)
            if typ == "draw":
                sizes[s] += 1
            if typ == "draw" and o is not None:
                o.free += 1
                o.free_excluded = 0
        elif typ == "give":
            to = e.get("to")
            sizes[s] -= 1
            if to is not None:
                sizes[to] += 1
            card = _event_card(names, e)
            if o is not None:  # an opponent gave a card
                if card is not None:
                    _card_left(rules, o, card)
                else:  # unseen: it may have been a card we knew of, so forget those (they
                    # arrived after earlier exclusions: count them as free cards)
                    o.free += len(o.known)
                    o.free_excluded = 0
                    o.known = []
            if to is not None and card is not None:
                for obs in pending:
                    if obs[0] == to:
                        obs[4] |= 1 << card_type(rules, int(card))
            if to is not None and to != me and to in opps:
                r = opps[to]
                if card is not None and s == me:
                    r.known.append(card)
                else:
                    r.free += 1
                    r.free_excluded = 0
        elif typ == "swap":
            raise ValueError("swap events are not tracked")  # jokers: no exclusions inferred
    if observations is not None:
        observations.extend((a, b, c, d, e, bool(f)) for a, b, c, d, e, f in pending)


@dataclass
class _ReplayState:
    """Where ``_replay`` stands after the first ``index`` events of a history."""

    key: tuple[Any, ...]
    events: tuple[Any, ...]  # the events replayed (the objects themselves)
    index: int
    table: Table
    sizes: list[int]
    pending: list[list[int]]
    opps: dict[int, Opponent]

    def copy(self) -> _ReplayState:
        return _ReplayState(self.key, self.events, self.index, self.table.copy(),
                            list(self.sizes), [list(p) for p in self.pending],
                            {s: Opponent(o.seat, o.size, list(o.known), o.excluded, o.free,
                                         o.free_excluded) for s, o in self.opps.items()})


class ReplayCache:
    """``_replay`` for one seat through a deal, resumed where it stopped last time.

    An event's effect is final once nothing that can still happen changes it; the cache
    keeps the state after the longest final prefix. Only an event after which the rules let
    the player go on (an extra move) waits for what follows it. The prefix is reused only
    when the new view's history starts with the very same event objects (``is``, as the web
    server hands them over), so the cache cannot mix deals; otherwise it replays from the
    start, exactly as ``_replay`` (tests/test_bots_replay_cache.py checks both agree)."""

    def __init__(self) -> None:
        self._state: _ReplayState | None = None

    def replay(self, view: Any, rules: Rules, names: dict[str, Card],
               opps: dict[int, Opponent],
               observations: list[tuple[int, int, int, int, int, bool]] | None = None) -> None:
        hist = tuple(view.history)
        key = (view.seat, rules, tuple(view.dealt_sizes), tuple(view.laid_out),
               tuple(sorted(opps)))
        # The kept state is taken out (one C call: atomic under the GIL) and put back when
        # the replay succeeded: the state is changed in place below, and a bot may be asked
        # from two threads at once (the hint bots are shared); the other thread then finds
        # no state and replays from the start, into a state of its own.
        cp: _ReplayState | None = self.__dict__.pop("_state", None)
        self._state = None
        if (cp is None or cp.key != key or cp.index > len(hist)
                # the very same objects, compared in C (a generator here cost 8% of a
                # server bot's decision)
                or not all(map(operator.is_, cp.events, hist[:cp.index]))):
            table = Table(rules)
            for c in view.laid_out:
                t = card_type(rules, int(c))
                table.place(t, table.type_rows[t][0], None, int(c))
            cp = _ReplayState(key, (), 0, table, list(view.dealt_sizes), [],
                              {s: Opponent(s, 0) for s in opps})
        n = len(hist)
        if FAST[0]:
            # the events before the first one that may stay open are final: replayed onto
            # the kept state itself, without the copy (the common case copies nothing)
            k = cp.index
            if not (rules.multi_play or rules.extra_move):
                k = n  # no turn goes on after a card: every event is final
            while k < n and not _may_stay_open(rules, cp.table, names, hist[k], opps):
                k += 1
            if k > cp.index:
                self._run(cp, view, rules, names, hist, k)
                cp.index = k
            st = cp if k == n else cp.copy()
        else:
            st = cp.copy()
        j = self._run(st, view, rules, names, hist, n)
        for s, o in opps.items():  # the answer (copies: the state may be kept below)
            w = st.opps[s]
            o.known, o.excluded, o.free, o.free_excluded = (list(w.known), w.excluded,
                                                            w.free, w.free_excluded)
        if observations is not None:
            # (the last entry is already a bool: each list as a tuple is the observation)
            observations.extend(map(tuple, st.pending))  # type: ignore[arg-type]
        if j == n:
            keep = st  # every event final: this very state is the one to keep
        else:  # the state before the first event that is not final: replay up to it again
            keep = cp.copy() if not FAST[0] else cp
            self._run(keep, view, rules, names, hist, j)
        keep.index, keep.events = j, hist[:j]
        self._state = keep

    @staticmethod
    def _run(st: _ReplayState, view: Any, rules: Rules, names: dict[str, Card],
             hist: tuple[Any, ...], stop: int) -> int:
        """Replay ``hist[st.index:stop]`` onto ``st`` (the body of ``_replay``, event by
        event, looking ahead in the whole ``hist``); returns the index of the first of them
        whose effect is not final yet (``stop`` when all are)."""
        me = view.seat
        opps = st.opps
        table, sizes, pending = st.table, st.sizes, st.pending
        sizes_known = rules.multi_play or rules.extra_move
        first_open = stop
        for i in range(st.index, stop):
            e = hist[i]
            final = True
            typ = e["type"]
            s = e["seat"]
            o = opps.get(s)
            if typ == "play":
                card = names.get(e.get("card"))  # _event_card, inline
                if card is None:
                    raise ValueError("play without a card")
                as_ = names.get(e.get("as"))
                t_played = card_type(rules, int(as_ if as_ is not None else card))
                for obs in pending:
                    if obs[0] == s:
                        obs[3] |= 1 << t_played
                if o is not None and as_ is None and table.opened:
                    others = sizes[:s] + sizes[s + 1:]  # whether another player holds <= 2
                    pending.append([s, t_played, table.playable, 0, 0,
                                    bool(others) and min(others) <= 2])
                sizes[s] -= 1
                closing = _place(table, rules, card, e.get("row"), e.get("end"), as_)
                if o is not None:
                    _card_left(rules, o, card)
                if o is not None and sizes_known:
                    more = rules.multi_play or (
                        closing and rules.extra_move
                        and (rules.ace != "first-decides"
                             or card_type(rules, int(as_ or card)) % 13 == 0)
                    )
                    if more and _ended_silently(view, hist, i) and not _out_at(view, s, hist, i):
                        _exclude(o, table.playable)
                        # final once the player has played again (then never out here)
                        final = any(h["seat"] == s and h["type"] == "play"
                                    for h in hist[i + 1:])
                    elif more and i + 1 == len(hist):
                        final = False  # what follows decides
            elif typ in FAILURES:
                if o is not None and table.opened:
                    if typ == "token":
                        _exclude(o, _mandatory_mask(rules, table.playable))
                    else:
                        _exclude(o, table.playable)
                if typ == "draw":
                    sizes[s] += 1
                if typ == "draw" and o is not None:
                    o.free += 1
                    o.free_excluded = 0
            elif typ == "give":
                to = e.get("to")
                sizes[s] -= 1
                if to is not None:
                    sizes[to] += 1
                card = _event_card(names, e)
                if o is not None:
                    if card is not None:
                        _card_left(rules, o, card)
                    else:
                        o.free += len(o.known)
                        o.free_excluded = 0
                        o.known = []
                if to is not None and card is not None:
                    for obs in pending:
                        if obs[0] == to:
                            obs[4] |= 1 << card_type(rules, int(card))
                if to is not None and to != me and to in opps:
                    r = opps[to]
                    if card is not None and s == me:
                        r.known.append(card)
                    else:
                        r.free += 1
                        r.free_excluded = 0
            elif typ == "swap":
                raise ValueError("swap events are not tracked")
            if not final and first_open == stop:
                first_open = i
        return first_open


def _may_stay_open(rules: Rules, table: Table, names: dict[str, Card], e: dict[str, Any],
                   opps: dict[int, Opponent]) -> bool:
    """Whether ``ReplayCache._run`` could find the event ``e`` not final (a play by an
    opponent after which the rules may let it go on: multi-play, or a closing card with
    extra moves). Errs towards yes. Only the layout of ``table`` is read (its flags, and
    the ranks of a "rows" line, which no event changes)."""
    if e["type"] != "play" or e["seat"] not in opps:
        return False
    if rules.multi_play:
        return True
    if not rules.extra_move:
        return False
    if table.upward or table.first_decides:
        return True
    card = _event_card(names, e)
    if card is None:
        return True
    as_ = _event_card(names, e, "as")
    t = card_type(rules, int(as_ if as_ is not None else card))
    if t >= JOKER_BASE:
        return True
    ends = table.line[0]  # a "rows" layout: the same ranks on every row, fixed ends
    r = t % 13 + 1
    return r == ends[0] or r == ends[-1]


def _ended_silently(view: Any, hist: Any, i: int) -> bool:
    """Whether the turn of the play ``hist[i]``, which the rules would have let go on (an
    extra move, multi-play), ended without another card or a stop: then the player held no
    card that fitted. The play may be the last event: the turn has ended unless the player
    is still in its extra move, or went out with it (``_out_at`` tells a later end)."""
    s = hist[i]["seat"]
    if i + 1 < len(hist):
        nxt = hist[i + 1]
        return not (nxt["seat"] == s and nxt["type"] in ("play", "stop"))
    return not (view.to_move == s and view.phase == "more") and view.hand_sizes[s] > 0


def _out_at(view: Any, seat: int, hist: Any, i: int) -> bool:
    """Whether ``seat`` ran out of cards with event ``i`` (it then gets no extra move)."""
    if seat not in view.out_order:
        return False
    # the seat's last play is the one that emptied the hand
    for e in hist[i + 1:]:
        if e["seat"] == seat and e["type"] == "play":
            return False
    return True


def _exclude(o: Opponent, mask: int) -> None:
    o.excluded |= mask
    o.free_excluded |= mask


def _card_left(rules: Rules, o: Opponent, card: Card) -> None:
    """A card left an opponent's hand: forget it from the known list or the free slots."""
    for k in o.known:
        if card_type(rules, k) == card_type(rules, card):
            o.known.remove(k)
            return
    if o.free and (o.excluded >> card_type(rules, card)) & 1:
        o.free -= 1

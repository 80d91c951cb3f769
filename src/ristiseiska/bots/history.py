"""Reading a seat's public history: what each opponent's plays, failures and gifts show about
its hand (which card types it cannot hold, which cards it is known to hold, how many cards it
got unseen), and the opponents' past choices among their legal cards.

:func:`replay` reads a whole history; :class:`ReplayCache` resumes where its last replay of
the same deal stopped. :func:`ristiseiska.bots.knowledge.infer` puts the result together.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Any

from ..cards import JOKER_BASE, Card
from ..rules import Rules
from ..table import Table
from .cardtypes import card_type

FAILURES = ("token", "pass", "ask", "chip", "draw")
FAST = [True]  # the shortcuts of issue 24 (tests switch them off to compare)


@dataclass
class Opponent:
    """What the history shows of one opponent's hand."""

    seat: int
    size: int
    known: list[Card] = field(default_factory=list)  # cards we know are in this hand
    excluded: int = 0  # type bitmask this hand's original cards cannot hold
    free: int = 0  # cards received unseen since the exclusions started
    free_excluded: int = 0  # exclusions that also apply to the free cards


def event_card(names: dict[str, Card], e: dict[str, Any], key: str = "card") -> Card | None:
    """The card an event names under ``key`` (``card``, ``as``), read with ``names``
    (:func:`~ristiseiska.bots.cardtypes.notation_map`); ``None`` when it names none."""
    t = e.get(key)
    if t is None:
        return None
    return names.get(t)


def mandatory_mask(rules: Rules, playable: int) -> int:
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


def place_card(table: Table, rules: Rules, card: Card, row: int | None, end: str | None,
               as_: Card | None) -> bool:
    """Lay ``card`` (standing for ``as_``) on ``table`` where a play event with ``row`` and
    ``end`` put it; returns whether it closed its line. Raises ``ValueError`` if it does not
    fit."""
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


def replay(view: Any, rules: Rules, names: dict[str, Card], opps: dict[int, Opponent],
           observations: list[tuple[int, int, int, int, int, bool]] | None = None) -> None:
    """Read the history of ``view`` into ``opps`` (the opponents' exclusions, known and free
    cards) and, when given, ``observations`` (the opponents' past plays, see
    :attr:`~ristiseiska.bots.knowledge.Knowledge.observations`)."""
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
            card = event_card(names, e)
            if card is None:
                raise ValueError("play without a card")
            as_ = event_card(names, e, "as")
            t_played = card_type(rules, int(as_ if as_ is not None else card))
            for obs in pending:
                if obs[0] == s:
                    obs[3] |= 1 << t_played
            if o is not None and as_ is None and table.opened:
                near = any(sizes[j] <= 2 for j in range(len(sizes)) if j != s)
                pending.append([s, t_played, table.playable, 0, 0, int(near)])
            sizes[s] -= 1
            closing = place_card(table, rules, card, e.get("row"), e.get("end"), as_)
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
                    _exclude(o, mandatory_mask(rules, table.playable))
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
            card = event_card(names, e)
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
    """Where ``replay`` stands after the first ``index`` events of a history."""

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
    """``replay`` for one seat through a deal, resumed where it stopped last time.

    An event's effect is final once nothing that can still happen changes it; the cache
    keeps the state after the longest final prefix. Only an event after which the rules let
    the player go on (an extra move) waits for what follows it. The prefix is reused only
    when the new view's history starts with the very same event objects (``is``, as the web
    server hands them over), so the cache cannot mix deals; otherwise it replays from the
    start, exactly as ``replay`` (tests/test_bots_replay_cache.py checks both agree)."""

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
        """Replay ``hist[st.index:stop]`` onto ``st`` (the body of ``replay``, event by
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
                card = names.get(e.get("card"))  # event_card, inline
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
                closing = place_card(table, rules, card, e.get("row"), e.get("end"), as_)
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
                        _exclude(o, mandatory_mask(rules, table.playable))
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
                card = event_card(names, e)
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
    card = event_card(names, e)
    if card is None:
        return True
    as_ = event_card(names, e, "as")
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

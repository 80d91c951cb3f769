"""The rows on the table: the one place that answers "does this card fit now?".

Each row is a line of card ranks around a centre slot; ``lo`` and ``hi`` are the slots of the
lowest and highest card down (``-1`` while the row is unopened). The line's shape comes from the
rules, so every layout variant is data here, not code:

* default: ``A 2 … 6 [7] 8 … K`` — low pile ends at the ace, high pile at the king;
* ace high (V6): ``2 … 6 [7] 8 … K A``;
* first ace decides (V5): ``A 2 … [7] … K A`` until the first ace fixes one end;
* Ristikasi (V8): the centre is the 8;
* free Fan Tan (V16): ``[s] s+1 … K A 2 … s-1`` — upward only, fixed by the first card;
* two decks: one row per suit and deck (eight rows).

Cards are looked up by *type*: the card id with the deck folded away for two identical decks
(both ♥6 are the same type), the plain id otherwise. ``playable`` is the bitmask of the types
that fit somewhere right now; it is kept up to date after every placement so that legal-move
generation is a single ``&``.

Jokers (V11) lie in the slot of the card they stand for (``occupant`` holds the joker's id,
``jokers`` where each joker lies); the geometry goes on as if the real card lay there. The table
also answers the joker questions: whether a joker is still visible (:meth:`joker_visible`),
which real cards may be swapped in (:meth:`swap_types`), and which card types can still be
played at all (:meth:`live_types`; a card of any other type is dead).
"""

from __future__ import annotations

from functools import lru_cache

from .cards import JOKER_BASE
from .rules import Rules

NO = -1


class PlacementError(ValueError):
    """A card placed where it does not fit (the engine checks legality before this)."""


class Table:
    """The layout of one deal. Mutable; copied with :meth:`copy`."""

    __slots__ = (
        "rules", "nrows", "order", "line", "types", "lo", "hi", "minr", "maxr", "center",
        "fits", "playable", "opened", "ace_end", "start_rank", "type_rows", "identical",
        "ntypes", "occupant", "jokers", "upward", "first_decides",
    )

    def __init__(self, rules: Rules) -> None:
        self.rules = rules
        self.identical = rules.decks == 2 and not rules.distinct_decks
        self.upward = rules.layout == "upward"
        self.first_decides = rules.ace == "first-decides"
        self.nrows = 4 * rules.decks
        self.ntypes = 52 if (rules.decks == 1 or self.identical) else 104
        self.order = rules.order
        self.lo = [NO] * self.nrows
        self.hi = [NO] * self.nrows
        self.fits = [0] * self.nrows
        self.playable = 0
        self.opened = rules.opening == "any"
        self.ace_end: str | None = None
        self.start_rank: int | None = None
        # occupant[row][slot] = card id lying there (jokers need to know; others ignore it)
        self.occupant: list[dict[int, int]] = [{} for _ in range(self.nrows)]
        # jokers[joker id] = (row, slot) of a joker on the table (V11)
        self.jokers: dict[int, tuple[int, int]] = {}
        self.type_rows: list[tuple[int, ...]] = []
        for t in range(self.ntypes):
            suit = (t % 52) // 13
            if self.identical:
                self.type_rows.append((suit, suit + 4))
            else:
                self.type_rows.append((t // 13,))
        self.line: list[list[int]] = []
        self.types: list[list[int]] = []
        if rules.layout == "upward":
            self.center = 0
            self.minr = 0
            self.maxr = 12
            self.line = [[] for _ in range(self.nrows)]
            self.types = [[] for _ in range(self.nrows)]
            self.playable = (1 << self.ntypes) - 1  # any card may start
        else:
            c = rules.center
            if rules.ace == "low":
                ranks = list(range(1, 14))
            elif rules.ace == "high":
                ranks = list(range(2, 14)) + [1]
            else:  # first-decides: an ace slot at both ends until the first ace
                ranks = [1] + list(range(2, 14)) + [1]
            self.center = ranks.index(c)
            self.minr = 0
            self.maxr = len(ranks) - 1
            for row in range(self.nrows):
                base = self._row_base(row)
                self.line.append(ranks)
                self.types.append([base + r - 1 for r in ranks])
            self._refresh_all()

    def _row_base(self, row: int) -> int:
        """The type id of the ace of a row's suit."""
        if self.identical:
            return (row % 4) * 13
        return row * 13

    # -- queries --------------------------------------------------------------------------
    def low_allowed(self, row: int) -> bool:
        o = self.order
        if o == "both":
            return True
        c = self.center
        if o == "low-first":
            return self.lo[row] == c or self.hi[row] > c or self.maxr == c
        return self.hi[row] > c or self.maxr == c  # high-first

    def high_allowed(self, row: int) -> bool:
        o = self.order
        if o == "both":
            return True
        c = self.center
        if o == "low-first":
            return self.lo[row] < c or self.minr == c
        return self.hi[row] == c or self.lo[row] < c or self.minr == c

    def _row_fits(self, row: int) -> int:
        lo = self.lo[row]
        if lo == NO:
            if self.opened and self.line[row]:
                return 1 << self.types[row][self.center]
            return 0
        hi = self.hi[row]
        m = 0
        t = self.types[row]
        if lo > self.minr and self.low_allowed(row):
            m |= 1 << t[lo - 1]
        if hi < self.maxr and self.high_allowed(row):
            m |= 1 << t[hi + 1]
        return m

    def _refresh_all(self) -> None:
        p = 0
        for row in range(self.nrows):
            f = self._row_fits(row)
            self.fits[row] = f
            p |= f
        self.playable = p

    def _refresh(self, row: int) -> None:
        self.fits[row] = self._row_fits(row)
        p = 0
        for f in self.fits:
            p |= f
        self.playable = p

    def placements(self, t: int) -> list[tuple[int, str | None]]:
        """Where type ``t`` fits now: ``(row, end)`` pairs, ``end`` being ``'low'``/``'high'``
        for the slot side (``None`` when the card opens the row). Rows in identical states are
        listed once (they cannot be told apart)."""
        out: list[tuple[int, str | None]] = []
        if self.start_rank is None and self.rules.layout == "upward":
            return [(self.type_rows[t][0], None)] if (self.playable >> t) & 1 else []
        if not self.opened:  # the opening card goes to the first row of its suit
            return [(self.type_rows[t][0], None)]
        seen: set[tuple[int, int, tuple[int, ...]]] = set()
        for row in self.type_rows[t]:
            if not (self.fits[row] >> t) & 1:
                continue
            state = self._row_state(row)
            if state in seen:
                continue
            seen.add(state)
            lo = state[0]
            if lo == NO:
                out.append((row, None))
                continue
            tt = self.types[row]
            if lo > self.minr and tt[lo - 1] == t and self.low_allowed(row):
                out.append((row, "low"))
            hi = self.hi[row]
            if hi < self.maxr and tt[hi + 1] == t and self.high_allowed(row):
                out.append((row, "high"))
        return out

    def _row_state(self, row: int) -> tuple[int, int, tuple[int, ...]]:
        """What tells two rows of one suit apart (two identical decks): the ends, and where
        jokers lie (a joker can still be swapped or covered)."""
        if not self.jokers:
            return (self.lo[row], self.hi[row], ())
        return (self.lo[row], self.hi[row],
                tuple(sorted(s for r, s in self.jokers.values() if r == row)))

    # -- jokers (V11) ---------------------------------------------------------------------
    def joker_visible(self, row: int, slot: int) -> bool:
        """Whether a card at ``slot`` of ``row`` may still be swapped for: it is the end card
        of a pile that is not closed; a centre card always may."""
        if slot == self.center:
            return True
        if slot < self.center:
            return slot == self.lo[row] and slot > self.minr
        return slot == self.hi[row] and slot < self.maxr

    def swap_types(self) -> int:
        """Bitmask of the card types a visible joker stands for (their holders may swap)."""
        m = 0
        for row, slot in self.jokers.values():
            if self.joker_visible(row, slot):
                m |= 1 << self.types[row][slot]
        return m

    def stands_for(self, joker: int) -> int:
        """The card type the joker ``joker`` (on the table) stands for."""
        row, slot = self.jokers[joker]
        return self.types[row][slot]

    def swap(self, t: int, card_id: int) -> int:
        """Put the real card ``card_id`` (type ``t``) in the place of a visible joker standing
        for it (the first such row); return the joker's id. The caller has checked it."""
        for j, (row, slot) in sorted(self.jokers.items(), key=lambda kv: kv[1]):
            if self.types[row][slot] == t and self.joker_visible(row, slot):
                del self.jokers[j]
                self.occupant[row][slot] = card_id
                return j
        raise PlacementError(f"no visible joker stands for card type {t}")

    def live_types(self) -> int:
        """Bitmask of the card types that may still be played some time: a place for them is
        open (and reachable), or a visible joker stands for them. A card of any other type
        in a hand is dead."""
        m = self.swap_types()
        for row in range(self.nrows):
            t = self.types[row]
            if not t:  # free Fan Tan before the first card: everything is live
                return (1 << self.ntypes) - 1
            lo = self.lo[row]
            slots: list[int] | range
            if lo == NO:
                slots = range(self.minr, self.maxr + 1)
            else:
                slots = [*range(self.minr, lo), *range(self.hi[row] + 1, self.maxr + 1)]
            for slot in slots:
                m |= 1 << t[slot]
        return m

    def slot_of(self, t: int) -> tuple[int, int] | None:
        """Where type ``t`` belongs: ``(row, slot)`` in the first row of its suit, or ``None``
        (a joker, or an upward layout before its start rank is known)."""
        if t >= len(self.type_rows):
            return None
        row = self.type_rows[t][0]
        line = self.types[row]
        if t not in line:
            return None
        return row, line.index(t)

    def is_closed(self, row: int, end: str) -> bool:
        """Whether a pile is complete (its last card down)."""
        if self.lo[row] == NO:
            return False
        return self.lo[row] == self.minr if end == "low" else self.hi[row] == self.maxr

    def is_complete(self) -> bool:
        return all(self.lo[r] == self.minr and self.hi[r] == self.maxr for r in range(self.nrows))

    # -- changes --------------------------------------------------------------------------
    def place(self, t: int, row: int, end: str | None, card_id: int) -> bool:
        """Put a card of type ``t`` on ``row`` (at ``end``, or as the opener); return whether it
        closed a pile (a closing card). The caller has checked that it fits."""
        new_layout = self.upward and self.start_rank is None
        if new_layout:
            self._set_start_rank(t)
        lo = self.lo[row]
        if lo == NO:
            slot = self.center
            self.lo[row] = self.hi[row] = slot
            closing = False
            if self.minr == slot and self.maxr == slot:
                closing = True
        elif end == "low":
            slot = lo - 1
            self.lo[row] = slot
            closing = slot == self.minr
        else:
            slot = self.hi[row] + 1
            self.hi[row] = slot
            closing = slot == self.maxr
        self.occupant[row][slot] = card_id
        if card_id >= JOKER_BASE:
            self.jokers[card_id] = (row, slot)
        if not self.opened or new_layout:
            self.opened = True
            self._refresh_all()
        elif self.first_decides and self.ace_end is None and self.line[row][slot] == 1:
            self.ace_end = "low" if slot == 0 else "high"
            if self.ace_end == "low":
                self.maxr -= 1  # the high piles now end at the king
            else:
                self.minr += 1  # the low piles now end at the two
            self._refresh_all()
        else:
            self._refresh(row)
        return closing

    def _set_start_rank(self, t: int) -> None:
        s = t % 13 + 1
        self.start_rank = s
        ranks = [(s - 1 + i) % 13 + 1 for i in range(13)]
        for row in range(self.nrows):
            base = self._row_base(row)
            self.line[row] = ranks
            self.types[row] = [base + r - 1 for r in ranks]
        self.opened = True

    def fixed_end_side(self, t: int, row: int) -> str | None:
        """The side a non-ambiguous placement of ``t`` on ``row`` goes to."""
        lo = self.lo[row]
        if lo == NO:
            return None
        if lo > self.minr and self.types[row][lo - 1] == t and self.low_allowed(row):
            return "low"
        return "high"

    def copy(self) -> Table:
        # every slot by name (the bots copy tables thousands of times a second: a loop over
        # __slots__ with getattr/setattr cost twice as much); test_table_copy_every_slot
        # checks that none is missed
        new = object.__new__(Table)
        new.rules = self.rules
        new.nrows = self.nrows
        new.order = self.order
        new.line = self.line[:]
        new.types = self.types[:]
        new.lo = self.lo[:]
        new.hi = self.hi[:]
        new.minr = self.minr
        new.maxr = self.maxr
        new.center = self.center
        new.fits = self.fits[:]
        new.playable = self.playable
        new.opened = self.opened
        new.ace_end = self.ace_end
        new.start_rank = self.start_rank
        new.type_rows = self.type_rows
        new.identical = self.identical
        new.ntypes = self.ntypes
        new.occupant = [dict(o) for o in self.occupant]
        new.jokers = dict(self.jokers)
        new.upward = self.upward
        new.first_decides = self.first_decides
        return new

    # -- description ----------------------------------------------------------------------
    def row_cards(self, row: int) -> list[int]:
        """The card types on ``row``, low to high."""
        lo = self.lo[row]
        if lo == NO:
            return []
        return self.types[row][lo: self.hi[row] + 1]

    def row_suit(self, row: int) -> int:
        return (row % 4) if self.identical else (row % 4)

    def row_deck(self, row: int) -> int:
        return row // 4

    def ends(self, row: int) -> tuple[int | None, int | None]:
        """The ranks at the low and high end of a row (``None`` if unopened)."""
        lo = self.lo[row]
        if lo == NO:
            return None, None
        line = self.line[row]
        return line[lo], line[self.hi[row]]


@lru_cache(maxsize=64)
def held_back(rules: Rules, far_side: bool = True) -> tuple[int, ...] | None:
    """Per card type (0..51) of a single-deck layout: the bitmask of the types of its suit that
    can never be laid while it is not down — further out on its side of the centre; for the
    centre card, the whole suit; in a one-side-first order (:attr:`Rules.order`) the first card
    of the side that goes first also holds back the other side, and the first card of the other
    side the rest of the first side (with "low-first" the five waits for the eight as well as
    for the six). With the free upward layout any card may be the start, so every other card of
    its suit counts. ``None`` for two decks and for the first ace deciding its end (the line is
    not known in advance). The heuristic players count their own and the others' cards behind
    each legal card; one implementation for the bots and the compiled kernel.

    ``far_side=False`` leaves out that last part, as the learned network's features were
    computed when its shipped weights were trained.

    >>> from ristiseiska.cards import CARDS, parse_card
    >>> eight = held_back(Rules())[int(parse_card("H8"))]  # default: the six before the eight
    >>> [str(c) for c in CARDS[:52] if eight >> int(c) & 1]
    ['HA', 'H2', 'H3', 'H4', 'H5', 'H9', 'H10', 'HJ', 'HQ', 'HK']
    """
    if rules.decks != 1 or rules.ace not in ("low", "high"):
        return None
    ranks = list(range(1, 14)) if rules.ace == "low" else list(range(2, 14)) + [1]
    c = ranks.index(rules.center)
    low_first, high_first = rules.order == "low-first", rules.order == "high-first"
    out = [0] * 52
    for suit in range(4):
        types = [suit * 13 + r - 1 for r in ranks]
        for i, t in enumerate(types):
            if rules.layout == "upward" or i == c:
                beyond = [j for j in range(13) if j != i]
            elif i < c:
                beyond = list(range(0, i))
                if low_first and i == c - 1:
                    beyond += list(range(c + 1, 13))
                if far_side and high_first and i == c - 1:
                    beyond += list(range(c + 2, 13))  # the far high side waits (high_allowed)
            else:
                beyond = list(range(i + 1, 13))
                if high_first and i == c + 1:
                    beyond += list(range(0, c))
                if far_side and low_first and i == c + 1:
                    beyond += list(range(0, c - 1))  # the far low side waits (low_allowed)
            mask = 0
            for j in beyond:
                mask |= 1 << types[j]
            out[t] = mask
    return tuple(out)

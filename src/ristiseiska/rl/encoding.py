"""One action table and one observation layout, shared by every environment.

Everything here reads only a seat's :class:`~ristiseiska.view.SeatView` (what a seat may
see: docs/architecture.md, "What a seat sees"), and needs nothing but numpy: the policy bot uses it on a core install.

Actions (``Discrete(A)``), in blocks; ``T`` is the number of card *types* (52; 104 with two
different decks), ``R`` the row slots (2 with two identical decks, else 1), ``E`` the end
slots (2 when the first ace decides its end, else 1):

==========================  ===========================  ========================================
block                       ids                          meaning
==========================  ===========================  ========================================
play                        ``(t * R + r) * E + e``      play card type ``t`` (the engine's card
                                                         id; ``C7`` = 6); slot ``r = 1`` only for
                                                         the second row when the card fits both,
                                                         ``e = 1`` only for an ace played at the
                                                         high end while its end is being chosen
joker (only with jokers)    ``J0 + (t * R + r) * E + e`` play a joker standing for ``t``
stop, token, pass, chip,    ``S0 .. S0 + 5``             the simple moves, in this order
ask, draw
give                        ``G0 + t``                   give card type ``t`` (``G0 + T``: give a
                                                         joker, only with jokers)
swap (only with jokers)     ``W0 + t``                   put the real card ``t`` in a joker's place
==========================  ===========================  ========================================

For every one-deck rule set without jokers this is ``A = 110``: ``0..51`` play a card,
``52`` stop, ``53`` token, ``54`` pass, ``55`` chip, ``56`` ask, ``57`` draw, ``58..109``
give a card; the compiled vectorised environment uses exactly these ids.

Observation (float32, ``D`` values; seats are *relative*: slot ``k`` is the seat ``k`` places
to the observer's left, slot 0 the observer):

========  =====  ===========================================================================
offset    size   content
========  =====  ===========================================================================
hand      T      copies of each card type in the observer's hand
table     T      copies of each card type lying on the table (jokers not counted)
fits      T      1 for each card type that fits on the table now (public)
sizes     n      cards in hand, per relative seat
token     n      1 at the token holder's relative seat
chips     n      chips paid this deal (chip rules), or fines taken (per-miss token rules),
                 per relative seat
pot       1      chips in the pot
phase     3      one-hot: start of a turn, optional further card, choosing a card to give
receiver  n      while giving: 1 at the relative seat that asked
stock     1      cards left in the stock
start     13     free Fan Tan: one-hot rank that started every suit
ace_end   2      first ace decides: 1 at the end (low, high) it fixed
jokers    1+T    only with jokers: jokers in the observer's hand, then the types jokers stand
                 for on the table
absent    (n-1)T only with ``knowledge``: per opponent (relative seats 1..n-1), 1 for each card
                 type it is known not to hold (see :meth:`Encoding.knowledge_arrays`)
recent    k(n+T) only with ``knowledge=k``: the last ``k`` card plays, most recent first, each
                 a one-hot relative seat (n) then a one-hot card type (T); zeros if fewer
========  =====  ===========================================================================
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from ..cards import CARDS, JOKER_BASE, Card
from ..moves import ASK, CHIP, DRAW, GIVE, PASS, PLAY, STOP, SWAP, TOKEN, Move
from ..rules import Rules

SIMPLE_KINDS = (STOP, TOKEN, PASS, CHIP, ASK, DRAW)
PHASES = ("turn", "more", "give")


class ActionError(ValueError):
    """An action id that is not a legal move now (or not an action at all)."""


@dataclass(frozen=True)
class Encoding:
    """The action table and observation layout for ``rules`` at a table of ``players``;
    ``knowledge=k`` (default ``None``: off) adds the knowledge block with the last ``k``
    card plays."""

    rules: Rules
    players: int
    knowledge: int | None = None

    # -- sizes ------------------------------------------------------------------------------
    @cached_property
    def types(self) -> int:
        return 104 if (self.rules.decks == 2 and self.rules.distinct_decks) else 52

    @cached_property
    def identical(self) -> bool:
        return self.rules.decks == 2 and not self.rules.distinct_decks

    @cached_property
    def row_slots(self) -> int:
        return 2 if self.identical else 1

    @cached_property
    def end_slots(self) -> int:
        return 2 if self.rules.ace == "first-decides" else 1

    @cached_property
    def jokers(self) -> bool:
        return self.rules.jokers > 0

    @cached_property
    def n_play(self) -> int:
        return self.types * self.row_slots * self.end_slots

    @cached_property
    def joker_base(self) -> int:
        return self.n_play

    @cached_property
    def simple_base(self) -> int:
        return self.n_play * (2 if self.jokers else 1)

    @cached_property
    def give_base(self) -> int:
        return self.simple_base + len(SIMPLE_KINDS)

    @cached_property
    def swap_base(self) -> int:
        return self.give_base + self.types + (1 if self.jokers else 0)

    @cached_property
    def num_actions(self) -> int:
        return self.swap_base + (self.types if self.jokers else 0)

    @cached_property
    def offsets(self) -> dict[str, tuple[int, int]]:
        """Each observation block's ``(offset, size)``."""
        T, n = self.types, self.players
        sizes = [("hand", T), ("table", T), ("fits", T), ("sizes", n), ("token", n),
                 ("chips", n), ("pot", 1), ("phase", 3), ("receiver", n), ("stock", 1),
                 ("start", 13), ("ace_end", 2)]
        if self.jokers:
            sizes.append(("jokers", 1 + T))
        if self.knowledge is not None:
            sizes.append(("absent", (n - 1) * T))
            sizes.append(("recent", self.knowledge * (n + T)))
        out: dict[str, tuple[int, int]] = {}
        at = 0
        for name, size in sizes:
            out[name] = (at, size)
            at += size
        return out

    @cached_property
    def obs_size(self) -> int:
        at, size = list(self.offsets.values())[-1]
        return at + size

    # -- cards ------------------------------------------------------------------------------
    def card_type(self, c: int) -> int:
        return c % 52 if self.identical and c < JOKER_BASE else int(c)

    # -- actions ----------------------------------------------------------------------------
    def move_to_action(self, move: Move) -> int:
        """The action id of a move (as the engine lists it in ``legal_moves``)."""
        k = move.kind
        if k == PLAY:
            assert move.card is not None
            joker = move.card.is_joker
            named = move.as_ if joker else move.card
            if named is None:
                raise ActionError(f"{move}: a joker play must name the card it stands for")
            t = self.card_type(int(named))
            r = move.row if (move.row is not None and self.row_slots == 2) else 0
            e = 1 if (move.end == "high" and self.end_slots == 2) else 0
            a = (t * self.row_slots + r) * self.end_slots + e
            if joker:
                if not self.jokers:
                    raise ActionError("these rules have no jokers")
                a += self.joker_base
            return a
        if k in SIMPLE_KINDS:
            return self.simple_base + SIMPLE_KINDS.index(k)
        if k == GIVE:
            assert move.card is not None
            if move.card.is_joker:
                return self.give_base + self.types
            return self.give_base + self.card_type(int(move.card))
        if k == SWAP:
            assert move.card is not None
            return self.swap_base + self.card_type(int(move.card))
        raise ActionError(f"no action for the move {move}")

    def action_to_move(self, action: int, legal: Any) -> Move:
        """The legal move (one of ``legal``, e.g. ``view.legal_moves``) that ``action``
        means; :class:`ActionError` if it is not legal now."""
        a = _as_action(action, self.num_actions)
        for m in legal:
            if self.move_to_action(m) == a:
                move: Move = m
                return move
        raise ActionError(f"action {a} ({self.describe_action(a)}) is not a legal move now")

    def legal_mask(self, legal: Any) -> np.ndarray:
        mask = np.zeros(self.num_actions, np.int8)
        for m in legal:
            mask[self.move_to_action(m)] = 1
        return mask

    def describe_action(self, action: int) -> str:
        """A short text for an action id (for tables and error messages)."""
        a = int(action)
        if not 0 <= a < self.num_actions:
            return "no such action"
        if a < self.simple_base:
            joker = a >= self.joker_base
            b = a - self.joker_base if joker else a
            e = b % self.end_slots
            r = (b // self.end_slots) % self.row_slots
            t = b // (self.end_slots * self.row_slots)
            text = CARDS[t].notation(self.rules.distinct_decks)
            if joker:
                text = "joker=" + text
            if self.row_slots == 2 and r:
                text += "@1"
            if self.end_slots == 2 and e:
                text += "@high"
            return text
        if a < self.give_base:
            return SIMPLE_KINDS[a - self.simple_base]
        if a < self.swap_base:
            t = a - self.give_base
            return "give:joker" if t == self.types else "give:" + CARDS[t].notation(
                self.rules.distinct_decks)
        return "swap:" + CARDS[a - self.swap_base].notation(self.rules.distinct_decks)

    # -- observations -----------------------------------------------------------------------
    def observe(self, view: Any) -> np.ndarray:
        """The observation vector of a seat's view."""
        out = np.zeros(self.obs_size, np.float32)
        off = self.offsets
        n = self.players
        me = view.seat
        h0 = off["hand"][0]
        j0 = off["jokers"][0] if self.jokers else -1
        for c in view.hand:
            if c.is_joker:
                out[j0] += 1
            else:
                out[h0 + self.card_type(int(c))] += 1
        t0 = off["table"][0]
        for row in view.rows:
            for c in row.cards:
                if not c.is_joker:
                    out[t0 + self.card_type(int(c))] += 1
            for _joker, as_, _visible in row.jokers:
                out[j0 + 1 + self.card_type(int(as_))] += 1
        f0 = off["fits"][0]
        p = view.table.playable
        while p:
            low = p & -p
            out[f0 + low.bit_length() - 1] = 1
            p ^= low
        fines = getattr(view, "token_fines", ()) or (0,) * n
        for s in range(n):
            k = (s - me) % n
            out[off["sizes"][0] + k] = view.hand_sizes[s]
            out[off["chips"][0] + k] = view.chips_paid[s] + fines[s]
        if view.token_holder is not None:
            out[off["token"][0] + (view.token_holder - me) % n] = 1
        out[off["pot"][0]] = view.pot
        if view.phase in PHASES:
            out[off["phase"][0] + PHASES.index(view.phase)] = 1
            if view.phase == "give":
                out[off["receiver"][0] + (view.turn_seat - me) % n] = 1
        out[off["stock"][0]] = view.stock_size
        if view.table.start_rank:
            out[off["start"][0] + view.table.start_rank - 1] = 1
        if view.table.ace_end is not None:
            out[off["ace_end"][0] + (1 if view.table.ace_end == "high" else 0)] = 1
        if self.knowledge is not None:
            absent, recent = self.knowledge_arrays(view)
            a0, T = off["absent"][0], self.types
            for k in range(1, n):
                m = absent[(me + k) % n]
                while m:
                    low = m & -m
                    out[a0 + (k - 1) * T + low.bit_length() - 1] = 1
                    m ^= low
            r0 = off["recent"][0]
            for j, (s, t) in enumerate(recent[:self.knowledge]):
                out[r0 + j * (n + T) + (s - me) % n] = 1
                out[r0 + j * (n + T) + n + t] = 1
        return out

    def knowledge_arrays(self, view: Any) -> tuple[list[int], list[tuple[int, int]]]:
        """What the knowledge block says, from the view's public history alone: per seat a
        bitmask of the card types that seat is known not to hold, and the card plays as
        ``(seat, card type)``, most recent first.

        A seat that took the token, passed, asked, paid a chip or drew while the table was
        open held no card that fitted then: those types are marked (not for the token when
        hoarding is allowed: it may be taken instead of a card). A card the seat then gets
        unseen by the observer (a draw, a card given by someone else) could be anything, so
        its marks are cleared; a card the observer gave it clears that type's mark. The
        observer's own entry is left empty."""
        from ..bots.cardtypes import card_type as type_of
        from ..bots.cardtypes import notation_map
        from ..bots.history import FAILURES, event_card, place_card
        from ..table import Table

        rules = self.rules
        me = view.seat
        names = notation_map(rules)
        table = Table(rules)
        for c in view.laid_out:
            t = type_of(rules, int(c))
            table.place(t, table.type_rows[t][0], None, int(c))
        absent = [0] * self.players
        plays: list[tuple[int, int]] = []
        hoard = rules.hoarding != "none"
        for e in view.history:
            typ, s = e["type"], e["seat"]
            if typ == "play":
                card = event_card(names, e)
                as_ = event_card(names, e, "as")
                assert card is not None
                plays.append((s, type_of(rules, int(as_ if as_ is not None else card))))
                place_card(table, rules, card, e.get("row"), e.get("end"), as_)
            elif typ == "swap":
                card = event_card(names, e)
                assert card is not None
                table.swap(type_of(rules, int(card)), int(card))
            elif typ in FAILURES:
                if s != me and table.opened and not (typ == "token" and hoard):
                    absent[s] |= table.playable
                if typ == "draw" and s != me:
                    absent[s] = 0
            elif typ == "give":
                to = e.get("to")
                if to is not None and to != me:
                    card = event_card(names, e)
                    if s == me and card is not None:
                        absent[to] &= ~(1 << type_of(rules, int(card)))
                    else:
                        absent[to] = 0
        absent[me] = 0
        plays.reverse()
        return absent, plays

    def read_observation(self, obs: Any, seat: int) -> dict[str, Any]:
        """What an observation of ``seat`` says, in the view's own terms (absolute seats):
        the inverse of :meth:`observe` for the fields it carries."""
        o = np.asarray(obs)
        off = self.offsets
        n = self.players

        def block(name: str) -> np.ndarray:
            at, size = off[name]
            return o[at:at + size]

        def cards(name: str) -> list[Card]:
            out: list[Card] = []
            for t, k in enumerate(block(name)):
                out += [CARDS[t]] * int(round(float(k)))
            return out

        def by_seat(name: str) -> list[int]:
            b = block(name)
            return [int(round(float(b[(s - seat) % n]))) for s in range(n)]

        def one_seat(name: str) -> int | None:
            b = block(name)
            hot = np.flatnonzero(b)
            return None if hot.size == 0 else int((hot[0] + seat) % n)

        phase = np.flatnonzero(block("phase"))
        start = np.flatnonzero(block("start"))
        ace = np.flatnonzero(block("ace_end"))
        fits = 0
        for t in np.flatnonzero(block("fits")):
            fits |= 1 << int(t)
        d: dict[str, Any] = {
            "hand": cards("hand"),
            "table": cards("table"),
            "playable": fits,
            "hand_sizes": by_seat("sizes"),
            "token_holder": one_seat("token"),
            "chips": by_seat("chips"),
            "pot": int(round(float(block("pot")[0]))),
            "phase": PHASES[int(phase[0])] if phase.size else "over",
            "asking_seat": one_seat("receiver"),
            "stock_size": int(round(float(block("stock")[0]))),
            "start_rank": int(start[0]) + 1 if start.size else None,
            "ace_end": ("low", "high")[int(ace[0])] if ace.size else None,
        }
        if self.jokers:
            b = block("jokers")
            d["jokers_in_hand"] = int(round(float(b[0])))
            d["joker_places"] = [CARDS[int(t)] for t in np.flatnonzero(b[1:])]
        return d

    def action_table(self) -> list[tuple[str, str]]:
        """(ids, meaning) rows of the action table for these rules (for documentation)."""
        rows = [(f"0..{self.n_play - 1}", "play a card (see the encoding)")]
        if self.jokers:
            rows.append((f"{self.joker_base}..{self.simple_base - 1}", "play a joker as a card"))
        for i, k in enumerate(SIMPLE_KINDS):
            rows.append((str(self.simple_base + i), k))
        rows.append((f"{self.give_base}..{self.swap_base - 1}", "give a card"))
        if self.jokers:
            rows.append((f"{self.swap_base}..{self.num_actions - 1}", "swap a joker"))
        return rows


def _as_action(action: Any, size: int) -> int:
    try:
        a = int(action)
    except (TypeError, ValueError):
        raise ActionError(f"an action must be an integer, not {action!r}") from None
    if a != action and not isinstance(action, np.integer):
        raise ActionError(f"an action must be an integer, not {action!r}")
    if not 0 <= a < size:
        raise ActionError(f"action {a} is outside the action space 0..{size - 1}")
    return a


__all__ = ["ActionError", "Encoding", "SIMPLE_KINDS", "PHASES"]

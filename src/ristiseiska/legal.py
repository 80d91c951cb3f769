"""The legal moves of a position: the plays and where they go, the jokers' moves (V11), the
one failure move of a player who cannot play, hoarding, and when a deal is stuck.
:class:`LegalMoves` is a base of :class:`~ristiseiska.game.Game`."""

from __future__ import annotations

import functools

from .cards import CARDS, JOKER_BASE, Card
from .moves import ASK, CHIP, DRAW, GIVE, PASS, PLAY, SIMPLE, STOP, SWAP, TOKEN, Move
from .state import GIVING, MORE, NORMAL, OVER, DealState
from .table import NO


class IllegalMoveError(ValueError):
    """A move the rules do not allow now. The game is unchanged."""

    __module__ = "ristiseiska.game"  # its public home (tracebacks and docs name it so)


class LegalMoves(DealState):
    """Every move the player to move may make now."""

    # -- legal moves ----------------------------------------------------------------------------
    def legal_moves(self) -> list[Move]:
        """Every move the player to move may make now (never empty before the end).

        The list is cached until the next push: treat it as read-only (copy it to change it)."""
        legal = self._legal
        if legal is not None:
            return legal
        phase = self._phase
        seat = self._actor
        if phase == OVER:
            legal = []
        elif phase == GIVING:
            legal = [Move(GIVE, CARDS[c]) for c in self._distinct_cards(seat)]
        else:
            if self._opening_types and not self.table.opened:
                playable = self._opening_types
            else:
                playable = self.table.playable
            lm = self._hand_types(seat) & playable
            legal = self._plays(lm) if lm else []
            if self.rules.jokers:
                legal += self._joker_moves(seat)
            if phase == MORE:
                legal.append(_STOP)
            elif not legal:
                legal = [self._failure_move(seat)]
            elif lm and self.table.opened and self._may_hoard(lm):  # the opening card is never held
                legal.append(_TOKEN)
        self._legal = legal
        return legal

    def _plays(self, types: int, joker: Card | None = None) -> list[Move]:
        """Play moves for the card types in ``types``: the cards themselves, or ``joker``
        standing for each (V11)."""
        out: list[Move] = []
        simple = self._simple_plays and joker is None
        table = self.table
        while types:
            low = types & -types
            t = low.bit_length() - 1
            types ^= low
            if simple:
                out.append(_PLAYS[t])
                continue
            places = table.placements(t)
            named = CARDS[t]
            ace_choice = (self.rules.ace == "first-decides" and table.ace_end is None
                          and named.rank == 1)
            rows = {p[0] for p in places}
            card = named if joker is None else joker
            as_ = None if joker is None else named
            for row, end in places:
                out.append(Move(PLAY, card,
                                (row // 4) if len(rows) > 1 else None,
                                end if ace_choice else None, as_))
        return out

    # -- jokers (V11) ---------------------------------------------------------------------------
    def _jokers_in_hand(self, seat: int) -> list[Card]:
        h = self._hands[seat] >> JOKER_BASE
        return [CARDS[JOKER_BASE + i] for i in range(2) if (h >> i) & 1]

    def _joker_names(self) -> int:
        """Card types a joker may stand for now: any card that fits, once the deal has been
        opened by a real card (so never the opening card; docs/variants.md, V11)."""
        table = self.table
        if not table.opened or all(lo == NO for lo in table.lo):
            return 0
        return table.playable

    def _joker_moves(self, seat: int) -> list[Move]:
        """Joker plays, and swaps at the start of a turn (a swap is that turn's play)."""
        out: list[Move] = []
        jokers = self._jokers_in_hand(seat)
        if jokers:
            names = self._joker_names()
            if names:
                for j in jokers:
                    out += self._plays(names, j)
        if self._phase == NORMAL and self.table.jokers:
            st = self.table.swap_types() & self._hand_types(seat)
            while st:
                low = st & -st
                out.append(Move(SWAP, CARDS[low.bit_length() - 1]))
                st ^= low
        return out

    def _has_play(self, seat: int) -> bool:
        """Whether ``seat`` holds a card (or joker) that can be played now."""
        if self._hand_types(seat) & self.table.playable:
            return True
        return bool(self.rules.jokers and self._jokers_in_hand(seat) and self._joker_names())

    def dead_cards(self, seat: int) -> list[Card]:
        """Cards in ``seat``'s hand that can never be played any more (V11): real cards whose
        every place is filled by other cards or by jokers that can no longer be swapped, and
        jokers once every place on the table is filled."""
        if not self.rules.jokers:
            return []
        live = self.table.live_types()
        complete = self.table.is_complete()
        return [c for c in self.hand(seat)
                if (complete if c.is_joker else not (live >> self._type(int(c))) & 1)]

    def _stuck(self) -> bool:
        """No card left in any hand can ever be played (V11 [decision]: the deal ends)."""
        live = self.table.live_types()
        complete = self.table.is_complete()
        for seat in range(self.n):
            h = self._hands[seat]
            if not h:
                continue
            if h >> JOKER_BASE and not complete:
                return False
            if self._hand_types(seat) & live:
                return False
        return True

    @functools.cached_property
    def _simple_plays(self) -> bool:
        """One deck and fixed ace ends: every playable card has exactly one place."""
        r = self.rules
        return r.decks == 1 and r.ace != "first-decides"

    def _may_hoard(self, types: int) -> bool:
        h = self.rules.hoarding
        if h == "none":
            return False
        if h == "any-with-penalty":
            return True
        ranks = set()
        while types:
            low = types & -types
            ranks.add((low.bit_length() - 1) % 13 + 1)
            types ^= low
        if h == "all-but-sevens":
            return 7 not in ranks
        return ranks <= {6, 7, 8}  # sevens, sixes and eights may be hoarded

    def _failure_move(self, seat: int) -> Move:
        r = self.rules
        if r.stock and self._stock:
            return _DRAW
        f = r.failure
        if f == "token":
            return _TOKEN
        if f == "chip":
            return _CHIP
        if f == "ask":
            if r.first_round_pass and self._turns[seat] == 1:
                return _PASS
            if self._giver_for(seat) is None:
                return _PASS
            return _ASK
        return _PASS

    def _giver_for(self, seat: int) -> int | None:
        """Whom a player who cannot play asks: the previous player holding two or more cards."""
        n = self.n
        for k in range(1, n):
            s = (seat - k) % n
            if self._hands[s].bit_count() >= 2:
                return s
        return None

    def _distinct_cards(self, seat: int) -> list[int]:
        h = self._hands[seat]
        out = []
        seen = set()
        while h:
            low = h & -h
            c = low.bit_length() - 1
            h ^= low
            k = self._type(c)
            if k not in seen:
                seen.add(k)
                out.append(c if not self._identical or c >= JOKER_BASE else k)
        return out

    def is_legal(self, move: Move) -> bool:
        return move in self.legal_moves()


    def _placement_of(self, t: int, move: Move) -> tuple[int, str | None]:
        places = self.table.placements(t)
        for row, end in places:
            if move.row is not None and row // 4 != move.row and len({p[0] for p in places}) > 1:
                continue
            if move.end is not None and end is not None and end != move.end:
                continue
            return row, end
        raise IllegalMoveError(f"{move} does not fit")  # pragma: no cover - checked before


_PLAYS = tuple(Move(PLAY, c) for c in CARDS)
_STOP, _TOKEN, _PASS, _ASK, _DRAW, _CHIP = (SIMPLE[k] for k in (STOP, TOKEN, PASS, ASK, DRAW, CHIP))


__all__ = ["LegalMoves", "IllegalMoveError"]

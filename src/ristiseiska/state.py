"""What a deal's position holds, and the questions about it that need no rules of play:
whose decision it is, the phase, each hand, the counters. :class:`DealState` is the base of
:class:`~ristiseiska.game.Game` (``legal.py`` adds the legal moves, ``refusals.py`` the
reasons a move is refused, ``game.py`` the set-up and the applying of moves)."""

from __future__ import annotations

from .cards import CARDS, JOKER_BASE, Card, parse_card, sort_key
from .dealing import as_card
from .moves import Move
from .rules import Rules
from .scoring import Result
from .table import Table

NORMAL, MORE, GIVING, OVER = 0, 1, 2, 3
PHASE_NAMES = ("turn", "more", "give", "over")
M52 = (1 << 52) - 1
# each card id's place in sort_key's order (hands are sorted on every view)
_SORT_POS = {int(c): i for i, c in enumerate(sorted(CARDS, key=sort_key))}


class DealState:
    """The position of one deal (the attributes :class:`~ristiseiska.game.Game` sets up) and
    the reading of it."""

    rules: Rules
    n: int
    names: list[str]
    table: Table
    token_holder: int | None
    out_order: list[int]
    pot: int
    result: Result | None
    initial_hands: tuple[tuple[Card, ...], ...]
    _identical: bool  # two identical decks: the copies of a card are one card type
    _hands: list[int]  # per seat, a bitmask of card ids
    _stock: list[Card]
    _phase: int  # NORMAL, MORE, GIVING or OVER
    _actor: int  # the seat to decide
    _receiver: int  # the seat that asked, while a card is given (else -1)
    _moves: list[Move]
    _legal: list[Move] | None  # legal_moves() until the next push
    _turns: list[int]
    _played: bool
    _stall: int
    _penalties: list[int]
    _fines: list[int]
    _chips_paid: list[int]
    _opening_types: int

    def _opening_card_types(self) -> int:
        """The card types that may open the deal while it is unopened (0 once it is open or
        when any card may start). Either clubs seven opens with two different decks."""
        r = self.rules
        if r.opening == "any" or self.table.opened:
            return 0
        oc = parse_card(r.opening)
        types = 0
        for d in range(r.decks if r.distinct_decks else 1):
            types |= 1 << self._type(CARDS[int(oc) + 52 * d])
        return types

    def _type(self, c: int) -> int:
        return c % 52 if self._identical and c < JOKER_BASE else c

    def _hand_types(self, seat: int) -> int:
        h = self._hands[seat]
        if self._identical:
            return (h | (h >> 52)) & M52
        return h & ((1 << JOKER_BASE) - 1)

    # -- public state -------------------------------------------------------------------------
    @property
    def to_move(self) -> int:
        """The seat whose decision it is (the giver while a card is being given)."""
        return self._actor

    @property
    def turn_seat(self) -> int:
        """The seat whose turn it is (differs from :attr:`to_move` while a card is given)."""
        return self._receiver if self._phase == GIVING else self._actor

    @property
    def phase(self) -> str:
        """``turn`` (start of a turn), ``more`` (may play on or stop), ``give`` (choosing a
        card to give) or ``over``."""
        return PHASE_NAMES[self._phase]

    def is_over(self) -> bool:
        return self._phase == OVER

    def hand(self, seat: int) -> list[Card]:
        """The cards in a seat's hand, sorted by suit and rank."""
        h = self._hands[seat]
        out = []
        spread = h >> 52  # a second deck's cards or jokers: bit order is not sort order
        while h:
            low = h & -h
            out.append(CARDS[low.bit_length() - 1])
            h ^= low
        if spread:
            out.sort(key=_SORT_POS.__getitem__)
        # else: one deck's ids run suit by suit, rank by rank, which is sort_key's order
        return out

    def hand_size(self, seat: int) -> int:
        return self._hands[seat].bit_count()

    def hand_sizes(self) -> list[int]:
        return [h.bit_count() for h in self._hands]

    @property
    def stock(self) -> list[Card]:
        return list(self._stock)

    def holder_of(self, card: Card | str) -> int | None:
        """The seat holding ``card`` (any copy), or ``None``."""
        c = as_card(card)
        for seat in range(self.n):
            h = self._hands[seat]
            if (h >> c) & 1 or (self._identical and c < 52 and (h >> (c + 52)) & 1):
                return seat
        return None

    @property
    def chips_paid(self) -> list[int]:
        return list(self._chips_paid)

    @property
    def penalties(self) -> list[int]:
        return list(self._penalties)

    @property
    def token_fines(self) -> list[int]:
        """Per seat, the fines taken so far (V18 ``token_mode = "per-miss"``; all 0 otherwise)."""
        return list(self._fines)

    @property
    def moves(self) -> list[Move]:
        """The moves pushed so far."""
        return list(self._moves)

    def turns_taken(self, seat: int) -> int:
        return self._turns[seat]



__all__ = ["DealState", "NORMAL", "MORE", "GIVING", "OVER", "PHASE_NAMES"]

"""What one seat may see (docs/architecture.md, "What a seat sees"): the only thing bots and clients receive.

A view holds the seat's own hand, the table, every player's card count, the token holder and
chips, and the public history. A card handed over when asked is shown only to the giver and
the receiver; a drawn card only to the drawer. With ``open_cards`` (teaching and analysis
mode, named explicitly) every hand is shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from .cards import CARDS, Card
from .moves import DRAW, GIVE, Move
from .rules import Rules
from .table import NO, Table


@dataclass(frozen=True)
class RowView:
    """One row on the table: its suit (and deck), the cards down low to high."""

    row: int
    suit: int
    deck: int
    cards: tuple[Card, ...]
    low_closed: bool
    high_closed: bool
    # jokers on this row (V11): (joker, the card it stands for, whether it can still be swapped)
    jokers: tuple[tuple[Card, Card, bool], ...] = ()


@dataclass(frozen=True)
class SeatView:
    """Everything ``seat`` may know now. ``legal_moves`` is empty unless the seat is to move."""

    seat: int
    players: int
    names: tuple[str, ...]
    rules: Rules
    dealer: int
    hand: tuple[Card, ...]
    hand_sizes: tuple[int, ...]
    rows: tuple[RowView, ...]
    table: Table
    token_holder: int | None
    chips_paid: tuple[int, ...]
    pot: int
    to_move: int
    turn_seat: int
    phase: str
    history: tuple[dict[str, Any], ...]
    legal_moves: tuple[Move, ...]
    out_order: tuple[int, ...]
    stock_size: int
    turns_taken: tuple[int, ...]
    stall: int
    penalties: tuple[int, ...]
    dealt_sizes: tuple[int, ...]
    laid_out: tuple[Card, ...]
    result: Any = None
    open_hands: dict[int, tuple[Card, ...]] | None = field(default=None)
    # the seat's own cards that can never be played any more (jokers, V11)
    dead: tuple[Card, ...] = ()
    # fines taken per seat (V18, token_mode = "per-miss"; public, like the token)
    token_fines: tuple[int, ...] = ()

    @property
    def is_my_turn(self) -> bool:
        return self.to_move == self.seat and self.phase != "over"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready form (for the web protocol and tools). Cards and moves are written
        with the second-deck mark (``C7+``) when the two decks differ (V10)."""
        mark = self.rules.distinct_decks
        d: dict[str, Any] = {
            "seat": self.seat,
            "players": self.players,
            "names": list(self.names),
            "dealer": self.dealer,
            "hand": [c.notation(mark) for c in self.hand],
            "hand_sizes": list(self.hand_sizes),
            "rows": [
                {"row": r.row, "suit": r.suit, "deck": r.deck,
                 "cards": [c.notation(mark) for c in r.cards],
                 "low_closed": r.low_closed, "high_closed": r.high_closed,
                 **({"jokers": [{"joker": j.notation(), "as": a.notation(mark), "swappable": sw}
                                for j, a, sw in r.jokers]} if r.jokers else {})}
                for r in self.rows
            ],
            "token_holder": self.token_holder,
            "chips_paid": list(self.chips_paid),
            "pot": self.pot,
            "to_move": self.to_move,
            "turn_seat": self.turn_seat,
            "phase": self.phase,
            "history": list(self.history),
            "legal_moves": [m.text(mark) for m in self.legal_moves],
            "out_order": list(self.out_order),
            "stock_size": self.stock_size,
            "result": self.result.to_dict() if self.result is not None else None,
        }
        if self.rules.fines_per_miss:
            d["token_fines"] = list(self.token_fines)
        if self.rules.jokers:
            d["dead"] = [c.notation(mark) for c in self.dead]
        if self.open_hands is not None:
            d["open_hands"] = {str(k): [c.notation(mark) for c in v]
                               for k, v in self.open_hands.items()}
        return d


def public_event(event: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """An event as ``seat`` may see it (``None``: a spectator)."""
    t = event["type"]
    if t == GIVE and seat not in (event["seat"], event.get("to")):
        return {k: v for k, v in event.items() if k != "card"}
    if t == DRAW and seat != event["seat"]:
        return {k: v for k, v in event.items() if k != "card"}
    return event


def make_view(game: Any, seat: int, open_cards: bool = False,
              history: bool = True) -> SeatView:
    """The view of ``seat`` in ``game`` (a :class:`ristiseiska.game.Game`; typed loosely so
    that this module, which the game imports, does not import the game back).
    ``history=False`` leaves the history out (the web server keeps it serialised event by
    event, so a move's cost does not grow with the deal)."""
    if not 0 <= seat < game.n:
        raise ValueError(f"no seat {seat} at a table of {game.n}")
    mark = game.rules.distinct_decks
    table = game.table
    rows = []
    minr, maxr, table_jokers = table.minr, table.maxr, table.jokers
    for row in range(table.nrows):
        cards: tuple[Card, ...] = ()
        lo = table.lo[row]
        if lo != NO:
            occ = table.occupant[row]
            hi = table.hi[row]
            cards = tuple([CARDS[occ[s]] for s in range(lo, hi + 1)])
            low_closed, high_closed = lo == minr, hi == maxr  # Table.is_closed
        else:
            low_closed = high_closed = False
        jokers = tuple(
            (CARDS[j], CARDS[table.types[r][slot]], table.joker_visible(r, slot))
            for j, (r, slot) in sorted(table_jokers.items()) if r == row
        ) if table_jokers else ()
        rows.append(RowView(row, row % 4, row // 4, cards, low_closed, high_closed, jokers))
    events = tuple(public_event(e.to_dict(mark), seat) for e in game.events) if history else ()
    return SeatView(
        seat=seat,
        players=game.n,
        names=tuple(game.names),
        rules=game.rules,
        dealer=game.dealer,
        hand=tuple(game.hand(seat)),
        hand_sizes=tuple(game.hand_sizes()),
        rows=tuple(rows),
        table=table.copy(),
        token_holder=game.token_holder,
        chips_paid=tuple(game.chips_paid),
        pot=game.pot,
        to_move=game.to_move,
        turn_seat=game.turn_seat,
        phase=game.phase,
        history=events,
        legal_moves=tuple(game.legal_moves()) if game.to_move == seat else (),
        out_order=tuple(game.out_order),
        stock_size=len(game.stock),
        turns_taken=tuple(game._turns),  # game.turns_taken(s) for every seat
        stall=game._stall,
        penalties=tuple(game.penalties),
        dealt_sizes=tuple(map(len, game.initial_hands)),
        laid_out=game.initial_table,
        result=game.result,
        open_hands={s: tuple(game.hand(s)) for s in range(game.n)} if open_cards else None,
        dead=tuple(game.dead_cards(seat)),
        token_fines=tuple(game.token_fines),
    )

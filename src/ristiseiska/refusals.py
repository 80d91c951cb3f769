"""Refusing a move with a reason: matching a move given without details (a row, an end) to
the legal move it means, and saying in one sentence why a move is not legal now.
:class:`Refusals` is a base of :class:`~ristiseiska.game.Game`."""

from __future__ import annotations

from .cards import CARDS, JOKER_BASE, Card, parse_card
from .legal import IllegalMoveError, LegalMoves
from .moves import GIVE, PLAY, STOP, SWAP, TOKEN, Move
from .state import GIVING, MORE, OVER
from .table import NO


class Refusals(LegalMoves):
    """A move's legal meaning, or the reason it is refused."""

    # -- refusing moves with a reason -----------------------------------------------------------
    def _resolve(self, move: Move, legal: list[Move]) -> Move:
        """Match a move given without details (row, end) to the one legal move it means;
        otherwise raise :class:`IllegalMoveError` with the reason."""
        if not isinstance(move, Move):
            raise IllegalMoveError(f"{move!r} is not a move")
        if move.kind in (PLAY, GIVE) and move.card is not None and move.card.is_joker:
            # "jokeri=H6" names the first joker; the two are alike, so use the one held
            h = self._hands[self._actor]
            other = CARDS[JOKER_BASE + JOKER_BASE + 1 - int(move.card)]
            if not (h >> int(move.card)) & 1 and (h >> int(other)) & 1:
                move = move._replace(card=other)
                if move in legal:
                    return move
        if move.kind == PLAY and move.card is not None:
            want_type = self._type(int(move.card))
            want_as = None if move.as_ is None else self._type(int(move.as_))
            cands = [
                m for m in legal if m.kind == PLAY and m.card is not None
                and self._type(int(m.card)) == want_type
                and (None if m.as_ is None else self._type(int(m.as_))) == want_as
                and self._same_place(m, move)
            ]
            if len(cands) == 1:
                return cands[0]
            if len(cands) > 1:
                what = "row (@0 or @1)" if any(m.row is not None for m in cands) else "end (@low or @high)"
                raise IllegalMoveError(f"{move} fits in more than one place: name the {what}")
        if move.kind in (GIVE, SWAP) and move.card is not None:
            want = self._type(int(move.card))
            for m in legal:
                if m.kind == move.kind and m.card is not None and self._type(int(m.card)) == want:
                    return m
        raise IllegalMoveError(self.explain_illegal(move))

    def _same_place(self, legal: Move, move: Move) -> bool:
        """Whether the row and end ``move`` names (if any) are where ``legal`` goes."""
        if move.row is not None and legal.row is not None and legal.row != move.row:
            return False
        if move.end is not None and legal.end is not None and legal.end != move.end:
            return False
        if (move.row is not None and legal.row is None) or (
                move.end is not None and legal.end is None):
            card = legal.as_ if legal.as_ is not None else legal.card
            assert card is not None
            row, end = self._placement_of(self._type(int(card)), legal)
            if move.row is not None and legal.row is None and row // 4 != move.row:
                return False
            if move.end is not None and legal.end is None and end != move.end:
                return False
        return True

    def explain_illegal(self, move: Move) -> str:
        """Why ``move`` is not legal now, in one sentence."""
        if self._phase == OVER:
            return "the deal is over"
        seat = self._actor
        legal = self.legal_moves()
        kind = move.kind
        if kind in (PLAY, GIVE) and move.card is None:  # hand-made moves (records, clients)
            return f"a {kind} move must name a card"
        can_play = any(m.kind == PLAY for m in legal)
        if self._phase == GIVING:
            if kind != GIVE:
                return f"you must choose a card to give to {self.names[self._receiver]}"
            return f"{move.card} is not in your hand"
        if kind == GIVE:
            return "nobody has asked you for a card"
        if kind == PLAY:
            assert move.card is not None
            if self._hand_count(seat, move.card) == 0:
                return f"{move.card} is not in your hand"
            if move.card.is_joker:
                return self._why_not_joker(move)
            if move.as_ is not None:
                return "only a joker can stand for another card"
            if self.rules.jokers and move.card in self.dead_cards(seat):
                return (f"{move.card} is a dead card: its place is taken by a joker that can "
                        "no longer be swapped")
            return self._why_not_fits(move.card)
        if kind == SWAP:
            return self._why_not_swap(move)
        if kind == STOP:
            return "you can stop only after a closing card (or when playing several cards)"
        if kind == TOKEN:
            if self.rules.failure != "token":
                return "these rules have no token"
            if self._phase == MORE:
                return "you have already played this turn: play another card or stop"
            return "you must play a card: you hold a playable card" + (
                "" if self.rules.hoarding == "none" else " that may not be held back"
            )
        if self._phase == MORE:
            return "you have already played this turn: play another card or stop"
        if can_play:
            return "you hold a playable card, so you must play"
        expected = legal[0] if legal else None
        return f"you cannot {kind} now; the rules say: {expected}"

    def _why_not_joker(self, move: Move) -> str:
        if not self.rules.jokers:  # pragma: no cover - no jokers are dealt then
            return "jokers are not in play under these rules"
        if move.as_ is None:
            return f"name the card the joker stands for, e.g. {move.card}=H6"
        if move.as_.is_joker:
            return "a joker cannot stand for a joker"
        if self._phase == MORE or not self._joker_names():
            if self.table.is_complete():
                return "every place on the table is filled: jokers can no longer be played"
            if not self._joker_names():
                return "a joker cannot open the deal: the first card must be the real one"
        if (self.table.playable >> self._type(int(move.as_))) & 1:
            return f"{move.as_} does not fit where you said"
        why = self._why_not_fits(move.as_)
        return f"a joker must stand for a card that fits now: {why}"

    def _why_not_swap(self, move: Move) -> str:
        if not self.rules.jokers:
            return "these rules have no jokers"
        card = move.card
        if card is None:
            return "a swap move must name the real card"
        if self._phase == MORE:
            return "a swap is the whole play of a turn: it cannot follow a card played this turn"
        if self._hand_count(self._actor, card) == 0:
            return f"{card} is not in your hand"
        t = self._type(int(card))
        if not any(self.table.stands_for(j) == t for j in self.table.jokers):
            return f"no joker on the table stands for {card}"
        return (f"the joker standing for {card} is covered or its pile is closed: it can no "
                "longer be swapped")

    def _hand_count(self, seat: int, card: Card) -> int:
        h = self._hands[seat]
        c = int(card)
        n = (h >> c) & 1
        if self._identical and c < 52:
            n += (h >> (c + 52)) & 1
        return n

    def _why_not_fits(self, card: Card) -> str:
        t = self._type(int(card))
        table = self.table
        if self._opening_types and not table.opened:
            oc = parse_card(self.rules.opening)
            return f"the deal opens with {oc}: it must be played first"
        if (table.playable >> t) & 1:  # fits, but the details were wrong
            return f"{card} does not fit where you said"
        rank = card.rank
        for row in table.type_rows[t]:
            lo, hi = table.lo[row], table.hi[row]
            if lo == NO:
                line = table.line[row]
                if not line:
                    continue
                centre = CARDS[table.types[row][table.center]]
                return f"{centre} must be played before {card}"
            line = table.line[row]
            if rank in line[lo:hi + 1] and line.count(rank) == 1:
                continue
            # which neighbour is missing?
            if rank in line:
                idx = [i for i, r in enumerate(line) if r == rank]
                for i in idx:
                    if i < lo:
                        if i == lo - 1 and not table.low_allowed(row):
                            need = CARDS[table.types[row][table.center + 1]]
                            return f"{card} must wait until {need} is down"
                        if i < lo - 1:
                            need = CARDS[table.types[row][lo - 1]]
                            return f"{card} cannot skip: {need} comes first"
                    if i > hi:
                        if i == hi + 1 and not table.high_allowed(row):
                            need = CARDS[table.types[row][table.center - 1]]
                            return f"{card} must wait until {need} is down"
                        if i > hi + 1:
                            need = CARDS[table.types[row][hi + 1]]
                            return f"{card} cannot skip: {need} comes first"
        return f"{card} does not fit on the table now"



__all__ = ["Refusals"]

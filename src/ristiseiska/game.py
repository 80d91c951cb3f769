"""The deal as a state machine: whose turn, legal moves, applying moves, the result.

    >>> from ristiseiska import Game, Rules
    >>> g = Game(Rules(), players=4, seed=7)
    >>> g.to_move == g.holder_of("C7")               # the seven of clubs opens
    True
    >>> [str(m) for m in g.legal_moves()]
    ['C7']
    >>> g.push_text("C7")
    >>> g.push_text("H5")                              # not legal: refused, state unchanged
    Traceback (most recent call last):
    ...
    ristiseiska.game.IllegalMoveError: H5 is not in your hand
    >>> while not g.is_over():
    ...     g.push(g.legal_moves()[0])
    >>> g.result.winner is not None
    True

Moves are applied in place (``push``) and can be taken back (``pop``), like python-chess's
``Board``. The player to move is :attr:`Game.to_move`; a bot or client gets
:meth:`Game.view` for its seat, never the game itself.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from .cards import CARDS, JOKER_BASE, Card, parse_card
from .dealing import STOCK_HAND, SetupError, as_card, check_deck, deal
from .legal import IllegalMoveError
from .moves import ASK, CHIP, DRAW, GIVE, PASS, PLAY, STOP, SWAP, TOKEN, Move, MoveError, parse_move
from .refusals import Refusals
from .rules import Rules, RulesError
from .scoring import Result, score_deal
from .state import GIVING, MORE, NORMAL, OVER, PHASE_NAMES
from .table import Table
from .view import SeatView, make_view


class Event(NamedTuple):
    """One step of the deal's history, as written into records (docs/records.md)."""

    seat: int
    type: str
    card: Card | None = None
    row: int | None = None
    end: str | None = None
    as_: Card | None = None
    other: int | None = None  # 'from' of an ask, 'to' of a give

    def to_dict(self, mark_deck: bool = False) -> dict[str, Any]:
        d: dict[str, Any] = {"seat": self.seat, "type": self.type}
        if self.card is not None:
            d["card"] = self.card.notation(mark_deck)
        if self.row is not None:
            d["row"] = self.row
        if self.end is not None:
            d["end"] = self.end
        if self.as_ is not None:
            d["as"] = self.as_.notation(mark_deck)
        if self.other is not None:
            d["from" if self.type == ASK else "to"] = self.other
        return d


class Game(Refusals):
    """One deal under ``rules`` for ``players`` seats.

    Give ``seed`` for a shuffled deal, or ``hands`` (a list of card lists or texts, seat order)
    to set one up by hand; ``stock`` and ``table`` likewise for the stock game.

    (The legal moves come from :class:`~ristiseiska.legal.LegalMoves`, the reasons for refusing
    a move from :class:`~ristiseiska.refusals.Refusals`, the reading of the position from
    :class:`~ristiseiska.state.DealState`.)
    """

    _from_position = False  # set on positions built by from_view (no history to pop)

    def __init__(
        self,
        rules: Rules | None = None,
        players: int | None = None,
        seed: int | None = None,
        dealer: int = 0,
        hands: Sequence[Sequence[Card | str]] | None = None,
        stock: Sequence[Card | str] | None = None,
        names: Sequence[str] | None = None,
    ) -> None:
        rules = rules or Rules()
        if players is None:
            players = len(hands) if hands is not None else 4
        rules.check_players(players)
        if not isinstance(dealer, int) or not 0 <= dealer < players:
            raise SetupError(f"dealer must be a seat from 0 to {players - 1}, not {dealer!r}")
        self.rules = rules
        self.n = players
        self.seed = seed
        self.dealer = dealer
        self.names = list(names) if names is not None else [f"P{i + 1}" for i in range(players)]
        if len(self.names) != players:
            raise SetupError(f"{len(self.names)} names given for {players} players")
        if hands is None:
            dealt, stock_cards, laid = deal(rules, players, seed, dealer)
        else:
            dealt = [[as_card(c) for c in h] for h in hands]
            stock_cards = [as_card(c) for c in (stock or [])]
            laid = [parse_card(rules.laid_out)] if rules.laid_out else []
            if len(dealt) != players:
                raise SetupError(f"{len(dealt)} hands given for {players} players")
            check_deck(rules, dealt, stock_cards, laid)
        self.initial_hands: tuple[tuple[Card, ...], ...] = tuple(tuple(h) for h in dealt)
        self.initial_stock: tuple[Card, ...] = tuple(stock_cards)
        self.initial_table: tuple[Card, ...] = tuple(laid)
        self._reset()

    # -- set-up -------------------------------------------------------------------------------
    def _reset(self) -> None:
        r = self.rules
        n = self.n
        self.table = Table(r)
        self._identical = self.table.identical
        self._hands = [0] * n
        used = 0  # over all hands: the two copies may be in different hands
        for seat, h in enumerate(self.initial_hands):
            m = 0
            for c in h:
                cid = int(c)
                if self._identical and cid < JOKER_BASE and (used >> cid) & 1:
                    cid = cid + 52 if cid < 52 else cid - 52  # the other copy of the card
                bit = 1 << cid
                m |= bit
                used |= bit
            self._hands[seat] = m
        self._stock = list(self.initial_stock)
        for c in self.initial_table:
            row = self.table.type_rows[self._type(c)][0]
            self.table.place(self._type(c), row, None, int(c))
        self._phase = NORMAL
        self._actor = 0
        self._receiver = -1
        self.token_holder: int | None = None
        self.out_order: list[int] = []
        self.events: list[Event] = []
        self._moves: list[Move] = []
        self._turns = [0] * n
        self._played = False
        self._stall = 0
        self._penalties = [0] * n
        self._fines = [0] * n
        self._chips_paid = [0] * n
        self.pot = 0
        self.result: Result | None = None
        self._legal: list[Move] | None = None
        self._end_reason = ""
        self._opening_types = self._opening_card_types()
        if r.uses_chips:
            sizes = [len(h) for h in self.initial_hands]
            biggest = max(sizes)
            for i in range(n):
                pay = (1 if r.ante else 0) + (1 if r.short_hand_chip and sizes[i] < biggest else 0)
                self._chips_paid[i] += pay
                self.pot += pay
        # Who starts: the holder of the opening card nearest the dealer's left; otherwise the
        # dealer's left (the non-dealer with two players).
        first = (self.dealer + 1) % n
        if self._opening_types:
            for k in range(n):
                seat = (self.dealer + 1 + k) % n
                if self._hand_types(seat) & self._opening_types:
                    first = seat
                    break
        self._start_turn(first)

    # -- applying moves -------------------------------------------------------------------------
    def push(self, move: Move) -> None:
        """Apply ``move`` for the player to move. An illegal move raises
        :class:`IllegalMoveError` with the reason, and nothing changes."""
        legal = self._legal if self._legal is not None else self.legal_moves()
        # A plain tuple can equal a Move; refuse it with a reason instead of failing later.
        if move not in legal or not isinstance(move, Move):
            move = self._resolve(move, legal)
        self._moves.append(move)
        self._legal = None
        kind = move.kind
        seat = self._actor
        if kind == PLAY:
            self._apply_play(seat, move)
        elif kind == STOP:
            self.events.append(Event(seat, STOP))
            self._end_turn()
        elif kind == TOKEN:
            r = self.rules
            self.events.append(Event(seat, TOKEN))
            if r.hoarding == "any-with-penalty" and (
                self._hand_types(seat) & self.table.playable
            ):
                self._penalties[seat] += r.hoarding_penalty
            if r.fines_per_miss:  # V18: a fine of its own each time; nothing moves
                self._fines[seat] += 1
            else:
                self.token_holder = seat
            self._end_turn()
        elif kind == PASS:
            self.events.append(Event(seat, PASS))
            self._end_turn()
        elif kind == CHIP:
            self.events.append(Event(seat, CHIP))
            self._chips_paid[seat] += 1
            self.pot += 1
            self._end_turn()
        elif kind == DRAW:
            c = self._stock.pop(0)
            self._hands[seat] |= 1 << c
            self.events.append(Event(seat, DRAW, c))
            self._end_turn()
        elif kind == ASK:
            giver = self._giver_for(seat)
            assert giver is not None
            self.events.append(Event(seat, ASK, other=giver))
            self._phase = GIVING
            self._receiver = seat
            self._actor = giver
        elif kind == GIVE:
            assert move.card is not None
            cid = self._remove_card(seat, move.card)
            receiver = self._receiver
            self._hands[receiver] |= 1 << cid
            self.events.append(Event(seat, GIVE, CARDS[cid], other=receiver))
            self._actor = receiver
            self._phase = NORMAL
            self._end_turn()
        elif kind == SWAP:
            assert move.card is not None
            real = self._remove_card(seat, move.card)
            joker = self.table.swap(self._type(real), real)
            self._hands[seat] |= 1 << joker
            self.events.append(Event(seat, SWAP, CARDS[real]))
            self._played = True  # a swap is the turn's play
            self._stall = 0
            if self._stuck():  # e.g. the table is now full and the joker taken back is dead
                self._finish_stuck()
            else:
                self._end_turn()
        else:  # pragma: no cover - legal_moves never offers other kinds yet
            raise IllegalMoveError(f"{move} is not supported by these rules")
        if kind in (GIVE, DRAW) and self.rules.jokers and self._phase != OVER and self._stuck():
            # Cards only change hands here, so this cannot happen today; the deal still ends
            # the moment nothing in any hand can be played, whatever the last action was.
            self._finish_stuck()  # pragma: no cover

    def _remove_card(self, seat: int, card: Card) -> int:
        """Take a card (either copy of it, with identical decks) out of a hand; return the id."""
        h = self._hands[seat]
        c = int(card)
        if not (h >> c) & 1:
            other = c + 52 if c < 52 else c - 52
            if self._identical and c < JOKER_BASE and (h >> other) & 1:
                c = other
            else:  # pragma: no cover - legality is checked before
                raise IllegalMoveError(f"{card} is not in your hand")
        self._hands[seat] = h & ~(1 << c)
        return c

    def _apply_play(self, seat: int, move: Move) -> None:
        card = move.card
        assert card is not None
        c = self._remove_card(seat, card)
        table = self.table
        if c >= JOKER_BASE:  # a joker takes the place of the card it stands for
            assert move.as_ is not None
            t = self._type(int(move.as_))
            row, end = self._placement_of(t, move)
        else:
            t = self._type(c)
            if self._simple_plays:
                row = table.type_rows[t][0]
                end = table.fixed_end_side(t, row)
            else:
                row, end = self._placement_of(t, move)
        closing = table.place(t, row, end, c)
        self.events.append(Event(seat, PLAY, CARDS[c], move.row, move.end, move.as_))
        self._played = True
        self._stall = 0
        r = self.rules
        if not self._hands[seat]:
            self._went_out(seat)
            if r.jokers and self._phase != OVER and self._stuck():
                self._finish_stuck()
            return
        if r.jokers and self._stuck():
            self._finish_stuck()
            return
        # V5: before the first ace a king or a 2 completes nothing (the table's ace slots are
        # still open at both ends), so ``closing`` is already right: the first ace closes its
        # pile (its player alone gets the extra move, however many piles close with it), and
        # after it piles close as in the base game.
        more = r.multi_play or (closing and r.extra_move and (
            r.first_ace_closing == "base" or t % 13 == 0))  # old records: aces only
        if more and self._has_play(seat):
            self._phase = MORE
        else:
            self._end_turn()

    def _finish_stuck(self) -> None:
        """End a deal in which no card left can ever be played: everyone holding cards loses
        (V11 [decision]); the first player out, if any, is the winner."""
        self._finish(self.out_order[0] if self.out_order else None, "stuck")

    def _went_out(self, seat: int) -> None:
        self.out_order.append(seat)
        if self.rules.end == "first-out":
            self._finish(seat, "out")
            return
        left = [s for s in range(self.n) if self._hands[s]]
        if len(left) <= 1:
            self._finish(self.out_order[0], "last")
        else:
            self._end_turn()

    def _end_turn(self) -> None:
        if self._phase == OVER:
            return
        seat = self.turn_seat if self._phase == GIVING else self._actor
        if not self._played:
            self._stall += 1
            if self._stall >= self.rules.stall_turns:
                self._finish(self.out_order[0] if self.out_order else None, "stall")
                return
        n = self.n
        nxt = (seat + 1) % n
        hands = self._hands
        while not hands[nxt]:
            nxt = (nxt + 1) % n
        self._start_turn(nxt)

    def _start_turn(self, seat: int) -> None:
        self._actor = seat
        self._phase = NORMAL
        self._played = False
        self._turns[seat] += 1

    def _finish(self, winner: int | None, reason: str) -> None:
        self._phase = OVER
        self._legal = []
        self._end_reason = reason
        self.result = score_deal(
            self.rules,
            [self.hand(s) for s in range(self.n)],
            winner,
            self.out_order,
            self.token_holder,
            self._penalties,
            self._chips_paid if self.rules.uses_chips else None,
            self.pot,
            reason,
            [len(h) for h in self.initial_hands],
            self.dealer,
            self._fines if self.rules.fines_per_miss else None,
        )

    # -- text helpers ---------------------------------------------------------------------------
    def parse_move(self, text: str) -> Move:
        """Read a move in the context of this game (``h6``, ``herttakuutonen``, ``stop``…),
        matching it to the legal move it means. Raises :class:`IllegalMoveError` (or
        :class:`MoveError` for text that is no move at all)."""
        move = parse_move(text)
        legal = self.legal_moves()
        if move in legal:
            return move
        return self._resolve(move, legal)

    def push_text(self, text: str) -> None:
        """``push(parse_move(text))`` with details resolved from the legal moves."""
        self.push(self.parse_move(text))

    # -- undo, copy -----------------------------------------------------------------------------
    def pop(self) -> Move:
        """Take back the last move and return it."""
        if not self._moves:
            raise IndexError("no move to take back")
        if self._from_position:
            raise IndexError("a position set up from a view cannot take moves back")
        moves = self._moves[:-1]
        last = self._moves[-1]
        self._reset()
        for m in moves:
            self.push(m)
        return last

    def copy(self) -> Game:
        """An independent copy (for search)."""
        new = object.__new__(Game)
        new.__dict__.update(self.__dict__)
        new.table = self.table.copy()
        new._hands = self._hands[:]
        new._stock = self._stock[:]
        new.out_order = self.out_order[:]
        new.events = self.events[:]
        new._moves = self._moves[:]
        new._turns = self._turns[:]
        new._penalties = self._penalties[:]
        new._fines = self._fines[:]
        new._chips_paid = self._chips_paid[:]
        new._legal = None
        return new

    @classmethod
    def from_view(cls, view: Any, hands: Sequence[Sequence[Card | str]],
                  stock: Sequence[Card | str] = ()) -> Game:
        """A game in exactly the position ``view`` shows, with ``hands`` (every seat, the
        view's own hand included) and ``stock`` filling in what the view hides. For search
        bots that sample the hidden cards (determinization). The history before this position
        is not kept: :meth:`pop` cannot go back past it and ``events`` starts empty."""
        rules = view.rules
        n = view.players
        if len(hands) != n:
            raise SetupError(f"{len(hands)} hands given for {n} players")
        cards = [[as_card(c) for c in h] for h in hands]
        if sorted(cards[view.seat]) != sorted(view.hand) and sorted(
            c.kind for c in cards[view.seat]) != sorted(c.kind for c in view.hand):
            raise SetupError("the hand given for the view's own seat is not the seat's hand")
        for s in range(n):
            if len(cards[s]) != view.hand_sizes[s]:
                raise SetupError(
                    f"seat {s} holds {view.hand_sizes[s]} cards, {len(cards[s])} given")
        g = object.__new__(cls)
        g.rules = rules
        g.n = n
        g.seed = None
        g.dealer = view.dealer
        g.names = list(view.names)
        g.table = view.table.copy()
        g._identical = g.table.identical
        used: set[int] = set()
        for occ in g.table.occupant:
            used.update(occ.values())
        g._hands = [0] * n
        for s, h in enumerate(cards):
            m = 0
            for c in h:
                cid = int(c)
                if g._identical and cid < 52 and (cid in used or (m >> cid) & 1):
                    cid += 52  # the other copy
                used.add(cid)
                m |= 1 << cid
            g._hands[s] = m
        g.initial_hands = tuple(tuple(h) for h in cards)
        g.initial_stock = tuple(as_card(c) for c in stock)
        g.initial_table = tuple(view.laid_out)
        g._stock = list(g.initial_stock)
        g._phase = PHASE_NAMES.index(view.phase)
        g._actor = view.to_move
        g._receiver = view.turn_seat if view.phase == "give" else -1
        g.token_holder = view.token_holder
        g.out_order = list(view.out_order)
        g.events = []
        g._moves = []
        g._turns = list(view.turns_taken)
        g._played = view.phase == "more"
        g._stall = view.stall
        g._penalties = list(view.penalties)
        g._fines = list(view.token_fines) if view.token_fines else [0] * n
        g._chips_paid = list(view.chips_paid)
        g.pot = view.pot
        g.result = view.result
        g._legal = None
        g._end_reason = ""
        g._opening_types = g._opening_card_types()
        g._from_position = True
        return g

    # -- views ----------------------------------------------------------------------------------
    def view(self, seat: int, open_cards: bool = False) -> SeatView:
        """What ``seat`` may see (docs/architecture.md). ``open_cards`` shows every hand (teaching)."""
        return make_view(self, seat, open_cards)

    def __repr__(self) -> str:
        return (f"<Game {self.rules.name or 'custom'} players={self.n} seed={self.seed} "
                f"to_move={self._actor} phase={self.phase} moves={len(self._moves)}>")

    def iter_events(self) -> Iterator[Event]:
        return iter(self.events)



__all__ = ["Game", "Event", "IllegalMoveError", "SetupError", "deal", "MoveError", "RulesError",
           "STOCK_HAND"]

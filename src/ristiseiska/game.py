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

import functools
import random
from collections.abc import Iterator, Sequence
from typing import Any, NamedTuple

from .cards import CARDS, JOKER_BASE, Card, CardError, full_deck, parse_card, sort_key
from .moves import (
    ASK,
    CHIP,
    DRAW,
    GIVE,
    PASS,
    PLAY,
    SIMPLE,
    STOP,
    SWAP,
    TOKEN,
    Move,
    MoveError,
    parse_move,
)
from .rules import Rules, RulesError
from .scoring import Result, score_deal
from .table import NO, Table
from .view import SeatView, make_view

NORMAL, MORE, GIVING, OVER = 0, 1, 2, 3
PHASE_NAMES = ("turn", "more", "give", "over")
M52 = (1 << 52) - 1
STOCK_HAND = 17  # cards per hand in the stock game (V13)


class IllegalMoveError(ValueError):
    """A move the rules do not allow now. The game is unchanged."""


class SetupError(ValueError):
    """Hands, seats or a seed that do not make a valid deal."""


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


def deal(rules: Rules, players: int, seed: int | None, dealer: int = 0
         ) -> tuple[list[list[Card]], list[Card], list[Card]]:
    """Shuffle with ``seed`` and deal: ``(hands, stock, table)``. Cards go one at a time from
    the dealer's left, so the first seats from the dealer's left get one card more when the
    deck does not divide evenly. With a stock (V13) each player gets 17 cards and the rest is
    the stock (first card = top): 17 cards when the opening card is laid out on the table
    first, 18 otherwise."""
    deck = full_deck(rules.decks, rules.jokers)
    table: list[Card] = []
    laid = rules.laid_out
    if laid is not None:
        c = parse_card(laid)
        deck.remove(c)
        table.append(c)
    random.Random(seed).shuffle(deck)
    hands: list[list[Card]] = [[] for _ in range(players)]
    stock: list[Card] = []
    if rules.stock:
        dealt, stock = deck[:STOCK_HAND * players], deck[STOCK_HAND * players:]
    else:
        dealt = deck
    for i, c in enumerate(dealt):
        hands[(dealer + 1 + i) % players].append(c)
    return hands, stock, table


class Game:
    """One deal under ``rules`` for ``players`` seats.

    Give ``seed`` for a shuffled deal, or ``hands`` (a list of card lists or texts, seat order)
    to set one up by hand; ``stock`` and ``table`` likewise for the stock game.
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
            dealt = [[_as_card(c) for c in h] for h in hands]
            stock_cards = [_as_card(c) for c in (stock or [])]
            laid = [parse_card(rules.laid_out)] if rules.laid_out else []
            if len(dealt) != players:
                raise SetupError(f"{len(dealt)} hands given for {players} players")
            _check_deck(rules, dealt, stock_cards, laid)
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
        c = _as_card(card)
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

    def _placement_of(self, t: int, move: Move) -> tuple[int, str | None]:
        places = self.table.placements(t)
        for row, end in places:
            if move.row is not None and row // 4 != move.row and len({p[0] for p in places}) > 1:
                continue
            if move.end is not None and end is not None and end != move.end:
                continue
            return row, end
        raise IllegalMoveError(f"{move} does not fit")  # pragma: no cover - checked before

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
        cards = [[_as_card(c) for c in h] for h in hands]
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
        g.initial_stock = tuple(_as_card(c) for c in stock)
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


_PLAYS = tuple(Move(PLAY, c) for c in CARDS)
# each card id's place in sort_key's order (hands are sorted on every view)
_SORT_POS = {int(c): i for i, c in enumerate(sorted(CARDS, key=sort_key))}
_STOP, _TOKEN, _PASS, _ASK, _DRAW, _CHIP = (SIMPLE[k] for k in (STOP, TOKEN, PASS, ASK, DRAW, CHIP))


def _as_card(c: Card | str) -> Card:
    if isinstance(c, Card):
        return c
    if isinstance(c, str):
        return parse_card(c)
    raise CardError(f"{c!r} is not a card")


def _check_deck(rules: Rules, hands: list[list[Card]], stock: list[Card], laid: list[Card]) -> None:
    """Refuse hands that are not exactly one deal of the rules' deck."""
    from collections import Counter

    want = Counter(c.notation(rules.distinct_decks) for c in full_deck(rules.decks, rules.jokers))
    have = Counter(c.notation(rules.distinct_decks) for h in hands for c in h)
    have.update(c.notation(rules.distinct_decks) for c in stock)
    have.update(c.notation(rules.distinct_decks) for c in laid)
    if have != want:
        extra = sorted((have - want).elements())
        missing = sorted((want - have).elements())
        parts = []
        if extra:
            parts.append("too many or unknown: " + " ".join(extra))
        if missing:
            parts.append("missing: " + " ".join(missing))
        raise SetupError("the hands are not one full deal of the deck (" + "; ".join(parts) + ")")


__all__ = ["Game", "Event", "IllegalMoveError", "SetupError", "deal", "MoveError", "RulesError"]

"""Helpers for the layout-variant tests (helper C): hands by suit, laying cards out by moves.

Positions are reached by real moves only: :func:`lay` plays the listed cards in order, each by
whoever holds it, while every other seat makes its single forced move (token, pass, ask,
give, chip) or stops after a closing card. No table state is ever written directly.
"""

from __future__ import annotations

from collections.abc import Iterable

from ristiseiska.cards import SUITS, Card, full_deck, parse_card
from ristiseiska.game import Game
from ristiseiska.moves import Move
from ristiseiska.rules import Rules

RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}


def suit_cards(suit: str, ranks: Iterable[int] | None = None, mark: str = "") -> str:
    """Card texts of a suit (all ranks, or the given ones), e.g. ``suit_cards("S", [2, 3])``."""
    rs = range(1, 14) if ranks is None else ranks
    return " ".join(f"{suit}{RANK_TEXT.get(r, str(r))}{mark}" for r in rs)


def all_but(*keep_out: str, rules: Rules | None = None) -> list[Card]:
    """Every card of the rules' deck except the named ones (texts; one copy each)."""
    rules = rules or Rules()
    out = list(full_deck(rules.decks, rules.jokers))
    for text in keep_out:
        out.remove(parse_card(text))
    return out


def hands(rules: Rules, n: int, spec: dict[int, str], rest: int) -> list[list[Card]]:
    """Seats in ``spec`` get their listed cards; every other card goes to seat ``rest``."""
    deck = list(full_deck(rules.decks, rules.jokers))
    out: list[list[Card]] = [[] for _ in range(n)]
    for seat, text in spec.items():
        for t in text.split():
            c = parse_card(t)
            deck.remove(c)  # raises if given twice
            out[seat].append(c)
    out[rest].extend(deck)
    return out


def game(rules: Rules, n: int, spec: dict[int, str], rest: int, dealer: int | None = None) -> Game:
    return Game(rules, n, hands=hands(rules, n, spec, rest),
                dealer=(n - 1) if dealer is None else dealer)


def legal(g: Game) -> set[str]:
    mark = g.rules.distinct_decks
    return {m.text(mark) for m in g.legal_moves()}


def plays(g: Game) -> set[str]:
    mark = g.rules.distinct_decks
    return {m.text(mark) for m in g.legal_moves() if m.kind == "play"}


def forced(g: Game) -> Move | None:
    """The move a seat makes when it has no choice (or a stop after a closing card)."""
    lm = g.legal_moves()
    if g.phase == "more":
        return Move.stop()
    if len(lm) == 1 and lm[0].kind not in ("play", "swap"):
        return lm[0]
    return None


def lay(g: Game, texts: str, stop: bool = True) -> None:
    """Play each move of ``texts`` (card texts, ``X1=H6``, ``swap:H6``…) by the seat to move
    when it can; seats that cannot make their forced move in between. With ``stop``, a seat
    in the extra-move phase that is not the one to play the next card stops first."""
    for text in texts.split():
        for _ in range(50):
            if g.is_over():
                raise AssertionError(f"the deal ended before {text}")
            try:
                move = g.parse_move(text)
            except ValueError:
                move = None
            if move is not None:
                g.push(move)
                break
            f = forced(g)
            if f is None or (f.kind == "stop" and not stop):
                raise AssertionError(
                    f"seat {g.to_move} cannot play {text} and has a choice: {sorted(legal(g))}"
                )
            g.push(f)
        else:  # pragma: no cover
            raise AssertionError(f"{text} never became playable")


def until_turn(g: Game, seat: int) -> None:
    """Make forced moves until it is ``seat``'s decision."""
    for _ in range(50):
        if g.to_move == seat and g.phase != "more":
            return
        f = forced(g)
        assert f is not None, f"seat {g.to_move} has a choice: {sorted(legal(g))}"
        g.push(f)
    raise AssertionError("never reached")  # pragma: no cover


def row_ranks(g: Game, suit: str, row: int = 0) -> list[int]:
    """The ranks down on a suit's row (row 0/1 with two decks), low to high."""
    r = SUITS.index(suit) + 4 * row
    return [c.rank for c in g.view(0).rows[r].cards]

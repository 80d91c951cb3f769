"""Shuffling and dealing a deal, and checking a deal set up by hand.

    >>> from ristiseiska import Rules
    >>> from ristiseiska.dealing import deal
    >>> hands, stock, table = deal(Rules(), 4, seed=7)
    >>> [len(h) for h in hands], stock, table
    ([13, 13, 13, 13], [], [])

:class:`~ristiseiska.game.Game` deals through :func:`deal` and checks hands given to it with
:func:`check_deck`; both names, and :class:`SetupError`, are also importable from
:mod:`ristiseiska.game`.
"""

from __future__ import annotations

import random
from collections import Counter

from .cards import Card, CardError, full_deck, parse_card
from .rules import Rules

STOCK_HAND = 17  # cards per hand in the stock game (V13)


class SetupError(ValueError):
    """Hands, seats or a seed that do not make a valid deal."""

    __module__ = "ristiseiska.game"  # its public home (tracebacks and docs name it so)


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


def as_card(c: Card | str) -> Card:
    if isinstance(c, Card):
        return c
    if isinstance(c, str):
        return parse_card(c)
    raise CardError(f"{c!r} is not a card")


def check_deck(rules: Rules, hands: list[list[Card]], stock: list[Card], laid: list[Card]) -> None:
    """Refuse hands that are not exactly one deal of the rules' deck."""
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


__all__ = ["SetupError", "deal", "as_card", "check_deck", "STOCK_HAND"]

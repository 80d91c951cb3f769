"""Card types: the 52 kinds of card that the inference and the bots reason about (both copies of
a card of two identical decks are one type), their points under the rules, the cards named in
a history's notation, and the cards on a table.
"""

from __future__ import annotations

from ..cards import Card, full_deck
from ..rules import Rules
from ..table import Table

_VALUES: dict[Rules, list[int]] = {}


def _type_values(rules: Rules) -> list[int]:
    """Card points of each of the 52 card types under ``rules``."""
    got = _VALUES.get(rules)
    if got is None:
        from ..scoring import card_value

        got = _VALUES[rules] = [card_value(Card(t), rules) for t in range(52)]
    return got


def type_values(rules: Rules) -> list[int]:
    """Card points of each of the 52 card types under ``rules`` (cached; do not change it)."""
    return _type_values(rules)


def card_type(rules: Rules, c: int) -> int:
    """The type id of a card (both copies of a card share it with two identical decks)."""
    if rules.decks == 2 and not rules.distinct_decks and c < 104:
        return c % 52
    return int(c)


_NOTATION: dict[tuple[int, bool], dict[str, Card]] = {}


def notation_map(rules: Rules) -> dict[str, Card]:
    """The card that each notation written in a history (``H6``) names, under these decks."""
    key = (rules.decks, rules.distinct_decks)
    m = _NOTATION.get(key)
    if m is None:
        m = {}
        for c in full_deck(rules.decks, 2):
            m.setdefault(c.notation(rules.distinct_decks), c)
        _NOTATION[key] = m
    return m


def table_cards(table: Table) -> list[int]:
    """The ids of the cards on ``table``."""
    out: list[int] = []
    for occ in table.occupant:
        out.extend(occ.values())
    return out

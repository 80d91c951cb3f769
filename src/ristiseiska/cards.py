"""Cards, suits, ranks and decks; notation in and out; Finnish and English names.

A card is a small ``int`` (its id), so that hands and tables can be bitmasks, but it prints
and parses as text::

    >>> from ristiseiska.cards import parse_card
    >>> c = parse_card("ristiseiska")
    >>> str(c), c.suit, c.rank
    ('C7', 0, 7)
    >>> parse_card("♥6") == parse_card("6h") == parse_card("herttakuutonen")
    True
    >>> parse_card("H6").name("fi"), parse_card("H6").name("en")
    ('herttakuutonen', 'six of hearts')

Ids: ``deck * 52 + suit * 13 + (rank - 1)`` for the two possible decks (a second deck only in
the two-deck variants), and 104, 105 for the jokers. In the variant with two *different* decks
(V10) a card of the second deck is written with a ``+`` after it (``C7+``); with two identical
decks (V9) both copies are written the same way, because no one can tell them apart.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

SUITS = "CDHS"
SUIT_SYMBOLS = "♣♦♥♠"
CLUBS, DIAMONDS, HEARTS, SPADES = range(4)
ACE, JACK, QUEEN, KING = 1, 11, 12, 13
RANKS = range(1, 14)
RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}
JOKER_BASE = 104
SECOND_DECK_MARK = "+"

SUIT_FI = ("risti", "ruutu", "hertta", "pata")
SUIT_EN = ("clubs", "diamonds", "hearts", "spades")
# Nominative and accusative (genitive-form object) of each rank, for "pelasi herttakuutosen".
RANK_FI = {
    1: ("ässä", "ässän"),
    2: ("kakkonen", "kakkosen"),
    3: ("kolmonen", "kolmosen"),
    4: ("nelonen", "nelosen"),
    5: ("viitonen", "viitosen"),
    6: ("kuutonen", "kuutosen"),
    7: ("seiska", "seiskan"),
    8: ("kasi", "kasin"),
    9: ("ysi", "ysin"),
    10: ("kymppi", "kympin"),
    11: ("jätkä", "jätkän"),
    12: ("kuningatar", "kuningattaren"),
    13: ("kuningas", "kuninkaan"),
}
# The partitive, for "Sinulla ei ole herttakuutosta" and numbers ("kaksi patakasia").
RANK_FI_PAR = {
    1: "ässää", 2: "kakkosta", 3: "kolmosta", 4: "nelosta", 5: "viitosta", 6: "kuutosta",
    7: "seiskaa", 8: "kasia", 9: "ysiä", 10: "kymppiä", 11: "jätkää", 12: "kuningatarta",
    13: "kuningasta",
}
RANK_EN = {
    1: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven",
    8: "eight", 9: "nine", 10: "ten", 11: "jack", 12: "queen", 13: "king",
}
# Other words people use for the ranks (accepted when parsing, never printed).
RANK_FI_ALIASES = {
    "ässä": 1, "kakkonen": 2, "kolmonen": 3, "nelonen": 4, "viitonen": 5, "vitonen": 5,
    "kuutonen": 6, "seiska": 7, "seitsemän": 7, "seitsikko": 7, "kasi": 8, "kahdeksikko": 8,
    "kahdeksan": 8, "ysi": 9, "yhdeksikkö": 9, "yhdeksän": 9, "kymppi": 10, "kymmenen": 10,
    "kymmenikkö": 10, "jätkä": 11, "sotilas": 11, "jatka": 11, "rouva": 12, "kuningatar": 12,
    "akka": 12, "kuningas": 13, "kurko": 13,
}


class CardError(ValueError):
    """A text that does not name a card."""


class Card(int):
    """One card; an ``int`` id with a readable face. Use :func:`card` or :func:`parse_card`."""

    __slots__ = ()

    @property
    def is_joker(self) -> bool:
        return self >= JOKER_BASE

    @property
    def deck(self) -> int:
        """0 or 1: which of two decks the card comes from (jokers: 0)."""
        return 0 if self >= JOKER_BASE else self // 52

    @property
    def suit(self) -> int:
        """0 clubs, 1 diamonds, 2 hearts, 3 spades; -1 for a joker."""
        return -1 if self >= JOKER_BASE else (self % 52) // 13

    @property
    def rank(self) -> int:
        """1 (ace) … 13 (king); 0 for a joker."""
        return 0 if self >= JOKER_BASE else self % 13 + 1

    @property
    def kind(self) -> int:
        """The card's face without its deck: the id in the first deck (identical decks)."""
        return int(self) if self >= JOKER_BASE else self % 52

    def notation(self, mark_deck: bool = False) -> str:
        """Canonical text: ``C7``, ``H10``, ``SA``; ``X1`` for a joker; ``C7+`` for the second
        of two different decks when ``mark_deck`` is true."""
        if 0 <= self < JOKER_BASE + 2:  # every card there is: the texts made once (a hot path)
            return _MARKED[self] if mark_deck else _PLAIN[self]
        return self._notation(mark_deck)

    def _notation(self, mark_deck: bool) -> str:
        if self >= JOKER_BASE:
            return f"X{self - JOKER_BASE + 1}"
        r = self.rank
        text = SUITS[self.suit] + RANK_TEXT.get(r, str(r))
        if mark_deck and self >= 52:
            text += SECOND_DECK_MARK
        return text

    def __str__(self) -> str:
        return self.notation()

    def __repr__(self) -> str:
        return f"Card({self.notation(mark_deck=True)!r})"

    def symbol(self) -> str:
        """Short text with the suit symbol, for screens: ``♣7``."""
        if self >= JOKER_BASE:
            return "🃏" + str(self - JOKER_BASE + 1)
        r = self.rank
        return SUIT_SYMBOLS[self.suit] + RANK_TEXT.get(r, str(r))

    def name(self, lang: str = "fi", case: str = "nom") -> str:
        """The natural name: ``ristiseiska`` / ``seven of clubs``. ``case="acc"`` gives the
        Finnish object form (``ristiseiskan``) for sentences like "Aino pelasi …";
        ``case="par"`` the partitive (``ristiseiskaa``) for "Sinulla ei ole …". Other
        languages name their cards in their catalogs: :func:`ristiseiska.i18n.card_name`
        (this engine layer stays below the words)."""
        if lang == "fi":
            if self >= JOKER_BASE:
                return {"acc": "jokerin", "par": "jokeria"}.get(case, "jokeri")
            if case == "par":
                return SUIT_FI[self.suit] + RANK_FI_PAR[self.rank]
            nom, acc = RANK_FI[self.rank]
            return SUIT_FI[self.suit] + (acc if case == "acc" else nom)
        if self >= JOKER_BASE:
            return "joker"
        return f"{RANK_EN[self.rank]} of {SUIT_EN[self.suit]}"


CARDS: tuple[Card, ...] = tuple(Card(i) for i in range(JOKER_BASE + 2))
_PLAIN: tuple[str, ...] = tuple(c._notation(False) for c in CARDS)
_MARKED: tuple[str, ...] = tuple(c._notation(True) for c in CARDS)
JOKERS: tuple[Card, ...] = CARDS[JOKER_BASE:]


def card(suit: int, rank: int, deck: int = 0) -> Card:
    """The card of ``suit`` (0–3) and ``rank`` (1–13) in ``deck`` (0 or 1)."""
    if not (0 <= suit < 4 and 1 <= rank <= 13 and deck in (0, 1)):
        raise CardError(f"no card with suit {suit}, rank {rank}, deck {deck}")
    return CARDS[deck * 52 + suit * 13 + rank - 1]


def full_deck(decks: int = 1, jokers: int = 0) -> list[Card]:
    """All cards of ``decks`` decks plus ``jokers`` jokers, in id order."""
    return list(CARDS[: 52 * decks]) + list(JOKERS[:jokers])


_SUIT_OF_CHAR = {"c": 0, "d": 1, "h": 2, "s": 3, "♣": 0, "♦": 1, "♥": 2, "♠": 3,
                 "♧": 0, "♢": 1, "♡": 2, "♤": 3}
_RANK_OF_TEXT = {"a": 1, "j": 11, "q": 12, "k": 13, "t": 10, "1": 1, "11": 11, "12": 12,
                 "13": 13, **{str(r): r for r in range(2, 11)}}
_SHORT = re.compile(r"^([cdhs♣♦♥♠♧♢♡♤])(10|1[123]|[2-9]|[ajqkt1])$")
_SHORT_REV = re.compile(r"^(10|1[123]|[2-9]|[ajqkt1])([cdhs♣♦♥♠♧♢♡♤])$")
_ENGLISH = re.compile(r"^(\w+)\s+of\s+(\w+)$")
_EN_RANK = {v: k for k, v in RANK_EN.items()}
_EN_SUIT = {"club": 0, "clubs": 0, "diamond": 1, "diamonds": 1, "heart": 2, "hearts": 2,
            "spade": 3, "spades": 3}
# Finnish compound names: suit word + rank word; longest rank words first so "kuningatar"
# is not read as "kuningas" + rest.
_FI_RANKS_SORTED = sorted(RANK_FI_ALIASES.items(), key=lambda kv: -len(kv[0]))
_FI_ACC = {acc: r for r, (_nom, acc) in RANK_FI.items()}


def _parse_fi(text: str) -> tuple[int, int] | None:
    for s, word in enumerate(SUIT_FI):
        if text.startswith(word):
            rest = text[len(word):].lstrip(" -")
            if rest in RANK_FI_ALIASES:
                return s, RANK_FI_ALIASES[rest]
            if rest in _FI_ACC:
                return s, _FI_ACC[rest]
    return None


def parse_card(text: str) -> Card:
    """Read a card from text. Accepts ``C7``, ``c7``, ``♣7``, ``7C``, ``H10``/``HT``,
    ``SA``, Finnish names (``ristiseiska``, ``herttakuutonen``, ``pataässä``), English names
    (``seven of clubs``), jokers (``X1``, ``X2``, ``jokeri``) and a trailing ``+`` for the second
    of two different decks. Raises :class:`CardError` naming the text otherwise."""
    if not isinstance(text, str):
        raise CardError(f"a card must be given as text, not {type(text).__name__}")
    raw = text
    t = text.strip().lower()
    deck = 0
    if t.endswith(SECOND_DECK_MARK):
        deck = 1
        t = t[:-1].rstrip()
    if not t:
        raise CardError(f"{raw!r} is not a card: it is empty")
    if t in ("x", "x1", "jokeri", "joker", "jokeri1", "joker1", "🃏", "🃏1"):
        return JOKERS[0]
    if t in ("x2", "jokeri2", "joker2", "🃏2"):
        return JOKERS[1]
    m = _SHORT.match(t)
    if m:
        return card(_SUIT_OF_CHAR[m.group(1)], _RANK_OF_TEXT[m.group(2)], deck)
    m = _SHORT_REV.match(t)
    if m:
        return card(_SUIT_OF_CHAR[m.group(2)], _RANK_OF_TEXT[m.group(1)], deck)
    fi = _parse_fi(t.replace(" ", ""))
    if fi is not None:
        return card(fi[0], fi[1], deck)
    m = _ENGLISH.match(t)
    if m and m.group(1) in _EN_RANK and m.group(2) in _EN_SUIT:
        return card(_EN_SUIT[m.group(2)], _EN_RANK[m.group(1)], deck)
    raise CardError(
        f"{raw!r} is not a card: write suit and rank like C7, H10, SA (or 7C, ♣7, "
        "ristiseiska, herttakuutonen)"
    )


def parse_cards(texts: Iterable[str] | str) -> list[Card]:
    """Read several cards: a list of texts, or one text separated by spaces or commas."""
    if isinstance(texts, str):
        texts = [t for t in re.split(r"[\s,]+", texts) if t]
    return [parse_card(t) for t in texts]


def sort_key(c: Card) -> tuple[int, int, int]:
    """Sort by suit, then rank, then deck; jokers last."""
    if c >= JOKER_BASE:
        return (9, int(c), 0)
    return (c.suit, c.rank, c.deck)

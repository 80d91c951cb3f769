"""Cards as a Finnish player types them on the terminal's input line (issue 62).

The engine reads its own notation (``H7``, ``S9``, ``CA``) and the long names
(``herttakuutonen``); a player also writes the suit's Finnish name or its usual short form
before the rank: ``pata9``, ``p9``, ``pata 9``, ``hertta10``, ``risti7``, ``ri7``, ``ruutu3``,
``ru3``, ``pk`` (and the rank words: ``pata kasi``). Here those forms become the engine's
notation before the move is read; ``r`` alone is refused (:class:`AmbiguousCard`): it could be
risti or ruutu.

    >>> typed_move_text("pata 9"), typed_move_text("ru3"), typed_move_text("stop")
    ('S9', 'D3', 'stop')
"""

from __future__ import annotations

import re

from ..cards import RANK_FI, RANK_FI_ALIASES, SECOND_DECK_MARK, Card, CardError, card

# The suit's typed forms, longest first so that "risti" is not read as "ri" + "sti".
SUIT_FORMS: tuple[tuple[str, int], ...] = (
    ("hertta", 2), ("risti", 0), ("ruutu", 1), ("pata", 3),
    ("ri", 0), ("ru", 1), ("p", 3), ("h", 2),
)
SHORT_FORM = {0: "ri", 1: "ru", 2: "h", 3: "p"}  # the shortest unambiguous form a suit
LONG_FORM = {0: "risti", 1: "ruutu", 2: "hertta", 3: "pata"}
_RANK_LETTERS = {"a": 1, "j": 11, "q": 12, "k": 13, "t": 10}
_RANK_WORDS = {**RANK_FI_ALIASES, **{acc: r for r, (_nom, acc) in RANK_FI.items()}}
_DIGITS = re.compile(r"^(1[0-3]|[1-9])$")


class AmbiguousCard(CardError):
    """``r3``: risti or ruutu? ``rank`` is the rank, ``rank_text`` as it was typed."""

    def __init__(self, text: str, rank: int, rank_text: str) -> None:
        super().__init__(f"{text!r} could be risti {rank_text} or ruutu {rank_text}")
        self.text = text
        self.rank = rank
        self.rank_text = rank_text


def _rank(text: str) -> int | None:
    if _DIGITS.match(text):
        return int(text)
    if text in _RANK_LETTERS:
        return _RANK_LETTERS[text]
    return _RANK_WORDS.get(text)


def read_typed_card(text: str) -> Card | None:
    """The card ``text`` names in a Finnish typed form (suit word or short form, then the
    rank as digits, a letter or a Finnish word; spaces and case do not matter; a trailing
    ``+`` for the second deck), or ``None`` when it is no such form. Raises
    :class:`AmbiguousCard` for ``r`` and a rank."""
    t = text.strip().lower()
    deck = 0
    if t.endswith(SECOND_DECK_MARK):
        deck, t = 1, t[:-1]
    t = re.sub(r"[\s\-]+", "", t)
    for word, suit in SUIT_FORMS:
        if t.startswith(word):
            rank = _rank(t[len(word):])
            if rank is not None:
                return card(suit, rank, deck)
    if t.startswith("r"):
        rank = _rank(t[1:])
        if rank is not None:
            raise AmbiguousCard(text.strip(), rank, t[1:])
    return None


def _card_part(part: str) -> str:
    c = read_typed_card(part)
    return part if c is None else c.notation(mark_deck=True)


def typed_move_text(text: str) -> str:
    """``text`` with its card written in the engine's notation where it was typed in a
    Finnish form (``anna pata9`` → ``give:S9``, ``x1=hertta7`` → ``X1=H7``); any other text
    unchanged, for the engine to read or refuse. Raises :class:`AmbiguousCard`."""
    t = text.strip()
    low = t.lower()
    for prefix, kind in (("give", "give"), ("anna", "give"), ("swap", "swap"), ("vaihda", "swap")):
        if low.startswith((prefix + ":", prefix + " ")):
            return f"{kind}:{_card_part(t[len(prefix) + 1:])}"
    body, at, ends = t.partition("@")
    if "=" in body:
        left, _eq, right = body.partition("=")
        body = f"{_card_part(left)}={_card_part(right)}"
    else:
        body = _card_part(body)
    return body + at + ends

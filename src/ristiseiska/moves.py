"""Moves: small immutable values with a canonical text form.

The same move objects flow through the engine, the records, the bots and the interfaces.

    >>> from ristiseiska.moves import Move, parse_move
    >>> str(Move.play(parse_card("H6")))
    'H6'
    >>> parse_move("stop") == Move.stop()
    True
    >>> str(parse_move("give:sa"))
    'give:SA'

Text forms: a play is the card (``H6``), with ``@row`` when a card fits two rows (``H4@1``),
``@low``/``@high`` for an ace whose end is being chosen (``SA@high``), and ``=CARD`` for a joker
standing for a card (``X1=H6``). Other moves: ``stop``, ``token``, ``pass``, ``ask``, ``draw``,
``chip``, ``give:CARD``, ``swap:CARD``.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import Card, CardError, parse_card

PLAY = "play"
STOP = "stop"
TOKEN = "token"
PASS = "pass"
ASK = "ask"
GIVE = "give"
DRAW = "draw"
CHIP = "chip"
SWAP = "swap"
KINDS = (PLAY, STOP, TOKEN, PASS, ASK, GIVE, DRAW, CHIP, SWAP)
ENDS = ("low", "high")


class MoveError(ValueError):
    """A text that is not a move."""


class Move(NamedTuple):
    """One decision of the player to move. Fields other than ``kind`` are ``None`` when unused:
    ``card`` (play, give, swap), ``row`` (0/1: which of a suit's two rows, two identical decks),
    ``end`` ('low'/'high': the first ace's end), ``as_`` (the card a joker stands for)."""

    kind: str
    card: Card | None = None
    row: int | None = None
    end: str | None = None
    as_: Card | None = None

    @staticmethod
    def play(card: Card, row: int | None = None, end: str | None = None,
             as_: Card | None = None) -> Move:
        return Move(PLAY, card, row, end, as_)

    @staticmethod
    def stop() -> Move:
        return _STOP

    @staticmethod
    def token() -> Move:
        return _TOKEN

    @staticmethod
    def pass_() -> Move:
        return _PASS

    @staticmethod
    def ask() -> Move:
        return _ASK

    @staticmethod
    def draw() -> Move:
        return _DRAW

    @staticmethod
    def chip() -> Move:
        return _CHIP

    @staticmethod
    def give(card: Card) -> Move:
        return Move(GIVE, card)

    @staticmethod
    def swap(card: Card) -> Move:
        return Move(SWAP, card)

    def text(self, mark_deck: bool = False) -> str:
        """Canonical text (see the module docstring)."""
        k = self.kind
        if k == PLAY:
            assert self.card is not None
            s = self.card.notation(mark_deck)
            if self.as_ is not None:
                s += "=" + self.as_.notation(mark_deck)
            if self.row is not None:
                s += f"@{self.row}"
            if self.end is not None:
                s += f"@{self.end}"
            return s
        if k in (GIVE, SWAP):
            assert self.card is not None
            return f"{k}:{self.card.notation(mark_deck)}"
        return k

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        return f"Move({self.text(True)!r})"


_STOP = Move(STOP)
_TOKEN = Move(TOKEN)
_PASS = Move(PASS)
_ASK = Move(ASK)
_DRAW = Move(DRAW)
_CHIP = Move(CHIP)
SIMPLE = {STOP: _STOP, TOKEN: _TOKEN, PASS: _PASS, ASK: _ASK, DRAW: _DRAW, CHIP: _CHIP}
# Words people type for the simple moves (Finnish and English).
_ALIASES = {"ohi": PASS, "passaa": PASS, "pantti": TOKEN, "lopeta": STOP, "seis": STOP,
            "nosta": DRAW, "pyydä": ASK, "pyyda": ASK, "maksa": CHIP, "merkki": CHIP}


def parse_move(text: str) -> Move:
    """Read a move from its text form (see the module docstring). Raises :class:`MoveError`."""
    if not isinstance(text, str):
        raise MoveError(f"a move must be text, not {type(text).__name__}")
    t = text.strip()
    low = t.lower()
    if low in SIMPLE:
        return SIMPLE[low]
    if low in _ALIASES:
        return SIMPLE[_ALIASES[low]]
    try:
        for prefix in (GIVE, SWAP, "anna", "vaihda"):
            if low.startswith(prefix + ":") or low.startswith(prefix + " "):
                kind = GIVE if prefix in (GIVE, "anna") else SWAP
                return Move(kind, parse_card(t[len(prefix) + 1:]))
        row: int | None = None
        end: str | None = None
        parts = t.split("@")
        for extra in parts[1:]:
            e = extra.strip().lower()
            if e in ENDS:
                end = e
            elif e in ("0", "1"):
                row = int(e)
            else:
                raise MoveError(f"{text!r}: after @ write a row (0 or 1) or an end (low or high), not {extra!r}")
        body = parts[0]
        as_: Card | None = None
        if "=" in body:
            left, right = body.split("=", 1)
            card = parse_card(left)
            as_ = parse_card(right)
        else:
            card = parse_card(body)
        return Move(PLAY, card, row, end, as_)
    except CardError as e:
        raise MoveError(f"{text!r} is not a move: {e}") from None

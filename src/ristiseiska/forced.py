"""Forced moves (issue 52): a move with no choice in it, made for a person after a short pause
by the web game (web/forced.py) and the terminal game (tui/app.py).

    >>> from ristiseiska import Game, preset
    >>> g = Game(preset("ristiseiska"), 4, hands=None, seed=1)
    >>> forced_move(g) is None or forced_move(g).kind in KINDS
    True
"""

from __future__ import annotations

from .game import Game
from .moves import Move

KINDS = ("token", "pass", "ask", "draw", "chip")  # the moves that leave nothing to choose


def forced_move(g: Game) -> Move | None:
    """The move of the player to move when it is their only legal move and has no choice in it
    (take the token, pass, ask for a card, draw, pay a chip; never a card, a swap, a stop or a
    card to give); ``None`` otherwise and once the deal is over."""
    if g.is_over():
        return None
    legal = g.legal_moves()
    if len(legal) == 1 and legal[0].kind in KINDS:
        return legal[0]
    return None


__all__ = ["KINDS", "forced_move"]

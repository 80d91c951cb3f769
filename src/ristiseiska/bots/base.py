"""The bot interface: a bot gets one seat's view and returns one of its legal moves."""

from __future__ import annotations

import random
from typing import Any

from ..moves import Move

Reason = tuple[str, dict[str, Any]]  # a reason key (see reasons.py) and its parameters


class Bot:
    """Base class. ``choose(view)`` must return one of ``view.legal_moves``.

    A bot's randomness comes from ``seed`` mixed with the position it is asked about, so the
    same seed and the same view always give the same move (also when asked twice, as the hint
    button does), whatever was asked before.
    """

    name = "bot"

    def __init__(self, seed: int | None = None, **options: Any) -> None:
        if seed is None:
            seed = random.SystemRandom().randrange(1 << 62)
        if not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, not {seed!r}")
        self.seed = seed
        if options:
            raise ValueError(f"unknown option(s) for the {self.name} bot: {', '.join(sorted(options))}")

    def rng_for(self, view: Any, salt: str = "") -> random.Random:
        """A generator seeded by the bot's seed and the position (deterministic)."""
        hand = ".".join(str(int(c)) for c in view.hand)
        return random.Random(
            f"{self.name}|{self.seed}|{view.seat}|{len(view.history)}|{view.phase}|{hand}|{salt}"
        )

    def choose(self, view: Any) -> Move:
        return self.decide(view)[0]

    def decide(self, view: Any) -> tuple[Move, Reason]:
        """The move and the reason for it."""
        raise NotImplementedError

    def __call__(self, view: Any) -> Move:
        return self.choose(view)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} seed={self.seed}>"


def legal_of(view: Any) -> tuple[Move, ...]:
    legal = tuple(view.legal_moves)
    if not legal:
        raise ValueError(
            f"seat {view.seat} has no move to make now (to move: seat {view.to_move}, phase {view.phase})"
        )
    return legal

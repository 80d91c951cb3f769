"""The ``random`` bot: a uniform choice among the legal moves."""

from __future__ import annotations

from typing import Any

from ..moves import Move
from .base import Bot, Reason, legal_of


class RandomBot(Bot):
    name = "random"

    def decide(self, view: Any) -> tuple[Move, Reason]:
        legal = legal_of(view)
        m = legal[0] if len(legal) == 1 else self.rng_for(view).choice(legal)
        return m, ("random", {"move": str(m)})

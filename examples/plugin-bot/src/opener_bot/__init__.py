"""An example ristiseiska bot plugin: play the card that opens the way to most of my cards."""

from __future__ import annotations

from typing import Any

from ristiseiska.bots.base import Bot, Reason, legal_of
from ristiseiska.moves import PLAY, Move


class OpenerBot(Bot):
    """Among the cards it may play, the one with the most of its own cards of the same suit
    beyond it (further from the centre card on the same side), which that card brings nearer
    to the table; ties go to the card nearest the centre, then to a seeded coin. Moves other
    than plays (stop, token, give, ...) are left to the basic bot's rules."""

    name = "opener"

    def decide(self, view: Any) -> tuple[Move, Reason]:
        legal = legal_of(view)
        plays = [m for m in legal if m.kind == PLAY and m.card is not None
                 and not m.card.is_joker]
        if not plays:
            from ristiseiska.bots import BasicBot

            return BasicBot(seed=self.seed).decide(view)
        centre = view.rules.center
        rng = self.rng_for(view)

        def behind(m: Move) -> int:
            c = m.card
            assert c is not None
            side = 1 if c.rank >= centre else -1
            return sum(1 for h in view.hand
                       if not h.is_joker and h != c and h.suit == c.suit
                       and (h.rank - c.rank) * side > 0)

        best = max(plays, key=lambda m: (behind(m), -abs(m.card.rank - centre) if m.card else 0,
                                         rng.random()))
        return best, ("move_generic", {"move": str(best)})

"""A live table's finished deals as game records (with the match seed's commitment)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..game import Game
from ..record import record_from_game

if TYPE_CHECKING:
    from .live_table import LiveTable


def finished(t: LiveTable) -> list[tuple[int, Game]]:
    """The table's finished deals with their indexes."""
    return [(i, g) for i, g in enumerate(t.games) if g.is_over()]


def record_of(t: LiveTable, index: int, g: Game) -> dict[str, Any]:
    """Deal ``index`` of table ``t`` as a record, with the match seed's commitment (and, once
    the match is over, the seed and salt that open it)."""
    extra: dict[str, Any] = {"deal": index + 1}
    fairness = t.fairness()
    if fairness.get("seed_commitment"):
        extra["match_seed_commitment"] = fairness["seed_commitment"]
        extra["match_seed_chosen"] = fairness["seed_chosen"]
        if "seed_salt" in fairness:  # the match is over: the seed is revealed
            extra["match_seed"] = fairness["seed"]
            extra["match_seed_salt"] = fairness["seed_salt"]
    return record_from_game(g, preset=t.config.get("preset"), extra=extra)

"""The web server's link to the bots package (``ristiseiska.bots``), with a small fallback.

``make_bot(level, seed)`` returns an object with ``choose(view) -> Move``; ``hint(view, lang)``
returns ``(move, reason)``. When the bots package is missing (or lacks a level) a seeded
random-legal-move bot stands in, so the server always runs.
"""

from __future__ import annotations

import importlib
import random
from typing import Any

from ..moves import Move


class RandomBot:
    name = "random"

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def choose(self, view: Any) -> Move:
        moves: list[Move] = list(view.legal_moves)
        return self.rng.choice(moves)


def _bots() -> Any:
    try:
        return importlib.import_module("ristiseiska.bots")
    except ImportError:
        return None


def levels() -> list[str]:
    mod = _bots()
    for attr in ("BOT_NAMES", "LEVELS", "BOTS"):
        names = getattr(mod, attr, None) if mod else None
        if names:
            return [str(n) for n in names]
    if mod is not None and hasattr(mod, "bot_names"):
        return list(mod.bot_names())
    return ["random"]


# The search bot thinks on a worker thread with a bounded time so one table never holds up
# the others.
SLOW = {"master": {"time_limit": 1.0}}


def default_level() -> str:
    names = levels()
    return "expert" if "expert" in names else names[0]


def make_bot(level: str, seed: int) -> Any:
    mod = _bots()
    if mod is not None and hasattr(mod, "get_bot"):
        try:
            return mod.get_bot(level, seed, **SLOW.get(level, {}))
        except Exception:  # unknown level in an old table: still play
            pass
    return RandomBot(seed)


_REASON = {
    "fi": "Tämä siirto on sallittu. (Tarkemmat vinkit tulevat bottien mukana.)",
    "en": "This move is legal. (Detailed hints come with the bots.)",
}


def hint(view: Any, lang: str) -> tuple[Move, str]:
    mod = _bots()
    if mod is not None and hasattr(mod, "hint"):
        try:
            move, reason = mod.hint(view, lang)
            return move, str(reason)
        except Exception:
            pass
    return view.legal_moves[0], _REASON.get(lang, _REASON["en"])

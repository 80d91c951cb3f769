"""The web server's use of the bots (:mod:`ristiseiska.bots`).

Levels in :data:`POOLED` (the searching ``master``, and ``neural``, whose features need the
compiled kernel) think in the app's :class:`BotPool` of
worker processes, so neither their search nor the numba compilation behind it ever holds up the
event loop; the quick levels answer in microseconds and run in place. Hints come from the
expert bot.
"""

from __future__ import annotations

from typing import Any

from ..bots import BOT_NAMES, Bot, get_bot
from ..bots.pool import POOLED, BotPool
from ..moves import Move

# Per-level options at the table: the search bot is capped at a second per move so that
# people do not wait on it.
OPTIONS: dict[str, dict[str, Any]] = {"master": {"time_limit": 1.0}}
DEFAULT_LEVEL = "expert"


def levels() -> list[str]:
    return list(BOT_NAMES)


def default_level() -> str:
    return DEFAULT_LEVEL


def pooled(level: str) -> bool:
    return level in POOLED


def make_bot(level: str, seed: int) -> Bot:
    """A bot of a quick level for this process (``ValueError`` for an unknown level)."""
    return get_bot(level, seed, **OPTIONS.get(level, {}))


async def choose_pooled(pool: BotPool, level: str, seed: int, view: Any) -> Move:
    return await pool.achoose(level, seed, view, **OPTIONS.get(level, {}))


def hint(view: Any, lang: str) -> tuple[Move, str]:
    """The analysis's best move for ``view`` and its reason (a rule of thumb says so)."""
    from ..analysis.hint import best_move_hint
    from ..i18n import norm_lang

    h = best_move_hint(view, norm_lang(lang))
    return h.move, str(h.reason)


__all__ = ["BotPool", "OPTIONS", "choose_pooled", "default_level", "hint", "levels", "make_bot",
           "pooled"]

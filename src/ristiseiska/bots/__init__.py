"""Computer players and hints.

    >>> from ristiseiska import Game, Rules
    >>> from ristiseiska.bots import get_bot, hint
    >>> g = Game(Rules(), players=4, seed=1)
    >>> bot = get_bot("expert", seed=5)
    >>> bot.choose(g.view(g.to_move)) in g.legal_moves()
    True

Levels (``BOT_NAMES``, weakest first): ``random`` (uniform over the legal moves), ``basic`` (a
simple heuristic), ``expert`` (rule-based on the strategy notes), ``neural`` (the network learned
by self-play, ``ristiseiska train``, shipped in the package: no search, a few milliseconds a
move), ``master`` (determinized search; options ``iterations`` and ``time_limit``). Picked by
name only: ``master-neural`` searches on top of the network, ``master-classic`` is the classic
``master`` under a fixed name, ``master-epimc`` adds exact late-deal leaves (extended PIMC), and ``policy`` (it needs ``path=``, a policy file trained by
``python -m ristiseiska.rl.train``) plays a learned linear policy. A bot receives only its seat's view and returns one of
``view.legal_moves``; the same seed and view always give the same move.
"""

from __future__ import annotations

from typing import Any

from ..moves import Move
from .base import Bot
from .expert import BasicBot, ExpertBot
from .master import ClassicMasterBot, EpimcMasterBot, MasterBot
from .neural import NeuralBot, NeuralMasterBot
from .policy import PolicyBot
from .reasons import render
from .simple import RandomBot

BOTS: dict[str, type[Bot]] = {
    "random": RandomBot,
    "basic": BasicBot,
    "expert": ExpertBot,
    "master": MasterBot,
    "neural": NeuralBot,
    "master-neural": NeuralMasterBot,
    "master-classic": ClassicMasterBot,
    "master-epimc": EpimcMasterBot,
    "policy": PolicyBot,  # a trained policy from a file (path=...): not a level to pick
}
# the levels offered in the games' menus, weakest first (master-neural and master-classic are
# picked by name: ristiseiska tournament --bots master-classic,...)
BOT_NAMES: tuple[str, ...] = ("random", "basic", "expert", "neural", "master")
_HINT_BOTS: dict[tuple[Any, ...], Bot] = {}


def get_bot(name: str, seed: int | None = None, **options: Any) -> Bot:
    """A bot by level name. Unknown names or options raise ``ValueError``."""
    cls = BOTS.get(name.strip().lower()) if isinstance(name, str) else None
    if cls is None:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(BOTS)}")
    return cls(seed=seed, **options)


def hint(view: Any, lang: str = "fi", level: str = "expert", seed: int = 0,
         **options: Any) -> tuple[Move, str]:
    """The move the ``level`` bot would make for the seat of ``view`` and a short reason in
    ``lang`` (one of i18n.LANGS)."""
    from ..i18n import LANGS

    if lang not in LANGS:
        raise ValueError(f"language must be one of {', '.join(LANGS)}, not {lang!r}")
    key_ = (level, seed, tuple(sorted(options.items())))
    bot = _HINT_BOTS.get(key_)
    if bot is None:  # bots are stateless between moves: keep one per setting (the master
        # bot loads the compiled kernel when it is made)
        bot = get_bot(level, seed=seed, **options)
        if len(_HINT_BOTS) > 16:
            _HINT_BOTS.clear()
        _HINT_BOTS[key_] = bot
    move, (key, params) = bot.decide(view)
    return move, render(key, params, lang)


__all__ = ["Bot", "BOT_NAMES", "BOTS", "get_bot", "hint", "RandomBot", "BasicBot", "ExpertBot",
           "MasterBot", "NeuralBot", "NeuralMasterBot", "PolicyBot"]

"""The terminal game (``ristiseiska play``) and the record viewer (``ristiseiska replay``).

The pieces, from the inside out:

* :mod:`.session` — a match being played by one person against bots: no Textual in it, so the
  flow (bot turns, the log, saving and resuming, records) is tested without a screen;
* :mod:`.widgets` — the table, the hand, the players, the score sheet, as Textual widgets;
* :mod:`.app` — the set-up screen and :class:`PlayApp`; :mod:`.game_screen` the game screen
  and its end-of-deal window; :mod:`.dialogs` the rules, score sheet and move picker windows;
* :mod:`.replay` and :mod:`.analysis` — :func:`run_replay` steps through a recorded deal in the
  same view, with the move analysis.
"""

from __future__ import annotations

__all__ = ["run_play", "run_replay"]


def run_play(*args: object, **kwargs: object) -> int:
    from .app import run_play as _run

    return _run(*args, **kwargs)  # type: ignore[arg-type]


def run_replay(record: dict, lang: str = "fi") -> int:  # type: ignore[type-arg]
    from .analysis import run_replay as _run

    return _run(record, lang)

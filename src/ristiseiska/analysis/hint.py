"""One judgment (issue 21): the hint is the move the analysis would call best in that position,
from that seat's view, with the reason in words.

The hint values every legal move exactly as :func:`ristiseiska.analysis.evaluate_view` does
(the master bot's sampler of the hidden cards, the same playouts), with a smaller budget
(:data:`HINT_BUDGET`) so that it answers within a second. Where the analysis cannot answer in
time — rule sets outside the compiled kernel (their Python playouts are far too slow for a
hint), or a search that does not finish within :data:`HINT_SECONDS` (the first use of the
compiled kernel in a process loads it) — the expert bot's rule of thumb gives the move and the
hint says so in its text. One search runs at a time: a hint asked while an earlier search
(past its time limit) still runs waits for it within its own second, so hints never pile up
work.

    >>> from ristiseiska.game import Game
    >>> from ristiseiska.rules import preset
    >>> g = Game(preset("ristiseiska"), 4, seed=3)
    >>> h = best_move_hint(g.view(g.to_move), "en")
    >>> h.move in g.legal_moves(), h.method in ("analysis", "rule", "time")
    (True, True)
"""

from __future__ import annotations

import concurrent.futures
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

from ..moves import Move
from . import Budget, MoveValue, evaluate_view

# The hint's budget: the analysis's sampler and searching playouts with half its worlds
# (docs/analysis.md: about 0.05 s of CPU a position, at most 0.3 s; the analysis's default is
# 2000 worlds, one playout each per move).
HINT_BUDGET = Budget(worlds=1000, rollouts=1)
HINT_SECONDS = 1.0  # the time limit: past it the rule of thumb answers (and says so)
HINT_SEED = 0

_pool: _DaemonExecutor | None = None
_running: concurrent.futures.Future[Any] | None = None  # the search under way, if any
_lock = threading.Lock()


@dataclass(frozen=True)
class Hint:
    move: Move
    reason: str  # the reason in words, with how the move was found
    # "analysis"; "rule" (rules outside the kernel) or "time" (the time limit): the expert's
    # rule of thumb, said in the reason; "forced": the only legal move
    method: str
    values: tuple[MoveValue, ...] = ()  # the analysis's values, best first ("analysis" only)

    @property
    def by_analysis(self) -> bool:
        return self.method == "analysis"


class _DaemonExecutor:
    """One daemon thread that runs the jobs in turn (one search at a time). A search can go
    on for minutes when it compiles the kernel; a ``ThreadPoolExecutor``'s threads are joined
    when Python exits, so a program quit meanwhile (the terminal game's Ctrl+Q) would wait
    for the compilation (issue 62)."""

    def __init__(self) -> None:
        self._jobs: queue.SimpleQueue[tuple[concurrent.futures.Future[Any], Any, tuple[Any, ...]]]
        self._jobs = queue.SimpleQueue()
        threading.Thread(target=self._work, name="hint", daemon=True).start()

    def _work(self) -> None:
        while True:
            fut, fn, args = self._jobs.get()
            if not fut.set_running_or_notify_cancel():
                continue
            try:
                fut.set_result(fn(*args))
            except BaseException as e:  # noqa: BLE001 - handed to whoever waits
                fut.set_exception(e)

    def submit(self, fn: Any, *args: Any) -> concurrent.futures.Future[Any]:
        fut: concurrent.futures.Future[Any] = concurrent.futures.Future()
        self._jobs.put((fut, fn, args))
        return fut


def _executor() -> _DaemonExecutor:
    global _pool
    if _pool is None:
        _pool = _DaemonExecutor()
    return _pool


def kernel_plays(view: Any) -> bool:
    """Whether the compiled kernel (and so the analysis's fast path) plays these rules."""
    try:
        from .. import kernel
    except Exception:  # numba missing
        return False
    return kernel.unsupported(view.rules, view.players) is None and view.open_hands is None


def hint_reason(view: Any, legal: list[Move], values: list[MoveValue], lang: str) -> str:
    """Why the analysis's best move is best, in a sentence, and what it was measured on."""
    from ..bots.expert import ExpertBot
    from ..i18n import number, t
    from . import _reason_words

    best = values[0]
    by_text = {str(m): m for m in legal}
    key, params = _best_reason(view, legal, values, by_text, ExpertBot(seed=HINT_SEED))
    base = _reason_words(key, params, lang).rstrip()
    return base + " " + t("analysis.hint.basis", lang, worlds=HINT_BUDGET.worlds,
                          points=number(best.points, lang), win=round(100 * best.win))


def _best_reason(view: Any, legal: list[Move], values: list[MoveValue], by_text: dict[str, Move],
                 expert: Any) -> tuple[str, dict[str, Any]]:
    """The analysis's own reason where it is clear (going out first for sure; an opponent
    about to go out, so fewer points should stay in hand), else the expert's reason."""
    from ..scoring import card_value

    best = values[0]
    if best.win >= 0.99 and any(v.win < 0.99 for v in values[1:]):
        from . import _out_reason

        return _out_reason(view, best.move), {"best": best.move}
    b = by_text[best.move]
    near = any(view.hand_sizes[s] == 1 for s in range(view.players) if s != view.seat)
    if near and b.card is not None and len(values) > 1:
        other = by_text.get(values[1].move)
        if other is not None and other.card is not None:
            diff = card_value(b.card, view.rules) - card_value(other.card, view.rules)
            if diff > 0:
                return "analysis.reason.dump", {"best": best.move, "diff": diff}
    return expert.reason_for(view, b)  # type: ignore[no-any-return]


def _rule_of_thumb(view: Any, lang: str, method: str, seconds: float | None = HINT_SECONDS) -> Hint:
    from ..bots import hint as expert_hint
    from ..i18n import norm_lang, t

    move, reason = expert_hint(view, norm_lang(lang))
    if method == "forced":  # the only legal move: the reason says so
        return Hint(move, reason, method)
    note = t(f"analysis.hint.{method}", lang, seconds=f"{seconds or HINT_SECONDS:g}")
    return Hint(move, f"{reason.rstrip()} {note}", method)


def _search(view: Any, budget: Budget, seed: int, legal: list[Move],
            deadline: float) -> list[MoveValue] | None:
    """The analysis's values by ``deadline`` (a ``time.monotonic()`` time), else None. One
    search runs at a time: an earlier one still running (a warm-up, or a search past its
    limit) is waited for first, within the same deadline, so hints never pile up work."""
    global _running
    while True:
        with _lock:
            earlier = _running if _running is not None and not _running.done() else None
            if earlier is None:
                job = _running = _executor().submit(evaluate_view, view, budget, seed, legal)
        if earlier is None:
            break
        try:
            earlier.result(timeout=max(0.0, deadline - time.monotonic()))
        except concurrent.futures.TimeoutError:
            return None
        except Exception:  # noqa: BLE001 - an earlier search's failure is not this one's
            pass
    try:
        values: list[MoveValue] = job.result(timeout=max(0.0, deadline - time.monotonic()))
    except concurrent.futures.TimeoutError:
        return None
    return values


def best_move_hint(view: Any, lang: str = "fi", seed: int = HINT_SEED,
                   budget: Budget = HINT_BUDGET, seconds: float | None = HINT_SECONDS) -> Hint:
    """The hint for the seat of ``view``: the analysis's best move and its reason (see the
    module docstring for when a rule of thumb answers instead). ``seconds=None`` waits for
    the analysis however long it takes."""
    legal = list(view.legal_moves)
    if not legal:
        raise ValueError("this seat has no move to make here")
    if len(legal) == 1:  # forced: nothing to weigh
        return _rule_of_thumb(view, lang, "forced")
    if not kernel_plays(view):
        return _rule_of_thumb(view, lang, "rule")
    start = time.monotonic()
    if seconds is None:
        values: list[MoveValue] | None = evaluate_view(view, budget, seed, legal)
    else:
        values = _search(view, budget, seed, legal, start + seconds)
    if values is None:  # the search goes on in its thread (it warms the kernel)
        return _rule_of_thumb(view, lang, "time", seconds)
    by_text = {str(m): m for m in legal}
    return Hint(by_text[values[0].move], hint_reason(view, legal, values, lang), "analysis",
                tuple(values))


def warm() -> None:
    """Load the compiled kernel in the hint's thread now (a program that gives hints calls
    this at its start, so that the first hint is the analysis's, not the time limit's)."""
    def load() -> None:
        try:
            from ..game import Game
            from ..rules import preset

            g = Game(preset("ristiseiska"), 4, seed=1)
            v = g.view(g.to_move)
            if kernel_plays(v) and len(v.legal_moves) > 0:
                evaluate_view(v, Budget(worlds=8, rollouts=1, batches=2), 0)
        except Exception:  # noqa: BLE001 - a warm-up that fails only makes the first hint slower
            pass

    global _running
    with _lock:
        _running = _executor().submit(load)


__all__ = ["warm", "HINT_BUDGET", "HINT_SECONDS", "Hint", "best_move_hint", "hint_reason",
           "kernel_plays"]

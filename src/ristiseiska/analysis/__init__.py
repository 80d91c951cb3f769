"""Move-by-move analysis of a finished deal, as chess players have it (issue 15).

For one seat of a record, every decision that seat made is looked at *from that seat's view
at that moment*: the hidden cards are sampled as the ``master`` bot samples them (the same
consistency rules and the same opponent model: :class:`ristiseiska.search.Sampler`, compiled
in :mod:`ristiseiska.kernel.worlds`), and in every sampled world each legal move is played and
the deal finished by the kernel's playouts (:func:`ristiseiska.search.kernel_values`). Each
move gets its expected points for the deal (lower is better; the winner scores 0) and its
chance of going out first. All moves share the same sampled worlds and playout seeds, so their
*differences* are measured much more precisely than their levels; the uncertainty shown is the
standard error of the played move's loss over independent batches of worlds.

The optional hindsight evaluation (:func:`analyze_hindsight`) looks at the same decisions
with every hand known (the real deal, only the playouts random). It answers another
question ("what was really best") and is kept apart: never mixed into the verdicts.

See docs/analysis.md for the thresholds, the accuracy formula and the measured figures.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..game import Game
from ..moves import Move
from ..search import Sampler, check_policies, kernel_values, rollout, smart_policy

# Verdicts by the expected points lost by the move played (see docs/analysis.md).
INACCURACY = 3.0
MISTAKE = 8.0
BLUNDER = 16.0
VERDICTS = ("good", "inaccuracy", "mistake", "blunder", "forced")
# Accuracy of one decision: 100 at no loss, halved for every ACCURACY_HALF points lost.
ACCURACY_HALF = 8.0

DEFAULT_WORLDS = 2000
DEFAULT_ROLLOUTS = 1  # per world and move; each playout searches the seat's next choices
DEFAULT_BATCHES = 4
DEFAULT_OWN = "strong"  # the analysed seat's later moves in the playouts
DEFAULT_OPP = "auto"  # the opponents': as each seems to play (the master's model)
# The analysed seat's next choices inside every playout are searched as the master searches
# its own (each option played out ``tries`` times in the sampled deal, the best kept), not left
# to the fixed rule: docs/analysis.md, *Searching the seat's own next choices*.
DEFAULT_LOOKAHEAD = 2
DEFAULT_TRIES = 4
PYTHON_WORLDS = 60  # rule sets outside the kernel: Python playouts are ~100x slower


class AnalysisError(ValueError):
    """A record or a request that cannot be analysed; the message says why."""


@dataclass(frozen=True)
class Budget:
    """How hard to look: sampled worlds per decision, playouts per world and move, the
    number of independent batches the worlds are split into for the error estimate, and how
    many of the seat's own next choices each playout searches (``lookahead``, ``tries``
    playouts an option; 0 leaves them to the ``own`` playout rule, the earlier evaluation)."""

    worlds: int = DEFAULT_WORLDS
    rollouts: int = DEFAULT_ROLLOUTS
    batches: int = DEFAULT_BATCHES
    own: str = DEFAULT_OWN
    opp: str = DEFAULT_OPP
    lookahead: int = DEFAULT_LOOKAHEAD
    tries: int = DEFAULT_TRIES

    def __post_init__(self) -> None:
        for name, least in (("worlds", 1), ("rollouts", 1), ("batches", 1), ("lookahead", 0),
                            ("tries", 1)):
            v = getattr(self, name)
            if not isinstance(v, int) or isinstance(v, bool) or v < least:
                what = "a positive" if least else "a non-negative"
                raise AnalysisError(f"{name} must be {what} whole number, not {v!r}")
        if self.batches > self.worlds:
            raise AnalysisError("there cannot be more batches than worlds")

    def search(self, seat: int) -> tuple[int, int, int, float]:
        """The kernel's ``lookahead`` for ``seat``: its choices searched by points alone (the
        analysis judges by points; no bonus for going out first)."""
        return (seat, self.lookahead, self.tries, 0.0)


@dataclass
class MoveValue:
    move: str
    points: float  # expected points for the deal after this move (lower is better)
    win: float  # chance of going out first
    se: float = 0.0  # standard error of (points - best points)

    def to_dict(self) -> dict[str, Any]:
        return {"move": self.move, "points": round(self.points, 2), "win": round(self.win, 3)}


@dataclass
class Decision:
    index: int  # event index in the record
    seat: int
    move: str
    best: str
    loss: float  # expected points lost by the move played (>= 0)
    se: float  # its standard error
    verdict: str
    moves: list[MoveValue] = field(default_factory=list)  # best first
    reason: tuple[str, dict[str, Any]] | None = None  # the expert's reason for the best move
    hand: int = 0  # cards in hand before the move

    @property
    def forced(self) -> bool:
        return self.verdict == "forced"

    def points(self, move: str) -> float | None:
        for m in self.moves:
            if m.move == move:
                return m.points
        return None

    @property
    def number(self) -> int:
        """The move's number as people count it (from 1; ``index`` counts from 0)."""
        return self.index + 1

    def to_dict(self, lang: str | None = None) -> dict[str, Any]:
        """The decision as the ``analyze --json`` names it; with ``lang`` also the standard
        error ``se`` of the loss, the cards in hand, the move's number from 1, the moves in
        words and the reason for the best move in a sentence (for the UIs)."""
        out: dict[str, Any] = {
            "index": self.index, "move": self.move, "best": self.best,
            "loss": round(self.loss, 2), "verdict": self.verdict,
            "moves": [m.to_dict() for m in self.moves if not math.isnan(m.points)],
        }
        if lang is not None:
            out["se"] = round(self.se, 2)
            out["hand"] = self.hand
            out["number"] = self.number
            out["move_words"] = _move_words(self.move, lang)
            out["best_words"] = _move_words(self.best, lang)
            for m in out["moves"]:
                m["words"] = _move_words(m["move"], lang)
            out["reason"] = reason_text(self, lang)
        return out


@dataclass
class SeatAnalysis:
    seat: int
    decisions: list[Decision]
    accuracy: float | None  # None when every decision was forced
    worlds: int
    seed: int
    hindsight: bool = False  # True: every hand known (never mixed with the seat-view analysis)
    points: int | None = None  # the seat's real points in the deal
    won: bool = False

    def costly(self, k: int = 3) -> list[Decision]:
        """The ``k`` costliest decisions (largest expected loss, at least an inaccuracy)."""
        bad = [d for d in self.decisions if d.verdict not in ("good", "forced")]
        return sorted(bad, key=lambda d: -d.loss)[:k]

    def counts(self) -> dict[str, int]:
        out = dict.fromkeys(VERDICTS, 0)
        for d in self.decisions:
            out[d.verdict] += 1
        return out

    def to_dict(self, deal: int, lang: str | None = None) -> dict[str, Any]:
        return {
            "deal": deal, "seat": self.seat,
            "accuracy": None if self.accuracy is None else round(self.accuracy, 1),
            "decisions": [d.to_dict(lang) for d in self.decisions],
        }


def verdict_of(loss: float) -> str:
    """The verdict for an expected loss of ``loss`` points."""
    if loss >= BLUNDER:
        return "blunder"
    if loss >= MISTAKE:
        return "mistake"
    if loss >= INACCURACY:
        return "inaccuracy"
    return "good"


def decision_accuracy(loss: float) -> float:
    """100 for the best move, halved for every :data:`ACCURACY_HALF` points lost."""
    return float(100.0 * 0.5 ** (max(0.0, loss) / ACCURACY_HALF))


def deal_accuracy(decisions: list[Decision]) -> float | None:
    """The mean accuracy of the decisions that were not forced (None if there were none)."""
    scored = [decision_accuracy(d.loss) for d in decisions if not d.forced]
    return sum(scored) / len(scored) if scored else None


def reason_text(d: Decision, lang: str = "fi") -> str:
    """A short reason for the best move, in words from the hint machinery."""
    if d.reason is None:
        return ""
    key, params = d.reason
    return _reason_words(key, params, lang)


def _reason_words(key: str, params: dict[str, Any], lang: str) -> str:
    """A reason (the analysis's own ``analysis.reason.*`` or the expert's) in words."""
    from ..bots.reasons import render

    if key.startswith("analysis."):
        from ..i18n import t

        return t(key, lang, **{k: _move_words(v, lang) if k in ("best", "move") else v
                               for k, v in params.items()})
    return render(key, params, lang)


def _move_words(text: str, lang: str) -> str:
    """A move in words: the card's name for a play, the action otherwise."""
    from ..i18n import move_words

    return move_words(text, lang)


def _out_reason(view: Any, move: str) -> str:
    """The key for "this move takes you out first": "certainly" only where it holds in every
    deal consistent with the seat's view (:mod:`.certain`), else "almost always, in the deals
    tried" (the sampled chance is no proof)."""
    from .certain import certainly_first_out

    return "analysis.reason.out" if certainly_first_out(view, move) else "analysis.reason.out_likely"


def best_reason(view: Any, legal: list[Move], best: MoveValue, played: MoveValue, expert: Any
                ) -> tuple[str, dict[str, Any]]:
    """Why the best move is best, in the analysis's own terms where they are clear (going out
    first for sure; an opponent about to go out, so fewer points should stay in hand), else the
    hint machinery's (the expert bot's) reason for that move."""
    from ..scoring import card_value

    if best.win >= 0.99 and played.win < 0.99:
        return _out_reason(view, best.move), {"best": best.move}
    near = any(view.hand_sizes[s] == 1 for s in range(view.players) if s != view.seat)
    by_text = {str(m): m for m in legal}
    b, p = by_text[best.move], by_text.get(played.move)
    if near and p is not None and b.card is not None and p.card is not None:
        diff = card_value(b.card, view.rules) - card_value(p.card, view.rules)
        if diff > 0:
            return "analysis.reason.dump", {"best": best.move, "diff": diff}
    return expert.reason_for(view, b)  # type: ignore[no-any-return]


# -- evaluation of one position ----------------------------------------------------------------

def _kernel() -> Any:
    try:
        from .. import kernel
    except Exception:  # numba missing: the Python playouts still work
        return None
    return kernel


def _own(budget: Budget) -> str:
    """The analysed seat's playout policy (``"auto"`` there: ``"strong"``)."""
    return "strong" if budget.own == "auto" else budget.own


def _sampler(budget: Budget) -> Sampler:
    """The master bot's sampler and opponent model (its default ``beta`` and ``oversample``)."""
    check_policies(_own(budget), budget.opp)
    return Sampler()


def _policy(sampler: Sampler, view: Any, budget: Budget) -> list[str]:
    """The kernel playout policy of every seat (the analysed seat's by ``budget.own``)."""
    return sampler.playout_policy(view.players, view.seat, _own(budget), budget.opp)


def evaluate_view(view: Any, budget: Budget = Budget(), seed: int = 0,
                  legal: list[Move] | None = None) -> list[MoveValue]:
    """Every legal move of ``view``'s seat valued from that view alone (hidden cards sampled),
    best first. A forced move is valued too (for the curve of expected points)."""
    legal = list(view.legal_moves) if legal is None else legal
    if not legal:
        raise AnalysisError("this seat has no move to make here")
    rng = random.Random(seed)
    kernel = _kernel()
    sampler = _sampler(budget)
    masks = None
    if kernel is not None and kernel.unsupported(view.rules, view.players) is None:
        masks = sampler.masks(view, rng, budget.worlds)
    if masks is not None:
        values = kernel_values(view, legal, masks, rng, policy=_policy(sampler, view, budget),
                               rollouts=budget.rollouts, lookahead=budget.search(view.seat),
                               batches=budget.batches)
    else:
        values = _values_python(view, legal, sampler, rng, budget)
    return _rank(legal, values, budget.batches)


def _rank(legal: list[Move], values: tuple[Any, Any], batches: int) -> list[MoveValue]:
    """MoveValues from per-batch points and wins (moves × batches), best (fewest points,
    then most wins) first; ``se`` is each move's standard error of its difference to the best."""
    pts, wins = values
    mean_p = pts.mean(axis=1)
    mean_w = wins.mean(axis=1)
    order = sorted(range(len(legal)), key=lambda i: (float(mean_p[i]), -float(mean_w[i]), i))
    b = order[0]
    out = []
    for i in order:
        diff = pts[i] - pts[b]
        se = float(diff.std(ddof=1) / math.sqrt(batches)) if batches > 1 and i != b else 0.0
        out.append(MoveValue(str(legal[i]), float(mean_p[i]), float(mean_w[i]), se))
    return out


def _values_python(view: Any, legal: list[Move], sampler: Sampler, rng: Any,
                   budget: Budget) -> tuple[Any, Any]:
    """Python playouts (rules outside the kernel: two decks, jokers, open cards, ...): fewer
    worlds, the ``smart`` playout policy, one playout per world and move."""
    me = view.seat
    worlds = max(budget.batches, min(budget.worlds, PYTHON_WORLDS))
    if len(legal) == 1:  # a forced move is valued only for the plot: a rough value will do
        worlds = max(budget.batches, worlds // 5)
    pts = np.zeros((len(legal), budget.batches))
    wins = np.zeros((len(legal), budget.batches))
    counts = np.zeros(budget.batches)
    for w, (hands, stock) in enumerate(sampler.worlds(view, rng, worlds)):
        b = w % budget.batches
        base = Game.from_view(view, hands, stock)
        seed = rng.getrandbits(64)
        for i, m in enumerate(legal):
            g = base.copy()
            g.push(m)
            prng = random.Random(seed)  # the same playout randomness for every move
            res = rollout(g, prng, smart_policy)
            pts[i, b] += res.points[me]
            wins[i, b] += res.winner == me
        counts[b] += 1
    counts[counts == 0] = 1
    return pts / counts, wins / counts


def evaluate_open(game: Game, budget: Budget = Budget(), seed: int = 0) -> list[MoveValue]:
    """Hindsight: every legal move of the seat to move valued with every hand known (only
    the playouts are random), best first."""
    legal = game.legal_moves()
    me = game.to_move
    rng = random.Random(seed)
    kernel = _kernel()
    use_kernel = kernel is not None and kernel.unsupported(game.rules, game.n) is None
    seeds = [rng.getrandbits(63) for _ in range(budget.batches)]
    per = max(1, budget.worlds * budget.rollouts // budget.batches)
    pts = np.zeros((len(legal), budget.batches))
    wins = np.zeros((len(legal), budget.batches))
    won = np.zeros(game.n)
    policy = [budget.own] * game.n
    if budget.opp not in ("auto",):
        policy = [budget.opp] * game.n
        policy[me] = budget.own
    else:
        policy = ["sensible"] * game.n
        policy[me] = budget.own
    for i, m in enumerate(legal):
        g = game.copy()
        g.push(m)
        if g.is_over():
            assert g.result is not None
            pts[i, :] = float(g.result.points[me])
            wins[i, :] = float(g.result.winner == me)
            continue
        if use_kernel:
            pos = kernel.position_from_game(g)
            for b in range(budget.batches):
                mean = kernel.rollout_values(**pos, n_rollouts=per, seed=seeds[b], policy=policy,
                                             wins=won, lookahead=budget.search(me))
                pts[i, b] = float(mean[me])
                wins[i, b] = float(won[me])
        else:
            for b in range(budget.batches):
                prng = random.Random(seeds[b])
                for _ in range(max(1, PYTHON_WORLDS // budget.batches)):
                    res = rollout(g.copy(), prng, smart_policy)
                    pts[i, b] += res.points[me] / max(1, PYTHON_WORLDS // budget.batches)
                    wins[i, b] += (res.winner == me) / max(1, PYTHON_WORLDS // budget.batches)
    return _rank(legal, (pts, wins), budget.batches)


# -- a whole deal ------------------------------------------------------------------------------

Progress = Callable[[int, int], None]


def decision_points(rec: Mapping[str, Any], seat: int) -> list[int]:
    """Event indices at which ``seat`` chose a move (forced ones included)."""
    game = _setup(rec)
    out = []
    for i, ev in enumerate(rec["events"]):
        if game.to_move == seat and ev.get("seat") == seat:
            out.append(i)
        _push(game, ev, i)
    return out


def _setup(rec: Mapping[str, Any]) -> Game:
    from ..record import RecordError, replay_record, setup_game

    try:
        game = replay_record(rec)
    except RecordError as e:
        raise AnalysisError(f"the record does not replay: {e}") from None
    if game.result is None:
        raise AnalysisError("the deal is not finished; only finished deals are analysed")
    return setup_game(rec)


def _push(game: Game, ev: Mapping[str, Any], i: int) -> None:
    from ..record import move_of

    game.push(move_of(ev, f"event {i}"))


def check_seat(rec: Mapping[str, Any], seat: Any) -> int:
    n = len(rec.get("players") or [])
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
        raise AnalysisError(f"seat must be a seat number from 0 to {n - 1}, not {seat!r}")
    return seat


def analyze_record(rec: Mapping[str, Any], seat: int, budget: Budget = Budget(), seed: int = 0,
                   hindsight: bool = False, progress: Progress | None = None) -> SeatAnalysis:
    """Analyse every decision ``seat`` made in the finished deal ``rec``. With ``hindsight``
    every hand is known instead (a separate evaluation, see the module docstring). ``seed``
    drives every random choice (the same seed gives the same numbers)."""
    game = _setup(rec)
    seat = check_seat(rec, seat)
    events = rec["events"]
    todo = [i for i in decision_points(rec, seat)]
    done = 0
    decisions: list[Decision] = []
    expert = None
    for i, ev in enumerate(events):
        if i in todo:
            view = game.view(seat)
            legal = list(view.legal_moves)
            played = _played(game, ev, i)
            dseed = (seed * 1_000_003 + i) & ((1 << 62) - 1)
            if hindsight:
                values = evaluate_open(game, budget, dseed)
            else:
                values = evaluate_view(view, budget, dseed, legal)
            if len(legal) == 1:
                d = Decision(i, seat, played, played, 0.0, 0.0, "forced", values,
                             hand=len(view.hand))
            else:
                best = values[0]
                mine = next(v for v in values if v.move == played)
                loss = max(0.0, mine.points - best.points)
                if expert is None:
                    from ..bots.expert import ExpertBot

                    expert = ExpertBot(seed=seed)
                reason = best_reason(view, legal, best, mine, expert)
                d = Decision(i, seat, played, best.move, loss, mine.se, verdict_of(loss), values,
                             reason, len(view.hand))
            decisions.append(d)
            done += 1
            if progress is not None:
                progress(done, len(todo))
        _push(game, ev, i)
    result = game.result
    assert result is not None
    return SeatAnalysis(seat, decisions, deal_accuracy(decisions), budget.worlds, seed,
                        hindsight, int(result.points[seat]), result.winner == seat)


def _played(game: Game, ev: Mapping[str, Any], i: int) -> str:
    """The text of the legal move an event stands for (as the legal moves write it)."""
    from ..record import move_of

    move = move_of(ev, f"event {i}")
    legal = game.legal_moves()
    return str(move if move in legal else game.parse_move(str(move)))


def expected_curve(analysis: SeatAnalysis) -> list[tuple[int, float]]:
    """(event index, expected points after the move played) through the deal: the line a
    plot draws for a seat."""
    out = []
    for d in analysis.decisions:
        p = d.points(d.move)
        if p is not None and not math.isnan(p):
            out.append((d.index, p))
    return out


__all__ = [
    "AnalysisError", "Budget", "MoveValue", "Decision", "SeatAnalysis", "VERDICTS", "INACCURACY",
    "MISTAKE", "BLUNDER", "ACCURACY_HALF", "verdict_of", "decision_accuracy", "deal_accuracy",
    "reason_text", "evaluate_view", "evaluate_open", "analyze_record", "decision_points",
    "check_seat", "expected_curve", "best_reason",
]

"""The ``master`` bot: determinized sampling (perfect-information Monte Carlo).

For each decision it deals the hidden cards at random many times, each time consistently with
everything public (card counts, cards on the table, a player who took the token or passed held no
legal card at that moment, a card this seat gave is still with the receiver; see
:mod:`.knowledge`). Ten times as many deals are drawn as used, and they are resampled by how
well they explain each opponent's earlier choices if that opponent plays either at random or
sensibly (a model fitted to the expert bot; ``beta`` sharpens or softens it, 0 turns the
weighting off); the same evidence gives each opponent's chance of being a sensible player. In
each sampled world every candidate move is tried and the deal is played to its end by a fast
rollout policy; the move with the best average outcome wins. All candidate moves see the same
sampled worlds and rollout seeds, so their comparison is not drowned in the noise of the deals.

The budget is ``iterations`` (sampled worlds; deterministic for a given seed) with
``time_limit`` seconds as a safety cap for the Python paths (when the cap cuts the search
short, the result depends on the machine's speed). With the compiled kernel
(:mod:`ristiseiska.kernel`, every one-deck rule set without jokers) the sampling, the weighting
and the playouts are compiled: each world is played out ``rollouts`` times per move and the bot
minimises its expected points (the deal winner scores 0) less ``win_bonus`` times its chance
of going out first; in those playouts its own later moves follow the kernel policy ``own`` and
the opponents' ``opp``: ``"auto"`` (default: ``"sensible"`` for an opponent that looks
sensible or has shown nothing yet, ``"random"`` for one that looks random), ``"random"``,
``"greedy"``, ``"epsilon"``, ``"sensible"``, ``"strong"`` or ``"expert"`` (the expert bot's
own rule; see :data:`ristiseiska.kernel.WEIGHTS`).
Elsewhere the rollout policy is ``rollout``: ``"random"``, ``"greedy"`` or ``"smart"`` (Python
playouts on the engine) or any callable ``policy(game, legal, rng) -> Move``, and the bot
maximises wins plus a small share for few points.

With ``exact=N`` (``master-epimc``), late in a deal and while every opponent is read as a
random player, the sampled deals are solved exactly instead of played out (the first at most
N positions left), and with ``pooled`` the bot's next choice is kept on what it would know,
one choice for all the worlds that look alike to it (extended PIMC;
:mod:`ristiseiska.search.exact`); the expert's judgement is not added to those values.

The sampling, the weighting, the playouts and the values over the sampled deals live in
:mod:`ristiseiska.search`; this module is the bot on top: its budget, the expert's judgement
added to the search's values, and the choice.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from ..game import Game
from ..moves import Move
from ..rules import Rules
from ..scoring import Result
from ..search import (
    DEFAULT_BETA,
    DEFAULT_OVERSAMPLE,
    POLICIES,
    ExactTable,
    Policy,
    Sampler,
    check_policies,
    exact_values,
    kernel_values,
    rollout,
)
from .base import Bot, Reason, legal_of
from .cardtypes import _type_values
from .expert import ExpertBot, Features

DEFAULT_ITERATIONS = 150
# With the kernel: sampled deals, playouts of each, and how many of the bot's own next choices
# in every playout are searched (each option played out ``tries`` times in that deal) rather
# than left to the ``own`` rule; docs/bots-internals.md, "Searching its own next choices". The
# classic master (``master-classic``) keeps 800 deals, 8 playouts and no search.
DEFAULT_KERNEL_ITERATIONS = 400
DEFAULT_ROLLOUTS = 4
DEFAULT_LOOKAHEAD = 2
DEFAULT_TRIES = 4
DEFAULT_TIME_LIMIT = 2.0
# ``exact=N``: late in a deal, while every opponent is read as a random player, solve up to
# ``exact_worlds`` of the sampled deals exactly (the first at most N positions left, the others
# at most twice that) instead of playing them out; ``pooled=1`` keeps the bot's next choice on
# what it would know (extended PIMC; ristiseiska.search.exact). ``master-epimc`` turns both on.
DEFAULT_EXACT_WORLDS = 100
EPIMC_EXACT = 4000
DEFAULT_PRIOR = 1.0  # weight of the expert's judgement added to the kernel's (points) values
DEFAULT_OWN = "greedy"  # the kernel playout policy of the searching seat's later moves
DEFAULT_OPP = "auto"  # ... and of the opponents (a model of how they play)
DEFAULT_WIN_BONUS = 60.0  # points a sure win of the deal is worth on top of its points
# ``learned=1`` (off by default): while no opponent clearly looks sensible (the model's chance
# at most LEARNED_TRUST), the bot's own later moves in the playouts follow the learned network
# on this many of the sampled deals, each played out this many times, and the expert's
# judgement is not added. Measured in docs/notes/2026-12-05-bots-experiments.md ("The master learns"): +5.5 points of
# wins against random players on the tuning seed, level on a test seed with 1.6 more points
# a deal, level against experts; so the default stays the greedy rule.
LEARNED_WORLDS = 400
LEARNED_TRUST = 0.8
LEARNED_ROLLOUTS = 2

def utility(result: Result, seat: int) -> float:
    """What a deal is worth to ``seat``: 1 for winning it, plus up to 0.5 for having few points
    compared with the others (so that losing cheaply still counts)."""
    pts = result.points
    hi, lo = max(pts), min(pts)
    share = 0.5 * (hi - pts[seat]) / (hi - lo) if hi > lo else 0.25
    return (1.0 if result.winner == seat else 0.0) + share


def prior_scale(rules: Any) -> float:
    """How much the expert's judgement counts under ``rules`` against the default rules: the
    mean points of a card over the default rules' 8. The expert scores in freed cards and the
    search in points, and ``prior`` was tuned where a card is worth 8 points on average; with
    a point a card (Sjuan, Fan Tan) the same weight let the expert outvote the search (the
    median spread of its term over a decision's moves was 3.2 points against the search's
    2.1, in the default rules 4.3 against 7.8). Measured: docs/strength.md."""
    return _mean_card_points(rules) / _mean_card_points(Rules())


def _mean_card_points(rules: Any) -> float:
    values = _type_values(rules)
    return sum(values) / len(values)


class MasterBot(Bot):
    name = "master"
    scale_prior = True  # the expert's judgement weighed by the rules' card points (prior_scale)
    kernel_iterations = DEFAULT_KERNEL_ITERATIONS
    default_rollouts = DEFAULT_ROLLOUTS
    default_lookahead = DEFAULT_LOOKAHEAD
    default_exact = 0  # exact leaves off (master-epimc turns them on)
    default_pooled = False

    def __init__(self, seed: int | None = None, iterations: int | None = None,
                 time_limit: float | None = DEFAULT_TIME_LIMIT,
                 rollout: str | Policy = "auto", rollouts: int | None = None,
                 prior: float = DEFAULT_PRIOR, beta: float = DEFAULT_BETA,
                 oversample: int = DEFAULT_OVERSAMPLE, own: str = DEFAULT_OWN, opp: str = DEFAULT_OPP,
                 win_bonus: float = DEFAULT_WIN_BONUS, learned: bool | int = False,
                 lookahead: int | None = None, tries: int = DEFAULT_TRIES,
                 exact: int | None = None, pooled: bool | int | None = None,
                 exact_worlds: int = DEFAULT_EXACT_WORLDS, **options: Any) -> None:
        super().__init__(seed, **options)
        if exact is None:
            exact = self.default_exact
        if pooled is None:
            pooled = self.default_pooled
        for label, x, least in (("exact", exact, 0), ("exact_worlds", exact_worlds, 1)):
            if not isinstance(x, int) or isinstance(x, bool) or x < least:
                raise ValueError(f"{label} must be an integer ≥ {least}, not {x!r}")
        if pooled not in (0, 1) or isinstance(pooled, float):
            raise ValueError(f"pooled must be 0 or 1 (false or true), not {pooled!r}")
        self.exact, self.exact_worlds, self.pooled = exact, exact_worlds, bool(pooled)
        self._exact_table = ExactTable()
        if lookahead is None:
            lookahead = self.default_lookahead
        if rollouts is None:
            rollouts = self.default_rollouts
        for label, x, least in (("lookahead", lookahead, 0), ("tries", tries, 1)):
            if not isinstance(x, int) or isinstance(x, bool) or x < least:
                raise ValueError(f"{label} must be an integer ≥ {least}, not {x!r}")
        self.lookahead, self.tries = lookahead, tries
        if learned not in (0, 1) or isinstance(learned, float):
            raise ValueError(f"learned must be 0 or 1 (false or true), not {learned!r}")
        self.learned = bool(learned)
        check_policies(own, opp)
        self.own, self.opp = own, opp
        if not isinstance(win_bonus, int | float) or win_bonus < 0:
            raise ValueError(f"win_bonus must be a number ≥ 0, not {win_bonus!r}")
        self.win_bonus = float(win_bonus)
        if iterations is not None and (not isinstance(iterations, int) or iterations < 1):
            raise ValueError(f"iterations must be a positive integer, not {iterations!r}")
        if not isinstance(rollouts, int) or rollouts < 1:
            raise ValueError(f"rollouts must be a positive integer, not {rollouts!r}")
        self.rollouts = rollouts
        if not isinstance(prior, int | float) or prior < 0:
            raise ValueError(f"prior must be a number ≥ 0, not {prior!r}")
        self.prior = float(prior)
        if not isinstance(beta, int | float) or beta < 0:
            raise ValueError(f"beta must be a number ≥ 0, not {beta!r}")
        if not isinstance(oversample, int) or oversample < 1:
            raise ValueError(f"oversample must be a positive integer, not {oversample!r}")
        self.beta = float(beta)
        self.oversample = oversample
        self.use_kernel: bool | None = False  # None: decide per rule set ("auto")
        if rollout in ("auto", "kernel"):
            self.use_kernel = None if rollout == "auto" else True
            if rollout == "kernel" and _kernel() is None:
                raise ValueError("the compiled kernel is not available (numba missing?)")
            rollout = "random"
        if time_limit is not None and not (isinstance(time_limit, int | float) and time_limit > 0):
            raise ValueError(f"time_limit must be a positive number of seconds, not {time_limit!r}")
        if isinstance(rollout, str):
            if rollout not in POLICIES:
                raise ValueError(f"unknown rollout policy {rollout!r}; known: {', '.join(POLICIES)}")
            self.policy: Policy = POLICIES[rollout]
        elif callable(rollout):
            self.policy = rollout
        else:
            raise ValueError("rollout must be a policy name or a callable")
        self.iterations = iterations
        self.time_limit = time_limit
        if self.use_kernel is not False:
            k = _kernel()
            if k is not None:
                k.warm_up()  # compile or load the kernel now, not during the first move
                if self.exact:
                    from ..search.exact import warm_up

                    warm_up()  # ... and the exact leaves
                if self.learned:
                    from ..kernel import vecenv

                    vecenv.warm_up()  # ... and the learned playouts' environment
        self._expert = ExpertBot(seed=self.seed)
        # the deals of the hidden cards and the reading of the opponents (ristiseiska.search)
        self.sampler = Sampler(self.beta, self.oversample)
        self.last_stats: dict[str, Any] = {}

    def decide(self, view: Any) -> tuple[Move, Reason]:
        legal = list(legal_of(view))
        if len(legal) == 1:
            return self._expert.decide(view)
        kernel = self._kernel_for(view)
        if kernel is not None:
            stats = self.search_kernel(view, legal, kernel)
        else:
            stats = self.search(view, legal)
        values = list(stats["value"])
        prior = self.prior * (prior_scale(view.rules) if self.scale_prior else 1.0)
        if kernel is not None and prior and not stats.get("learned") and not stats.get("exact"):
            # Random playouts misjudge blocking play; the expert's score (its unit is about
            # one freed card) keeps the search from moves a sound player would not make.
            scores = {m: s for s, m, _ in self._expert.score_moves(Features(view), tuple(legal))}
            values = [v + prior * max(-20.0, min(20.0, scores.get(m, 0.0)))
                      for v, m in zip(values, legal, strict=True)]
        i = max(range(len(legal)), key=lambda k: (values[k], -k))
        move = legal[i]
        base = self._expert.reason_for(view, move)
        worlds = stats["worlds"]
        if kernel is not None and "points" in stats:
            # the mean of the seat's own points, not the value: that also counts going out first
            return move, ("master_points", {"base": base, "worlds": worlds,
                                            "points": round(stats["points"][i], 1)})
        if kernel is not None:  # the network played its later moves: no points of their own
            return move, ("master_neural", {"base": base, "worlds": worlds})
        pct = round(100 * stats["wins"][i] / worlds) if worlds else 0
        return move, ("master", {"base": base, "worlds": worlds, "pct": pct})

    def _kernel_for(self, view: Any) -> Any:
        if self.use_kernel is False:
            return None
        k = _kernel()
        if k is None or k.unsupported(view.rules, view.players) is not None:
            if self.use_kernel:
                raise ValueError("the kernel does not support these rules: "
                                 + (k.unsupported(view.rules, view.players) if k else "not available"))
            return None
        return k

    @property
    def sensible(self) -> dict[int, float]:
        """Per opponent: the chance that it plays sensibly (from the last sampled deals)."""
        return self.sampler.sensible

    def _playout_policy(self, n: int, me: int) -> list[str]:
        """The kernel playout policy of every seat: ``own`` for this one, ``opp`` for the
        others (with ``"auto"``: each opponent as it seems to play)."""
        return self.sampler.playout_policy(n, me, self.own, self.opp)

    def search_kernel(self, view: Any, legal: list[Move], kernel: Any) -> dict[str, Any]:
        """Evaluate every legal move by the kernel's playouts: minus the mean points."""
        start = time.perf_counter()
        me = view.seat
        rng = self.rng_for(view)
        iterations = self.iterations or self.kernel_iterations
        masks = self.sampler.masks(view, rng, iterations)
        if masks is not None:
            return self._search_masks(view, legal, kernel, masks, rng, start)
        rows: list[list[list[int]]] = [[] for _ in legal]
        terminal: list[list[float]] = [[] for _ in legal]
        own_points: list[list[float]] = [[] for _ in legal]  # the same deals' points alone
        positions: list[dict[str, Any] | None] = [None] * len(legal)
        worlds = 0
        for hands, stock in self.sampler.worlds(view, rng, iterations):
            base = Game.from_view(view, hands, stock)
            for i, m in enumerate(legal):
                g = base.copy()
                g.push(m)
                if g.is_over():
                    assert g.result is not None
                    res = g.result
                    terminal[i].append(float(res.points[me])
                                       - self.win_bonus * (res.winner == me))
                    own_points[i].append(float(res.points[me]))
                    continue
                if positions[i] is None:
                    positions[i] = kernel.position_from_game(g)
                rows[i].append(list(g._hands))
            worlds += 1
            if self.time_limit is not None and time.perf_counter() - start > self.time_limit / 2:
                break
        seed = rng.getrandbits(63)
        policy = self._playout_policy(view.players, me)
        won = np.zeros(view.players)
        values, points = [], []
        for i in range(len(legal)):
            total = sum(terminal[i])
            total_points = sum(own_points[i])
            count = len(terminal[i])
            pos = positions[i]
            if rows[i] and pos is not None:
                pos = dict(pos)
                pos["hands"] = np.array(rows[i], np.uint64)
                k = len(rows[i])
                mean = kernel.rollout_values(**pos, n_rollouts=k * self.rollouts, seed=seed,
                                             policy=policy, wins=won, lookahead=(
                                                 me, self.lookahead, self.tries, self.win_bonus))
                total += (float(mean[me]) - self.win_bonus * float(won[me])) * k
                total_points += float(mean[me]) * k
                count += k
            values.append(-total / count if count else 0.0)
            points.append(total_points / count if count else 0.0)
        self.last_stats = {
            "worlds": worlds, "seconds": time.perf_counter() - start,
            "moves": [str(m) for m in legal], "value": values, "wins": [0] * len(legal),
            "points": points,
        }
        return self.last_stats

    def _search_masks(self, view: Any, legal: list[Move], kernel: Any, masks: Any, rng: Any,
                      start: float) -> dict[str, Any]:
        """:meth:`search_kernel` on sampled deals given as bitmasks: the move is made once,
        in the first deal, and its change of the hands applied to every deal (only the
        mover's own, known cards move)."""
        me = view.seat
        n = view.players
        count = masks.shape[0]
        policy = self._playout_policy(n, me)
        if self._learned_applies(view):
            return self._search_learned(view, legal, masks, rng, start, policy)
        if self.exact and all(p == "random" for s, p in enumerate(policy) if s != me):
            ex = exact_values(view, legal, masks, bound=self.exact, worlds=self.exact_worlds,
                              pooled=self.pooled, win_bonus=self.win_bonus,
                              table=self._exact_table)
            if ex is not None:
                self.last_stats = {
                    "worlds": ex["worlds"], "seconds": time.perf_counter() - start,
                    "moves": [str(m) for m in legal], "value": ex["value"],
                    "wins": [0] * len(legal), "points": ex["points"], "exact": True,
                    "states": ex["states"],
                }
                return self.last_stats
        pts, wins = kernel_values(view, legal, masks, rng, policy=policy, rollouts=self.rollouts,
                                  lookahead=(me, self.lookahead, self.tries, self.win_bonus))
        values = [float(-(p - self.win_bonus * w)) for p, w in zip(pts[:, 0], wins[:, 0],
                                                                     strict=True)]
        points = [float(p) for p in pts[:, 0]]
        self.last_stats = {
            "worlds": count, "seconds": time.perf_counter() - start,
            "moves": [str(m) for m in legal], "value": values, "wins": [0] * len(legal),
            "points": points,
        }
        return self.last_stats

    def _learned_applies(self, view: Any) -> bool:
        """Whether the learned network plays this seat's later moves in the playouts: with
        ``learned``, ``opp="auto"``, a rule set and table size the network plays, and no
        opponent clearly looking sensible."""
        if not self.learned or self.opp != "auto" or self.win_bonus <= 0:
            return False
        if any(self.sensible.get(s, 0.5) > LEARNED_TRUST for s in range(view.players)
               if s != view.seat):
            return False
        from ..learn.features import supported

        return supported(view.rules, view.players) is None

    def _search_learned(self, view: Any, legal: list[Move], masks: Any, rng: Any,
                        start: float, policy: list[str]) -> dict[str, Any]:
        """:meth:`_search_masks` with the bot's own later moves played by the network (the
        opponents by ``policy``, inside the compiled step): values in the same unit (minus
        points plus ``win_bonus`` times the chance of going out first)."""
        from ..learn import net as netmod
        from ..search.network import playout_values

        net, _meta = netmod.cached(netmod.packaged_path())
        masks = masks[:LEARNED_WORLDS]
        out = playout_values(net, view, legal, masks, rng, scale=self.win_bonus,
                             rollouts=LEARNED_ROLLOUTS, opponents=policy)
        values = [float(v) * self.win_bonus for v in out]
        self.last_stats = {
            "worlds": masks.shape[0], "seconds": time.perf_counter() - start,
            "moves": [str(m) for m in legal], "value": values, "wins": [0] * len(legal),
            "learned": True,
        }
        return self.last_stats

    def search(self, view: Any, legal: list[Move]) -> dict[str, Any]:
        """Evaluate every legal move over sampled worlds: mean utility, wins, worlds."""
        start = time.perf_counter()
        me = view.seat
        rng = self.rng_for(view)
        total = [0.0] * len(legal)
        wins = [0] * len(legal)
        worlds = 0
        policy = self.policy
        iterations = self.iterations or DEFAULT_ITERATIONS
        for hands, stock in self.sampler.worlds(view, rng, iterations):
            base = Game.from_view(view, hands, stock)
            seed = rng.getrandbits(64)
            for i, m in enumerate(legal):
                g = base.copy()
                g.push(m)
                rng.seed(seed)  # the same rollout randomness for every move
                res = rollout(g, rng, policy)
                total[i] += utility(res, me)
                wins[i] += res.winner == me
            rng.seed(seed)
            worlds += 1
            if self.time_limit is not None and time.perf_counter() - start > self.time_limit:
                break
        self.last_stats = {
            "worlds": worlds, "seconds": time.perf_counter() - start,
            "moves": [str(m) for m in legal],
            "value": [t / worlds for t in total], "wins": wins,
        }
        return self.last_stats


class ClassicMasterBot(MasterBot):
    """``master-classic``: the classic master under a name that stays when ``master`` changes
    (``learned`` off: its own later moves in the playouts follow the greedy rule)."""

    name = "master-classic"
    scale_prior = False  # as it was measured: the same weight under every rule set
    kernel_iterations = 800
    default_rollouts = 8
    default_lookahead = 0

    def __init__(self, seed: int | None = None, learned: bool | int = False,
                 **options: Any) -> None:
        super().__init__(seed, learned=learned, **options)


class EpimcMasterBot(MasterBot):
    """``master-epimc``: the master with exact leaves late in a deal against players it reads
    as random, its next choice pooled over the worlds that look alike to it (extended PIMC;
    :mod:`ristiseiska.search.exact`; measured in docs/bots-internals.md)."""

    name = "master-epimc"
    default_exact = EPIMC_EXACT
    default_pooled = True


def _kernel() -> Any:
    try:
        from .. import kernel
    except Exception:  # numba missing or broken: Python playouts still work
        return None
    return kernel

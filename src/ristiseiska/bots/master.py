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
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from ..cards import Card
from ..game import Game
from ..moves import PLAY, Move
from ..rules import Rules
from ..scoring import Result
from ..table import held_back
from .base import Bot, Reason, legal_of
from .expert import ExpertBot, Features
from .knowledge import (
    SENSIBLE_NOISE,
    SENSIBLE_OTHERS,
    SENSIBLE_OWN,
    SENSIBLE_VALUE,
    _type_values,
    infer,
    table_cards,
)

FULL_MASK = (1 << 52) - 1

DEFAULT_ITERATIONS = 150
# With the kernel: sampled deals, playouts of each, and how many of the bot's own next choices
# in every playout are searched (each option played out ``tries`` times in that deal) rather
# than left to the ``own`` rule; docs/strength.md, "Searching its own next choices". The
# classic master (``master-classic``) keeps 800 deals, 8 playouts and no search.
DEFAULT_KERNEL_ITERATIONS = 400
DEFAULT_ROLLOUTS = 4
DEFAULT_LOOKAHEAD = 2
DEFAULT_TRIES = 4
DEFAULT_TIME_LIMIT = 2.0
DEFAULT_BETA = 2.0  # sharpness of the sensible-player model (1: as fitted; 0: no weighting)
DEFAULT_PRIOR = 1.0  # weight of the expert's judgement added to the kernel's (points) values
DEFAULT_OVERSAMPLE = 10  # deals drawn per deal kept (compiled sampling; at most 3 in Python)
DEFAULT_OWN = "greedy"  # the kernel playout policy of the searching seat's later moves
DEFAULT_OPP = "auto"  # ... and of the opponents (a model of how they play)
KERNEL_POLICIES = ("random", "greedy", "epsilon", "sensible", "strong", "expert")  # ristiseiska.kernel.POLICIES
DEFAULT_WIN_BONUS = 60.0  # points a sure win of the deal is worth on top of its points
# ``learned=1`` (off by default): while no opponent clearly looks sensible (the model's chance
# at most LEARNED_TRUST), the bot's own later moves in the playouts follow the learned network
# on this many of the sampled deals, each played out this many times, and the expert's
# judgement is not added. Measured in docs/strength.md ("The master learns"): +5.5 points of
# wins against random players on the tuning seed, level on a test seed with 1.6 more points
# a deal, level against experts; so the default stays the greedy rule.
LEARNED_WORLDS = 400
LEARNED_TRUST = 0.8
LEARNED_ROLLOUTS = 2

Policy = Callable[[Game, list[Move], Any], Move]


def random_policy(game: Game, legal: list[Move], rng: Any) -> Move:
    return legal[int(rng.random() * len(legal))]


def greedy_policy(game: Game, legal: list[Move], rng: Any) -> Move:
    """Cheap but less naive than random: go out when possible, use extra moves, and otherwise
    prefer a card whose next card in line is in the player's own hand."""
    plays = [m for m in legal if m.kind == PLAY]
    if not plays:
        return legal[0] if len(legal) == 1 else legal[int(rng.random() * len(legal))]
    if len(plays) == 1:
        return plays[0]
    table = game.table
    hand = game._hands[game.to_move]  # the rollout plays with full knowledge of its own world
    best, best_key = plays[0], -1.0
    for m in plays:
        c = m.card
        assert c is not None
        t = int(c) % 52 if game.rules.decks == 2 and not game.rules.distinct_decks else int(c)
        key = rng.random()
        if t < len(table.type_rows):
            row = table.type_rows[t][0]
            line = table.types[row]
            if t in line:
                idx = line.index(t)
                nxt = idx - 1 if idx < table.center else idx + 1
                if 0 <= nxt < len(line) and (hand >> line[nxt]) & 1:
                    key += 1.0
        if key > best_key:
            best, best_key = m, key
    return best


def behind_masks(rules: Any) -> tuple[int, ...] | None:
    """For each card type of a single-deck row layout: the bitmask of the card types that can
    only come after it (:func:`ristiseiska.table.held_back`). ``None`` for other layouts (the
    master's reading of the opponents was fitted on rows only)."""
    if rules.layout != "rows":
        return None
    return held_back(rules)


def smart_policy(game: Game, legal: list[Move], rng: Any) -> Move:
    """A cheap model of a sound player, for playouts: play the card that frees the most of
    one's own cards (a seven of a long suit, a six or eight with followers), random on ties;
    always take an extra move; one move in ten at random so that playouts stay varied."""
    if len(legal) == 1:
        return legal[0]
    behind = behind_masks(game.rules)
    if behind is None or rng.random() < 0.1:
        return legal[int(rng.random() * len(legal))]
    hand = game._hands[game.to_move]
    best, best_key = legal[0], -1.0
    for m in legal:
        c = m.card
        if m.kind != PLAY or c is None or c >= 52:
            key = -0.5 + rng.random() * 0.1
        else:
            key = (behind[c] & hand).bit_count() + rng.random()
        if key > best_key:
            best, best_key = m, key
    return best


POLICIES: dict[str, Policy] = {"random": random_policy, "greedy": greedy_policy,
                               "smart": smart_policy}


def rollout(game: Game, rng: Any, policy: Policy = random_policy) -> Result:
    """Play ``game`` to its end with ``policy`` for every seat; return the result."""
    while not game.is_over():
        legal = game.legal_moves()
        game.push(legal[0] if len(legal) == 1 else policy(game, legal, rng))
    assert game.result is not None
    return game.result


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

    def __init__(self, seed: int | None = None, iterations: int | None = None,
                 time_limit: float | None = DEFAULT_TIME_LIMIT,
                 rollout: str | Policy = "auto", rollouts: int | None = None,
                 prior: float = DEFAULT_PRIOR, beta: float = DEFAULT_BETA,
                 oversample: int = DEFAULT_OVERSAMPLE, own: str = DEFAULT_OWN, opp: str = DEFAULT_OPP,
                 win_bonus: float = DEFAULT_WIN_BONUS, learned: bool | int = False,
                 lookahead: int | None = None, tries: int = DEFAULT_TRIES,
                 **options: Any) -> None:
        super().__init__(seed, **options)
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
        for label, name in (("own", own), ("opp", opp)):
            known = ("auto",) + KERNEL_POLICIES if label == "opp" else KERNEL_POLICIES
            if name not in known:
                raise ValueError(f"{label} must be one of {', '.join(known)}, not {name!r}")
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
                if self.learned:
                    from ..kernel import vecenv

                    vecenv.warm_up()  # ... and the learned playouts' environment
        self._expert = ExpertBot(seed=self.seed)
        self.sensible: dict[int, float] = {}  # per opponent: chance that it plays sensibly
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
        if kernel is not None and prior and not stats.get("learned"):
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

    def _worlds(self, view: Any, rng: Any, count: int) -> Iterator[tuple[list[list[Any]], list[Any]]]:
        """``count`` sampled deals of the hidden cards. With ``beta`` > 0 and a single-deck
        row layout, more deals are drawn and ``count`` of them kept with probability
        proportional to how well they explain the opponents' past choices."""
        me = view.seat
        if view.open_hands is not None:  # open-cards mode: only a stock stays hidden
            for _ in range(count):
                hands = [list(view.open_hands[s]) for s in range(view.players)]
                yield hands, _open_stock(view, rng)
            return
        know = infer(view)
        behind = behind_masks(view.rules)
        self.sensible = {}
        if self.beta > 0 and behind is not None and know.observations:
            pool = [know.sample(rng) for _ in range(count * min(self.oversample, 3))]
            ll = np.zeros((len(pool), view.players, 2))
            for k, (h, _) in enumerate(pool):
                for st, pair in know.seat_log_likelihoods(h, behind, self.beta).items():
                    ll[k, st] = pair
            for i in self._resample(ll, count, rng):
                hands, stock = pool[i]
                hands = [list(h) for h in hands]
                hands[me] = list(view.hand)
                yield hands, stock
            return
        for _ in range(count):
            hands, stock = know.sample(rng)
            hands[me] = list(view.hand)
            yield hands, stock

    def _world_masks(self, view: Any, rng: Any, count: int) -> Any:
        """``count`` sampled deals as a (count × players) array of hand bitmasks, drawn and
        weighted by the compiled twins of :meth:`_worlds` (same algorithm and model); ``None``
        where they do not apply (open cards, two decks, jokers, layouts without rows)."""
        rules = view.rules
        behind = behind_masks(rules)
        if view.open_hands is not None or behind is None or rules.jokers or rules.decks != 1:
            return None
        from ..kernel import worlds as kw

        know = infer(view)
        n = view.players
        me = view.seat
        pool = 0
        for c in know.pool:
            pool |= 1 << int(c)
        sizes = np.zeros(n, np.int64)
        known = np.zeros(n, np.uint64)
        excl = np.zeros(n, np.uint64)
        free = np.zeros(n, np.int64)
        free_excl = np.zeros(n, np.uint64)
        for st, o in know.opponents.items():
            sizes[st] = o.size
            km = 0
            for c in o.known:
                km |= 1 << int(c)
            known[st] = km
            excl[st] = o.excluded & FULL_MASK
            free[st] = o.free
            free_excl[st] = o.free_excluded & FULL_MASK
        weigh = self.beta > 0 and bool(know.observations)
        total = count * (self.oversample if weigh else 1)
        hands = np.zeros((total, n), np.uint64)
        kw.sample_hands(np.uint64(rng.getrandbits(64)), total, n, me, np.uint64(pool), sizes,
                        known, excl, free, free_excl, know.stock_size, 30, hands)
        mine = 0
        for c in view.hand:
            mine |= 1 << int(c)
        self.sensible = {}
        if weigh:
            obs = know.observations
            ll = np.zeros((total, n, 2))
            kw.seat_log_likelihoods(
                hands, np.array([o[0] for o in obs], np.int64), np.array([o[1] for o in obs], np.int64),
                np.array([o[2] for o in obs], np.uint64), np.array([o[3] for o in obs], np.uint64),
                np.array([o[4] for o in obs], np.uint64), np.array([o[5] for o in obs], np.bool_),
                np.array(behind, np.uint64), np.array(_type_values(rules), np.float64),
                SENSIBLE_OWN, SENSIBLE_OTHERS, SENSIBLE_VALUE, SENSIBLE_NOISE, self.beta, ll)
            hands = hands[self._resample(ll, count, rng)]
        hands[:, me] = mine
        return hands

    def _resample(self, ll: Any, count: int, rng: Any) -> Any:
        """Indices of ``count`` of the sampled deals, drawn by weight. ``ll[k, s]``: the
        log-likelihoods of seat ``s``'s past plays in deal ``k`` if it plays at random or
        sensibly. Each opponent is one or the other (even odds, unknown): a deal's weight is
        the product over opponents of the two likelihoods' mean; the same evidence sets
        :attr:`sensible`, each opponent's chance of being a sensible player."""
        logw = np.zeros(ll.shape[0])
        self.sensible = {}
        for st in range(ll.shape[1]):
            rand, sens = ll[:, st, 0], ll[:, st, 1]
            if not rand.any():
                continue  # no choice of this seat's told anything
            logw += np.logaddexp(rand, sens)
            self.sensible[st] = _sigmoid(_np_logmeanexp(sens) - _np_logmeanexp(rand))
        w = np.exp(logw - logw.max())
        # systematic resampling: low variance, deterministic given rng
        edges = (rng.random() + np.arange(count)) * (w.sum() / count)
        return np.minimum(np.searchsorted(np.cumsum(w), edges, side="right"), len(w) - 1)

    def _playout_policy(self, n: int, me: int) -> list[str]:
        """The kernel playout policy of every seat: ``own`` for this one, ``opp`` for the
        others (with ``"auto"``: each opponent as it seems to play)."""
        if self.opp == "auto":
            policy = ["sensible" if self.sensible.get(s, 0.5) >= 0.5 else "random"
                      for s in range(n)]
        else:
            policy = [self.opp] * n
        policy[me] = self.own
        return policy

    def search_kernel(self, view: Any, legal: list[Move], kernel: Any) -> dict[str, Any]:
        """Evaluate every legal move by the kernel's playouts: minus the mean points."""
        start = time.perf_counter()
        me = view.seat
        rng = self.rng_for(view)
        iterations = self.iterations or self.kernel_iterations
        masks = self._world_masks(view, rng, iterations)
        if masks is not None:
            return self._search_masks(view, legal, kernel, masks, rng, start)
        rows: list[list[list[int]]] = [[] for _ in legal]
        terminal: list[list[float]] = [[] for _ in legal]
        own_points: list[list[float]] = [[] for _ in legal]  # the same deals' points alone
        positions: list[dict[str, Any] | None] = [None] * len(legal)
        worlds = 0
        for hands, stock in self._worlds(view, rng, iterations):
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
        base = game_of_world(view, masks[0], rng)
        seed = rng.getrandbits(63)
        won = np.zeros(n)
        values, points = [], []
        for m in legal:
            g = base.copy()
            g.push(m)
            if g.is_over():
                # The bot went out: its own points (nil, or chips by the others' card counts)
                # are the same in every sampled deal.
                res = g.result
                assert res is not None
                values.append(-(float(res.points[me]) - self.win_bonus * (res.winner == me)))
                points.append(float(res.points[me]))
                continue
            pos = kernel.position_from_game(g)
            pos["hands"] = worlds_after(masks, base, g)
            mean = kernel.rollout_values(**pos, n_rollouts=count * self.rollouts, seed=seed,
                                         policy=policy, wins=won, lookahead=(
                                             me, self.lookahead, self.tries, self.win_bonus))
            values.append(-(float(mean[me]) - self.win_bonus * float(won[me])))
            points.append(float(mean[me]))
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
        for hands, stock in self._worlds(view, rng, iterations):
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


def playout_values(net: Any, view: Any, legal: list[Any], masks: np.ndarray, rng: Any, *,
                   scale: float, rollouts: int = 1, depth: int = 0,
                   opponents: list[str] | None = None) -> np.ndarray:
    """The mean outcome (``win - points / scale``) of every move of ``legal`` over the sampled
    deals ``masks`` (rows of seat hand masks, the bot's own hand in its seat), each deal
    played on ``rollouts`` times: the bot's own later moves by the network, the other seats'
    by the network too (``opponents=None``: :class:`Playouts`, ``depth`` cuts them short) or
    by the kernel policies ``opponents[seat]`` (:class:`KernelOpponentPlayouts`)."""
    from .. import kernel
    from ..learn import features as F
    from ..learn.search import KernelOpponentPlayouts, Playouts

    me, n = view.seat, view.players
    W = masks.shape[0]
    base = game_of_world(view, masks[0], rng)
    rel = F.view_void(view)
    voids = np.zeros((n, 52), np.float32)
    for k in range(1, n):
        voids[(me + k) % n] = rel[k - 1]
    values = np.zeros(len(legal))
    todo: list[tuple[int, dict[str, Any], np.ndarray]] = []
    for i, m in enumerate(legal):
        g = base.copy()
        g.push(m)
        if g.is_over():
            res = g.result
            assert res is not None
            values[i] = float(res.winner == me) - float(res.points[me]) / scale
            continue
        todo.append((i, kernel.position_from_game(g), worlds_after(masks, base, g)))
    if not todo:
        return values
    R = W * rollouts
    play: Playouts | KernelOpponentPlayouts
    if opponents is not None:
        play = KernelOpponentPlayouts(net, view.rules, n, R * len(todo), scale, me, opponents,
                                      seed=rng.getrandbits(62))
    else:
        play = Playouts(net, view.rules, n, R * len(todo), scale)
    for j, (_i, pos, hands) in enumerate(todo):
        play.load(slice(j * R, (j + 1) * R), pos, np.tile(hands, (rollouts, 1)), voids)
    play.ready()
    out = play.run(me, depth)
    for j, (i, _pos, _hands) in enumerate(todo):
        values[i] = float(out[j * R:(j + 1) * R].mean())
    return values


def worlds_after(masks: Any, base: Game, after: Game) -> Any:
    """The sampled worlds' hands (one row of seat masks per world) once ``base`` has become
    ``after``: the cards that left or joined each hand are known alike in every world."""
    hands = masks.copy()
    for s in range(base.n):
        gone, came = base._hands[s] & ~after._hands[s], after._hands[s] & ~base._hands[s]
        if gone or came:
            hands[:, s] = (hands[:, s] & np.uint64(FULL_MASK & ~gone)) | np.uint64(came)
    return hands


def game_of_world(view: Any, row: Any, rng: Any) -> Game:
    """The game of one sampled deal: ``row`` holds each seat's hand as a bitmask; the cards
    neither in a hand nor on the table form the stock, shuffled with ``rng``."""

    def cards(mask: int) -> list[Card]:
        return [Card(c) for c in range(52) if (mask >> c) & 1]

    stock: list[Card] = []
    if view.stock_size:
        rest = FULL_MASK & ~int(np.bitwise_or.reduce(row))
        for c in table_cards(view.table):
            rest &= ~(1 << int(c))
        stock = cards(rest)
        rng.shuffle(stock)
    return Game.from_view(view, [cards(int(row[s])) for s in range(view.players)], stock)


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -700 else 0.0


def _np_logmeanexp(xs: Any) -> float:
    hi = float(xs.max())
    return hi + math.log(float(np.exp(xs - hi).mean()))


def _kernel() -> Any:
    try:
        from .. import kernel
    except Exception:  # numba missing or broken: Python playouts still work
        return None
    return kernel


def _open_stock(view: Any, rng: Any) -> list[Any]:
    if not view.stock_size:
        return []
    know = infer(view)
    pool = list(know.pool)
    for s in range(view.players):
        if s != view.seat:
            for c in view.open_hands[s]:
                if c in pool:
                    pool.remove(c)
    rng.shuffle(pool)
    return pool[: view.stock_size]

"""A Gymnasium ``VectorEnv`` over the compiled kernel: one seat learns, ``num_envs`` deals at once.

    >>> from ristiseiska.rl.vector import RistiseiskaVectorEnv
    >>> envs = RistiseiskaVectorEnv(num_envs=64, preset="ristiseiska", players=4,
    ...                             opponents=("random", "strong", "random"))
    >>> obs, info = envs.reset(seed=1)          # obs["observation"]: (64, 192) float32
    >>> obs, reward, terminated, truncated, info = envs.step(envs.action_space.sample())

Observation and actions are those of the single-agent environment (:mod:`.gym_env`, the layout
of :mod:`.encoding`): ``Dict(observation=Box(float32, D), action_mask=Box(int8, A))`` per
deal, batched; ``action_masks()`` gives the masks as MaskablePPO asks for them. One episode is
one deal; rewards come at its end (``"points"``: minus the learner's points, ``"win"``: 1 for
a win). Autoreset is Gymnasium's *same-step* mode: the step that ends a deal returns the next
deal's first observation, with the ended deal's last observation in ``info["final_obs"][i]``
and its result in ``info["final_info"]`` (``["points"][i]``: every seat's points, ``["winner"]``,
``["illegal"]``), with the masks ``_final_obs``/``_final_info``, laid out exactly as
Gymnasium's own ``SyncVectorEnv`` does. An action that is
not legal ends that deal with ``illegal_reward`` (``final_info["illegal"]``). A deal the
opponents finish before the learner moves is never an episode (it is dealt anew).

``opponents``: one per other seat (or one for all): a kernel policy name (``"random"``,
``"greedy"``, ``"epsilon"``, ``"sensible"``, ``"strong"``), played inside the kernel, or any
callable ``policy(obs, mask, seats) -> actions`` (``obs``: (k, D) float32, ``mask``: (k, A)
int8, ``seats``: (k,) the absolute seats to move; returns k legal action ids), called for the
rows where such a seat is to move — the hook for a learned policy — or ``"neural"``: the
learned network shipped in the package (:mod:`ristiseiska.learn`, the ``neural`` bot's net),
choosing greedily (deterministic) from its seat's observation and the public knowledge of
which cards each opponent is known not to hold (a :class:`~ristiseiska.learn.features.VoidTracker`
kept over every row and updated on every move). ``"neural"`` needs rules and a table size the
network plays (:func:`ristiseiska.learn.features.supported`). With a neural seat at the table
the kernel policies' moves are asked row by row (:mod:`.kernel_moves`) rather than made inside
the kernel's step, so that every move is seen.
``copy=False`` returns the environment's own arrays (overwritten by the next step) instead of
copies.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ..kernel import policy_array, unsupported
from ..kernel.vecenv import VecEnv
from ..kernel.vecrows import C_DEAL, obs_size
from .common import ILLEGAL_REWARD, check_reward, resolve_rules
from .kernel_moves import kernel_actions

Policy = Callable[[np.ndarray, np.ndarray, np.ndarray], Any]
KERNEL_POLICIES = ("random", "greedy", "epsilon", "sensible", "strong")
NEURAL = "neural"


class RistiseiskaVectorEnv(VectorEnv):
    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP, "render_modes": []}

    def __init__(self, num_envs: int = 16, preset: str = "ristiseiska", players: int = 4,
                 rules: Any = None, seat: int = 0,
                 opponents: str | Policy | Sequence[str | Policy] = "random",
                 reward: str = "points", illegal_reward: float | None = None,
                 knowledge: int | None = None, copy: bool = True) -> None:
        self.rules = resolve_rules(preset, rules)
        self.rules.check_players(players)
        why = unsupported(self.rules, players)
        if why:
            raise ValueError(f"the vector environment runs on the compiled kernel, which "
                             f"cannot play these rules: {why}")
        if not isinstance(seat, int) or not 0 <= seat < players:
            raise ValueError(f"seat must be a seat from 0 to {players - 1}, not {seat!r}")
        self.n = players
        self.seat = seat
        opps: list[Any]
        if isinstance(opponents, str) or callable(opponents):
            opps = [opponents] * (players - 1)
        else:
            opps = list(opponents)
        if len(opps) != players - 1:
            raise ValueError(f"give one opponent per other seat ({players - 1}), not {len(opps)}")
        kernel: list[str | None] = [None] * players
        self.callables: dict[int, Policy] = {}
        self.neural_seats: list[int] = []
        others = [s for s in range(players) if s != seat]
        for s, o in zip(others, opps, strict=True):
            if callable(o):
                self.callables[s] = o
            elif isinstance(o, str) and o in KERNEL_POLICIES:
                kernel[s] = o
            elif isinstance(o, str) and o == NEURAL:
                self.neural_seats.append(s)
            else:
                raise ValueError(f"an opponent is a kernel policy ({', '.join(KERNEL_POLICIES)})"
                                 f", {NEURAL!r} or a callable policy(obs, mask, seats), not {o!r}")
        self._neural: Any = None
        self.kernel_seats: dict[int, int] = {}  # kernel policies played outside the kernel
        if self.neural_seats:
            self._neural = self._neural_setup(players, num_envs)
            # every move must be seen (the known-absent cards): the kernel's policies are
            # asked for their moves row by row instead of playing inside the kernel's step
            codes = policy_array([k or "random" for k in kernel], players)
            self.kernel_seats = {s: int(codes[s]) for s in range(players) if kernel[s]}
            kernel = [None] * players
        self.reward_mode = check_reward(reward)
        self.illegal_reward = (ILLEGAL_REWARD[reward] if illegal_reward is None
                               else float(illegal_reward))
        self.copy = copy
        self.num_envs = num_envs
        self.vec = VecEnv(self.rules, players, num_envs, seed=0, opponents=kernel,
                          reward=reward, knowledge=knowledge, learner=seat)
        A, D = self.vec.num_actions, self.vec.obs_size
        self.single_observation_space = spaces.Dict({
            "observation": spaces.Box(0.0, np.inf, (D,), np.float32),
            "action_mask": spaces.Box(0, 1, (A,), np.int8),
        })
        self.single_action_space = spaces.Discrete(A)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        self.render_mode = None
        self._rng = np.random.default_rng()
        self._started = False
        self._reward = np.zeros(num_envs, np.float32)
        self._done = np.zeros(num_envs, np.bool_)
        self._final = np.zeros((num_envs, D), np.float32)
        self._illegal = np.zeros(num_envs, np.bool_)
        self._points = np.zeros((num_envs, players), np.int64)
        self._winner = np.zeros(num_envs, np.int64)
        self._trunc = np.zeros(num_envs, np.bool_)

    # -- the neural opponents ---------------------------------------------------------------------
    def _neural_setup(self, players: int, num_envs: int) -> Any:
        from ..learn import features as F
        from ..learn import net as netmod

        why = F.supported(self.rules, players)
        if why:
            raise ValueError(f"the 'neural' opponent cannot play these rules at {players} "
                             f"players: {why}")
        if not isinstance(num_envs, int) or isinstance(num_envs, bool) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        net, _meta = netmod.cached(netmod.packaged_path())
        self.void = F.VoidTracker(self.rules, players, num_envs)
        return net

    def _neural_actions(self, rows: np.ndarray) -> np.ndarray:
        """The network's greedy choice for ``rows`` (each with a neural seat to move), from that
        seat's observation and the public known-absent cards only."""
        from ..learn import features as F

        v = self.vec
        o = v.obs[rows, :obs_size(self.n)]
        X = F.build(o, self.n, self.void.relative(v.seats[rows], rows), self.rules)
        q = self._neural.q(X, F.action_phi(o, self.n, self.rules))
        q[v.mask[rows] == 0] = -np.inf
        pick: np.ndarray = np.argmax(q, axis=1).astype(np.int64)
        return pick

    def _step_rows(self, actions: np.ndarray, active: np.ndarray) -> None:
        """``vec.step_rows``, keeping the known-absent cards up to date (with neural opponents
        every active row makes exactly one move: no seat plays inside the kernel)."""
        v = self.vec
        if self._neural is None:
            v.step_rows(actions, active)
            return
        seats = v.seats.copy()
        fits = v.obs[:, 104:156].copy()
        deal = v.st[:, C_DEAL].copy()  # any change: the row's deal was dealt anew
        moved = np.where(active & (actions >= 0), actions, -2)
        v.step_rows(actions, active)
        ended = v.st[:, C_DEAL] != deal
        self.void.update(moved, seats, fits, v.seats.copy(), v.obs, ended)

    # -- helpers --------------------------------------------------------------------------------
    def _collect(self, rows: np.ndarray) -> None:
        """Keep the result of the deals that ended in ``rows`` (the kernel's buffers are
        overwritten by the next call)."""
        v = self.vec
        ended = rows & v.dones
        if ended.any():
            self._done |= ended
            self._reward[ended] = v.rewards[ended, self.seat]
            self._final[ended] = v.final_obs[ended]
            self._points[ended] = v.points[ended]
            self._winner[ended] = v.winners[ended]

    def _advance(self) -> None:
        """Let the callable opponents move until every row waits for the learner."""
        v = self.vec
        while True:
            seats = v.seats
            waiting = seats != self.seat
            if not waiting.any():
                return
            actions = np.full(self.num_envs, -2, np.int64)
            for s, policy in self.callables.items():
                rows = np.flatnonzero(seats == s)
                if rows.size:
                    got = np.asarray(policy(v.obs[rows], v.mask[rows], seats[rows]),
                                     np.int64).reshape(-1)
                    if got.shape != rows.shape:
                        raise ValueError(f"the opponent policy of seat {s} returned "
                                         f"{got.shape[0]} actions for {rows.size} rows")
                    actions[rows] = got
            for s, code in self.kernel_seats.items():
                rows = np.flatnonzero(seats == s)
                if rows.size:
                    actions[rows] = kernel_actions(v, rows, code)
            for s in self.neural_seats:
                rows = np.flatnonzero(seats == s)
                if rows.size:
                    actions[rows] = self._neural_actions(rows)
            self._step_rows(actions, waiting)
            self._collect(waiting)

    def _obs(self) -> dict[str, np.ndarray]:
        o: dict[str, np.ndarray] = {"observation": self.vec.obs, "action_mask": self.vec.mask}
        return {k: a.copy() for k, a in o.items()} if self.copy else o

    # -- the VectorEnv API ----------------------------------------------------------------------
    def reset(self, *, seed: int | list[int] | None = None,
              options: dict[str, Any] | None = None) -> tuple[dict[str, np.ndarray],
                                                              dict[str, Any]]:
        """Deal every row anew. ``seed`` (an int; a list gives its first entry) fixes the
        whole run: row ``i``'s ``k``-th deal is deal ``i + k * num_envs`` of that seed."""
        if isinstance(seed, (list, tuple)):
            seed = seed[0] if seed else None
        if seed is not None:
            self._rng = np.random.default_rng(seed)
            run_seed = int(seed) & ((1 << 63) - 1)
        else:
            run_seed = int(self._rng.integers(0, 1 << 63))
        self.vec.seed = run_seed
        self.vec._rand_state[0] = np.uint64(run_seed)
        self.vec.reset()
        if self._neural is not None:
            self.void.void[:] = 0.0
        self._done[:] = False
        self._advance()
        self._started = True
        return self._obs(), {}

    def step(self, actions: Any) -> tuple[dict[str, np.ndarray], np.ndarray, np.ndarray,
                                          np.ndarray, dict[str, Any]]:
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, got shape {a.shape} "
                             f"of {a.dtype}")
        v = self.vec
        a = a.astype(np.int64)
        inside = (a >= 0) & (a < v.num_actions)
        legal = np.zeros(self.num_envs, np.bool_)
        legal[inside] = v.mask[np.flatnonzero(inside), a[inside]] != 0
        self._illegal = ~legal
        self._done[:] = False
        self._reward[:] = 0.0
        if self._illegal.any():  # the deal ends here, as seen before the action
            bad = self._illegal
            self._final[bad] = v.obs[bad]
            self._reward[bad] = self.illegal_reward
            self._points[bad] = 0
            self._winner[bad] = -1
            a = np.where(bad, -1, a)
        self._step_rows(a, np.ones(self.num_envs, np.bool_))
        self._collect(legal)
        self._done |= self._illegal
        self._advance()
        info: dict[str, Any] = {}
        done = self._done
        for i in np.flatnonzero(done):  # as Gymnasium's own SyncVectorEnv lays them out
            info = self._add_info(info, {
                "final_obs": {"observation": self._final[i].copy(),
                              "action_mask": np.zeros(v.num_actions, np.int8)},
                "final_info": {"points": self._points[i].copy(),
                               "winner": int(self._winner[i]),
                               "illegal": bool(self._illegal[i])}}, int(i))
        reward = self._reward.copy() if self.copy else self._reward
        term = done.copy() if self.copy else done
        return self._obs(), reward, term, self._trunc.copy(), info

    def action_masks(self) -> np.ndarray:
        """The legal actions of every row now, ``(num_envs, A)`` int8 (for MaskablePPO)."""
        return self.vec.mask.copy()

    def close_extras(self, **kwargs: Any) -> None:
        pass


__all__ = ["RistiseiskaVectorEnv", "KERNEL_POLICIES", "NEURAL"]

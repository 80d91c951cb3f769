# mypy: ignore-errors
# (numba-compiled code: numba types it)
"""A vectorised environment on the compiled kernel: ``N`` deals stepped together in numba.

The same action ids and observation layout as the PettingZoo environment
(:mod:`ristiseiska.rl.encoding`; for the one-deck rule sets the kernel plays: ``0..51`` play
a card, ``52`` stop, ``53`` token, ``54`` pass, ``55`` chip, ``56`` ask, ``57`` draw,
``58..109`` give a card), for every rule set :func:`ristiseiska.kernel.unsupported` accepts.
Needs only numpy and numba (no RL library)::

    >>> import numpy as np
    >>> from ristiseiska.rules import preset
    >>> from ristiseiska.kernel.vecenv import VecEnv
    >>> env = VecEnv(preset("ristiseiska"), players=4, num_envs=64, seed=1)
    >>> obs, mask, seat = env.reset()
    >>> rng = np.random.default_rng(0)
    >>> for _ in range(100):
    ...     actions = env.random_actions(rng)
    ...     obs, mask, seat, rewards, done = env.step(actions)

Each row is one deal; :meth:`VecEnv.step` applies each row's action for the seat to move
(``seat``), plays the seats given to the kernel's own policies (``opponents``), and when a
deal ends it reports the deal's rewards for every seat (``rewards[i]``, ``done[i]``) and
starts the row's next deal at once (the returned observation is already the new deal's).
Deal ``k`` of row ``i`` is deal number ``i + k * N`` of the run seeded with ``seed``
(:func:`ristiseiska.kernel.derive_seed`), dealer ``deal number % players``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..rules import Rules
from . import WEIGHTS, behind_array, policy_array, rule_arrays, stock_size, unsupported
from .codes import POLICY_EXPERT, STOCK_MAX
from .vecrows import (
    A_TOKEN,
    C_AUX,
    C_DEAL,
    C_DEALER,
    C_MORE,
    C_SEAT,
    EXTERNAL,
    N_COLS,
    NUM_ACTIONS,
    obs_size,
)
from .vecstep import knowledge_size, random_actions, reset_all, vec_step, vec_step_ex


class VecEnv:
    """``num_envs`` deals of ``rules`` at a table of ``players``, stepped together.

    ``opponents``: per seat, ``None`` for a seat the caller plays, or a kernel policy name
    (``"random"``, ``"greedy"``, ``"sensible"``, ``"strong"``) for a seat played inside the
    kernel; by default the caller plays every seat. ``reward``: ``"points"`` (minus the
    deal's points) or ``"win"`` (1 for the winner).

    Optional (all off by default, so that existing callers see no change):
    ``knowledge=k`` adds the knowledge block (:func:`knowledge_size`: card types each
    opponent is known not to hold, and the last ``k`` card plays) after the base
    observation; ``learner=seat`` never reports a deal that ends before that seat moved
    (it is dealt anew) and keeps each reported deal's final observation as that seat saw it
    in :attr:`final_obs`. :meth:`step_rows` steps only some rows."""

    def __init__(self, rules: Rules, players: int = 4, num_envs: int = 1, seed: int = 0,
                 opponents: Any = None, reward: str = "points", knowledge: int | None = None,
                 learner: int | None = None) -> None:
        why = unsupported(rules, players)
        if why:
            raise ValueError(why)
        if not isinstance(num_envs, int) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive integer, not {num_envs!r}")
        if reward not in ("points", "win"):
            raise ValueError(f"reward must be 'points' or 'win', not {reward!r}")
        self.rules = rules
        self.n = n = players
        self.num_envs = N = num_envs
        self.seed = seed
        self.reward = reward
        self.params, self.line0, self.pos0, self.values = rule_arrays(rules)
        self.behind = behind_array(rules)
        if opponents is None:
            opponents = [None] * n
        if len(opponents) != n:
            raise ValueError(f"opponents needs one entry per seat ({n}), got {len(opponents)}")
        names = ["random" if o is None else o for o in opponents]
        self.policy = policy_array(names, n).astype(np.int64)
        if (self.policy == POLICY_EXPERT).any():  # choose_action has not the table rows it needs
            raise ValueError("opponents: the 'expert' kernel policy is for the search's "
                             "playouts only; use 'sensible', 'strong', 'greedy', 'epsilon' "
                             "or 'random' here")
        for s, o in enumerate(opponents):
            if o is None:
                self.policy[s] = EXTERNAL
        if (self.policy == EXTERNAL).sum() == 0:
            raise ValueError("at least one seat must be played by the caller (opponents=None)")
        self.num_actions = NUM_ACTIONS
        self.obs_size = obs_size(n)
        self.st = np.zeros((N, N_COLS), np.int64)
        self.hands = np.zeros((N, n), np.uint64)
        self.turns = np.zeros((N, n), np.int64)
        self.chips = np.zeros((N, n), np.int64)
        self.pens = np.zeros((N, n), np.int64)
        self.stock = np.zeros((N, STOCK_MAX), np.int64)
        self.stock_len = stock_size(rules)
        self.lines = np.zeros((N, 13), np.int64)
        self.poss = np.zeros((N, 13), np.int64)
        self.rng = np.zeros(N, np.uint64)
        self.dealt = np.zeros((N, n), np.uint64)
        self.tab = np.zeros(N, np.uint64)  # the cards on the table
        self.dealt_stock = np.zeros((N, STOCK_MAX), np.int64)
        self.obs = np.zeros((N, self.obs_size), np.float32)
        self.mask = np.zeros((N, NUM_ACTIONS), np.int8)
        self.rewards = np.zeros((N, n), np.float32)
        self.dones = np.zeros(N, np.bool_)
        self.winners = np.full(N, -1, np.int64)
        self.points = np.zeros((N, n), np.int64)
        self._noop = np.zeros(N, np.int64)
        self._rand_state = np.array([seed & ((1 << 64) - 1)], np.uint64)
        self._started = False
        if knowledge is not None and (not isinstance(knowledge, int) or knowledge < 0):
            raise ValueError(f"knowledge must be a number of last plays (0 or more) or None, "
                             f"not {knowledge!r}")
        if learner is not None and (not isinstance(learner, int) or not 0 <= learner < n
                                    or self.policy[learner] != EXTERNAL):
            raise ValueError(f"learner must be a seat the caller plays, not {learner!r}")
        self.knowledge = knowledge
        self.learner = learner
        self._ex = knowledge is not None or learner is not None
        if knowledge is not None:
            self.base_obs_size = self.obs_size
            self.obs_size += knowledge_size(n, knowledge)
            self.obs = np.zeros((N, self.obs_size), np.float32)
        self.absent = np.zeros((N, n, n), np.uint64)
        self.recent = np.full((N, knowledge or 0), -1, np.int64)
        self.acted = np.zeros(N, np.bool_)
        self.final_obs = np.zeros((N, self.obs_size), np.float32)
        self._all = np.ones(N, np.bool_)

    def _run_ex(self, actions: np.ndarray, active: np.ndarray) -> int:
        return vec_step_ex(actions, active, -1 if self.learner is None else self.learner,
                           self.n, self.num_envs, np.uint64(self.seed), self.policy,
                           1 if self.reward == "win" else 0, self.st, self.hands, self.turns,
                           self.chips, self.pens, self.stock, self.stock_len, self.lines,
                           self.poss, self.rng, self.line0, self.pos0, self.params,
                           self.values, self.behind, WEIGHTS, self.dealt, self.dealt_stock,
                           self.tab, self.obs, self.mask, self.rewards, self.dones,
                           self.winners, self.points, self.knowledge is not None,
                           self.absent, self.recent, self.acted, self.final_obs)

    def _run(self, actions: np.ndarray, apply: bool) -> int:
        if self._ex:
            return self._run_ex(actions if apply else np.full(self.num_envs, -2, np.int64),
                                self._all)
        return vec_step(actions, apply, self.n, self.num_envs, np.uint64(self.seed),
                        self.policy, 1 if self.reward == "win" else 0, self.st, self.hands,
                        self.turns, self.chips, self.pens, self.stock, self.stock_len,
                        self.lines, self.poss,
                        self.rng, self.line0, self.pos0, self.params, self.values, self.behind,
                        WEIGHTS, self.dealt, self.dealt_stock, self.tab, self.obs, self.mask,
                        self.rewards, self.dones, self.winners, self.points)

    def reset(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Deal every row again (from the first deals of the run); returns ``(obs, mask,
        seat)``: the observation and legal mask of each row's seat to move, and that seat."""
        reset_all(self.n, self.num_envs, np.uint64(self.seed), self.st, self.hands, self.turns,
                  self.chips, self.pens, self.stock, self.lines, self.poss, self.rng,
                  self.line0, self.pos0, self.params, self.dealt, self.dealt_stock, self.tab)
        self.absent[:] = 0
        self.recent[:] = -1
        self.acted[:] = False
        self._run(self._noop, False)
        self._started = True
        return self.obs, self.mask, self.st[:, C_SEAT]

    def step(self, actions: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray,
                                           np.ndarray]:
        """Apply one action per row; returns ``(obs, mask, seat, rewards, done)``. The arrays
        are the environment's own buffers, overwritten by the next call (copy what you keep).
        An illegal action raises ``ValueError`` naming the row, and nothing changes."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        a = np.asarray(actions)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be {self.num_envs} integers, got shape {a.shape} "
                             f"of {a.dtype}")
        bad = self._run(a.astype(np.int64, copy=False), True)
        if bad >= 0:
            raise ValueError(f"row {bad}: action {int(a[bad])} is not legal now "
                             f"(legal: {np.flatnonzero(self.mask[bad]).tolist()})")
        return self.obs, self.mask, self.st[:, C_SEAT], self.rewards, self.dones

    def step_rows(self, actions: Any, active: Any) -> tuple[np.ndarray, np.ndarray, np.ndarray,
                                                            np.ndarray, np.ndarray]:
        """:meth:`step` for the rows where ``active`` is true only (the others keep their
        position, and their ``rewards``/``done`` entries from before). ``actions[i] = -1``
        abandons row ``i``'s deal (dealt anew, no reward); ``-2`` only lets the kernel's
        seats move."""
        if not self._started:
            raise RuntimeError("call reset() before step_rows()")
        a = np.asarray(actions)
        act = np.asarray(active, np.bool_)
        if a.shape != (self.num_envs,) or not np.issubdtype(a.dtype, np.integer) or \
                act.shape != (self.num_envs,):
            raise ValueError(f"actions and active must be {self.num_envs} integers and "
                             f"booleans, got shapes {a.shape} and {act.shape}")
        bad = self._run_ex(a.astype(np.int64, copy=False), act)
        if bad >= 0:
            raise ValueError(f"row {bad}: action {int(a[bad])} is not legal now "
                             f"(legal: {np.flatnonzero(self.mask[bad]).tolist()})")
        return self.obs, self.mask, self.st[:, C_SEAT], self.rewards, self.dones

    def random_actions(self, rng: np.random.Generator | None = None) -> np.ndarray:
        """A uniform legal action for every row (from ``rng``, else the env's own stream)."""
        out = np.zeros(self.num_envs, np.int64)
        if rng is not None:
            self._rand_state[0] = np.uint64(int(rng.integers(0, 1 << 63)))
        random_actions(self.mask, self._rand_state, out)
        return out

    def deal_setup(self, i: int) -> dict[str, Any]:
        """Row ``i``'s current deal as dealt: hands (card id lists per seat), stock, dealer and
        deal number (to replay it in the full engine)."""
        hands = [[c for c in range(52) if int(self.dealt[i, s]) >> c & 1] for s in range(self.n)]
        stock = self.dealt_stock[i, :self.stock_len].tolist()
        return {"hands": hands, "stock": stock, "dealer": int(self.st[i, C_DEALER]),
                "deal": int(self.st[i, C_DEAL])}

    @property
    def seats(self) -> np.ndarray:
        return self.st[:, C_SEAT]


def warm_up() -> None:
    """Compile the environment's functions once (cached on disk afterwards)."""
    from ..rules import Rules

    env = VecEnv(Rules(), 4, 2, seed=0, opponents=[None, "random", "greedy", "random"])
    env.reset()
    for _ in range(3):
        env.step(env.random_actions())
    # the extended step too (the knowledge block, some rows only: master-neural's playouts
    # against the kernel's models of the opponents)
    env = VecEnv(Rules(), 4, 2, seed=0, opponents=[None, "sensible", "random", "sensible"],
                 knowledge=0)
    env.reset()
    env.step_rows(env.random_actions(), np.array([True, False]))


# The row layout and action ids are at home in vecrows.py; these are importable from here too.
__all__ = ["VecEnv", "NUM_ACTIONS", "obs_size", "knowledge_size", "warm_up", "A_TOKEN", "C_AUX",
           "C_DEAL", "C_MORE", "C_SEAT"]

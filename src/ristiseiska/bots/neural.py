"""The ``neural`` bot: the learned action-value network alone (:mod:`ristiseiska.learn`).

    >>> from ristiseiska import Game, Rules
    >>> from ristiseiska.bots import get_bot
    >>> g = Game(Rules(), players=4, seed=1)
    >>> get_bot("neural", seed=1).choose(g.view(g.to_move)) in g.legal_moves()
    True

It reads only its seat's view: the observation of :mod:`ristiseiska.rl.encoding`, the
opponents' known-absent cards from the public history (:func:`ristiseiska.learn.features.view_void`)
and the rules, and plays the legal move of highest value — a few milliseconds a move, no
search. ``path=`` loads other weights (``ristiseiska train --out FILE``); the default is the
network shipped in the package. The network plays every rule set of the compiled kernel at
3–6 players (trained on ``ristiseiska``, ``ristiseiska-pyynto``, ``sjuan`` and ``fan-tan``);
elsewhere (two decks, jokers, two players) it plays the ``expert`` bot's move and says so in
its reason (``neural_fallback``). Deterministic: no randomness at all (ties go to the first
legal move).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..moves import Move
from .base import Bot, Reason, legal_of
from .expert import ExpertBot
from .neural_plain import NetworkPlay


class NeuralBot(NetworkPlay):
    name = "neural"

    def __init__(self, seed: int | None = None, path: str | None = None, **options: Any) -> None:
        super().__init__(seed=seed, **options)
        from ..learn import net as netmod

        self.path = str(path) if path is not None else netmod.packaged_path()
        self.net, self.meta = netmod.cached(self.path)
        if self.meta.get("role") == "value":
            # a PPO run's value network has the policy's shape: it would load and play nonsense
            raise netmod.NetError(f"{self.path!r} is the value network of a PPO run, not a "
                                  f"policy: give the file named by --out instead")
        self._fallback: ExpertBot | None = None
        # what a decision imports (numba with the kernel among it: 0.5-4 s on a cold disk),
        # now, so that the first move is as quick as the others
        from .. import kernel  # noqa: F401
        from ..learn import dmc, features  # noqa: F401
        from ..rl import encoding  # noqa: F401

    def unsupported(self, view: Any) -> str | None:
        """Why the network does not play this view's rules (``None``: it does)."""
        from ..learn.features import supported

        return supported(view.rules, view.players)

    def action_values(self, view: Any) -> tuple[list[Move], np.ndarray]:
        """The legal moves and the network's value of each (for the seat of ``view``)."""
        from ..learn import features as F
        from ..rl.encoding import Encoding

        legal = list(legal_of(view))
        enc = Encoding(view.rules, view.players)
        obs = enc.observe(view)[None, :]
        void = F.view_void(view)[None]
        X = F.build(obs, view.players, void, view.rules)
        q = self.net.q(X, F.action_phi(obs, view.players, view.rules))[0]
        ids = [enc.move_to_action(m) for m in legal]
        return legal, q[ids].astype(np.float64)


class NeuralMasterBot(Bot):
    """Search on top of the learned network (:mod:`ristiseiska.search.network`): sampled deals
    of the hidden cards weighted by how likely the network finds the opponents' recent plays,
    every candidate move played on by the network for every seat until the bot's ``depth``-th
    next turn (0: to the end of the deal), where the network's value cuts the playout short.

    Options: ``worlds`` (deals kept, default 48), ``oversample`` (deals drawn per deal kept,
    default 4), ``beta`` (sharpness of the weighting; 0 keeps the deals unweighted),
    ``last`` (recent plays scored per opponent), ``depth``, ``path`` (weights). Deterministic
    for a seed and a view; no time cap (the work per move is fixed). Rule sets the network does
    not play go to the classic master bot (reason ``neural_fallback``).
    """

    name = "master-neural"

    def __init__(self, seed: int | None = None, path: str | None = None, worlds: int = 48,
                 oversample: int = 4, beta: float = 1.0, last: int = 4, depth: int = 2,
                 prior: float = 0.0, opp: str = "network", rollouts: int = 1,
                 **options: Any) -> None:
        super().__init__(seed=seed, **options)
        if opp not in ("network", "auto"):
            raise ValueError(f"opp must be 'network' or 'auto', not {opp!r}")
        self.opp = opp
        for label, v, lo in (("worlds", worlds, 1), ("oversample", oversample, 1),
                             ("last", last, 0), ("depth", depth, 0), ("rollouts", rollouts, 1)):
            if not isinstance(v, int) or isinstance(v, bool) or v < lo:
                raise ValueError(f"{label} must be an integer ≥ {lo}, not {v!r}")
        for label, x in (("beta", beta), ("prior", prior)):
            if not isinstance(x, int | float) or x < 0:
                raise ValueError(f"{label} must be a number ≥ 0, not {x!r}")
        self.worlds, self.oversample, self.last, self.depth = worlds, oversample, last, depth
        self.beta, self.prior = float(beta), float(prior)
        self.rollouts = rollouts
        self.policy = NeuralBot(seed=self.seed, path=path)
        self.net = self.policy.net
        from .. import kernel
        from ..search import Sampler

        # the search's compiled sampler: with opp="network" its own weighting is off (the
        # network weighs); with opp="auto" the classic model weighs the deals and tells which
        # opponents play sensibly (oversample and beta then as the classic master's)
        self.sampler = Sampler(beta=0.0) if opp == "network" else Sampler()
        kernel.warm_up()  # the sampler's compiled code, now rather than during the first move
        from ..kernel import vecenv

        # compile (the first run after an install) or load the playouts' environment now, not
        # during the first move; in a process that has done it once this costs nothing
        vecenv.warm_up()
        self._classic: Bot | None = None
        self.last_stats: dict[str, Any] = {}

    def classic(self) -> Bot:
        if self._classic is None:
            from .master import MasterBot

            self._classic = MasterBot(seed=self.seed)
        return self._classic

    def decide(self, view: Any) -> tuple[Move, Reason]:
        why = self.policy.unsupported(view)
        if why is not None:
            move, reason = self.classic().decide(view)
            return move, ("neural_fallback", {"base": reason, "why": why})
        legal = list(legal_of(view))
        if len(legal) == 1:
            return self.policy.fallback_bot().decide(view)
        values = self.search(view, legal)
        if values is None:  # no sampled deals (open cards): the network's own choice
            return self.policy.decide(view)
        if self.prior:
            _legal, q = self.policy.action_values(view)
            values = values + self.prior * q
        k = int(np.argmax(values))
        move = legal[k]
        base = self.policy.fallback_bot().reason_for(view, move)
        return move, ("master_neural", {"base": base, "worlds": self.last_stats["worlds"]})

    def search(self, view: Any, legal: list[Move]) -> np.ndarray | None:
        """The mean playout outcome of every legal move (``win - points / scale``)."""
        import time

        from ..search.network import (
            past_choices,
            playout_values,
            policy_log_likelihood,
            resample,
            scale_for,
        )

        t0 = time.perf_counter()
        me, n = view.seat, view.players
        rng = self.rng_for(view)
        auto = self.opp == "auto"
        total = self.worlds * (self.oversample if self.beta > 0 and not auto else 1)
        masks = self.sampler.masks(view, rng, total)
        if masks is None:
            return None
        if self.beta > 0 and self.last > 0 and not auto:  # (auto: the classic model weighed)
            moments = past_choices(view, self.last)
            ll = policy_log_likelihood(self.net, view, masks, moments, self.beta)
            masks = masks[resample(ll, self.worlds, rng.random())]
        else:
            masks = masks[:self.worlds]
        W = masks.shape[0]
        scale = scale_for(view.rules, n)
        values = playout_values(
            self.net, view, legal, masks, rng, scale=scale, rollouts=self.rollouts,
            depth=self.depth,  # (with opp="auto" the network plays this seat: "greedy" unused)
            opponents=self.sampler.playout_policy(n, me, "greedy", "auto") if auto else None)
        self.last_stats = {"worlds": W, "seconds": time.perf_counter() - t0,
                           "moves": [str(m) for m in legal], "value": values.tolist()}
        return values

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


class NeuralBot(Bot):
    name = "neural"

    def __init__(self, seed: int | None = None, path: str | None = None, **options: Any) -> None:
        super().__init__(seed=seed, **options)
        from ..learn import net as netmod

        self.path = str(path) if path is not None else netmod.packaged_path()
        self.net, self.meta = netmod.cached(self.path)
        self._fallback: Bot | None = None

    def fallback_bot(self) -> Bot:
        if self._fallback is None:
            from .expert import ExpertBot

            self._fallback = ExpertBot(seed=self.seed)
        return self._fallback

    def unsupported(self, view: Any) -> str | None:
        """Why the network does not play this view's rules (``None``: it does)."""
        from ..learn.features import supported

        return supported(view.rules, view.players)

    def action_values(self, view: Any) -> tuple[list[Move], np.ndarray]:
        """The legal moves and the network's value of each (for the seat of ``view``)."""
        from ..learn import features as F
        from ..learn.dmc import action_phi
        from ..rl.encoding import Encoding

        legal = list(legal_of(view))
        enc = Encoding(view.rules, view.players)
        obs = enc.observe(view)[None, :]
        void = F.view_void(view)[None]
        X = F.build(obs, view.players, void, view.rules)
        q = self.net.q(X, action_phi(obs, view.players, view.rules))[0]
        ids = [enc.move_to_action(m) for m in legal]
        return legal, q[ids].astype(np.float64)

    def decide(self, view: Any) -> tuple[Move, Reason]:
        why = self.unsupported(view)
        if why is not None:
            move, reason = self.fallback_bot().decide(view)
            return move, ("neural_fallback", {"base": reason, "why": why})
        legal = list(legal_of(view))
        if len(legal) == 1:
            return self.fallback_bot().decide(view)
        legal, q = self.action_values(view)
        k = int(np.argmax(q))
        return legal[k], ("neural", {"move": str(legal[k])})

"""A Gymnasium-style policy as a bot: train with our environments, then play it anywhere.

    >>> import numpy as np
    >>> from ristiseiska import Game, Rules
    >>> first_legal = lambda obs: int(np.flatnonzero(obs["action_mask"])[0])
    >>> bot = AgentBot(first_legal, seed=1)
    >>> g = Game(Rules(), 4, seed=3)
    >>> bot.choose(g.view(g.to_move)) in g.legal_moves()
    True

The policy gets what the Gymnasium environment (:mod:`.gym_env`) would give the same seat:
the Dict observation ``{"observation": float32 vector, "action_mask": int8 vector}`` of
:class:`.encoding.Encoding` for the view's rules and number of players, and answers with an
action id of the same table. Two kinds of policy are understood:

* an object with ``predict`` as in Stable-Baselines3: ``predict(obs, action_masks=mask,
  deterministic=True)`` returning ``(action, state)`` (sb3-contrib's ``MaskablePPO``), or
  ``predict(obs, deterministic=True)`` when it takes no mask;
* any callable ``policy(obs) -> action``.

An action that is not legal raises :class:`~ristiseiska.bots.plugins.IllegalMove`; played as a
plugin (``ristiseiska tournament --bots mymodule:MyAgent``) the guard then plays the basic
bot's move and counts the fault. To make a trained model a plugin, subclass :class:`AgentBot`
in a module of your own (docs/rl.md, *Bring your own bot*)::

    class MyAgent(AgentBot):
        def __init__(self, seed=None):
            from sb3_contrib import MaskablePPO
            super().__init__(MaskablePPO.load("model.zip"), seed=seed)
"""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np

from ..bots.base import Bot, Reason, legal_of
from ..bots.plugins import IllegalMove
from ..moves import Move
from .encoding import ActionError, Encoding


class AgentBot(Bot):
    """A bot that asks ``policy`` for an action id (see the module's notes).

    ``knowledge``: the observation's optional knowledge block, as the environment's
    ``knowledge=`` (the policy must have been trained with the same). ``deterministic`` is
    passed to ``predict``."""

    name = "agent"

    def __init__(self, policy: Any = None, seed: int | None = None, knowledge: int | None = None,
                 deterministic: bool = True) -> None:
        super().__init__(seed=seed)
        if policy is None or not (callable(policy) or callable(getattr(policy, "predict", None))):
            raise ValueError("AgentBot needs a policy: an object with predict(obs, ...) or a "
                             f"callable obs -> action, not {policy!r}")
        if knowledge is not None and (not isinstance(knowledge, int) or knowledge < 0):
            raise ValueError(f"knowledge must be a number of last plays (0 or more) or None, "
                             f"not {knowledge!r}")
        self.policy = policy
        self.knowledge = knowledge
        self.deterministic = bool(deterministic)
        self._encodings: dict[tuple[Any, int], Encoding] = {}
        predict = getattr(policy, "predict", None)
        self._masked = False
        if callable(predict):
            try:
                self._masked = "action_masks" in inspect.signature(predict).parameters
            except (TypeError, ValueError):  # a builtin without a signature
                self._masked = False

    def encoding(self, view: Any) -> Encoding:
        """The observation and action table for the view's rules and players."""
        key = (view.rules, view.players)
        enc = self._encodings.get(key)
        if enc is None:
            enc = self._encodings[key] = Encoding(view.rules, view.players, self.knowledge)
        return enc

    def observe(self, view: Any) -> dict[str, np.ndarray]:
        """The Dict observation the Gymnasium environment gives this seat now."""
        enc = self.encoding(view)
        return {"observation": enc.observe(view), "action_mask": enc.legal_mask(view.legal_moves)}

    def act(self, obs: dict[str, np.ndarray]) -> Any:
        predict = getattr(self.policy, "predict", None)
        if callable(predict):
            if self._masked:
                out = predict(obs, action_masks=obs["action_mask"],
                              deterministic=self.deterministic)
            else:
                out = predict(obs, deterministic=self.deterministic)
            return out[0] if isinstance(out, tuple) else out
        return self.policy(obs)

    def decide(self, view: Any) -> tuple[Move, Reason]:
        legal = legal_of(view)
        obs = self.observe(view)
        action = self.act(obs)
        try:
            move = self.encoding(view).action_to_move(np.asarray(action).reshape(-1)[0]
                                                      if np.ndim(action) else action, legal)
        except (ActionError, IndexError, TypeError, ValueError) as e:
            raise IllegalMove(f"the policy chose action {action!r}, which is not legal "
                              f"here: {e}") from None
        return move, ("move_generic", {"move": str(move)})


__all__ = ["AgentBot"]

"""A trained policy as a bot plugin (docs/rl.md, *Bring your own bot*).

    PYTHONPATH=examples ristiseiska tournament --bots agent_plugin:LinearAgent,expert,random,random --games 4

``LinearAgent`` stands in for a trained model: a linear policy with seeded random weights and
the ``predict(obs, action_masks=..., deterministic=...)`` of Stable-Baselines3. With a real
model, load it in ``__init__`` instead, e.g. ``MaskablePPO.load("model.zip")`` (sb3-contrib).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ristiseiska.rl.agent import AgentBot


class LinearPolicy:
    def __init__(self, seed: int = 0) -> None:
        self.rng = np.random.default_rng(seed)
        self.W: np.ndarray | None = None

    def predict(self, obs: dict[str, np.ndarray], action_masks: Any = None,
                deterministic: bool = True) -> tuple[np.ndarray, None]:
        x, mask = obs["observation"], np.asarray(action_masks)
        if self.W is None or self.W.shape != (mask.size, x.size):
            self.W = self.rng.normal(size=(mask.size, x.size))
        logits = np.where(mask > 0, self.W @ np.log1p(x), -np.inf)
        return np.array(int(np.argmax(logits))), None


class LinearAgent(AgentBot):
    def __init__(self, seed: int | None = None) -> None:
        super().__init__(LinearPolicy(), seed=seed)

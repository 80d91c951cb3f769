"""The ``policy`` bot: a linear softmax policy over the observation, loaded from a file.

    >>> from ristiseiska.bots import get_bot
    >>> bot = get_bot("policy", path="policy.npz")        # doctest: +SKIP

The file (``.npz``, written by ``python -m ristiseiska.rl.train``) holds ``W`` (a
``(D + 1) × A`` float matrix: one row per observation value, the last row the bias),
``scale`` (``D`` divisors applied to the observation first), optionally ``theta`` (weights of
the per-action features of
:func:`ristiseiska.learn.features.action_features`) and ``meta`` (JSON: the rules it was
trained on, players, sizes). The logit of action ``a`` is ``[x, 1] @ W[:, a] + theta @
phi(x, a)``. Observation and action ids are those of :mod:`ristiseiska.rl.encoding`, built
from the bot's own view only. By default the bot plays
the most probable legal move; ``sample=1`` draws from the policy instead (seeded, so the same
seed and view give the same move). Needs only numpy.
"""

from __future__ import annotations

import json
import os
from functools import lru_cache
from typing import Any

import numpy as np

from ..learn.features import ACTION_FEATURES, NUM_ACTIONS, action_features, feature_tables
from ..moves import Move
from .base import Bot, Reason, legal_of

FORMAT = "ristiseiska-linear-policy"


class PolicyFileError(ValueError):
    """A file that is not a policy this bot can use."""


@lru_cache(maxsize=8)
def load_policy(path: str) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, dict[str, Any]]:
    """``(W, scale, theta, meta)`` from a policy file (cached per path; do not change the
    arrays). ``theta`` is ``None`` for a plain linear policy."""
    if not os.path.isfile(path):
        raise PolicyFileError(f"policy file {path!r} does not exist")
    try:
        with np.load(path, allow_pickle=False) as f:
            W = np.asarray(f["W"], np.float64)
            scale = np.asarray(f["scale"], np.float64)
            meta = json.loads(str(f["meta"]))
            theta = np.asarray(f["theta"], np.float64) if "theta" in f.files else None
    except (OSError, KeyError, ValueError) as e:
        raise PolicyFileError(f"{path!r} is not a policy file: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise PolicyFileError(f"{path!r} is not a {FORMAT} file")
    if W.ndim != 2 or scale.shape != (W.shape[0] - 1,) or not np.isfinite(W).all():
        raise PolicyFileError(f"{path!r}: the weights have the wrong shape or are not finite")
    if theta is not None and (theta.shape != (len(ACTION_FEATURES),) or W.shape[1] != NUM_ACTIONS
                              or not np.isfinite(theta).all()):
        raise PolicyFileError(f"{path!r}: the feature weights do not fit this bot")
    return W, scale, theta, meta


class PolicyBot(Bot):
    name = "policy"

    def __init__(self, seed: int | None = None, path: str | None = None, sample: int = 0,
                 **options: Any) -> None:
        super().__init__(seed=seed, **options)
        if path is None:
            raise ValueError("the policy bot needs a policy file: get_bot('policy', path=...)"
                             " (train one with: python -m ristiseiska.rl.train)")
        self.path = str(path)
        self.W, self.scale, self.theta, self.meta = load_policy(self.path)
        self.sample = bool(sample)

    def probabilities(self, view: Any) -> tuple[list[Move], np.ndarray]:
        """The legal moves and the policy's probability of each."""
        from ..rl.encoding import Encoding

        enc = Encoding(view.rules, view.players)
        if (enc.obs_size, enc.num_actions) != (self.W.shape[0] - 1, self.W.shape[1]):
            raise PolicyFileError(
                f"{self.path!r} was trained for observations of {self.W.shape[0] - 1} values "
                f"and {self.W.shape[1]} actions; these rules at {view.players} players have "
                f"{enc.obs_size} and {enc.num_actions} (train a policy for them)")
        legal = list(legal_of(view))
        ids = [enc.move_to_action(m) for m in legal]
        obs = enc.observe(view)
        x = obs / self.scale
        logits = x @ self.W[:-1, ids] + self.W[-1, ids]
        if self.theta is not None:
            from ..kernel import unsupported

            why = unsupported(view.rules, view.players)
            if why:
                raise PolicyFileError(f"{self.path!r} uses card features that need rules the "
                                      f"kernel plays: {why}")
            B, values = feature_tables(view.rules)
            phi = action_features(obs[None, :], view.players, B, values)[0]
            logits = logits + phi[ids] @ self.theta
        p = np.exp(logits - logits.max())
        return legal, p / p.sum()

    def decide(self, view: Any) -> tuple[Move, Reason]:
        legal, p = self.probabilities(view)
        if len(legal) == 1:
            k = 0
        elif self.sample:
            k = int(self.rng_for(view).choices(range(len(legal)), weights=p.tolist())[0])
        else:
            k = int(np.argmax(p))
        m = legal[k]
        return m, ("policy", {"move": str(m)})

"""A small action-value network in plain numpy: inference for the bots, training for
:mod:`.dmc`.

``Q(s, ·) = W3 · relu(W2 · relu(W1 · x + b1) + b2) + b3 + φ(s, ·) · θ`` — one output per action
id of the one-deck action table (110), plus a linear term over hand-made per-action card
features φ (:func:`.features.action_features`: what lies behind a card, its
points). ``Q(s, a)`` estimates the deal's outcome for the seat to move after action ``a``
(``win - points / 60``, see :data:`.dmc.POINTS_SCALE`); the policy plays the legal action of
highest ``Q`` and the value of a position is that maximum.
"""

from __future__ import annotations

import json
from functools import lru_cache
from typing import Any

import numpy as np

from .features import ACTION_FEATURES, FEATURE_SIZE, NUM_ACTIONS

FORMAT = "ristiseiska-neural-q"
N_PHI = len(ACTION_FEATURES)
NAMES = ("W1", "b1", "W2", "b2", "W3", "b3", "theta")


class NetError(ValueError):
    """A weights file that is not a network this code can use."""


class Net:
    """The weights (float32) and, for training, Adam moments."""

    def __init__(self, hidden: tuple[int, int] = (256, 128), seed: int = 0,
                 params: dict[str, np.ndarray] | None = None) -> None:
        if params is None:
            rng = np.random.default_rng(seed)
            h1, h2 = hidden
            params = {
                "W1": rng.normal(0, np.sqrt(2.0 / FEATURE_SIZE), (FEATURE_SIZE, h1)),
                "b1": np.zeros(h1),
                "W2": rng.normal(0, np.sqrt(2.0 / h1), (h1, h2)),
                "b2": np.zeros(h2),
                "W3": rng.normal(0, np.sqrt(1.0 / h2) * 0.1, (h2, NUM_ACTIONS)),
                "b3": np.zeros(NUM_ACTIONS),
                "theta": np.zeros(N_PHI),
            }
        self.p = {k: np.ascontiguousarray(params[k], np.float32) for k in NAMES}
        self.hidden = (self.p["W1"].shape[1], self.p["W2"].shape[1])
        self.m: dict[str, np.ndarray] = {}
        self.v: dict[str, np.ndarray] = {}
        self.t = 0

    # -- inference ------------------------------------------------------------------------
    def q(self, X: np.ndarray, phi: np.ndarray) -> np.ndarray:
        """``(N, 110)`` action values of ``N`` feature rows; ``phi``: ``(N, 110, 9)``."""
        p = self.p
        h = np.maximum(X @ p["W1"] + p["b1"], 0.0)
        h = np.maximum(h @ p["W2"] + p["b2"], 0.0)
        q: np.ndarray = h @ p["W3"] + p["b3"] + phi.astype(np.float32) @ p["theta"]
        return q

    # -- training -------------------------------------------------------------------------
    def train_step(self, X: np.ndarray, phi_a: np.ndarray, a: np.ndarray, target: np.ndarray,
                   lr: float = 3e-4, clip: float = 5.0) -> float:
        """One Adam step on the mean squared error of ``Q(s, a)`` against ``target``;
        ``phi_a``: ``(N, 9)``, the chosen actions' card features. Returns the loss."""
        p = self.p
        N = X.shape[0]
        z1, z2, h2 = self._hidden(X)
        rows = np.arange(N)
        qa = (h2 * p["W3"][:, a].T).sum(axis=1) + p["b3"][a] + phi_a @ p["theta"]
        err = (qa - target).astype(np.float32)
        loss = float((err * err).mean())
        g = (2.0 / N) * err  # dL/dqa
        G3 = np.zeros((N, NUM_ACTIONS), np.float32)
        G3[rows, a] = g
        self._apply(self._grads(X, z1, z2, h2, G3, phi_a.T @ g), lr, clip)
        return loss

    def forward(self, X: np.ndarray, phi: np.ndarray) -> tuple[np.ndarray, Any]:
        """The outputs of :meth:`q` and what :meth:`step_outputs` needs to go back through
        them (for losses other than :meth:`train_step`'s, e.g. a policy gradient)."""
        z1, z2, h2 = self._hidden(X)
        p = self.p
        q: np.ndarray = h2 @ p["W3"] + p["b3"] + phi.astype(np.float32) @ p["theta"]
        return q, (X, phi, z1, z2, h2)

    def step_outputs(self, cache: Any, G: np.ndarray, lr: float = 3e-4,
                     clip: float = 5.0) -> None:
        """One Adam step given ``G`` = dLoss/dOutputs ``(N, 110)`` of a :meth:`forward`."""
        X, phi, z1, z2, h2 = cache
        G = G.astype(np.float32)
        g_theta = np.einsum("na,nak->k", G, phi.astype(np.float32))
        self._apply(self._grads(X, z1, z2, h2, G, g_theta), lr, clip)

    def _hidden(self, X: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        p = self.p
        z1 = X @ p["W1"] + p["b1"]
        z2 = np.maximum(z1, 0.0) @ p["W2"] + p["b2"]
        return z1, z2, np.maximum(z2, 0.0)

    def _grads(self, X: np.ndarray, z1: np.ndarray, z2: np.ndarray, h2: np.ndarray,
               G3: np.ndarray, g_theta: np.ndarray) -> dict[str, np.ndarray]:
        """Back-propagation of dLoss/dOutputs ``G3`` (the ``theta`` part given)."""
        p = self.p
        h1 = np.maximum(z1, 0.0)
        grads: dict[str, np.ndarray] = {"W3": h2.T @ G3, "b3": G3.sum(axis=0), "theta": g_theta}
        d2 = (G3 @ p["W3"].T) * (z2 > 0)
        grads["W2"] = h1.T @ d2
        grads["b2"] = d2.sum(axis=0)
        d1 = (d2 @ p["W2"].T) * (z1 > 0)
        grads["W1"] = X.T @ d1
        grads["b1"] = d1.sum(axis=0)
        return grads

    def _apply(self, grads: dict[str, np.ndarray], lr: float, clip: float) -> None:
        """Adam, with the whole gradient's norm clipped to ``clip``."""
        norm = float(np.sqrt(sum(float((gr * gr).sum()) for gr in grads.values())))
        scale = min(1.0, clip / (norm + 1e-12))
        self.t += 1
        b1, b2 = 0.9, 0.999
        for k, gr in grads.items():
            gr = gr.astype(np.float32) * scale
            if k not in self.m:
                self.m[k] = np.zeros_like(self.p[k])
                self.v[k] = np.zeros_like(self.p[k])
            self.m[k] = b1 * self.m[k] + (1 - b1) * gr
            self.v[k] = b2 * self.v[k] + (1 - b2) * gr * gr
            mh = self.m[k] / (1 - b1 ** self.t)
            vh = self.v[k] / (1 - b2 ** self.t)
            self.p[k] -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)

    # -- files ----------------------------------------------------------------------------
    def arrays(self, optimizer: bool = False) -> dict[str, np.ndarray]:
        out = {k: v for k, v in self.p.items()}
        if optimizer:
            for k in self.m:
                out["adam_m_" + k] = self.m[k]
                out["adam_v_" + k] = self.v[k]
            out["adam_t"] = np.array(self.t)
        return out

    def save(self, path: str, meta: dict[str, Any], optimizer: bool = False,
             half: bool = False) -> None:
        """Write the weights (``half``: as float16, half the size) and ``meta`` (JSON)."""
        arrays = self.arrays(optimizer)
        if half:
            arrays = {k: (v.astype(np.float16) if k in NAMES else v) for k, v in arrays.items()}
        meta = dict(meta, format=FORMAT, hidden=list(self.hidden))
        arrays["meta"] = np.array(json.dumps(meta))
        np.savez_compressed(path, **arrays)  # type: ignore[arg-type]


def load(path: str, optimizer: bool = False) -> tuple[Net, dict[str, Any]]:
    """The network and its ``meta`` from a file written by :meth:`Net.save`."""
    try:
        with np.load(path, allow_pickle=False) as f:
            meta = json.loads(str(f["meta"]))
            params = {k: np.asarray(f[k], np.float32) for k in NAMES}
            extra = {k: np.asarray(f[k]) for k in f.files if k.startswith("adam_")}
    except FileNotFoundError:
        raise NetError(f"weights file {path!r} does not exist") from None
    except (OSError, KeyError, ValueError) as e:
        raise NetError(f"{path!r} is not a network weights file: {e}") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise NetError(f"{path!r} is not a {FORMAT} file")
    p = params
    ok = (p["W1"].ndim == 2 and p["W1"].shape[0] == FEATURE_SIZE
          and p["W2"].shape[0] == p["W1"].shape[1] and p["W3"].shape == (p["W2"].shape[1],
                                                                          NUM_ACTIONS)
          and p["b1"].shape == (p["W1"].shape[1],) and p["b2"].shape == (p["W2"].shape[1],)
          and p["b3"].shape == (NUM_ACTIONS,) and p["theta"].shape == (N_PHI,))
    if not ok or not all(np.isfinite(v).all() for v in p.values()):
        raise NetError(f"{path!r}: the weights have the wrong shapes or are not finite")
    net = Net(params=params)
    if optimizer and extra:
        net.t = int(extra.get("adam_t", 0))
        for k in NAMES:
            if "adam_m_" + k in extra:
                net.m[k] = extra["adam_m_" + k].astype(np.float32)
                net.v[k] = extra["adam_v_" + k].astype(np.float32)
    return net, meta


def packaged_path() -> str:
    """The weights that ship in the package."""
    from importlib.resources import files

    return str(files("ristiseiska.learn").joinpath("weights/neural.npz"))


def cached(path: str) -> tuple[Net, dict[str, Any]]:
    """:func:`load`, cached per path and file version (a checkpoint rewritten under the same
    name is read again; do not change the returned network)."""
    import os

    try:
        st = os.stat(path)
    except OSError:
        return load(path)  # the clear error of a missing file
    return _cached(os.path.abspath(path), st.st_mtime_ns, st.st_size)


@lru_cache(maxsize=4)
def _cached(path: str, mtime_ns: int, size: int) -> tuple[Net, dict[str, Any]]:
    return load(path)

"""Proximal policy optimisation (PPO) self-play, the alternative to :mod:`.dmc` that
``ristiseiska train --method ppo`` runs, so the two methods can be compared on the same
environments, network and budget (docs/strength.md).

The network's outputs are read as the logits of a softmax policy over the legal actions; every
seat of every row samples its move from it. Each decision with a choice is kept with the
probability it had, and labelled with the seat's outcome when the deal ends (as DMC does:
Sevens gives its only reward at the end, so the Monte-Carlo return is the whole deal's
outcome). A second network of the same shape, read at output 0, learns the value of the
position (mean squared error) and is the baseline: advantage = outcome - value. The policy
takes Adam steps on PPO's clipped surrogate (ratio clip ``clip``) with an entropy bonus
``entropy``, ``epochs`` passes over each round's decisions. Written in plain numpy, like the
rest of the training.

Its self-play collector is :class:`.dmc.PPOCollector` (the loop of :func:`.dmc.train` runs
both methods). The weights it writes are a policy, not action values: ``neural:path=FILE`` plays them (the
most likely legal move); ``master-neural`` needs action values and should not be given them.
The value network is written beside them (``FILE`` with ``.value.npz``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .net import N_PHI, Net

DEFAULT_CLIP = 0.2
DEFAULT_ENTROPY = 0.01
DEFAULT_EPOCHS = 2


def masked_log_softmax(q: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Log-probabilities of a softmax over the legal actions (``-inf`` elsewhere)."""
    z = np.where(mask, q, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    out: np.ndarray = z - np.log(np.exp(z).sum(axis=1, keepdims=True))
    return out


def surrogate(q: np.ndarray, mask: np.ndarray, a: np.ndarray, logp_old: np.ndarray,
              adv: np.ndarray, clip: float = DEFAULT_CLIP,
              entropy: float = DEFAULT_ENTROPY) -> tuple[float, np.ndarray]:
    """PPO's loss over a batch of logits ``q`` (legal ``mask``, chosen ``a``, their log
    probability when chosen ``logp_old``, advantages ``adv``) and its gradient by ``q``:
    ``-mean(min(r A, clip(r, 1 - clip, 1 + clip) A)) - entropy * mean(H)``."""
    N = len(a)
    logp = masked_log_softmax(q, mask)
    pi = np.exp(logp)
    lp = np.where(mask, logp, 0.0)
    rows = np.arange(N)
    ratio = np.exp(logp[rows, a] - logp_old)
    H = -(pi * lp).sum(axis=1)
    loss = float(-np.minimum(ratio * adv, np.clip(ratio, 1 - clip, 1 + clip) * adv).mean()
                 - entropy * H.mean())
    # the clipped surrogate has no gradient where the clip is the smaller term
    active = ~(((adv > 0) & (ratio > 1 + clip)) | ((adv < 0) & (ratio < 1 - clip)))
    coef = -(adv * ratio * active) / N  # dLoss/dlog pi(a)
    G = -coef[:, None] * pi
    G[rows, a] += coef
    G += entropy * pi * (lp + H[:, None]) / N  # the bonus: Loss -= entropy * H
    G[~mask] = 0.0
    return loss, G


def value(vnet: Net, X: np.ndarray) -> np.ndarray:
    """The value network's estimate of each position (its output 0)."""
    _z1, _z2, h2 = vnet._hidden(X)
    out: np.ndarray = h2 @ vnet.p["W3"][:, 0] + vnet.p["b3"][0]
    return out


def update(net: Net, vnet: Net, data: dict[str, Any], rng: np.random.Generator,
           lr: float, batch: int = 512, epochs: int = DEFAULT_EPOCHS, clip: float = DEFAULT_CLIP,
           entropy: float = DEFAULT_ENTROPY) -> float:
    """PPO's passes over one round's labelled decisions; returns the value loss's mean."""
    X, phi, mask, a = data["X"], data["phi"], data["mask"], data["a"]
    logp_old, y = data["logp"], data["y"].astype(np.float32)
    adv_all = y - value(vnet, X)
    losses = []
    zero_phi = np.zeros((batch, N_PHI), np.float32)
    zero_a = np.zeros(batch, np.int64)
    for _ in range(epochs):
        order = rng.permutation(len(a))
        for i in range(0, len(a), batch):
            b = order[i:i + batch]
            N = len(b)
            if N < 16:
                continue
            q, cache = net.forward(X[b], phi[b])
            A = adv_all[b]
            A = (A - A.mean()) / (A.std() + 1e-8)
            _loss, G = surrogate(q, mask[b], a[b], logp_old[b], A, clip, entropy)
            net.step_outputs(cache, G, lr=lr)
            losses.append(vnet.train_step(X[b], zero_phi[:N], zero_a[:N], y[b], lr=lr))
    return float(np.mean(losses)) if losses else float("nan")


def value_path(out: str) -> str:
    """Where the value network of the policy weights ``out`` is kept."""
    return (out[:-4] if out.endswith(".npz") else out) + ".value.npz"

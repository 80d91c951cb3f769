"""Train a linear softmax policy on the compiled vectorised environment, with numpy only.

    python -m ristiseiska.rl.train --seconds 180 --out policy.npz
    ristiseiska tournament --bots policy:path=policy.npz random random random --duplicate

One seat (0) learns; the other seats are played inside the kernel (``--opponents``, default
random players). The method is a one-step actor-critic: the policy is a softmax over the
legal actions of ``[x, 1] @ W`` (``x``: the observation divided by a fixed scale), the
critic a linear value ``[x, 1] @ v``; the reward is minus the learner's points at the end of
the deal (divided by 20). Every update uses ``--envs`` deals stepped together. The result is
a file for ``get_bot("policy", path=...)`` (:mod:`ristiseiska.bots.policy`).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

import numpy as np

from ..bots.policy import FORMAT
from ..kernel.vecenv import VecEnv
from ..learn.features import ACTION_FEATURES, action_features, feature_tables
from ..rules import Rules
from .common import resolve_rules
from .encoding import Encoding

REWARD_SCALE = 20.0


def single_thread_blas() -> bool:
    """Ask numpy's bundled OpenBLAS for one thread (best effort). The products here are
    small: on a busy machine BLAS threads waiting for each other made them 50 times slower
    (measured). Returns whether it worked."""
    import ctypes
    import glob
    import os

    libdir = os.path.join(os.path.dirname(np.__file__), os.pardir, "numpy.libs")
    for path in glob.glob(os.path.join(libdir, "*openblas*")):
        try:
            lib = ctypes.CDLL(path)
        except OSError:
            continue
        for name in ("scipy_openblas_set_num_threads64_", "openblas_set_num_threads64_",
                     "openblas_set_num_threads"):
            fn = getattr(lib, name, None)
            if fn is not None:
                fn(1)
                return True
    return False


def observation_scale(enc: Encoding) -> np.ndarray:
    """Divisors that bring every observation value to about 0..1."""
    scale = np.ones(enc.obs_size)
    off = enc.offsets
    for name, div in (("sizes", 13.0), ("chips", 10.0), ("pot", 10.0), ("stock", 17.0)):
        at, size = off[name]
        scale[at:at + size] = div
    return scale


class Adam:
    """Adam steps for one array (ascent): scale-free, so one step size fits every weight."""

    def __init__(self, shape: Any, lr: float) -> None:
        self.lr = lr
        self.m = np.zeros(shape)
        self.s = np.zeros(shape)
        self.t = 0

    def step(self, w: np.ndarray, grad: np.ndarray) -> None:
        self.t += 1
        self.m = 0.9 * self.m + 0.1 * grad
        self.s = 0.999 * self.s + 0.001 * grad * grad
        m = self.m / (1 - 0.9 ** self.t)
        s = self.s / (1 - 0.999 ** self.t)
        w += self.lr * m / (np.sqrt(s) + 1e-8)


def train(rules: Rules, players: int = 4, seconds: float = 180.0, envs: int = 256,
          seed: int = 0, opponents: str = "random", lr: float = 0.002, lr_value: float = 0.05,
          horizon: int = 16, features: bool = True, lr_features: float = 0.05,
          log: Any = None) -> dict[str, Any]:
    """Train and return ``{"W", "scale", "meta"}``; ``log(text)`` gets progress lines."""
    single_thread_blas()
    enc = Encoding(rules, players)
    env = VecEnv(rules, players, envs, seed=seed,
                 opponents=[None] + [opponents] * (players - 1))
    if (enc.obs_size, enc.num_actions) != (env.obs_size, env.num_actions):
        raise ValueError("the vector environment and the encoding disagree")  # pragma: no cover
    rng = np.random.default_rng(seed)
    scale = observation_scale(enc)
    D, A = enc.obs_size, enc.num_actions
    W = np.zeros((D + 1, A))
    v = np.zeros(D + 1)
    nf = len(ACTION_FEATURES)
    theta = np.zeros(nf)
    B, values = feature_tables(rules)
    K = horizon
    Psi = np.empty((K, envs, nf))  # per step: chosen action's features minus the expected
    opt_w, opt_theta = Adam(W.shape, lr), Adam(theta.shape, lr_features)
    X = np.empty((K, envs, D + 1))
    X[:, :, D] = 1.0
    G = np.empty((K, envs, A))
    R = np.empty((K, envs))
    ends = np.empty((K, envs), bool)
    rows = np.arange(envs)
    obs, mask, _ = env.reset()
    start = time.perf_counter()
    steps = deals = 0
    recent_r: list[float] = []
    recent_w: list[float] = []
    next_log = start + 10.0
    while time.perf_counter() - start < seconds:
        for t in range(K):  # K steps of every row, then one update
            x = X[t]
            x[:, :D] = obs / scale
            phi = action_features(obs, players, B, values) if features else None
            logits = x @ W
            if phi is not None:
                logits += phi @ theta
            logits[mask == 0] = -np.inf
            logits -= logits.max(axis=1, keepdims=True)
            p = np.exp(logits)
            p /= p.sum(axis=1, keepdims=True)
            u = rng.random(envs)[:, None]
            a = np.minimum((np.cumsum(p, axis=1) < u).sum(axis=1), A - 1)
            a = np.where(mask[rows, a] != 0, a, np.argmax(mask, axis=1))  # rounding
            g = G[t]
            np.negative(p, out=g)
            g[rows, a] += 1.0
            if phi is not None:
                Psi[t] = np.einsum("na,nak->nk", g, phi)
            obs, mask, _, rewards, done = env.step(a)
            R[t] = rewards[:, 0] / REWARD_SCALE
            ends[t] = done
            if done.any():
                deals += int(done.sum())
                recent_r.extend(rewards[done, 0].tolist())
                recent_w.extend((env.winners[done] == 0).astype(float).tolist())
                del recent_r[:-5000], recent_w[:-5000]
        # returns to the end of each deal (no discount), the value of the next position
        # standing in for the rest of a deal that goes on past the K steps
        ret = np.concatenate([obs / scale, np.ones((envs, 1))], axis=1) @ v
        for t in range(K - 1, -1, -1):
            ret = R[t] + np.where(ends[t], 0.0, ret)
            R[t] = ret
        Xf = X.reshape(K * envs, D + 1)
        adv = R.reshape(-1) - Xf @ v
        v += lr_value * (Xf.T @ adv) / (K * envs)
        adv /= adv.std() + 1e-8
        opt_w.step(W, (Xf.T @ (G.reshape(K * envs, A) * adv[:, None])) / (K * envs))
        if features:
            opt_theta.step(theta, (Psi.reshape(K * envs, nf).T @ adv) / (K * envs))
        steps += K * envs
        if log is not None and time.perf_counter() >= next_log:
            next_log += 10.0
            log(f"{time.perf_counter() - start:6.0f} s  {deals:>8} deals  mean points "
                f"{-np.mean(recent_r):6.2f}  wins {np.mean(recent_w):.3f}  (last 5000 deals)")
    meta = {
        "format": FORMAT,
        "rules": rules.to_dict(),
        "preset": rules.name or None,
        "players": players,
        "obs_size": D,
        "num_actions": A,
        "opponents": opponents,
        "seconds": round(time.perf_counter() - start, 1),
        "learner_steps": steps,
        "deals": deals,
        "seed": seed,
        "final_mean_points": round(float(-np.mean(recent_r)), 3) if recent_r else None,
        "final_win_rate": round(float(np.mean(recent_w)), 4) if recent_w else None,
        "features": list(ACTION_FEATURES) if features else [],
        "method": "advantage actor-critic (returns to the end of the deal), linear softmax "
                  "policy and linear value, numpy",
    }
    out = {"W": W.astype(np.float32), "scale": scale.astype(np.float32), "meta": meta}
    if features:
        out["theta"] = theta
    return out


def save(result: dict[str, Any], path: str) -> None:
    extra = {"theta": result["theta"]} if "theta" in result else {}
    np.savez_compressed(path, W=result["W"], scale=result["scale"],
                        meta=np.array(json.dumps(result["meta"])), **extra)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ristiseiska.rl.train", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--preset", default="ristiseiska", help="rule set (default ristiseiska)")
    p.add_argument("--players", type=int, default=4, help="number of players (default 4)")
    p.add_argument("--seconds", type=float, default=180.0, help="training time (default 180)")
    p.add_argument("--envs", type=int, default=256, help="deals stepped together (default 256)")
    p.add_argument("--opponents", default="random",
                   help="kernel policy of the other seats: random, greedy, sensible, strong")
    p.add_argument("--seed", type=int, default=0, help="seed (default 0)")
    p.add_argument("--lr", type=float, default=0.002,
                   help="Adam step size of the observation weights (default 0.002)")
    p.add_argument("--out", default="policy.npz", help="output file (default policy.npz)")
    p.add_argument("--no-features", action="store_true",
                   help="learn on the raw observation only (no per-action card features)")
    args = p.parse_args(argv)
    try:
        rules = resolve_rules(args.preset)
        if args.seconds <= 0 or args.envs < 1:
            raise ValueError("--seconds and --envs must be positive")
        result = train(rules, args.players, args.seconds, args.envs, args.seed,
                       args.opponents, args.lr, features=not args.no_features,
                       log=lambda t: print(t, flush=True))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    save(result, args.out)
    m = result["meta"]
    print(f"saved {args.out}: {m['deals']} deals in {m['seconds']} s; last 5000 deals: mean "
          f"points {m['final_mean_points']}, win rate {m['final_win_rate']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

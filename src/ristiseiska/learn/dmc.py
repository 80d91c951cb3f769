"""Deep Monte-Carlo self-play (as in DouZero) on the compiled vector environment.

Every seat of every row is played by the current network (ε-greedy over its action values);
each decision with more than one legal move is kept with the seat, and when the deal ends it
is labelled with the seat's outcome, ``win - points / scale`` (``scale``: three times the mean
absolute points of random play under those rules, so that the rule sets weigh alike). The
network regresses ``Q(s, a)`` on those outcomes (mean squared error, Adam). Rule sets and table
sizes are trained together in one network (:mod:`.features` describes the rules to it).

:class:`Collector` holds the environments and plays; :func:`train` is the loop behind
``ristiseiska train`` (checkpoints, resume, evaluation, Ray).
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..rules import Rules, preset
from . import features as F
from . import ppo
from .net import Net, load

DEFAULT_SPECS = tuple((p, n) for p in ("ristiseiska", "ristiseiska-pyynto", "sjuan", "fan-tan")
                      for n in (3, 4, 5, 6))
DEFAULT_ROWS = 48
DEFAULT_EPSILON = 0.05
DEFAULT_LR = 3e-4
BATCH = 512
METHODS = {
    "dmc": "Deep Monte-Carlo self-play, MLP action values + linear card features, numpy",
    "ppo": "PPO self-play, MLP policy logits + linear card features, value network, numpy",
}


def points_scale(rules: Rules, players: int, seed: int = 12345) -> float:
    """Three times the mean absolute points of a seat in random play (at least 1)."""
    from ..kernel.vecenv import VecEnv

    env = VecEnv(rules, players, 64, seed=seed)
    env.reset()
    pts: list[float] = []
    while len(pts) < 600:
        env.step(env.random_actions(np.random.default_rng(len(pts))))
        if env.dones.any():
            pts.extend(np.abs(env.points[env.dones]).ravel().tolist())
    return max(1.0, 3.0 * float(np.mean(pts)))


class _Env:
    def __init__(self, name: str, players: int, rows: int, seed: int) -> None:
        from ..kernel.vecenv import VecEnv

        self.name = name
        self.rules = preset(name)
        self.n = players
        self.env = VecEnv(self.rules, players, rows, seed=seed)
        self.void = F.VoidTracker(self.rules, players, rows)
        self.scale = points_scale(self.rules, players)
        self.env.reset()
        self.epi = np.zeros(rows, np.int64)
        self.pending: list[dict[str, np.ndarray]] = []
        self.finished: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []  # rows, epi, ret
        self.deals = 0


class Collector:
    """Self-play environments (one vector environment per rule set and table size)."""

    def __init__(self, specs: Sequence[tuple[str, int]] = DEFAULT_SPECS, rows: int = DEFAULT_ROWS,
                 seed: int = 0, epsilon: float = DEFAULT_EPSILON) -> None:
        from ..kernel import derive_seed

        self.envs = [_Env(name, n, rows, derive_seed(seed, 1000 + k))
                     for k, (name, n) in enumerate(specs)]
        self.rng = np.random.default_rng(seed)
        self.epsilon = epsilon
        self.net: Net | None = None

    def set_weights(self, params: dict[str, np.ndarray]) -> None:
        self.net = Net(params=params)

    def run(self, params: dict[str, np.ndarray] | None, steps: int) -> dict[str, Any]:
        """Play ``steps`` steps of every environment; return the labelled decisions of the
        deals that ended (``X``, ``phi``, ``a``, ``y``) and statistics."""
        if params is not None:
            self.set_weights(params)
        assert self.net is not None, "no weights"
        out: list[dict[str, np.ndarray]] = []
        stats: dict[str, Any] = {"deals": 0, "decisions": 0}
        for e in self.envs:
            for _ in range(steps):
                self._step(e)
            out.extend(self._resolve(e))
        for e in self.envs:
            stats["deals"] += e.deals
            e.deals = 0
        if not out:
            stats["samples"] = 0
            return {"X": np.zeros((0, F.FEATURE_SIZE), np.float32), "stats": stats}
        data: dict[str, Any] = {k: np.concatenate([d[k] for d in out]) for k in out[0]}
        stats["samples"] = int(data["a"].shape[0])
        data["stats"] = stats
        return data

    def _step(self, e: _Env) -> None:
        env = e.env
        obs, mask, seats = env.obs, env.mask, env.st[:, 0].copy()
        legal = mask.sum(axis=1)
        choice = np.flatnonzero(legal > 1)
        a = np.argmax(mask, axis=1).astype(np.int64)
        if choice.size:
            o = obs[choice]
            X = F.build(o, e.n, e.void.relative(seats[choice], choice), e.rules)
            phi = F.action_phi(o, e.n, e.rules)
            pick, kept = self._choose(X, phi, mask[choice] > 0)
            a[choice] = pick
            kept.update(X=X, a=pick, row=choice, seat=seats[choice], epi=e.epi[choice].copy())
            e.pending.append(kept)
        fits = obs[:, 104:156].copy()
        obs2, _mask2, seats2, _r, done = env.step(a)
        e.void.update(a, seats, fits, seats2, obs2, done)
        if done.any():
            rows = np.flatnonzero(done)
            win = (env.winners[rows][:, None] == np.arange(e.n)[None, :]).astype(np.float32)
            ret = win - env.points[rows].astype(np.float32) / e.scale
            e.finished.append((rows, e.epi[rows].copy(), ret))
            e.epi[rows] += 1
            e.deals += rows.size

    def _choose(self, X: np.ndarray, phi: np.ndarray,
                legal: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """The actions of the rows with a choice (features ``X``, card features ``phi``, legal
        actions ``legal``) and what the learner keeps of each besides ``X`` and the action:
        here ε-greedy over the action values, keeping the chosen action's card features."""
        assert self.net is not None
        q = self.net.q(X, phi)
        q[~legal] = -np.inf
        pick = np.argmax(q, axis=1)
        explore = self.rng.random(len(pick)) < self.epsilon
        if explore.any():
            m = legal[explore].astype(np.float64)
            u = self.rng.random(m.shape) * m
            pick[explore] = np.argmax(u, axis=1)
        return pick, {"phi": phi[np.arange(len(pick)), pick]}

    def _resolve(self, e: _Env) -> list[dict[str, np.ndarray]]:
        if not e.pending or not e.finished:
            return []
        P = {k: np.concatenate([p[k] for p in e.pending]) for k in e.pending[0]}
        big = np.int64(1 << 32)
        f_rows = np.concatenate([f[0] for f in e.finished])
        f_epi = np.concatenate([f[1] for f in e.finished])
        f_ret = np.concatenate([f[2] for f in e.finished])
        keys = f_rows * big + f_epi
        order = np.argsort(keys)
        keys = keys[order]
        f_ret = f_ret[order]
        pk = P["row"] * big + P["epi"]
        pos = np.minimum(np.searchsorted(keys, pk), len(keys) - 1)
        ok = keys[pos] == pk
        y = f_ret[pos[ok], P["seat"][ok]]
        done = {k: v[ok] for k, v in P.items() if k not in ("row", "seat", "epi")}
        done["y"] = y
        rest = ~ok
        e.pending = [{k: v[rest] for k, v in P.items()}] if rest.any() else []
        e.finished = []
        return [done]


class PPOCollector(Collector):
    """Self-play for :mod:`.ppo`: every seat samples its move from the softmax policy."""

    def _choose(self, X: np.ndarray, phi: np.ndarray,
                legal: np.ndarray) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        assert self.net is not None
        logp = ppo.masked_log_softmax(self.net.q(X, phi), legal)
        # inverse-CDF sampling, one uniform draw a row
        cdf = np.cumsum(np.exp(logp), axis=1)
        u = self.rng.random(len(X)) * cdf[:, -1]
        pick = np.minimum((cdf < u[:, None]).sum(axis=1), F.NUM_ACTIONS - 1)
        rows = np.arange(len(X))
        pick = np.where(legal[rows, pick], pick, np.argmax(logp, axis=1))
        return pick, {"phi": phi.astype(np.float16), "mask": legal,
                      "logp": logp[rows, pick].astype(np.float32)}


def _describe(specs: Sequence[tuple[str, int]]) -> list[list[Any]]:
    return [[name, n] for name, n in specs]


def train(out: str, seconds: float | None = None, steps: int | None = None, seed: int = 0,
          resume: bool = False, specs: Sequence[tuple[str, int]] = DEFAULT_SPECS,
          rows: int = DEFAULT_ROWS, lr: float = DEFAULT_LR, epsilon: float = DEFAULT_EPSILON,
          hidden: tuple[int, int] = (256, 128), round_steps: int = 8,
          checkpoint_every: float = 120.0, eval_every: float = 600.0, eval_deals: int = 40,
          eval_seed: int = 900_001, ray: str | None = None, ray_workers: int = 2,
          progress: Callable[[dict[str, Any]], None] | None = None,
          evaluate: Callable[[str, int, int], dict[str, Any]] | None = None,
          method: str = "dmc") -> dict[str, Any]:
    """Train until ``seconds`` or ``steps`` (learner samples: decisions with a choice) run out;
    write the weights to ``out`` (with optimizer state, for ``resume``) every
    ``checkpoint_every`` seconds and at the end. ``evaluate(path, deals, seed)`` is called
    every ``eval_every`` seconds and at the end. ``method``: ``"dmc"`` (Deep Monte-Carlo, the
    network learns action values) or ``"ppo"`` (:mod:`.ppo`: the network learns a policy,
    with a value network beside it). Returns the final meta."""
    if seconds is None and steps is None:
        raise ValueError("give a time (seconds) or a step budget (steps)")
    if method not in METHODS:
        raise ValueError(f"unknown training method {method!r}; known: {', '.join(METHODS)}")
    vnet: Net | None = None
    history: list[dict[str, Any]] = []
    done_steps = 0
    done_seconds = 0.0
    rounds = 0
    if resume and os.path.exists(out):
        net, old = load(out, optimizer=True)
        done_steps = int(old.get("steps", 0))
        done_seconds = float(old.get("seconds", 0.0))
        rounds = int(old.get("rounds", 0))
        history = list(old.get("evaluations", []))
        seed = int(old.get("seed", seed))
        specs = [(str(a), int(b)) for a, b in old.get("specs", specs)]
        was = str(old.get("method_name", "dmc"))
        if was != method:
            raise ValueError(f"{out!r} was trained with {was}, not {method}: resume it with "
                             f"the same method")
        if method == "ppo":
            if not os.path.exists(ppo.value_path(out)):
                raise ValueError(f"--resume: the value network {ppo.value_path(out)!r} of "
                                 f"{out!r} is missing")
            vnet, _ = load(ppo.value_path(out), optimizer=True)
    else:
        net = Net(hidden=hidden, seed=seed)
    if method == "ppo" and vnet is None:
        vnet = Net(hidden=hidden, seed=seed + 1)
    kind = PPOCollector if method == "ppo" else Collector
    rng = np.random.default_rng([seed, rounds])
    spec_list = [(str(a), int(b)) for a, b in specs]
    # a fresh collector stream after a resume (the environments restart from new deals)
    coll_seed = seed * 1000 + rounds
    if ray:
        collectors, remote = _ray_collectors(ray, ray_workers, spec_list, rows, coll_seed, epsilon,
                                             kind)
    else:
        collectors, remote = [kind(spec_list, rows, coll_seed, epsilon)], False

    start = time.perf_counter()
    last_ckpt = start
    last_eval = start
    run_steps = 0
    loss_avg = None
    hw = _hardware()

    def make_meta() -> dict[str, Any]:
        return {
            "method": METHODS[method], "method_name": method,
            "seed": seed, "steps": done_steps + run_steps,
            "seconds": round(done_seconds + time.perf_counter() - start, 1),
            "rounds": rounds, "specs": _describe(spec_list), "rows": rows, "lr": lr,
            "epsilon": epsilon, "hardware": hw, "evaluations": history,
            "trained": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
        }

    def budget_left() -> bool:
        if steps is not None and done_steps + run_steps >= steps:
            return False
        return not (seconds is not None and time.perf_counter() - start >= seconds)

    def do_eval() -> None:
        if evaluate is None or eval_deals <= 0:
            return
        save(make_meta())
        res = evaluate(out, eval_deals, eval_seed)
        res["steps"] = done_steps + run_steps
        history.append(res)

    def save(meta: dict[str, Any]) -> None:
        if vnet is not None:
            vnet.save(ppo.value_path(out), dict(meta, role="value"), optimizer=True)
        net.save(out, meta, optimizer=True)

    while budget_left():
        params = net.arrays()
        if remote:
            import ray as ray_mod

            ref = ray_mod.put(params)
            results = ray_mod.get([c.run.remote(ref, round_steps) for c in collectors])
        else:
            results = [c.run(params, round_steps) for c in collectors]
        rounds += 1
        deals = sum(r["stats"]["deals"] for r in results)
        datas = [r for r in results if r["stats"]["samples"]]
        if datas and vnet is not None:
            data = {k: np.concatenate([d[k] for d in datas]) for k in datas[0] if k != "stats"}
            loss = ppo.update(net, vnet, data, rng, lr=lr)
            loss_avg = loss if loss_avg is None else 0.9 * loss_avg + 0.1 * loss
            run_steps += len(data["a"])
        elif datas:
            X = np.concatenate([d["X"] for d in datas])
            phi = np.concatenate([d["phi"] for d in datas])
            a = np.concatenate([d["a"] for d in datas])
            y = np.concatenate([d["y"] for d in datas]).astype(np.float32)
            order = rng.permutation(len(a))
            for i in range(0, len(a), BATCH):
                b = order[i:i + BATCH]
                if len(b) < 16:
                    continue
                loss = net.train_step(X[b], phi[b], a[b], y[b], lr=lr)
                loss_avg = loss if loss_avg is None else 0.98 * loss_avg + 0.02 * loss
            run_steps += len(a)
        now = time.perf_counter()
        if progress is not None:
            progress({"steps": done_steps + run_steps, "run_steps": run_steps,
                      "seconds": now - start, "loss": loss_avg, "deals": deals,
                      "evaluations": history})
        if now - last_eval >= eval_every and budget_left():
            do_eval()
            last_eval = time.perf_counter()
        if now - last_ckpt >= checkpoint_every:
            save(make_meta())
            last_ckpt = now
    do_eval()
    m = make_meta()
    save(m)
    if progress is not None:
        progress({"steps": m["steps"], "run_steps": run_steps,
                  "seconds": time.perf_counter() - start, "loss": loss_avg, "deals": 0,
                  "evaluations": history, "final": True})
    return m


def _hardware() -> str:
    import platform

    return f"{platform.machine()}, {os.cpu_count()} cores, {platform.python_implementation()} " \
           f"{platform.python_version()}"


def _ray_collectors(address: str, workers: int, specs: list[tuple[str, int]], rows: int,
                    seed: int, epsilon: float,
                    kind: type[Collector] = Collector) -> tuple[list[Any], bool]:
    try:
        import ray
    except ImportError:
        raise ValueError("--ray needs the ray package (pip install 'ristiseiska[dev]')") from None
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    try:
        if not ray.is_initialized():
            if address == "local":
                ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False)
            else:
                ray.init(address=address, log_to_driver=False)
    except Exception as e:  # ray's connection errors are of many types
        raise ValueError(f"cannot reach the Ray cluster at {address!r}: {e}") from None
    actor = ray.remote(num_cpus=1)(kind)
    return [actor.remote(specs, rows, seed + 7919 * k, epsilon) for k in range(workers)], True


__all__ = ["Collector", "train", "DEFAULT_SPECS", "json"]

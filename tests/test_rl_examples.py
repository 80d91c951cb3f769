"""The training examples in examples/: the numpy PPO's hand-written gradients are the loss's
gradients (finite differences), it trains for 10 s on the vector environment and its policy
plays legal moves on the full engine; the MaskablePPO script runs (if SB3 is installed)."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium", reason="the rl extra is not installed")

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


def load(name: str):
    spec = importlib.util.spec_from_file_location(name, EXAMPLES / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def run(script: str, *args: str, timeout: float) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    out = subprocess.run([sys.executable, str(EXAMPLES / script), *args], capture_output=True,
                         text=True, timeout=timeout, env=env, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_ppo_gradients_are_the_losss_gradients() -> None:
    ppo = load("ppo_numpy")
    args = ppo.Args(max_grad_norm=1e9, ent_coef=0.05)
    rng = np.random.default_rng(0)
    d, a, h, b = 7, 5, 6, 9
    p = {k: v.astype(np.float64) for k, v in ppo.init_params(rng, d, a, h).items()}
    p["W2"] = rng.standard_normal((h, a))  # not the tiny initial scale
    x = rng.standard_normal((b, d))
    mask = (rng.random((b, a)) < 0.7).astype(np.int8)
    mask[:, 0] = 1
    actions = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    old = ppo.forward(p, x, mask)[1][np.arange(b), actions] + rng.normal(0, 0.3, b)
    adv = rng.standard_normal(b)
    ret = rng.standard_normal(b)

    def loss(q):
        probs, logp_all, value, _, _ = ppo.forward(q, x, mask)
        logp = logp_all[np.arange(b), actions]
        ratio = np.exp(logp - old)
        c = args.clip_coef
        pg = -np.minimum(ratio * adv, np.clip(ratio, 1 - c, 1 + c) * adv).mean()
        ent = -(probs * logp_all).sum(axis=1).mean()
        return pg + args.vf_coef * 0.5 * ((value - ret) ** 2).mean() - args.ent_coef * ent

    grads, _ = ppo.ppo_grads(p, x, mask, actions, old, adv, ret, args)
    eps = 1e-6
    for k in p:
        for idx in list(np.ndindex(p[k].shape))[:12]:
            q = {kk: vv.copy() for kk, vv in p.items()}
            q[k][idx] += eps
            up = loss(q)
            q[k][idx] -= 2 * eps
            num = (up - loss(q)) / (2 * eps)
            assert grads[k][idx] == pytest.approx(num, rel=1e-3, abs=1e-5), (k, idx)


def test_ppo_numpy_trains_10_seconds_on_the_vector_env(tmp_path: Path) -> None:
    out = tmp_path / "ppo.npz"
    got = run("ppo_numpy.py", "--seconds", "10", "--num-envs", "32", "--eval-deals", "20",
              "--out", str(out), "--seed", "3", timeout=600)
    assert got["steps"] > 0 and got["deals"] > 0 and got["seconds"] >= 10
    assert 0.0 <= got["vs_random"]["win_rate"] <= 1.0 and "vs_expert" in got
    ppo = load("ppo_numpy")
    params = dict(np.load(out))
    from ristiseiska.rl.evaluate import evaluate

    stats = evaluate(lambda o, m: ppo.act(params, o, m), opponents="random", deals=5)
    assert stats["deals"] == 5 and stats["illegal"] == 0  # legal moves only


def test_maskable_ppo_example_runs() -> None:
    pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed")
    got = run("maskable_ppo_sb3.py", "--seconds", "5", "--num-envs", "8", "--eval-deals", "5",
              timeout=600)
    assert got["steps"] > 0 and set(got) >= {"vs_random", "vs_expert"}

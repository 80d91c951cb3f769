"""``ristiseiska bench --env``: environment steps per second with random agents.

The compiled vectorised environment at N = 1, 64 and 1024 parallel deals, the PettingZoo
environment on the full engine (when PettingZoo is installed), and the kernel's deals per
second in the same run, so the figures can be compared on one machine state.
"""

from __future__ import annotations

import os
import time
from typing import Any

import numpy as np

from ..rules import Rules

SIZES = (1, 64, 1024)


def _timed(fn: Any, budget: float) -> tuple[int, float, float]:
    """Call ``fn()`` (returning a count) until ``budget`` seconds pass; (count, wall
    seconds, CPU seconds of this process)."""
    done = 0
    start = time.perf_counter()
    cpu = time.process_time()
    while True:
        done += fn()
        dt = time.perf_counter() - start
        if dt >= budget:
            return done, dt, max(time.process_time() - cpu, 1e-9)


def vec_steps_per_s(rules: Rules, players: int, num_envs: int, seed: int,
                    budget: float = 0.5) -> tuple[float, float]:
    """Random agents' steps per second: (per wall-clock second, per CPU second)."""
    from ..kernel.vecenv import VecEnv

    env = VecEnv(rules, players, num_envs, seed=seed)
    env.reset()
    env.step(env.random_actions())
    best = best_cpu = 0.0
    reps = max(1, 4096 // num_envs)

    def chunk() -> int:
        for _ in range(reps):
            env.step(env.random_actions())
        return reps * num_envs

    for _ in range(3):  # best of three: the least disturbed by other processes
        steps, dt, cpu = _timed(chunk, budget / 3)
        best = max(best, steps / dt)
        best_cpu = max(best_cpu, steps / cpu)
    return best, best_cpu


def kernel_deals_per_s(rules: Rules, players: int, seed: int,
                       deals: int = 50_000) -> tuple[float, float]:
    """Whole random deals per second: (per wall-clock second, per CPU second)."""
    from ..kernel import play_deals

    play_deals(rules, players, seed, 10)
    best = best_cpu = float("inf")
    for rep in range(3):
        start = time.perf_counter()
        cpu = time.process_time()
        play_deals(rules, players, seed + rep, deals)
        best = min(best, time.perf_counter() - start)
        best_cpu = min(best_cpu, max(time.process_time() - cpu, 1e-9))
    return deals / best, deals / best_cpu


def pettingzoo_steps_per_s(rules: Rules, players: int, seed: int,
                           budget: float = 1.0) -> tuple[float, float]:
    """Random agents' steps per second: (per wall-clock second, per CPU second)."""
    from .aec import RistiseiskaAEC

    env = RistiseiskaAEC(rules=rules, players=players)
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)

    def deal() -> int:
        steps = 0
        for _agent in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(rng.choice(legal)))
            steps += 1
        env.reset()
        return steps

    steps, dt, cpu = _timed(deal, budget)
    return steps / dt, steps / cpu


def run_bench(rules: Rules, players: int, seed: int, quick: bool = False) -> dict[str, Any]:
    from ..kernel import unsupported
    from ..kernel.vecenv import warm_up

    out: dict[str, Any] = {"preset": rules.name or None, "players": players}
    why = unsupported(rules, players)
    budget = 0.2 if quick else 0.6
    if why:
        out["env_steps_per_s"] = None
        out["kernel_deals_per_s"] = None
        out["skipped"] = why
    else:
        warm_up()
        got = {str(n): vec_steps_per_s(rules, players, n, seed, budget) for n in SIZES}
        out["env_steps_per_s"] = {k: round(v[0]) for k, v in got.items()}
        kernel = kernel_deals_per_s(rules, players, seed, 5_000 if quick else 50_000)
        out["kernel_deals_per_s"] = round(kernel[0])
        # Per CPU second of this process: on a machine shared with other work the
        # wall-clock figures fall with the load, these much less.
        out["env_steps_per_cpu_s"] = {k: round(v[1]) for k, v in got.items()}
        out["kernel_deals_per_cpu_s"] = round(kernel[1])
        try:
            out["load_average"] = round(os.getloadavg()[0], 2)
        except OSError:  # pragma: no cover - not on every system
            pass
    try:
        import pettingzoo  # noqa: F401
    except ImportError:
        out["pettingzoo_steps_per_s"] = None
        out["pettingzoo_skipped"] = "pettingzoo is not installed (pip install 'ristiseiska[rl]')"
    else:
        wall, cpu = pettingzoo_steps_per_s(rules, players, seed, budget)
        out["pettingzoo_steps_per_s"] = round(wall, 1)
        out["pettingzoo_steps_per_cpu_s"] = round(cpu, 1)
    return out


def format_bench(r: dict[str, Any]) -> str:
    lines = [f"{r['preset'] or 'custom rules'}, {r['players']} players, random agents, one process"]
    if r.get("skipped"):
        lines.append(f"  compiled environment: skipped ({r['skipped']})")
    else:
        cpu = r["env_steps_per_cpu_s"]
        for n, v in r["env_steps_per_s"].items():
            lines.append(f"  compiled vector env, N = {n:>4}: {v:>12,.0f} steps/s "
                         f"({cpu[n]:,.0f} per CPU second)")
        lines.append(f"  kernel (whole deals):        {r['kernel_deals_per_s']:>12,.0f} deals/s "
                     f"({r['kernel_deals_per_cpu_s']:,.0f} per CPU second)")
        if "load_average" in r:
            lines.append(f"  (load average {r['load_average']}: other programs lower the figures)")
    if r.get("pettingzoo_steps_per_s") is not None:
        lines.append(f"  PettingZoo AEC (full engine): {r['pettingzoo_steps_per_s']:>11,.0f} steps/s "
                     f"({r['pettingzoo_steps_per_cpu_s']:,.0f} per CPU second)")
    else:
        lines.append(f"  PettingZoo AEC: skipped ({r.get('pettingzoo_skipped')})")
    return "\n".join(lines)

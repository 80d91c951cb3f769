"""MaskablePPO (sb3-contrib) on the compiled vector environment, with no wrapper.

    pip install torch==2.13.0 stable-baselines3 sb3-contrib   # a CPU torch; see docs/rl.md
    python examples/maskable_ppo_sb3.py --seconds 300 --seed 1 --out maskable.zip

``ristiseiska.rl.sb3.make_sb3_env`` gives Stable-Baselines3's ``VecEnv`` over the kernel:
the observation vector as a ``Box`` (``MlpPolicy``) and the legal actions through
``env_method("action_masks")``, which MaskablePPO reads by itself (through SB3's own
``VecNormalize`` wrapper too, which scales observations and rewards here unless
``--no-normalize``). Training stops after
``--seconds`` of wall-clock time; the learned policy (most likely legal action) then plays
against three ``random`` and three ``expert`` bots on the full engine, and the script prints
one JSON line: a row of the baseline table of docs/rl.md.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np
from sb3_contrib import MaskablePPO
from stable_baselines3.common.callbacks import BaseCallback
from stable_baselines3.common.vec_env import VecNormalize

from ristiseiska.rl.sb3 import make_sb3_env


class TimeLimit(BaseCallback):  # type: ignore[misc]
    def __init__(self, seconds: float) -> None:
        super().__init__()
        self.seconds = seconds
        self.start = time.time()
        self.cpu0 = time.process_time()
        self.deals = 0
        self.wins = 0

    def _on_step(self) -> bool:
        for info in self.locals.get("infos", []):
            if "winner" in info:
                self.deals += 1
                self.wins += info["winner"] == 0
        return time.time() - self.start < self.seconds


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--preset", default="ristiseiska")
    p.add_argument("--players", type=int, default=4)
    p.add_argument("--opponents", default="random", help="a kernel policy for every other seat")
    p.add_argument("--num-envs", type=int, default=32)
    p.add_argument("--seconds", type=float, default=300.0)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--eval-deals", type=int, default=500)
    p.add_argument("--out", default="")
    p.add_argument("--no-normalize", action="store_true",
                   help="train on the raw observation and points (no VecNormalize)")
    a = p.parse_args()

    import torch

    torch.set_num_threads(1)
    env = make_sb3_env(num_envs=a.num_envs, preset=a.preset, players=a.players,
                       opponents=a.opponents)
    env.seed(a.seed)
    if not a.no_normalize:  # points are 0..~100 and sizes 0..13: scale both
        env = VecNormalize(env, norm_obs=True, norm_reward=True, gamma=1.0)
    model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=512, learning_rate=3e-4,
                        gamma=1.0, ent_coef=0.01, seed=a.seed, verbose=0)
    cb = TimeLimit(a.seconds)
    model.learn(total_timesteps=10**10, callback=cb)
    summary: dict[str, object] = {"seconds": round(time.time() - cb.start, 1),
                                  "cpu_seconds": round(time.process_time() - cb.cpu0, 1),
                                  "steps": int(model.num_timesteps), "deals": cb.deals,
                                  "train_win_rate": round(cb.wins / max(1, cb.deals), 3),
                                  "load_average": round(os.getloadavg()[0], 1)}
    if a.out:
        model.save(a.out)
        if isinstance(env, VecNormalize):  # the scaling the policy was trained with
            env.save(a.out + ".vecnormalize.pkl")
    if a.eval_deals:
        from ristiseiska.rl.evaluate import evaluate

        def policy(obs: np.ndarray, mask: np.ndarray) -> int:
            if isinstance(env, VecNormalize):
                obs = env.normalize_obs(obs)
            action, _ = model.predict(obs, action_masks=mask.astype(bool), deterministic=True)
            return int(action)

        for opp in ("random", "expert"):
            s = evaluate(policy, preset=a.preset, players=a.players, opponents=opp,
                         deals=a.eval_deals, seed=a.seed + 1000)
            summary[f"vs_{opp}"] = {"win_rate": round(s["win_rate"], 3),
                                    "win_ci": [round(v, 3) for v in s["win_ci"]],
                                    "points": round(s["points"], 2)}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()

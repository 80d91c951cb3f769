"""PPO in one file, in the CleanRL style, with nothing but numpy (no torch, no GPU).

Trains seat 0 on the Gymnasium vector environment over the compiled kernel
(``ristiseiska.rl.vector.RistiseiskaVectorEnv``) against three kernel opponents, with a masked
softmax policy (illegal actions get probability 0) and a value network, both one hidden
layer, trained with the clipped PPO objective, GAE and Adam, the gradients written out by
hand. At the end it plays the learned policy (most likely legal action) against three
``random`` and three ``expert`` bots on the full engine and prints a row of the baseline
table of docs/rl.md.

    python examples/ppo_numpy.py --seconds 300 --seed 1 --out ppo.npz
    python examples/ppo_numpy.py --seconds 30 --eval-deals 0      # a quick check

Options are the dataclass fields below (``--num-envs 64``, ``--knowledge 4`` ...).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time
from dataclasses import dataclass

import numpy as np

from ristiseiska.rl.vector import RistiseiskaVectorEnv


@dataclass
class Args:
    preset: str = "ristiseiska"
    players: int = 4
    opponents: str = "random"  # a kernel policy for every other seat
    knowledge: int = -1  # the knowledge block with this many last plays; -1: off
    seed: int = 1
    seconds: float = 60.0  # wall-clock training budget
    total_timesteps: int = 0  # or a step budget (0: none)
    num_envs: int = 64
    num_steps: int = 32  # steps per env per update
    hidden: int = 64
    learning_rate: float = 3e-3
    gamma: float = 1.0  # one deal is one episode, the reward comes at its end
    gae_lambda: float = 0.95
    num_minibatches: int = 4
    update_epochs: int = 4
    clip_coef: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    max_grad_norm: float = 0.5
    reward_scale: float = 0.05  # points are 0..~100: scale them to about 0..5
    eval_deals: int = 500  # deals against 3 random and against 3 expert (0: skip)
    out: str = ""  # write the weights here (.npz)


def parse() -> Args:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    for f in dataclasses.fields(Args):
        p.add_argument("--" + f.name.replace("_", "-"), type=type(f.default), default=f.default)
    return Args(**vars(p.parse_args()))


# -- the networks (numpy) -------------------------------------------------------------------
def features(obs: np.ndarray) -> np.ndarray:
    return np.log1p(np.maximum(obs, 0.0)).astype(np.float32)


def init_params(rng: np.random.Generator, d: int, a: int, h: int) -> dict[str, np.ndarray]:
    def layer(i: int, o: int, gain: float) -> np.ndarray:
        return (rng.standard_normal((i, o)) * gain / np.sqrt(i)).astype(np.float32)

    return {"W1": layer(d, h, 1.0), "b1": np.zeros(h, np.float32),
            "W2": layer(h, a, 0.01), "b2": np.zeros(a, np.float32),
            "V1": layer(d, h, 1.0), "c1": np.zeros(h, np.float32),
            "V2": layer(h, 1, 1.0), "c2": np.zeros(1, np.float32)}


def forward(p: dict[str, np.ndarray], x: np.ndarray, mask: np.ndarray):
    h = np.tanh(x @ p["W1"] + p["b1"])
    logits = h @ p["W2"] + p["b2"]
    logits = np.where(mask != 0, logits, -1e9)
    logits -= logits.max(axis=1, keepdims=True)
    e = np.exp(logits)
    probs = e / e.sum(axis=1, keepdims=True)
    logp = np.where(mask != 0, logits - np.log(e.sum(axis=1, keepdims=True)), 0.0)
    g = np.tanh(x @ p["V1"] + p["c1"])
    value = (g @ p["V2"] + p["c2"])[:, 0]
    return probs, logp, value, h, g


def act(p: dict[str, np.ndarray], obs: np.ndarray, mask: np.ndarray) -> int:
    """The most likely legal action for one observation (for evaluation)."""
    probs, _, _, _, _ = forward(p, features(obs[None]), mask[None])
    return int(np.argmax(np.where(mask != 0, probs[0], -1.0)))


class Adam:
    def __init__(self, params: dict[str, np.ndarray], lr: float) -> None:
        self.lr, self.t = lr, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, params: dict[str, np.ndarray], grads: dict[str, np.ndarray]) -> None:
        self.t += 1
        for k, g in grads.items():
            self.m[k] = 0.9 * self.m[k] + 0.1 * g
            self.v[k] = 0.999 * self.v[k] + 0.001 * g * g
            mh = self.m[k] / (1 - 0.9 ** self.t)
            vh = self.v[k] / (1 - 0.999 ** self.t)
            params[k] -= self.lr * mh / (np.sqrt(vh) + 1e-8)


def ppo_grads(p, x, mask, actions, old_logp, adv, returns, args: Args):
    """Gradients of the PPO loss (clipped policy term, value term, entropy bonus)."""
    b = x.shape[0]
    probs, logp_all, value, h, g = forward(p, x, mask)
    idx = np.arange(b)
    logp = logp_all[idx, actions]
    ratio = np.exp(logp - old_logp)
    clipped = ((adv >= 0) & (ratio > 1 + args.clip_coef)) | \
        ((adv < 0) & (ratio < 1 - args.clip_coef))
    dlogp = np.where(clipped, 0.0, -adv * ratio) / b  # d loss / d log pi(a)
    onehot = np.zeros_like(probs)
    onehot[idx, actions] = 1.0
    dlogits = dlogp[:, None] * (onehot - probs)
    ent = -(probs * logp_all).sum(axis=1)
    # loss has -ent_coef * mean(entropy); d entropy / d logits = -p (log p + H)
    dlogits += args.ent_coef / b * probs * (logp_all + ent[:, None]) * (mask != 0)
    grads = {"W2": h.T @ dlogits, "b2": dlogits.sum(axis=0)}
    dz = (dlogits @ p["W2"].T) * (1 - h * h)
    grads["W1"], grads["b1"] = x.T @ dz, dz.sum(axis=0)
    dv = (args.vf_coef * (value - returns) / b)[:, None]
    grads["V2"], grads["c2"] = g.T @ dv, dv.sum(axis=0)
    dzv = (dv @ p["V2"].T) * (1 - g * g)
    grads["V1"], grads["c1"] = x.T @ dzv, dzv.sum(axis=0)
    norm = np.sqrt(sum(float((v * v).sum()) for v in grads.values()))
    if norm > args.max_grad_norm:
        grads = {k: v * (args.max_grad_norm / norm) for k, v in grads.items()}
    stats = {"entropy": float(ent.mean()), "clipfrac": float(clipped.mean()),
             "value_loss": float(((value - returns) ** 2).mean())}
    return {k: v.astype(np.float32) for k, v in grads.items()}, stats


def train(args: Args) -> tuple[dict[str, np.ndarray], dict[str, float]]:
    rng = np.random.default_rng(args.seed)
    envs = RistiseiskaVectorEnv(num_envs=args.num_envs, preset=args.preset,
                                players=args.players, opponents=args.opponents,
                                knowledge=None if args.knowledge < 0 else args.knowledge)
    n_act = envs.single_action_space.n
    d = envs.single_observation_space["observation"].shape[0]
    params = init_params(rng, d, n_act, args.hidden)
    opt = Adam(params, args.learning_rate)
    T, N = args.num_steps, args.num_envs
    obs_buf = np.zeros((T, N, d), np.float32)
    mask_buf = np.zeros((T, N, n_act), np.int8)
    act_buf = np.zeros((T, N), np.int64)
    logp_buf = np.zeros((T, N), np.float32)
    val_buf = np.zeros((T, N), np.float32)
    rew_buf = np.zeros((T, N), np.float32)
    done_buf = np.zeros((T, N), np.float32)
    obs, _ = envs.reset(seed=args.seed)
    x = features(obs["observation"])
    mask = obs["action_mask"]
    start = time.time()
    cpu0 = time.process_time()
    steps = deals = wins = 0
    recent: list[float] = []
    updates = 0
    while True:
        if args.total_timesteps and steps >= args.total_timesteps:
            break
        if not args.total_timesteps and time.time() - start >= args.seconds:
            break
        for t in range(T):  # rollout
            probs, logp_all, value, _, _ = forward(params, x, mask)
            cum = probs.cumsum(axis=1)
            u = rng.random((N, 1))
            a = np.minimum((cum < u).sum(axis=1), n_act - 1)
            a = np.where(mask[np.arange(N), a] != 0, a, probs.argmax(axis=1))
            obs_buf[t], mask_buf[t], act_buf[t] = x, mask, a
            logp_buf[t] = logp_all[np.arange(N), a]
            val_buf[t] = value
            obs, reward, term, trunc, info = envs.step(a)
            done = term | trunc
            rew_buf[t] = reward * args.reward_scale
            done_buf[t] = done
            for i in np.flatnonzero(done):
                fin = info["final_info"]
                deals += 1
                wins += fin["winner"][i] == envs.seat
                recent.append(float(fin["points"][i, envs.seat]))
            x = features(obs["observation"])
            mask = obs["action_mask"]
            steps += N
        _, _, next_value, _, _ = forward(params, x, mask)
        adv = np.zeros((T, N), np.float32)  # GAE; a done step does not bootstrap
        last = np.zeros(N, np.float32)
        for t in reversed(range(T)):
            nv = next_value if t == T - 1 else val_buf[t + 1]
            nonterminal = 1.0 - done_buf[t]
            delta = rew_buf[t] + args.gamma * nv * nonterminal - val_buf[t]
            last = delta + args.gamma * args.gae_lambda * nonterminal * last
            adv[t] = last
        ret = adv + val_buf
        B = T * N
        fx, fm = obs_buf.reshape(B, d), mask_buf.reshape(B, n_act)
        fa, fl = act_buf.reshape(B), logp_buf.reshape(B)
        fadv, fret = adv.reshape(B), ret.reshape(B)
        mb = B // args.num_minibatches
        for _epoch in range(args.update_epochs):
            order = rng.permutation(B)
            for k in range(0, B, mb):
                j = order[k:k + mb]
                a_n = fadv[j]
                a_n = (a_n - a_n.mean()) / (a_n.std() + 1e-8)
                grads, stats = ppo_grads(params, fx[j], fm[j], fa[j], fl[j], a_n, fret[j], args)
                opt.step(params, grads)
        updates += 1
        if updates % 20 == 0:
            last_k = recent[-2000:]
            print(f"{time.time() - start:6.0f}s steps {steps:>9,} deals {deals:>7,} "
                  f"points {np.mean(last_k) if last_k else 0:5.1f} "
                  f"entropy {stats['entropy']:.2f}", flush=True)
    seconds = time.time() - start
    last_k = recent[-2000:]
    summary = {"seconds": round(seconds, 1),
               "cpu_seconds": round(time.process_time() - cpu0, 1), "steps": steps,
               "deals": deals,
               "train_points_last": round(float(np.mean(last_k)), 2) if last_k else None,
               "train_win_rate": round(wins / max(1, deals), 3)}
    return params, summary


def main() -> None:
    args = parse()
    params, summary = train(args)
    if args.out:
        np.savez(args.out, **params)
    summary["load_average"] = round(os.getloadavg()[0], 1)
    if args.eval_deals:
        from ristiseiska.rl.evaluate import evaluate

        for opp in ("random", "expert"):
            s = evaluate(lambda o, m: act(params, o, m), preset=args.preset,
                         players=args.players, opponents=opp, deals=args.eval_deals,
                         seed=args.seed + 1000,
                         knowledge=None if args.knowledge < 0 else args.knowledge)
            summary[f"vs_{opp}"] = {"win_rate": round(s["win_rate"], 3),
                                    "win_ci": [round(v, 3) for v in s["win_ci"]],
                                    "points": round(s["points"], 2)}
    print(json.dumps(summary))


if __name__ == "__main__":
    main()

"""PPO training (``ristiseiska train --method ppo``): its gradients against finite
differences, a run end to end with resume, and clear refusals."""

from __future__ import annotations

import numpy as np
import pytest

from ristiseiska import Game
from ristiseiska.bots import get_bot
from ristiseiska.cli import main
from ristiseiska.learn import ppo
from ristiseiska.learn.features import FEATURE_SIZE, NUM_ACTIONS
from ristiseiska.learn.net import N_PHI, Net, load
from ristiseiska.rules import preset


def _batch(seed: int, n: int = 6) -> tuple[np.ndarray, ...]:
    rng = np.random.default_rng(seed)
    q = rng.normal(size=(n, NUM_ACTIONS))
    mask = rng.random((n, NUM_ACTIONS)) < 0.1
    mask[:, :3] = True  # at least three legal moves a row
    a = np.array([rng.choice(np.flatnonzero(m)) for m in mask])
    logp_old = ppo.masked_log_softmax(q + rng.normal(0, 0.3, q.shape), mask)[np.arange(n), a]
    adv = rng.normal(size=n)
    return q, mask, a, logp_old, adv


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_surrogate_gradient_matches_finite_differences(seed: int) -> None:
    q, mask, a, logp_old, adv = _batch(seed)
    _loss, G = ppo.surrogate(q, mask, a, logp_old, adv, clip=0.2, entropy=0.05)
    eps = 1e-6
    rng = np.random.default_rng(seed + 10)
    for _ in range(25):
        i = int(rng.integers(len(a)))
        j = int(rng.choice(np.flatnonzero(mask[i])))
        up, down = q.copy(), q.copy()
        up[i, j] += eps
        down[i, j] -= eps
        num = (ppo.surrogate(up, mask, a, logp_old, adv, 0.2, 0.05)[0]
               - ppo.surrogate(down, mask, a, logp_old, adv, 0.2, 0.05)[0]) / (2 * eps)
        assert G[i, j] == pytest.approx(num, rel=1e-4, abs=1e-7), (i, j)
    assert (G[~mask] == 0).all()  # an illegal move's logit is never pushed


def test_the_clip_stops_the_gradient_of_a_ratio_past_it() -> None:
    q, mask, a, _old, _adv = _batch(3, n=1)
    logp = ppo.masked_log_softmax(q, mask)[0, a[0]]
    # the move has become much likelier than when it was played and it paid: no more push
    _l, G = ppo.surrogate(q, mask, a, np.array([logp - 1.0]), np.array([1.0]), entropy=0.0)
    assert not G.any()
    _l, G = ppo.surrogate(q, mask, a, np.array([logp]), np.array([1.0]), entropy=0.0)
    assert G[0, a[0]] < 0  # within the clip: the loss falls as the move's logit rises


def test_backpropagation_matches_finite_differences() -> None:
    rng = np.random.default_rng(4)
    net = Net(hidden=(8, 6), seed=1)
    net.p["theta"] = rng.normal(size=N_PHI).astype(np.float32)
    X = rng.random((5, FEATURE_SIZE)).astype(np.float32)
    phi = rng.random((5, NUM_ACTIONS, N_PHI)).astype(np.float32)
    G = rng.normal(size=(5, NUM_ACTIONS)).astype(np.float32)
    _q, (X_, phi_, z1, z2, h2) = net.forward(X, phi)
    grads = net._grads(X_, z1, z2, h2, G, np.einsum("na,nak->k", G, phi))

    def f() -> float:  # the loss whose gradient by the outputs is G
        return float((net.q(X, phi).astype(np.float64) * G).sum())

    for k, idx in [("W1", (3, 2)), ("b1", (5,)), ("W2", (1, 4)), ("b2", (2,)), ("W3", (0, 7)),
                   ("b3", (9,)), ("theta", (4,))]:
        old = float(net.p[k][idx])
        eps = 1e-2
        net.p[k][idx] = old + eps
        up = f()
        net.p[k][idx] = old - eps
        down = f()
        net.p[k][idx] = old
        assert grads[k][idx] == pytest.approx((up - down) / (2 * eps), rel=2e-2, abs=2e-3), k


def test_ppo_trains_end_to_end_resumes_and_plays(tmp_path) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "p.npz"
    assert main(["train", "--method", "ppo", "--steps", "4000", "--out", str(out),
                 "--presets", "ristiseiska,sjuan", "--players", "4", "--rows", "16",
                 "--eval-deals", "1", "--seed", "5", "--quiet"]) == 0
    net, meta = load(str(out), optimizer=True)
    vnet, vmeta = load(ppo.value_path(str(out)), optimizer=True)
    assert meta["method_name"] == "ppo" and meta["steps"] >= 4000 and net.t > 0 and vnet.t > 0
    assert vmeta["role"] == "value" and len(meta["evaluations"]) == 1
    before = {k: v.copy() for k, v in net.p.items()}
    assert main(["train", "--method", "ppo", "--resume", "--out", str(out),
                 "--steps", str(meta["steps"] + 2000), "--eval-deals", "0", "--quiet"]) == 0
    net2, meta2 = load(str(out))
    assert meta2["steps"] >= meta["steps"] + 2000 and meta2["rounds"] > meta["rounds"]
    assert any((net2.p[k] != before[k]).any() for k in before)
    # the policy plays through the neural bot, every rule set it was trained on and more
    g = Game(preset("sjuan"), 4, seed=2)
    bot = get_bot("neural", path=str(out))
    while not g.is_over():
        g.push(bot.choose(g.view(g.to_move)))


def test_ppo_is_deterministic_for_a_seed_and_a_step_budget(tmp_path) -> None:  # type: ignore[no-untyped-def]
    nets = []
    for k in range(2):
        out = tmp_path / f"p{k}.npz"
        assert main(["train", "--method", "ppo", "--steps", "2000", "--out", str(out),
                     "--presets", "ristiseiska", "--players", "4", "--rows", "16",
                     "--eval-deals", "0", "--seed", "6", "--quiet"]) == 0
        nets.append(load(str(out))[0])
    for k in nets[0].p:
        assert (nets[0].p[k] == nets[1].p[k]).all(), k


def test_resuming_with_another_method_or_without_the_value_net_is_refused(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "d.npz"
    common = ["--presets", "ristiseiska", "--players", "4", "--rows", "8", "--eval-deals", "0",
              "--quiet"]
    assert main(["train", "--steps", "500", "--out", str(out), *common]) == 0
    before = out.read_bytes()
    assert main(["train", "--method", "ppo", "--resume", "--steps", "900", "--out", str(out),
                 *common]) != 0
    assert "trained with dmc, not ppo" in capsys.readouterr().err
    assert out.read_bytes() == before  # nothing written
    out2 = tmp_path / "p.npz"
    assert main(["train", "--method", "ppo", "--steps", "500", "--out", str(out2), *common]) == 0
    (tmp_path / "p.value.npz").unlink()
    assert main(["train", "--method", "ppo", "--resume", "--steps", "900", "--out", str(out2),
                 *common]) != 0
    assert "value network" in capsys.readouterr().err

"""The numpy training example and the policy bot: a short training run gives a file that
``get_bot("policy", path=...)`` loads and plays legally with; bad files are refused with a
reason; the shipped example policy beats three random players in a duplicate tournament;
``ristiseiska bench --env --json`` reports the documented figures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ristiseiska.bots import BOT_NAMES, get_bot
from ristiseiska.bots.policy import PolicyFileError
from ristiseiska.game import Game
from ristiseiska.rules import preset
from ristiseiska.tournament import run_tournament

pytest.importorskip("ristiseiska.kernel.vecenv")
from ristiseiska.rl.train import main as train_main  # noqa: E402
from ristiseiska.rl.train import save, train  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
SHIPPED = ROOT / "examples" / "policy-ristiseiska-4p.npz"


@pytest.fixture(scope="module")
def short_policy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("policy") / "p.npz"
    result = train(preset("sjuan"), players=3, seconds=1.5, envs=32, seed=1)
    assert result["meta"]["deals"] > 0 and np.isfinite(result["W"]).all()
    save(result, str(path))
    return path


def test_trained_file_plays_legal_deals(short_policy: Path) -> None:
    bot = get_bot("policy", seed=1, path=str(short_policy))
    sampler = get_bot("policy", seed=1, path=str(short_policy), sample=1)
    for seed in range(3):
        g = Game(preset("sjuan"), 3, seed=seed)
        while not g.is_over():
            v = g.view(g.to_move)
            m = (bot if g.to_move == 0 else sampler).choose(v)
            assert m in g.legal_moves()
            assert sampler.choose(v) == sampler.choose(v)  # seeded: same view, same move
            g.push(m)
    g = Game(preset("sjuan"), 3, seed=9)
    legal, p = bot.probabilities(g.view(g.to_move))
    assert len(p) == len(legal) and abs(p.sum() - 1) < 1e-9


def test_bad_policy_files_are_refused(tmp_path: Path, short_policy: Path) -> None:
    with pytest.raises(ValueError, match="needs a policy file"):
        get_bot("policy")
    with pytest.raises(PolicyFileError, match="does not exist"):
        get_bot("policy", path=str(tmp_path / "missing.npz"))
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(PolicyFileError, match="not a policy file"):
        get_bot("policy", path=str(junk))
    other = tmp_path / "other.npz"
    np.savez(other, W=np.zeros((3, 2)), scale=np.ones(2), meta=np.array('{"format": "x"}'))
    with pytest.raises(PolicyFileError, match="not a ristiseiska-linear-policy"):
        get_bot("policy", path=str(other))
    bot = get_bot("policy", path=str(short_policy))  # trained for 3 players
    with pytest.raises(PolicyFileError, match="train a policy for them"):
        g4 = Game(preset("sjuan"), 4, seed=1)
        bot.choose(g4.view(g4.to_move))
    assert "policy" not in BOT_NAMES  # not a level to pick in the games' menus


def test_train_command_line(tmp_path: Path) -> None:
    out = tmp_path / "cli.npz"
    assert train_main(["--preset", "fan-tan", "--players", "3", "--seconds", "1", "--envs",
                       "16", "--out", str(out)]) == 0
    assert out.exists()
    assert train_main(["--preset", "kaksi-pakkaa", "--seconds", "1", "--out",
                       str(tmp_path / "x.npz")]) == 2  # outside the kernel: a clear error


def test_shipped_policy_beats_three_random_players() -> None:
    """The example policy (trained by ``python -m ristiseiska.rl.train``, docs/rl.md) against
    three random players, every deal played in all four seatings."""
    spec = f"policy:path={SHIPPED}"
    t = run_tournament(preset("ristiseiska"), [spec, "random", "random", "random"], games=300,
                       seed=2026, duplicate=True, workers=1)
    stats = t.stats()
    mine, rand = stats[spec], stats["random"]
    assert mine["mean_points"] < rand["mean_points"]
    assert mine["win_rate_ci"][0] > 0.25  # a random player's share, outside the 95% interval


def test_bench_env_json() -> None:
    out = subprocess.run([sys.executable, "-m", "ristiseiska.cli", "bench", "--env", "--json",
                          "--preset", "sjuan"], capture_output=True, text=True, timeout=600,
                         check=True).stdout
    got = json.loads(out)
    assert set(got["env_steps_per_s"]) == {"1", "64", "1024"}
    assert all(v > 0 for v in got["env_steps_per_s"].values())
    assert set(got["env_steps_per_cpu_s"]) == {"1", "64", "1024"}
    assert got["kernel_deals_per_s"] > 0 and got["pettingzoo_steps_per_s"] > 0
    out = subprocess.run([sys.executable, "-m", "ristiseiska.cli", "bench", "--env",
                          "--preset", "kaksi-pakkaa"], capture_output=True, text=True,
                         timeout=600, check=True).stdout
    assert "skipped (the kernel does not play two decks)" in out and "PettingZoo" in out


BLOCK = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in ("gymnasium", "pettingzoo", "pyspiel", "open_spiel"):
            raise ImportError(f"{name} is blocked (core install)")
sys.meta_path.insert(0, Block())
"""


def test_core_parts_work_without_the_rl_extra() -> None:
    """Without PettingZoo, Gymnasium and OpenSpiel: the encoding, the vector environment, the
    policy bot and the bench still work; the library environments say what is missing."""
    code = BLOCK + f"""
import json
from ristiseiska.bots import get_bot
from ristiseiska.game import Game
from ristiseiska.kernel.vecenv import VecEnv
from ristiseiska.rl.bench import run_bench
from ristiseiska.rules import preset
import ristiseiska.rl
g = Game(seed=1)
print(get_bot("policy", path={str(SHIPPED)!r}).choose(g.view(g.to_move)))
env = VecEnv(preset("ristiseiska"), 4, 2, seed=1)
env.reset()
env.step(env.random_actions())
r = run_bench(preset("sjuan"), 4, 1, quick=True)
print(json.dumps(r["pettingzoo_skipped"]))
try:
    ristiseiska.rl.env()
except ImportError as e:
    print("env:", e)
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=600, check=True).stdout
    assert out.splitlines()[0] == "C7"
    assert "pip install 'ristiseiska[rl]'" in out
    assert "env: the PettingZoo environment needs the rl extra" in out

"""The interfaces as outside tools meet them: PettingZoo's render_test, the Gymnasium vector
environment checked against Gymnasium's vector API contract (its batched spaces, its own
SyncVectorEnv as the reference for same-step autoreset, its vector wrappers and benchmark),
Stable-Baselines3 (if installed), MaskablePPO's action_masks(), OpenSpiel's length bound and
perfect-recall tensor, and a reset that never returns a finished deal."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest

from ristiseiska.kernel import unsupported
from ristiseiska.rules import PRESETS, Rules, preset

pettingzoo = pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
gymnasium = pytest.importorskip("gymnasium", reason="the rl extra is not installed")

from gymnasium.utils.env_checker import data_equivalence  # noqa: E402
from gymnasium.vector import AutoresetMode, SyncVectorEnv  # noqa: E402
from gymnasium.vector.utils import batch_space  # noqa: E402

from ristiseiska.rl import GYM_ID, env  # noqa: E402
from ristiseiska.rl.gym_env import RistiseiskaGym  # noqa: E402
from ristiseiska.rl.vector import RistiseiskaVectorEnv  # noqa: E402

NAMES = list(PRESETS)
KERNEL = [n for n in NAMES if unsupported(preset(n), max(preset(n).min_players, 2)) is None]


def players_for(name: str) -> int:
    r = preset(name)
    return max(r.min_players, min(4, r.max_players))


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.filterwarnings("ignore", category=UserWarning)


# -- PettingZoo ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_render_test(name: str, capsys) -> None:
    from pettingzoo.test import render_test

    n = players_for(name)
    render_test(lambda render_mode=None: env(preset=name, players=n, render_mode=render_mode))
    assert "cards in hand" in capsys.readouterr().out  # "human" printed the table


def test_pettingzoo_api_test_with_the_knowledge_block() -> None:
    from pettingzoo.test import api_test

    api_test(env(preset="ristiseiska-pyynto", players=4, knowledge=4), num_cycles=300)


# -- Gymnasium single env ----------------------------------------------------------------------
def test_gymnasium_action_masks_human_render_and_knowledge(capsys) -> None:
    from gymnasium.utils.env_checker import check_env

    e = gymnasium.make(GYM_ID, preset="ristiseiska", players=4, render_mode="human",
                       knowledge=3).unwrapped
    check_env(e, skip_render_check=True)
    obs, _ = e.reset(seed=2)
    assert np.array_equal(e.action_masks(), obs["action_mask"])
    assert obs["observation"].shape == (e.encoding.obs_size,) == (192 + 3 * 52 + 3 * 56,)
    assert "to move" in capsys.readouterr().out
    with pytest.raises(ValueError, match="knowledge"):
        RistiseiskaGym(knowledge=-1)


def test_reset_never_returns_a_finished_deal() -> None:
    # A deal can end before the learner's first move (a stock game; here, sooner, a stall
    # limit of one turn): reset returned it with the mask all zero and step then raised.
    from ristiseiska.kernel.vecenv import VecEnv

    rules = Rules(stall_turns=1)
    early = 0
    for s in range(60):
        g = RistiseiskaGym(rules=rules, players=4, opponents="random")
        obs, _ = g.reset(seed=s)
        assert obs["action_mask"].any() and not g.game.is_over()
        probe = ristiseiska_game(rules, s)
        early += probe
    assert early > 0  # the case is real: such deals were dealt and skipped
    v = VecEnv(rules, 4, 64, seed=1, opponents=[None, "random", "strong", "random"],
               learner=0)
    obs, mask, seat = v.reset()
    for _ in range(40):
        assert (seat == 0).all() and (mask.sum(axis=1) > 0).all()
        obs, mask, seat, _r, done = v.step(v.random_actions())
        assert not done.any() or (v.final_obs[done].sum(axis=1) > 0).all()


def ristiseiska_game(rules: Rules, s: int) -> bool:
    """Whether the Gym env's first deal for seed ``s`` ends before seat 0 moves."""
    from ristiseiska.bots import get_bot
    from ristiseiska.game import Game
    from ristiseiska.rl.common import next_deal

    deal_seed, dealer = next_deal(np.random.default_rng(s), 4)
    g = Game(rules, 4, seed=deal_seed, dealer=dealer)
    bot = get_bot("random", seed=0)
    while not g.is_over() and g.to_move != 0:
        g.push(bot.choose(g.view(g.to_move)))
    return g.is_over()


# -- the Gymnasium vector env -------------------------------------------------------------------
def check_vector_env(envs: RistiseiskaVectorEnv, make, steps: int = 120) -> None:
    """Gymnasium's VectorEnv contract, checked with Gymnasium's own tools."""
    assert envs.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    N = envs.num_envs
    assert envs.observation_space == batch_space(envs.single_observation_space, N)
    assert envs.action_space == batch_space(envs.single_action_space, N)
    obs, info = envs.reset(seed=7)
    assert obs in envs.observation_space and isinstance(info, dict)
    twin = make()
    obs2, info2 = twin.reset(seed=7)
    assert data_equivalence(obs, obs2) and data_equivalence(info, info2)
    other, _ = make().reset(seed=8)
    assert not data_equivalence(obs, other)
    envs.action_space.seed(3)
    finished = 0
    for t in range(steps):
        if t % 3 == 0:  # a random action, mostly illegal: ends the deal cleanly
            actions = envs.action_space.sample()
        else:
            actions = np.array([np.flatnonzero(m)[t % int(m.sum())]
                                for m in obs["action_mask"]])
        out = envs.step(actions)
        out2 = twin.step(actions)
        assert data_equivalence(out, out2), "same seed, same actions: same outputs"
        obs, reward, term, trunc, info = out
        assert obs in envs.observation_space
        assert reward.shape == term.shape == trunc.shape == (N,)
        assert term.dtype == trunc.dtype == np.bool_
        assert (obs["action_mask"].sum(axis=1) > 0).all()  # every row waits for a move
        if term.any():
            assert np.array_equal(info["_final_obs"], term)
            assert np.array_equal(info["_final_info"], term)
            fin = info["final_info"]
            assert {"points", "winner", "illegal"} <= set(fin)
            assert np.array_equal(fin["_points"], term)
            for i in np.flatnonzero(term):
                assert info["final_obs"][i] in envs.single_observation_space
                assert not info["final_obs"][i]["action_mask"].any()
                if not fin["illegal"][i]:
                    assert fin["points"][i].min() >= 0 and fin["winner"][i] >= -1
            finished += int(term.sum())
        else:
            assert info == {}
    assert finished > 0


@pytest.mark.parametrize("name", KERNEL)
def test_vector_env_follows_gymnasium_vector_api(name: str) -> None:
    n = players_for(name)

    def make() -> RistiseiskaVectorEnv:
        return RistiseiskaVectorEnv(num_envs=6, preset=name, players=n,
                                    opponents=["random", "strong", "greedy", "random",
                                               "sensible", "random", "random"][:n - 1])

    check_vector_env(make(), make)


def test_vector_env_info_matches_gymnasium_sync_vector_env() -> None:
    """Gymnasium's own SyncVectorEnv (same-step autoreset) over the single-agent env is the
    reference: the same keys and types in info, the same spaces."""
    sync = SyncVectorEnv([lambda: RistiseiskaGym(players=4) for _ in range(3)],
                         autoreset_mode=AutoresetMode.SAME_STEP)
    ours = RistiseiskaVectorEnv(num_envs=3, players=4)
    assert sync.single_observation_space == ours.single_observation_space
    assert sync.single_action_space == ours.single_action_space
    assert sync.observation_space == ours.observation_space
    infos = []
    for e in (sync, ours):
        obs, _ = e.reset(seed=1)
        while True:
            a = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
            obs, _r, term, _t, info = e.step(a)
            if term.any():
                infos.append(info)
                break
    a, b = infos
    assert set(a) >= {"final_obs", "_final_obs", "final_info", "_final_info"} <= set(b)
    for key in ("final_obs", "_final_obs", "_final_info"):
        assert type(a[key]) is type(b[key]) and a[key].dtype == b[key].dtype
    assert isinstance(a["final_info"], dict) and isinstance(b["final_info"], dict)
    i = int(np.flatnonzero(a["_final_obs"])[0])
    j = int(np.flatnonzero(b["_final_obs"])[0])
    assert a["final_obs"][i].keys() == b["final_obs"][j].keys()


def test_vector_env_with_gymnasium_wrappers_and_benchmark() -> None:
    from gymnasium.utils.performance import benchmark_vector_step
    from gymnasium.wrappers.vector import RecordEpisodeStatistics

    envs = RecordEpisodeStatistics(RistiseiskaVectorEnv(num_envs=8, players=4))
    obs, _ = envs.reset(seed=0)
    returns = np.zeros(8)
    seen = 0
    for _ in range(200):
        a = np.array([np.flatnonzero(m)[-1] for m in obs["action_mask"]])
        obs, r, term, trunc, info = envs.step(a)
        returns += r
        for i in np.flatnonzero(term):
            assert info["_episode"][i]
            assert info["episode"]["r"][i] == pytest.approx(returns[i])
            returns[i] = 0
            seen += 1
    assert seen > 0
    assert benchmark_vector_step(RistiseiskaVectorEnv(num_envs=16), target_duration=1,
                                 seed=0) > 0


def test_vector_env_plays_a_callable_opponent_and_learns_nothing_hidden() -> None:
    calls = []

    def lowest(obs, mask, seats):
        assert obs.shape[0] == mask.shape[0] == seats.shape[0] > 0
        assert (seats == 2).all() and (mask.sum(axis=1) > 0).all()
        calls.append(len(seats))
        return np.array([np.flatnonzero(m)[0] for m in mask])

    envs = RistiseiskaVectorEnv(num_envs=5, players=4, opponents=("random", lowest, "strong"),
                                knowledge=2)
    obs, _ = envs.reset(seed=4)
    done = 0
    for _ in range(150):
        a = np.array([np.flatnonzero(m)[0] for m in obs["action_mask"]])
        obs, _r, term, _t, _i = envs.step(a)
        assert (envs.vec.seats == 0).all()
        done += int(term.sum())
    assert calls and done > 0
    with pytest.raises(ValueError, match="returned 1 actions"):
        RistiseiskaVectorEnv(num_envs=4, players=3, opponents=(
            "random", lambda o, m, s: [0])).reset(seed=0)
    with pytest.raises(ValueError, match="kernel policy"):
        RistiseiskaVectorEnv(opponents="expert")
    with pytest.raises(ValueError, match="kernel"):
        RistiseiskaVectorEnv(preset="jokerit")


def test_vector_env_reuses_its_arrays_only_with_copy_false() -> None:
    shared = RistiseiskaVectorEnv(num_envs=2, copy=False)
    o1, _ = shared.reset(seed=0)
    o2, *_ = shared.step(np.array([np.flatnonzero(m)[0] for m in o1["action_mask"]]))
    assert o1["observation"] is o2["observation"]
    fresh = RistiseiskaVectorEnv(num_envs=2)
    p1, _ = fresh.reset(seed=0)
    p2, *_ = fresh.step(np.array([np.flatnonzero(m)[0] for m in p1["action_mask"]]))
    assert p1["observation"] is not p2["observation"]


# -- Stable-Baselines3 -------------------------------------------------------------------------
def test_stable_baselines3_vec_env_and_maskable_ppo() -> None:
    pytest.importorskip("stable_baselines3", reason="stable-baselines3 is not installed")
    sb3c = pytest.importorskip("sb3_contrib", reason="sb3-contrib is not installed")
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.vec_env import VecMonitor

    from ristiseiska.rl.sb3 import make_sb3_env

    venv = make_sb3_env(num_envs=4, players=4)
    venv.seed(3)
    obs = venv.reset()
    assert obs.shape == (4, 192)
    masks = get_action_masks(venv)
    assert masks.shape == (4, 110) and masks.dtype == np.bool_
    seen = 0
    for _ in range(100):
        venv.step_async(np.array([np.flatnonzero(m)[0] for m in get_action_masks(venv)]))
        obs, rew, done, infos = venv.step_wait()
        for i in np.flatnonzero(done):
            assert infos[i]["terminal_observation"].shape == (192,)
            seen += 1
    assert seen > 0
    monitored = VecMonitor(make_sb3_env(num_envs=4, players=4))
    model = sb3c.MaskablePPO("MlpPolicy", monitored, n_steps=32, batch_size=64, seed=0)
    model.learn(256)
    action, _ = model.predict(obs[0], action_masks=get_action_masks(venv)[0])
    assert get_action_masks(venv)[0][int(action)]


# -- OpenSpiel ---------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_openspiel_length_bound_and_perfect_recall_tensor(name: str) -> None:
    pyspiel = pytest.importorskip("pyspiel", reason="open-spiel is not installed")
    import ristiseiska.rl.openspiel  # noqa: F401

    n = players_for(name)
    game = pyspiel.load_game("python_ristiseiska", {"preset": name, "players": n})
    bound = game.max_game_length()
    rules = preset(name)
    if rules.failure != "ask":  # forced play: the bound is near a real deal's length
        assert bound <= 8 * 52 * rules.decks
    rs = np.random.RandomState(1)
    by_string: dict[str, tuple[float, ...]] = {}
    by_tensor: dict[tuple[float, ...], str] = {}
    for _deal in range(3):
        state = game.new_initial_state()
        decisions = 0
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_action(int(rs.choice([a for a, _ in state.chance_outcomes()])))
                continue
            for p in range(n):
                s = state.information_state_string(p)
                t = tuple(state.information_state_tensor(p))
                assert by_string.setdefault(s, t) == t
                assert by_tensor.setdefault(t, s) == s  # the tensor tells states apart
            state.apply_action(int(rs.choice(state.legal_actions())))
            decisions += 1
        assert decisions <= bound
    assert len(by_string) > 20


def test_openspiel_length_bound_holds_for_random_deals() -> None:
    from ristiseiska.game import Game
    from ristiseiska.rl.openspiel import max_decisions

    for name in NAMES:
        r = preset(name)
        n = players_for(name)
        rng = random.Random(0)
        stock = 0
        longest = 0
        for seed in range(40):
            g = Game(r, n, seed=seed)
            stock = len(g.initial_stock)
            k = 0
            while not g.is_over():
                g.push(rng.choice(g.legal_moves()))
                k += 1
            longest = max(longest, k)
        assert longest <= max_decisions(r, n, stock), name


@pytest.mark.parametrize("name", ["ristiseiska", "sjuan", "ristiseiska-pyynto"])
def test_vector_env_with_neural_opponents_follows_gymnasium_vector_api(name: str) -> None:
    """The same contract with the learned network in a seat (beside a callable and a kernel
    policy)."""

    def first_legal(obs: np.ndarray, mask: np.ndarray, seats: np.ndarray) -> np.ndarray:
        return np.argmax(mask, axis=1)

    def make() -> RistiseiskaVectorEnv:
        return RistiseiskaVectorEnv(num_envs=6, preset=name, players=4,
                                    opponents=["neural", first_legal, "strong"])

    check_vector_env(make(), make)

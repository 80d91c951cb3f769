"""The library interfaces of ristiseiska.rl, checked by the libraries' own tests for every
preset: PettingZoo (api_test, seed_test), Gymnasium (check_env), OpenSpiel
(random_sim_test with serialisation, and its Python ISMCTS bot playing full deals)."""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np
import pytest

from ristiseiska.rules import PRESETS, preset

pettingzoo = pytest.importorskip("pettingzoo", reason="the rl extra (pettingzoo) is not installed")
gymnasium = pytest.importorskip("gymnasium", reason="the rl extra (gymnasium) is not installed")

from ristiseiska.rl import GYM_ID, env  # noqa: E402

NAMES = list(PRESETS)


def players_for(name: str) -> int:
    r = preset(name)
    return max(r.min_players, min(4, r.max_players))


@pytest.fixture(autouse=True)
def _quiet() -> None:
    # the libraries' checkers warn about Dict observation spaces; the layout is intended
    warnings.filterwarnings("ignore", category=UserWarning)


# -- PettingZoo ------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_pettingzoo_api_and_seed(name: str) -> None:
    from pettingzoo.test import api_test, seed_test

    n = players_for(name)
    api_test(env(preset=name, players=n), num_cycles=1000)
    seed_test(lambda: env(preset=name, players=n), num_cycles=500)


def play_aec(e, seed: int) -> tuple[dict[str, float], int]:
    """Random legal play of one deal: each agent's total reward, and the number of moves."""
    e.reset(seed=seed)
    rng = np.random.default_rng(seed)
    steps = 0
    total = dict.fromkeys(e.possible_agents, 0.0)
    for agent in e.agent_iter():
        obs, reward, term, trunc, _ = e.last()
        total[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return total, steps


def test_pettingzoo_rewards_are_the_deal_result() -> None:
    e = env(preset="ristiseiska", players=4)
    e.reset(seed=3)
    total = dict.fromkeys(e.possible_agents, 0.0)
    rng = np.random.default_rng(3)
    result = None
    for agent in e.agent_iter():
        obs, reward, term, trunc, info = e.last()
        total[agent] += reward
        if term or trunc:
            result = info["result"]
            e.step(None)
            continue
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert result is not None
    assert [total[a] for a in e.possible_agents] == [-float(p) for p in result["points"]]
    w = env(preset="sjuan", players=4, reward="win")
    rewards, _ = play_aec(w, 9)
    assert sorted(rewards.values()) in ([0.0, 0.0, 0.0, 1.0], [0.0] * 4)


def test_pettingzoo_illegal_action_ends_the_deal_cleanly() -> None:
    e = env(preset="ristiseiska", players=4)
    e.reset(seed=1)
    obs, *_ = e.last()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    mover = e.agent_selection
    e.step(bad)
    assert all(e.terminations.values())
    assert e.rewards[mover] == -200.0 and e.infos[mover]["illegal"]
    for _agent in e.agent_iter():  # every agent then takes its dead step
        e.step(None)
    assert e.agents == []


def test_pettingzoo_max_cycles_truncates() -> None:
    """PettingZoo's own max_cycles_test does not apply here: it samples actions without the
    mask (any illegal action ends our deal) and its parallel form needs every agent to act
    once per cycle, which a turn game with extra moves and asks does not do. The option
    itself: the deal is truncated once every seat has made ``max_cycles`` decisions."""
    e = env(preset="ristiseiska", players=4, max_cycles=3)
    e.reset(seed=2)
    rng = np.random.default_rng(2)
    decisions = dict.fromkeys(e.possible_agents, 0)
    for agent in e.agent_iter():
        obs, _, term, trunc, _ = e.last()
        if term or trunc:
            e.step(None)
            continue
        decisions[agent] += 1
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert min(decisions.values()) == 3 and all(e.truncations.get(a, True) for a in decisions)


def test_pettingzoo_render_and_bad_options() -> None:
    e = env(preset="kahdestaan-pakka", players=2, render_mode="ansi")
    e.reset(seed=0)
    text = e.render()
    assert "row 0: C7" in text and "to move" in text
    with pytest.raises(ValueError, match="render_mode"):
        env(render_mode="rgb_array")
    with pytest.raises(ValueError, match="reward"):
        env(reward="chips")
    with pytest.raises(ValueError, match="players"):
        env(preset="sjuan", players=2)
    with pytest.raises(ValueError, match="unknown preset"):
        env(preset="pokeri")
    with pytest.raises(ValueError, match="unknown rule option"):
        env(rules={"tokn_value": 3})
    assert env(rules={"token_value": 30}).rules.token_value == 30


# -- Gymnasium -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", NAMES)
def test_gymnasium_check_env(name: str) -> None:
    from gymnasium.utils.env_checker import check_env

    n = players_for(name)
    e = gymnasium.make(GYM_ID, preset=name, players=n, opponents="random")
    check_env(e.unwrapped, skip_render_check=True)


def test_gymnasium_with_our_bots_and_an_illegal_action() -> None:
    e = gymnasium.make(GYM_ID, preset="ristiseiska", players=4,
                       opponents=("expert", "random", "basic"))
    obs, info = e.reset(seed=4)
    assert obs["action_mask"].any()
    bad = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    obs, reward, term, trunc, info = e.step(bad)
    assert term and not trunc and reward == -200.0 and info["illegal"]
    assert not obs["action_mask"].any()
    with pytest.raises(RuntimeError, match="reset"):
        e.step(0)
    obs, _ = e.reset(seed=4)
    rng = np.random.default_rng(0)
    total = 0.0
    term = False
    while not term:
        obs, reward, term, trunc, info = e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
        total += reward
    assert total == -info["result"]["points"][0]
    with pytest.raises(ValueError, match="unknown bot"):
        gymnasium.make(GYM_ID, opponents=("wizard", "random", "random"))
    shipped = Path(__file__).resolve().parents[1] / "examples" / "policy-ristiseiska-4p.npz"
    e2 = gymnasium.make(GYM_ID, opponents=(f"policy:path={shipped}", "basic", "random"))
    obs, _ = e2.reset(seed=1)
    assert obs["observation"].shape == (192,)
    with pytest.raises(ValueError, match="does not exist"):
        gymnasium.make(GYM_ID, opponents=("policy:path=/no/such.npz", "basic", "random"))
    with pytest.raises(ValueError, match="one opponent per other seat"):
        gymnasium.make(GYM_ID, players=4, opponents=("random",) * 2)


# -- OpenSpiel -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def pyspiel():
    mod = pytest.importorskip("pyspiel", reason="the rl extra (open-spiel) is not installed")
    import ristiseiska.rl.openspiel  # noqa: F401

    return mod


@pytest.mark.parametrize("name", NAMES)
def test_openspiel_random_sim(pyspiel, name: str) -> None:
    game = pyspiel.load_game("python_ristiseiska", {"preset": name, "players": players_for(name)})
    pyspiel.random_sim_test(game, num_sims=2, serialize=True, verbose=False)


@pytest.mark.parametrize("name", NAMES)
def test_openspiel_ismcts_plays_full_deals(pyspiel, name: str) -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    n = players_for(name)
    game = pyspiel.load_game("python_ristiseiska", {"preset": name, "players": n, "dealer": 1})
    rs = np.random.RandomState(7)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, 8, random_state=rs)
    state = game.new_initial_state()
    searched = 0
    while not state.is_terminal():
        if state.is_chance_node():
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rs.choice(actions, p=probs)))
        elif state.current_player() == 0:
            searched += len(state.legal_actions()) > 1
            state.apply_action(int(bot.step(state)))
        else:
            state.apply_action(int(rs.choice(state.legal_actions())))
    assert len(state.returns()) == n and searched >= 0


def test_openspiel_information_states_tell_two_different_decks_apart(pyspiel) -> None:
    # Both copies of a card read "CK" without the deck mark, yet their actions differ: one
    # information state standing for both broke ISMCTS (a child action missing from its node).
    game = pyspiel.load_game("python_ristiseiska", {"preset": "kaksi-erilaista-pakkaa",
                                                    "players": 4})
    rs = np.random.RandomState(3)
    state = game.new_initial_state()
    while state.is_chance_node():
        state.apply_action(int(rs.choice([a for a, _ in state.chance_outcomes()])))
    for _ in range(12):
        state.apply_action(int(rs.choice(state.legal_actions())))
    g = state._g
    seconds = 0
    for p in range(4):
        mine = sorted(c.notation(True) for c in g.hand(p))
        seconds += sum(t.endswith("+") for t in mine)
        for text in (state.information_state_string(p), state.observation_string(p)):
            assert sorted(text.split("|")[0].split()[2:]) == mine, text
    assert seconds > 0
    table = state.observation_string(0).split("table:")[1].split("|")[0]
    assert "+" in table  # the second deck's rows are marked on the table too


def test_openspiel_parameters_tensors_and_resampling(pyspiel) -> None:
    game = pyspiel.load_game("python_ristiseiska",
                             {"preset": "ristiseiska-pyynto", "players": 4,
                              "rules": "token_value=25; first_round_pass=false"})
    assert game.num_distinct_actions() == 110 and game.max_chance_outcomes() == 52
    state = game.new_initial_state()
    rs = np.random.RandomState(1)
    while state.is_chance_node():
        state.apply_action(int(rs.choice([a for a, _ in state.chance_outcomes()])))
    for _ in range(30):
        state.apply_action(int(rs.choice(state.legal_actions())))
    p = state.current_player()
    # the perfect-recall tensor: the observation, the dealt hand, one slot per decision
    assert len(state.information_state_tensor(p)) == game.information_state_tensor_size()
    assert game.information_state_tensor_size() == 192 + 53 + game.max_game_length()
    assert len(state.observation_tensor(p)) == 192
    key = state.information_state_string(p)
    other_hands = set()
    for _k in range(5):
        s2 = state.resample_from_infostate(p, pyspiel.UniformProbabilitySampler(0.0, 1.0))
        assert s2.information_state_string(p) == key
        assert s2.legal_actions() == state.legal_actions()
        other_hands.add(str(s2).split("hands:")[1])
    assert len(other_hands) > 1  # the hidden hands really are drawn anew
    with pytest.raises(ValueError, match="unknown preset"):
        pyspiel.load_game("python_ristiseiska", {"preset": "nope"})
    with pytest.raises(ValueError, match="option=value"):
        pyspiel.load_game("python_ristiseiska", {"rules": "token_value"})

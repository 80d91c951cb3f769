"""The compiled vectorised environment (kernel/vecenv.py): every deal it plays, replayed move
by move in the full engine, gives the same observations, masks, seats to move, ends and
rewards as the shared encoding of the engine's views. No timing assertions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ristiseiska.cards import CARDS
from ristiseiska.game import Game
from ristiseiska.kernel import unsupported
from ristiseiska.rl.encoding import Encoding
from ristiseiska.rules import PRESETS, Rules, preset

vecenv = pytest.importorskip("ristiseiska.kernel.vecenv")

KERNEL_PRESETS = [name for name in PRESETS
                  if unsupported(preset(name), max(preset(name).min_players, 2)) is None]
HOUSE = [
    (Rules(hoarding="any-with-penalty"), 4),
    (Rules(hoarding="sevens-sixes-eights"), 3),
    (Rules(hoarding="all-but-sevens", failure="token"), 5),
    (Rules(multi_play=True), 4),
    (Rules(ace="high", order="high-first"), 4),
    (Rules(failure="ask", first_round_pass=False, stall_turns=30), 3),
    (Rules(failure="chip", opening="any", order="both", pay_per_card=True, ante=True,
           short_hand_chip=True), 5),
    (preset("sjuan"), 6),
    (preset("ristiseiska"), 8),
    (Rules(token_mode="per-miss", hoarding="all-but-sevens"), 4),  # V18 fines
    (Rules(stock=True, stock_opening="dealt", min_players=2, max_players=2), 2),
]


def engine_game(env, i: int, rules: Rules, n: int) -> Game:
    d = env.deal_setup(i)
    return Game(rules, n, hands=[[CARDS[c] for c in h] for h in d["hands"]],
                stock=[CARDS[c] for c in d["stock"]], dealer=d["dealer"])


def check_against_engine(rules: Rules, n: int, rows: int, steps: int, seed: int) -> int:
    enc = Encoding(rules, n)
    env = vecenv.VecEnv(rules, n, rows, seed=seed)
    assert (env.obs_size, env.num_actions) == (enc.obs_size, enc.num_actions)
    obs, mask, seat = env.reset()
    games = [engine_game(env, i, rules, n) for i in range(rows)]
    rng = np.random.default_rng(seed)
    deals = 0
    for _ in range(steps):
        for i, g in enumerate(games):
            assert g.to_move == seat[i]
            v = g.view(g.to_move)
            assert np.array_equal(enc.legal_mask(v.legal_moves), mask[i])
            assert np.array_equal(enc.observe(v), obs[i])
        actions = env.random_actions(rng)
        for i, g in enumerate(games):
            g.push(enc.action_to_move(int(actions[i]), g.legal_moves()))
        obs, mask, seat, rewards, done = env.step(actions)
        for i, g in enumerate(games):
            assert g.is_over() == bool(done[i])
            if done[i]:
                deals += 1
                assert g.result is not None
                assert rewards[i].tolist() == [-float(p) for p in g.result.points]
                assert env.winners[i] == (-1 if g.result.winner is None else g.result.winner)
                games[i] = engine_game(env, i, rules, n)
            else:
                assert not rewards[i].any()
    return deals


@pytest.mark.parametrize("name", KERNEL_PRESETS)
def test_presets_match_the_engine(name: str) -> None:
    r = preset(name)
    n = max(r.min_players, min(4, r.max_players))
    assert check_against_engine(r, n, rows=4, steps=400, seed=11) > 5


@pytest.mark.parametrize("rules,n", HOUSE)
def test_house_rules_match_the_engine(rules: Rules, n: int) -> None:
    assert check_against_engine(rules, n, rows=3, steps=300, seed=5) > 2


def test_outside_the_kernel_is_refused() -> None:
    for name in ("kaksi-pakkaa", "jokerit"):
        with pytest.raises(ValueError, match="kernel"):
            vecenv.VecEnv(preset(name), 4, 2)


def test_illegal_action_changes_nothing() -> None:
    env = vecenv.VecEnv(preset("ristiseiska"), 4, 3, seed=2)
    obs, mask, seat = env.reset()
    before = (obs.copy(), mask.copy(), seat.copy(), env.hands.copy())
    actions = env.random_actions()
    bad = int(np.flatnonzero(mask[1] == 0)[0])
    actions[1] = bad
    with pytest.raises(ValueError, match=f"row 1: action {bad} is not legal"):
        env.step(actions)
    assert np.array_equal(env.obs, before[0]) and np.array_equal(env.mask, before[1])
    assert np.array_equal(env.seats, before[2]) and np.array_equal(env.hands, before[3])
    for wrong in ([0, 1], np.zeros(3), [[1, 2, 3]]):
        with pytest.raises(ValueError, match="actions must be"):
            env.step(wrong)


def test_same_seed_same_run_and_opponents_inside() -> None:
    def run(seed: int) -> list[float]:
        env = vecenv.VecEnv(preset("sjuan"), 4, 16, seed=seed,
                            opponents=[None, "random", "strong", "greedy"])
        _, _, seat = env.reset()
        total = []
        rng = np.random.default_rng(0)
        for _ in range(200):
            assert (seat == 0).all()  # only the caller's seat is ever asked
            _, _, seat, rewards, done = env.step(env.random_actions(rng))
            total += rewards[done].ravel().tolist()
        return total

    a = run(4)
    assert a == run(4) and a != run(5) and len(a) > 0


def test_win_reward() -> None:
    env = vecenv.VecEnv(preset("ristiseiska"), 3, 8, seed=1, reward="win")
    env.reset()
    seen = 0
    for _ in range(300):
        _, _, _, rewards, done = env.step(env.random_actions())
        for i in np.flatnonzero(done):
            w = env.winners[i]
            assert rewards[i].tolist() == [1.0 if s == w else 0.0 for s in range(3)]
            seen += 1
    assert seen > 0


def test_bad_setup_is_refused() -> None:
    with pytest.raises(ValueError, match="num_envs"):
        vecenv.VecEnv(preset("ristiseiska"), 4, 0)
    with pytest.raises(ValueError, match="reward"):
        vecenv.VecEnv(preset("ristiseiska"), 4, 1, reward="chips")
    with pytest.raises(ValueError, match="caller"):
        vecenv.VecEnv(preset("ristiseiska"), 4, 1, opponents=["random"] * 4)
    with pytest.raises(ValueError, match="unknown playout policy"):
        vecenv.VecEnv(preset("ristiseiska"), 4, 1, opponents=[None, "clever", None, None])
    with pytest.raises(ValueError, match="'expert' kernel policy is for the search's playouts"):
        vecenv.VecEnv(preset("ristiseiska"), 4, 1, opponents=[None, "expert", None, None])
    with pytest.raises(RuntimeError, match="reset"):
        vecenv.VecEnv(preset("ristiseiska"), 4, 1).step([0])


@settings(max_examples=12, deadline=None)
@given(order=st.sampled_from(["low-first", "high-first", "both"]),
       ace=st.sampled_from(["low", "high"]),
       failure=st.sampled_from(["token", "pass", "ask", "chip"]),
       hoarding=st.sampled_from(["none", "sevens-sixes-eights", "all-but-sevens",
                                 "any-with-penalty"]),
       extra=st.booleans(), multi=st.booleans(), frp=st.booleans(),
       opening=st.sampled_from(["C7", "H7", "any"]),
       values=st.sampled_from(["ace14", "ace1", "one"]),
       token_mode=st.sampled_from(["object", "per-miss"]),
       players=st.integers(2, 8), seed=st.integers(0, 1000))
def test_any_kernel_rule_set_matches_the_engine(order, ace, failure, hoarding, extra, multi,
                                                 frp, opening, values, token_mode, players,
                                                 seed) -> None:
    try:
        rules = Rules(order=order, ace=ace, failure=failure, extra_move=extra,
                      multi_play=multi, first_round_pass=frp, opening=opening,
                      card_values=values, token_mode=token_mode,
                      hoarding=hoarding if failure == "token" else "none", stall_turns=60)
    except ValueError:
        assume(False)
    assume(unsupported(rules, players) is None)
    check_against_engine(rules, players, rows=2, steps=120, seed=seed)


def _received_fits(pol: str) -> tuple[float, int]:
    """How often a card handed to the caller's seat (ask-a-card) by kernel opponents playing
    ``pol`` lies next to the table (or is an unopened suit's seven): a card it could use."""
    env = vecenv.VecEnv(preset("ristiseiska-pyynto"), 4, 32, seed=3,
                        opponents=[None, pol, pol, pol])
    env.reset()
    rng = np.random.default_rng(0)
    full = (1 << 52) - 1
    fit = total = 0
    for _ in range(300):
        before = env.hands.copy()
        _, _, _, _, done = env.step(env.random_actions(rng))
        for i in range(env.num_envs):
            got = int(env.hands[i, 0]) & ~int(before[i, 0])
            if done[i] or not got:
                continue
            table = full
            for s in range(4):
                table &= ~int(before[i, s])
            near = 0
            for suit in range(4):
                ranks = [r for r in range(13) if (table >> (suit * 13 + r)) & 1]
                if not ranks:
                    near |= 1 << (suit * 13 + 6)
                    continue
                if min(ranks) > 0:
                    near |= 1 << (suit * 13 + min(ranks) - 1)
                if max(ranks) < 12:
                    near |= 1 << (suit * 13 + max(ranks) + 1)
            total += 1
            fit += bool(got & near)
    return fit / total, total


def test_opponents_inside_give_like_the_expert() -> None:
    """Asked for a card, the kernel's heuristic opponents give one far from the table (as the
    expert does and as the kernel's playouts do); random ones give any card."""
    careful, n = _received_fits("greedy")
    anyhow, m = _received_fits("random")
    assert n >= 200 and m >= 200
    assert careful < 0.06 and anyhow > 0.15, (careful, anyhow)


def _vec_hoards(pol: str) -> dict[str, int]:
    """At every choice between a card and the token (hoarding allowed) in vector-environment
    deals, what kernel policy ``pol`` would do there (``rl.kernel_moves``, the choice the
    environment's kernel opponents make): token taken while it is its own or someone else's."""
    from dataclasses import replace

    from ristiseiska.kernel import POLICIES
    from ristiseiska.rl.kernel_moves import kernel_actions

    rules = replace(preset("ristiseiska"), hoarding="all-but-sevens")
    env = vecenv.VecEnv(rules, 4, 32, seed=5)
    env.reset()
    rng = np.random.default_rng(1)
    tally = {"own": 0, "costly": 0, "took_own": 0, "took_costly": 0}
    for _ in range(150):
        rows = [i for i in range(env.num_envs)
                if env.mask[i, vecenv.A_TOKEN] and env.mask[i, :52].any()
                and env.st[i, vecenv.C_MORE] == 0]
        if rows:
            acts = kernel_actions(env, np.array(rows), POLICIES[pol])
            for i, a in zip(rows, acts, strict=True):
                own = env.st[i, vecenv.C_AUX + 0] == env.st[i, vecenv.C_SEAT]  # AUX_HOLDER
                key = "own" if own else "costly"
                tally[key] += 1
                tally["took_" + key] += int(a == vecenv.A_TOKEN)
        env.step(env.random_actions(rng))
    return tally


def test_opponents_inside_hoard_like_the_expert() -> None:
    """With hoarding allowed, the kernel's heuristic opponents take the token instead of a
    card only when it is already theirs (as the expert and the kernel's playouts do); random
    ones take it at random, whatever it costs."""
    careful = _vec_hoards("greedy")
    anyhow = _vec_hoards("random")
    assert careful["costly"] >= 200 and careful["own"] >= 20, careful
    assert careful["took_costly"] == 0 and careful["took_own"] > 0, careful
    assert anyhow["took_costly"] > 0.2 * anyhow["costly"], anyhow

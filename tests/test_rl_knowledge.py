"""The optional knowledge block: what it says is true (an opponent marked as not holding a card
type does not hold it), the compiled kernel writes exactly what the engine's encoding writes
(every kernel preset and house rules with asking, drawing and hoarding), and the kernel's
final observation of a deal is the engine's view of the end."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ristiseiska.cards import CARDS
from ristiseiska.game import Game
from ristiseiska.kernel import unsupported
from ristiseiska.rl.encoding import Encoding
from ristiseiska.rules import PRESETS, Rules, preset

vecenv = pytest.importorskip("ristiseiska.kernel.vecenv")

KERNEL = [n for n in PRESETS if unsupported(preset(n), max(preset(n).min_players, 2)) is None]
HOUSE = [
    (Rules(failure="ask", first_round_pass=False), 4),
    (Rules(stock=True, stock_opening="dealt", min_players=2, max_players=2), 2),
    (Rules(hoarding="all-but-sevens"), 4),
    (Rules(multi_play=True, failure="pass"), 3),
]


def players_for(name: str) -> int:
    r = preset(name)
    return max(r.min_players, min(4, r.max_players))


@settings(max_examples=30, deadline=None)
@given(name=st.sampled_from(list(PRESETS)), seed=st.integers(0, 10**6))
def test_known_absent_cards_are_really_absent(name: str, seed: int) -> None:
    r = preset(name)
    n = players_for(name)
    enc = Encoding(r, n, knowledge=4)
    rng = random.Random(seed)
    g = Game(r, n, seed=seed, dealer=seed % n)
    marked = 0
    while not g.is_over():
        me = g.to_move
        v = g.view(me)
        absent, plays = enc.knowledge_arrays(v)
        for s in range(n):
            held = {enc.card_type(int(c)) for c in g.hand(s) if not c.is_joker}
            assert not any(absent[s] >> t & 1 for t in held), (name, s)
            marked += bin(absent[s]).count("1")
        # the last plays are the history's plays, most recent first
        hist = [e for e in v.history if e["type"] == "play"]
        assert len(plays) == len(hist)
        obs = enc.observe(v)
        at, size = enc.offsets["recent"]
        block = obs[at:at + size].reshape(4, n + enc.types)
        for j, (s, t) in enumerate(plays[:4]):
            assert block[j, (s - me) % n] == 1 and block[j, n + t] == 1
        g.push(rng.choice(g.legal_moves()))
    assert marked >= 0


def check_kernel(rules: Rules, n: int, rows: int, steps: int, seed: int) -> int:
    enc = Encoding(rules, n, knowledge=3)
    env = vecenv.VecEnv(rules, n, rows, seed=seed, knowledge=3, learner=0)
    assert env.obs_size == enc.obs_size
    obs, mask, seat = env.reset()

    def engine(i: int) -> Game:
        d = env.deal_setup(i)
        return Game(rules, n, hands=[[CARDS[c] for c in h] for h in d["hands"]],
                    stock=[CARDS[c] for c in d["stock"]], dealer=d["dealer"])

    games = [engine(i) for i in range(rows)]
    rng = np.random.default_rng(seed)
    deals = 0
    for _ in range(steps):
        for i, g in enumerate(games):
            assert g.to_move == seat[i]
            v = g.view(g.to_move)
            assert np.array_equal(enc.observe(v), obs[i]), i
        actions = env.random_actions(rng)
        for i, g in enumerate(games):
            g.push(enc.action_to_move(int(actions[i]), g.legal_moves()))
        obs, mask, seat, rewards, done = env.step(actions)
        for i, g in enumerate(games):
            if done[i]:
                assert g.is_over()
                assert np.array_equal(env.final_obs[i], enc.observe(g.view(0)))
                deals += 1
            if g.is_over():  # a deal seat 0 never moved in is not reported
                games[i] = engine(i)
    return deals


@pytest.mark.parametrize("name", KERNEL)
def test_kernel_knowledge_block_is_the_engines(name: str) -> None:
    assert check_kernel(preset(name), players_for(name), rows=3, steps=250, seed=3) > 2


@pytest.mark.parametrize("rules,n", HOUSE)
def test_kernel_knowledge_block_with_house_rules(rules: Rules, n: int) -> None:
    assert check_kernel(rules, n, rows=3, steps=250, seed=9) > 2


def test_knowledge_block_layout() -> None:
    enc = Encoding(preset("ristiseiska"), 4, knowledge=5)
    assert enc.offsets["absent"] == (192, 3 * 52)
    assert enc.offsets["recent"] == (192 + 156, 5 * 56)
    assert enc.obs_size == vecenv.obs_size(4) + vecenv.knowledge_size(4, 5)
    assert Encoding(preset("ristiseiska"), 4).obs_size == 192  # off by default
    with pytest.raises(ValueError, match="knowledge"):
        vecenv.VecEnv(preset("ristiseiska"), 4, 2, knowledge=-2)

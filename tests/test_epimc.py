"""Exact late-deal leaves and pooled next choices (``ristiseiska.search.exact``,
``kernel/epimc.py``, the ``master-epimc`` bot): a solved world's values agree with a plain
expectimax over the engine on small deals; pooling the seat's next choice over one world
changes nothing and over many never raises a value; the bot sees only its seat's view, is
deterministic for a seed and always plays a legal move."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ristiseiska.bots import BOTS, get_bot
from ristiseiska.game import Game
from ristiseiska.rules import Rules, preset
from ristiseiska.search import Sampler, exact_values

BONUS = 7.0


def _late(rules: Rules, n: int, seed: int, cards: int) -> Game | None:
    """A deal played at random until every hand holds at most ``cards`` cards and the seat
    to move has a choice (None if the deal ended first)."""
    rng = random.Random(seed)
    g = Game(rules, n, seed=seed, dealer=seed % n)
    while not g.is_over() and (max(g.hand_sizes()) > cards or len(g.legal_moves()) < 2):
        g.push(rng.choice(g.legal_moves()))
    return None if g.is_over() else g


def _true_row(g: Game) -> np.ndarray:
    return np.array([[g._hands[s] for s in range(g.n)]], np.uint64)


def _brute(g: Game, me: int) -> tuple[float, float]:
    """(win, points) of ``me`` playing for ``BONUS * win - points``, every other seat
    uniformly random: every completion enumerated, no cache."""
    if g.is_over():
        res = g.result
        assert res is not None
        pts = [float(p) for p in res.points]
        if res.winner is not None:
            win = 1.0 if res.winner == me else 0.0
        else:
            low = min(pts)
            win = (1.0 / pts.count(low)) if pts[me] == low else 0.0
        return win, pts[me]
    kids = []
    for m in g.legal_moves():
        c = g.copy()
        c.push(m)
        kids.append(_brute(c, me))
    if g.to_move == me:
        return max(kids, key=lambda wp: BONUS * wp[0] - wp[1])
    return (sum(k[0] for k in kids) / len(kids), sum(k[1] for k in kids) / len(kids))


RULE_SETS = [preset("ristiseiska"), preset("sjuan"), Rules(multi_play=True),
             preset("ristiseiska-pantti25")]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.sampled_from([3, 4]),
       rules=st.sampled_from(RULE_SETS), cards=st.integers(1, 3))
def test_exact_leaf_equals_brute_force_on_small_deals(seed, n, rules, cards):
    g = _late(rules, n, seed, min(cards, 6 - n))
    if g is None:
        return
    me = g.to_move
    view = g.view(me)
    legal = list(view.legal_moves)
    got = exact_values(view, legal, _true_row(g), bound=100_000, worlds=1, pooled=False,
                       win_bonus=BONUS)
    assert got is not None
    for i, m in enumerate(legal):
        c = g.copy()
        c.push(m)
        w, p = _brute(c, me)
        assert got["value"][i] == pytest.approx(BONUS * w - p, rel=1e-5, abs=1e-4)
        assert got["win"][i] == pytest.approx(w, abs=1e-5)
        assert got["points"][i] == pytest.approx(p, rel=1e-5, abs=1e-4)
    # pooling the next choice over the one true world is the same as seeing it
    pooled = exact_values(view, legal, _true_row(g), bound=100_000, worlds=1, pooled=True,
                          win_bonus=BONUS)
    assert pooled is not None
    assert pooled["value"] == pytest.approx(got["value"], rel=1e-5, abs=1e-4)


def test_pooling_over_worlds_never_raises_a_value():
    lower = 0
    for seed in (1, 2, 3, 4):
        g = _late(preset("ristiseiska"), 4, seed, 5)
        assert g is not None
        view = g.view(g.to_move)
        legal = list(view.legal_moves)
        masks = Sampler().masks(view, random.Random(seed), 40)
        a = exact_values(view, legal, masks, bound=200_000, worlds=40, pooled=True,
                         win_bonus=BONUS)
        assert a is not None and a["worlds"] == 40
        for v, c in zip(a["value"], a["clairvoyant"], strict=True):
            assert v <= c + 1e-6
            lower += v < c - 1e-6
    assert lower  # the clairvoyant next choice is optimistic somewhere


def test_a_deal_over_the_bound_is_left_to_the_playouts():
    g = Game(preset("ristiseiska"), 4, seed=4)
    while len(g.legal_moves()) < 2:
        g.push(g.legal_moves()[0])
    view = g.view(g.to_move)
    masks = Sampler().masks(view, random.Random(0), 4)
    assert exact_values(view, list(view.legal_moves), masks, bound=1000, worlds=4,
                        pooled=True, win_bonus=BONUS) is None


def _epimc(seed: int = 5):
    # opp="random": every opponent modelled as random, so the exact leaves always apply
    return get_bot("master-epimc", seed=seed, iterations=24, exact_worlds=6, exact=50_000,
                   opp="random")


def _replay_swapped(rules: Rules, n: int, seed: int, moves: list, a: int, b: int, ca, cb):
    """The deal of ``seed`` with the cards ``ca`` (seat ``a``) and ``cb`` (seat ``b``)
    swapped, replayed through ``moves``; None if a move is not legal there."""
    g0 = Game(rules, n, seed=seed, dealer=seed % n)
    hands = [list(g0.hand(s)) for s in range(n)]
    hands[a][hands[a].index(ca)] = cb
    hands[b][hands[b].index(cb)] = ca
    g = Game(rules, n, dealer=seed % n, hands=hands)
    for m in moves:
        if m not in g.legal_moves():
            return None
        g.push(m)
    return g


def test_the_bot_uses_only_its_seats_view():
    """The same history and own hand with two opponents' hidden cards swapped: the same
    view, so the same move and values (the exact leaves solve sampled deals, not the true
    one)."""
    rules = preset("ristiseiska")
    seed = 11
    rng = random.Random(seed)
    g = Game(rules, 4, seed=seed, dealer=seed % 4)
    moves = []
    while max(g.hand_sizes()) > 4 or len(g.legal_moves()) < 2:
        m = rng.choice(g.legal_moves())
        moves.append(m)
        g.push(m)
    me = g.to_move
    a, b = [s for s in range(4) if s != me][:2]
    other = None
    for ca in g.hand(a):
        for cb in g.hand(b):
            other = _replay_swapped(rules, 4, seed, moves, a, b, ca, cb)
            if other is not None and other.view(me).history == g.view(me).history:
                break
            other = None
        if other is not None:
            break
    assert other is not None and other._hands != g._hands
    x, y = _epimc(), _epimc()
    mx, _ = x.decide(g.view(me))
    my, _ = y.decide(other.view(me))
    assert x.last_stats.get("exact")
    assert mx == my and x.last_stats["value"] == y.last_stats["value"]


def test_deterministic_with_a_seed():
    g = _late(preset("ristiseiska"), 4, 21, 4)
    assert g is not None
    view = g.view(g.to_move)
    a, b, c = _epimc(3), _epimc(3), _epimc(4)
    assert a.decide(view)[0] == b.decide(view)[0]
    assert a.last_stats["exact"] and a.last_stats["value"] == b.last_stats["value"]
    c.decide(view)
    assert c.last_stats["exact"]


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), cards=st.integers(2, 6), n=st.sampled_from([3, 4]))
def test_decisions_stay_legal(seed, cards, n):
    g = _late(preset("ristiseiska"), n, seed, cards)
    if g is None:
        return
    bot = _epimc(seed)
    while not g.is_over():
        view = g.view(g.to_move)
        move, _ = bot.decide(view)
        assert move in view.legal_moves
        g.push(move)


def test_options_and_names():
    assert "master-epimc" in BOTS
    assert get_bot("master").exact == 0 and not get_bot("master").pooled
    e = get_bot("master-epimc")
    assert e.exact > 0 and e.pooled
    for bad in ({"exact": -1}, {"exact": 1.5}, {"pooled": 2}, {"exact_worlds": 0}):
        with pytest.raises(ValueError):
            get_bot("master", **bad)

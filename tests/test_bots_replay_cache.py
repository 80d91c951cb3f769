"""The expert bot's resumed replay (``knowledge.ReplayCache``) infers exactly what a replay
of the whole history infers, at every position of random deals of every preset, for every
seat, asked at random moments (as a bot is, skipping the positions where others move)."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ristiseiska.bots import get_bot
from ristiseiska.bots.knowledge import ReplayCache, infer
from ristiseiska.game import Game
from ristiseiska.rules import PRESETS, preset
from ristiseiska.view import make_view, public_event


def _view(g: Game, seat: int, events: list[dict[str, Any]]) -> Any:
    """The seat's view with the history made of the same event objects call after call
    (as the web server gives its bots)."""
    mark = g.rules.distinct_decks
    for e in g.events[len(events):]:
        events.append(public_event(e.to_dict(mark), seat))
    v = make_view(g, seat, history=False)
    object.__setattr__(v, "history", tuple(events))
    return v


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(name=st.sampled_from(sorted(PRESETS)), players=st.integers(2, 6),
       seed=st.integers(0, 2**32), ask=st.floats(0.2, 1.0))
def test_resumed_replay_equals_a_whole_replay(name: str, players: int, seed: int,
                                             ask: float) -> None:
    rules = preset(name)
    players = max(rules.min_players, min(rules.max_players, players))
    g = Game(rules, players, seed=seed)
    rng = random.Random(seed)
    caches = [ReplayCache() for _ in range(players)]
    events: list[list[dict[str, Any]]] = [[] for _ in range(players)]
    while True:
        for s in range(players):
            if rng.random() < ask or s == g.to_move:
                v = _view(g, s, events[s])
                assert infer(v, caches[s]) == infer(v)
        if g.is_over():
            break
        g.push(rng.choice(g.legal_moves()))


def test_a_new_deal_or_fresh_event_objects_replay_from_the_start() -> None:
    rules = preset("ristiseiska")
    cache = ReplayCache()
    for seed in (1, 2):  # two deals through one cache
        g = Game(rules, 4, seed=seed)
        rng = random.Random(seed)
        events: list[dict[str, Any]] = []
        while not g.is_over():
            v = _view(g, 0, events)
            assert infer(v, cache) == infer(v)
            fresh = g.view(0)  # equal events, other objects: a whole replay, same answer
            assert infer(fresh, cache) == infer(fresh)
            g.push(rng.choice(g.legal_moves()))


def test_expert_moves_are_unchanged_by_the_cache() -> None:
    """Whole deals played by expert bots that reuse their cache give the same moves as
    bots asked with fresh views (which replay everything)."""
    rules = preset("ristiseiska")
    for seed in range(6):
        g1, g2 = Game(rules, 4, seed=seed), Game(rules, 4, seed=seed)
        cached = [get_bot("expert", 7 + s) for s in range(4)]
        plain = [get_bot("expert", 7 + s) for s in range(4)]
        events: list[list[dict[str, Any]]] = [[] for _ in range(4)]
        while not g1.is_over():
            s = g1.to_move
            m1 = cached[s].choose(_view(g1, s, events[s]))
            m2 = plain[s].choose(g2.view(s))
            assert m1 == m2
            g1.push(m1)
            g2.push(m2)

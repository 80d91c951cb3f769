"""Python playouts: a sampled deal played to its end on the engine by a cheap policy.

For rule sets outside the compiled kernel (two decks, jokers, open cards...). A policy is any
callable ``policy(game, legal, rng) -> Move``; :data:`POLICIES` names the three built in.
The playouts play with full knowledge of their own (sampled) world.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..game import Game
from ..moves import PLAY, Move
from ..scoring import Result
from .worlds import behind_masks

Policy = Callable[[Game, list[Move], Any], Move]


def random_policy(game: Game, legal: list[Move], rng: Any) -> Move:
    return legal[int(rng.random() * len(legal))]


def greedy_policy(game: Game, legal: list[Move], rng: Any) -> Move:
    """Cheap but less naive than random: go out when possible, use extra moves, and otherwise
    prefer a card whose next card in line is in the player's own hand."""
    plays = [m for m in legal if m.kind == PLAY]
    if not plays:
        return legal[0] if len(legal) == 1 else legal[int(rng.random() * len(legal))]
    if len(plays) == 1:
        return plays[0]
    table = game.table
    hand = game._hands[game.to_move]  # the rollout plays with full knowledge of its own world
    best, best_key = plays[0], -1.0
    for m in plays:
        c = m.card
        assert c is not None
        t = int(c) % 52 if game.rules.decks == 2 and not game.rules.distinct_decks else int(c)
        key = rng.random()
        if t < len(table.type_rows):
            row = table.type_rows[t][0]
            line = table.types[row]
            if t in line:
                idx = line.index(t)
                nxt = idx - 1 if idx < table.center else idx + 1
                if 0 <= nxt < len(line) and (hand >> line[nxt]) & 1:
                    key += 1.0
        if key > best_key:
            best, best_key = m, key
    return best


def smart_policy(game: Game, legal: list[Move], rng: Any) -> Move:
    """A cheap model of a sound player, for playouts: play the card that frees the most of
    one's own cards (a seven of a long suit, a six or eight with followers), random on ties;
    always take an extra move; one move in ten at random so that playouts stay varied."""
    if len(legal) == 1:
        return legal[0]
    behind = behind_masks(game.rules)
    if behind is None or rng.random() < 0.1:
        return legal[int(rng.random() * len(legal))]
    hand = game._hands[game.to_move]
    best, best_key = legal[0], -1.0
    for m in legal:
        c = m.card
        if m.kind != PLAY or c is None or c >= 52:
            key = -0.5 + rng.random() * 0.1
        else:
            key = (behind[c] & hand).bit_count() + rng.random()
        if key > best_key:
            best, best_key = m, key
    return best


POLICIES: dict[str, Policy] = {"random": random_policy, "greedy": greedy_policy,
                               "smart": smart_policy}


def rollout(game: Game, rng: Any, policy: Policy = random_policy) -> Result:
    """Play ``game`` to its end with ``policy`` for every seat; return the result."""
    while not game.is_over():
        legal = game.legal_moves()
        game.push(legal[0] if len(legal) == 1 else policy(game, legal, rng))
    assert game.result is not None
    return game.result

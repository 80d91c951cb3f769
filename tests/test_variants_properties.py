"""Properties over every preset (and the layout options by themselves): cards are conserved
(jokers and 104-card decks included), every deal ends, legal moves are never empty before the
end, records replay, and ``ristiseiska simulate`` runs every preset."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine_kit import all_cards
from ristiseiska.cards import full_deck
from ristiseiska.cli import main
from ristiseiska.game import Game
from ristiseiska.record import check_record, record_from_game
from ristiseiska.rules import Rules, preset, preset_names

# The layout options on their own (not only through presets).
OPTION_RULES = {
    "first-ace": Rules(ace="first-decides"),
    "eight-before-six": Rules(ace="high", order="high-first"),
    "first-ace-two-decks": Rules(ace="first-decides", decks=2),
    "jokers-1-first-out": Rules(failure="ask", jokers=1),
    "jokers-2-two-decks": Rules(failure="ask", jokers=2, decks=2, end="last-left"),
    "jokers-first-ace": Rules(failure="ask", jokers=2, ace="first-decides"),
    "jokers-ristikasi": preset("ristikasi").replace(failure="ask", jokers=1),
    "upward-two-decks": preset("free-fan-tan").replace(decks=2),
    "upward-two-different-decks": preset("free-fan-tan").replace(decks=2, distinct_decks=True),
}
ALL = {**{p: preset(p) for p in preset_names()}, **OPTION_RULES}


def _players(r: Rules, k: int) -> int:
    return r.min_players + k % (min(r.max_players, 6) - r.min_players + 1)



def play_checked(r: Rules, n: int, seed: int) -> Game:
    g = Game(r, n, seed=seed, dealer=seed % n)
    deck = Counter(int(c) for c in full_deck(r.decks, r.jokers))
    assert all_cards(g) == deck
    rng = random.Random(seed)
    # a generous bound: every turn without a play counts towards stall_turns
    bound = (len(deck) + 2) * (r.stall_turns + 2) * n
    for _ in range(bound):
        if g.is_over():
            break
        lm = g.legal_moves()
        assert lm, "no legal move before the end"
        assert len(set(lm)) == len(lm), "a move is offered twice"
        g.push(rng.choice(lm))
        assert all_cards(g) == deck
    assert g.is_over() and g.legal_moves() == []
    assert g.result is not None
    return g


@pytest.mark.parametrize("name", sorted(ALL))
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), k=st.integers(0, 10))
def test_cards_conserved_and_every_deal_ends(name: str, seed: int, k: int) -> None:
    r = ALL[name]
    play_checked(r, _players(r, k), seed)


@pytest.mark.parametrize("name", sorted(ALL))
def test_records_of_every_variant_replay(name: str) -> None:
    r = ALL[name]
    for seed in range(8):
        g = play_checked(r, _players(r, seed), seed)
        rec = record_from_game(g)
        assert check_record(rec) is None, (name, seed, check_record(rec))
        assert check_record(json.loads(json.dumps(rec))) is None


@pytest.mark.parametrize("name", sorted(ALL))
def test_pop_and_copy_agree_with_replaying(name: str) -> None:
    r = ALL[name]
    g = Game(r, _players(r, 3), seed=99)
    rng = random.Random(5)
    snapshots = []
    while not g.is_over() and len(snapshots) < 60:
        snapshots.append((g.copy(), [str(m) for m in g.legal_moves()]))
        g.push(rng.choice(g.legal_moves()))
    for before, moves in reversed(snapshots):
        g.pop()
        assert [str(m) for m in g.legal_moves()] == moves
        assert g.hand_sizes() == before.hand_sizes()
        assert g.table.lo == before.table.lo and g.table.hi == before.table.hi
        assert g.table.jokers == before.table.jokers


@pytest.mark.parametrize("name", preset_names())
def test_simulate_runs_every_preset(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    r = preset(name)
    players = max(r.min_players, min(4, r.max_players))
    code = main(["simulate", "--preset", name, "--players", str(players), "--games", "150",
                 "--seed", "7", "--engine", "python", "--json"])
    out = capsys.readouterr().out
    assert code == 0, out
    summary = json.loads(out)
    assert summary  # a JSON object came out

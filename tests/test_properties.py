"""Hypothesis properties of random legal play over every preset: cards are conserved, every
deal ends within a bound, there is always a legal move before the end, only legal moves are
accepted (a refused move leaves the state identical), push/pop and copy() are faithful, and a
seat's view shows only what that seat may know (RULES.md §5)."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from engine_kit import all_cards
from ristiseiska.cards import CARDS, full_deck
from ristiseiska.game import Game, IllegalMoveError
from ristiseiska.moves import KINDS, Move
from ristiseiska.rules import Rules, preset, preset_names

PRESETS = preset_names()
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def players_for(rules: Rules, k: int) -> int:
    return rules.min_players + k % (rules.max_players - rules.min_players + 1)


def snapshot(g: Game) -> tuple[Any, ...]:
    """Everything observable about a game's state."""
    t = g.table
    return (
        tuple(tuple(g.hand(s)) for s in range(g.n)),
        tuple(t.lo), tuple(t.hi), tuple(tuple(sorted(o.items())) for o in t.occupant),
        t.playable, g.to_move, g.turn_seat, g.phase, tuple(g.events), g.token_holder,
        tuple(g.stock), g.pot, tuple(g.chips_paid), tuple(g.out_order), tuple(g.penalties),
        tuple(g.token_fines),
        tuple(g.legal_moves()), g.result,
    )



def deck_of(rules: Rules) -> Counter[int]:
    return Counter(int(c) for c in full_deck(rules.decks, rules.jokers))


def move_bound(g: Game) -> int:
    """A generous bound on the number of moves of a deal: between two played cards at most
    ``stall_turns`` turns pass, each of at most two moves (ask + give)."""
    ncards = sum(deck_of(g.rules).values())
    return (ncards + 1) * (2 * g.rules.stall_turns + 2) + ncards


def random_bad_move(g: Game, rng: random.Random) -> Move:
    """A move that is not among the legal moves now."""
    identical = g.rules.decks == 2 and not g.rules.distinct_decks

    def key(m: Move) -> tuple[str, int | None]:
        # With two identical decks both copies of a card are the same move.
        if m.card is None:
            return (m.kind, None)
        return (m.kind, m.card.kind if identical else int(m.card))

    legal = {key(m) for m in g.legal_moves()}
    for _ in range(200):
        kind = rng.choice(KINDS)
        card = CARDS[rng.randrange(len(CARDS))] if kind in ("play", "give", "swap") else None
        m = Move(kind, card)
        if key(m) not in legal:
            return m
    return Move("fly")


def play_random(rules: Rules, n: int, seed: int, choice_seed: int, check_every_step: bool,
                ) -> Game:
    g = Game(rules, n, seed=seed, dealer=seed % n)
    rng = random.Random(choice_seed)
    deck = deck_of(rules)
    bound = move_bound(g)
    steps = 0
    pops = 0
    while not g.is_over():
        legal = g.legal_moves()
        assert legal, "no legal move before the end"
        if check_every_step or rng.random() < 0.1:
            # Only legal moves are accepted; a refusal changes nothing.
            before = snapshot(g)
            bad = random_bad_move(g, rng)
            with pytest.raises(IllegalMoveError):
                g.push(bad)
            assert snapshot(g) == before
        move = rng.choice(legal)
        if pops < 2 and rng.random() < 0.03:
            before = snapshot(g)
            g.push(move)
            assert g.pop() == move
            assert snapshot(g) == before
            pops += 1
        g.push(move)
        steps += 1
        assert steps <= bound, "the deal did not end"
        assert all_cards(g) == deck, "cards not conserved"
    assert g.result is not None and g.legal_moves() == []
    return g


@pytest.mark.parametrize("name", PRESETS)
@FAST
@given(seed=st.integers(0, 2**32), choice=st.integers(0, 2**32), k=st.integers(0, 6))
def test_random_play_invariants(name: str, seed: int, choice: int, k: int) -> None:
    rules = preset(name)
    play_random(rules, players_for(rules, k), seed, choice, check_every_step=False)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 2**32), choice=st.integers(0, 2**32),
       name=st.sampled_from(PRESETS), k=st.integers(0, 6))
def test_every_step_refuses_a_random_illegal_move(seed, choice, name, k) -> None:
    rules = preset(name)
    play_random(rules, players_for(rules, k), seed, choice, check_every_step=True)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), choice=st.integers(0, 2**32), k=st.integers(0, 6),
       stall=st.integers(1, 6),
       options=st.fixed_dictionaries({
           "failure": st.sampled_from(["token", "ask", "pass", "chip"]),
           "order": st.sampled_from(["low-first", "high-first", "both"]),
           "extra_move": st.booleans(),
           "multi_play": st.booleans(),
           "first_round_pass": st.booleans(),
           "end": st.sampled_from(["first-out", "last-left"]),
           "card_values": st.sampled_from(["ace14", "ace1", "one"]),
       }))
def test_house_rule_combinations_end_with_a_small_turn_cap(seed, choice, k, stall, options
                                                           ) -> None:
    rules = Rules(stall_turns=stall, **options)
    g = play_random(rules, players_for(rules, k), seed, choice, check_every_step=False)
    res = g.result
    assert res is not None
    event(f"end: {res.end}")
    if res.end == "stall":
        # The cap: exactly ``stall`` turns in a row without a card played. A turn without a
        # card ends with one of these events (an ask turn ends with the giver's give).
        turns = 0
        for e in reversed(g.events):
            if e.type == "play":
                break
            turns += e.type in ("token", "pass", "chip", "draw", "give")
        assert turns == stall
    else:
        assert res.end in ("out", "last")


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), choice=st.integers(0, 2**32), name=st.sampled_from(PRESETS),
       k=st.integers(0, 6), cut=st.floats(0, 1))
def test_copy_is_independent(seed, choice, name, k, cut) -> None:
    rules = preset(name)
    g = Game(rules, players_for(rules, k), seed=seed)
    rng = random.Random(choice)
    target = int(cut * 60)
    while not g.is_over() and len(g.moves) < target:
        g.push(rng.choice(g.legal_moves()))
    before = snapshot(g)
    c = g.copy()
    assert snapshot(c) == before
    while not c.is_over():
        c.push(rng.choice(c.legal_moves()))
    assert snapshot(g) == before
    # …and the original can go on by itself.
    if not g.is_over():
        g.push(g.legal_moves()[0])


def check_view(g: Game, seat: int) -> None:
    v = g.view(seat)
    assert v.hand == tuple(g.hand(seat))
    assert v.open_hands is None
    assert list(v.hand_sizes) == g.hand_sizes()
    assert v.legal_moves == (tuple(g.legal_moves()) if g.to_move == seat else ())
    d = v.to_dict()
    assert "open_hands" not in d
    json.dumps(d)  # JSON-ready
    # History: hidden cards stripped for third seats, everything else as in the game.
    assert len(v.history) == len(g.events)
    for shown, ev in zip(v.history, g.events, strict=True):
        full = ev.to_dict(g.rules.distinct_decks)
        if ev.type == "give" and seat not in (ev.seat, ev.other):
            assert shown == {k: x for k, x in full.items() if k != "card"}
        elif ev.type == "draw" and seat != ev.seat:
            assert shown == {k: x for k, x in full.items() if k != "card"}
        else:
            assert shown == full
    # No field of the view holds another seat's cards: the only card-bearing fields are the
    # own hand, the table rows, laid-out cards, legal moves and the (filtered) history.
    others = {int(c) for s in range(g.n) if s != seat for c in g.hand(s)}
    on_table = {int(c) for r in v.rows for c in r.cards}
    assert not (set(map(int, v.hand)) & others)
    assert on_table == {x for occ in g.table.occupant for x in occ.values()}
    # The view's table is a copy: changing it cannot change the game.
    v.table.lo[0] = 99
    assert g.table.lo[0] != 99
    ov = g.view(seat, open_cards=True)
    assert ov.open_hands == {s: tuple(g.hand(s)) for s in range(g.n)}


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32), choice=st.integers(0, 2**32), name=st.sampled_from(PRESETS),
       k=st.integers(0, 6))
def test_views_show_only_what_a_seat_may_know(seed, choice, name, k) -> None:
    rules = preset(name)
    g = Game(rules, players_for(rules, k), seed=seed)
    rng = random.Random(choice)
    while True:
        if rng.random() < 0.2 or g.is_over():
            for s in range(g.n):
                check_view(g, s)
        if g.is_over():
            break
        g.push(rng.choice(g.legal_moves()))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32), choice=st.integers(0, 2**32), k=st.integers(0, 6))
def test_views_in_asking_and_stock_games(seed, choice, k) -> None:
    # The variants with hidden hand-overs, checked at every step.
    for name, n in (("ristiseiska-pyynto", players_for(preset("ristiseiska-pyynto"), k)),
                    ("kahdestaan-pakka", 2)):
        g = Game(preset(name), n, seed=seed)
        rng = random.Random(choice)
        while not g.is_over():
            for s in range(g.n):
                check_view(g, s)
            g.push(rng.choice(g.legal_moves()))


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(
    st.text(max_size=12),
    st.text(alphabet="CDHSX♣♥akqj0123456789@=:+ lowhigtokenpasgivdrwchstp", max_size=12)),
    name=st.sampled_from(PRESETS), steps=st.integers(0, 40))
def test_typed_moves_never_crash(text: str, name: str, steps: int) -> None:
    """Whatever a user types is either a legal move or refused with MoveError /
    IllegalMoveError, and a refusal changes nothing."""
    from ristiseiska.moves import MoveError

    rules = preset(name)
    g = Game(rules, rules.min_players + 1 if rules.max_players > rules.min_players else 2,
             seed=steps)
    rng = random.Random(steps)
    for _ in range(steps):
        if g.is_over():
            break
        g.push(rng.choice(g.legal_moves()))
    before = snapshot(g)
    try:
        g.push_text(text)
    except (MoveError, IllegalMoveError) as e:
        assert str(e)
        assert snapshot(g) == before
    else:
        assert g.moves[-1] in before[-2]  # the legal moves before the push


@settings(max_examples=400, deadline=None)
@given(kind=st.sampled_from([*KINDS, "fly"]),
       card=st.one_of(st.none(), st.sampled_from(CARDS)),
       row=st.sampled_from([None, 0, 1, 5, -1]),
       end=st.sampled_from([None, "low", "high", "middle"]),
       as_=st.one_of(st.none(), st.sampled_from(CARDS)),
       name=st.sampled_from(PRESETS), steps=st.integers(0, 60))
def test_hand_made_moves_never_crash(kind, card, row, end, as_, name, steps) -> None:
    """A Move built by hand with any fields is applied only if it means a legal move;
    otherwise IllegalMoveError with a reason, and nothing changes."""
    rules = preset(name)
    g = Game(rules, rules.min_players, seed=steps)
    rng = random.Random(steps)
    for _ in range(steps):
        if g.is_over():
            break
        g.push(rng.choice(g.legal_moves()))
    before = snapshot(g)
    move = Move(kind, card, row, end, as_)
    try:
        g.push(move)
    except IllegalMoveError as e:
        assert str(e)
        assert snapshot(g) == before
    else:
        assert g.moves[-1] in before[-2]  # the legal moves before the push


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32), choice=st.integers(0, 2**32), name=st.sampled_from(PRESETS),
       k=st.integers(0, 6), cut=st.integers(0, 150))
def test_game_from_a_view_with_the_true_hands_goes_on_identically(seed, choice, name, k, cut
                                                                   ) -> None:
    rules = preset(name)
    n = players_for(rules, k)
    g = Game(rules, n, seed=seed, dealer=seed % n)
    rng = random.Random(choice)
    while not g.is_over() and len(g.moves) < cut:
        g.push(rng.choice(g.legal_moves()))
    if g.is_over():
        return
    h = Game.from_view(g.view(g.to_move), hands=[g.hand(s) for s in range(n)], stock=g.stock)
    while not g.is_over():
        assert h.legal_moves() == g.legal_moves()
        m = rng.choice(g.legal_moves())
        g.push(m)
        h.push(m)
        assert (h.to_move, h.phase, h.token_holder) == (g.to_move, g.phase, g.token_holder)
    assert h.is_over() and h.result is not None and g.result is not None
    assert (h.result.points, h.result.end, h.result.winner) == (
        g.result.points, g.result.end, g.result.winner)

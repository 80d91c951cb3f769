"""No side channel: redeal every card the observer cannot see (keeping everything it did see),
and every interface's output for that observer stays the same, at every position of the deal.

A random deal is played for a while; then cards hidden from the observer (the seat to move
then) are swapped between the other hands and the stock, one pair at a time, keeping only
swaps after which the same history can still be played (the same moves stay legal: an
opponent who passed still has no card that fits, a given card is still in its giver's hand, a
card the observer drew is kept in its place). The two jokers are alike and so are the two
copies of a card in identical decks, so a swap of those is tried too. For each accepted deal
the whole history is replayed and compared position by position: the observation vectors
(with and without the knowledge block), the masks, what PettingZoo's and Gymnasium's envs
return, and OpenSpiel's information-state and observation strings and tensors."""

from __future__ import annotations

import random
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ristiseiska.cards import Card
from ristiseiska.game import Game
from ristiseiska.moves import Move
from ristiseiska.rl.encoding import Encoding
from ristiseiska.rules import PRESETS, preset

pytest.importorskip("pettingzoo", reason="the rl extra is not installed")
pyspiel = pytest.importorskip("pyspiel", reason="the rl extra (open-spiel) is not installed")

import ristiseiska.rl.openspiel  # noqa: E402,F401
from ristiseiska.rl import env as aec_env  # noqa: E402
from ristiseiska.rl.gym_env import RistiseiskaGym  # noqa: E402

NAMES = list(PRESETS)


def players_for(name: str) -> int:
    r = preset(name)
    return max(r.min_players, min(4, r.max_players))


def alike(a: Card, b: Card, identical: bool) -> bool:
    if a.is_joker or b.is_joker:
        return a.is_joker and b.is_joker
    return identical and int(a) % 52 == int(b) % 52


def replay(rules, n, dealer, hands, stock, moves, identical, seats=None):
    """The game after ``moves`` from this deal (a move naming one of two alike cards may
    use the other), with the moves as played; ``None`` if the history cannot be played
    (or, given ``seats``, the seats to move before each move and at the end differ: who is
    to move is public)."""
    g = Game(rules, n, hands=hands, stock=stock, dealer=dealer)
    played = []
    for k, m in enumerate(moves):
        if seats is not None and g.to_move != seats[k]:
            return None
        legal = g.legal_moves()
        if m not in legal:
            alt = [x for x in legal if x.kind == m.kind and x.row == m.row and x.end == m.end
                   and x.as_ == m.as_ and x.card is not None and m.card is not None
                   and alike(x.card, m.card, identical)]
            if not alt:
                return None
            m = alt[0]
        g.push(m)
        played.append(m)
    if seats is not None and (g.is_over() or g.to_move != seats[-1]):
        return None
    return g, played


def redeal(rules, n, g: Game, moves, me: int, rng: random.Random, tries: int = 40):
    """Swap hidden cards while the history stays playable; the new deal and its moves."""
    identical = rules.decks == 2 and not rules.distinct_decks
    hands = [list(h) for h in g.initial_hands]
    stock = list(g.initial_stock)
    # stock places the observer draws from stay as they are
    fixed_stock: set[int] = set()
    k = 0
    for e in g.events:
        if e.type == "draw":
            if e.seat == me:
                fixed_stock.add(k)
            k += 1
    seats = replay_seats(rules, n, g.dealer, hands, stock, moves)
    slots = [(s, j) for s in range(n) if s != me for j in range(len(hands[s]))]
    slots += [(-1, j) for j in range(len(stock)) if j not in fixed_stock]
    accepted = 0
    best = (hands, stock, moves)
    for _ in range(tries):
        if len(slots) < 2:
            break
        (s1, j1), (s2, j2) = rng.sample(slots, 2)
        if s1 == s2:
            continue
        h = [list(x) for x in best[0]]
        stk = list(best[1])
        places = {s: (stk if s < 0 else h[s]) for s in (s1, s2)}
        places[s1][j1], places[s2][j2] = places[s2][j2], places[s1][j1]
        got = replay(rules, n, g.dealer, h, stk, best[2], identical, seats)
        if got is not None:
            best = (h, stk, got[1])
            accepted += 1
    return best, accepted


def replay_seats(rules, n, dealer, hands, stock, moves) -> list[int]:
    g = Game(rules, n, hands=hands, stock=stock, dealer=dealer)
    seats = []
    for m in moves:
        seats.append(g.to_move)
        g.push(m)
    return [*seats, g.to_move]


def openspiel_state(game, rules, n, dealer, hands, stock, moves, enc):
    state = game.new_initial_state()
    order = [list(h) for h in hands]
    to_hands = sum(len(h) for h in hands)
    for k in range(to_hands):
        seat = (dealer + 1 + k) % n
        state.apply_action(int(order[seat].pop(0)))
    for c in stock:
        state.apply_action(int(c))
    yield state
    for m in moves:
        state.apply_action(enc.move_to_action(m))
        yield state


def outputs(rules, n, dealer, hands, stock, moves, me, game):
    """Everything each interface shows ``me`` at every position of the history."""
    enc = Encoding(rules, n)
    kenc = Encoding(rules, n, knowledge=3)
    seen = []
    aec = aec_env(rules=rules, players=n)
    aec.reset(seed=0)
    gym = RistiseiskaGym(rules=rules, players=n, seat=me)
    gym.reset(seed=0)
    g = Game(rules, n, hands=hands, stock=stock, dealer=dealer)
    os_states = openspiel_state(game, rules, n, dealer, hands, stock, moves, enc)
    for step in range(len(moves) + 1):
        state = next(os_states)
        v = g.view(me)
        aec.game = g
        gym.game = g
        a_obs = aec.observe(f"player_{me}")
        row = {
            "obs": enc.observe(v).tolist(),
            "knowledge": kenc.observe(v).tolist(),
            "mask": enc.legal_mask(v.legal_moves).tolist(),
            "aec": (a_obs["observation"].tolist(), a_obs["action_mask"].tolist()),
            "gym": gym._obs()["observation"].tolist(),
            "gym_mask": gym.action_masks().tolist(),
            "infostate": state.information_state_string(me),
            "obs_string": state.observation_string(me),
            "infostate_tensor": list(state.information_state_tensor(me)),
            "obs_tensor": list(state.observation_tensor(me)),
        }
        seen.append(row)
        if step < len(moves):
            g.push(moves[step])
    return seen


@pytest.fixture(autouse=True)
def _quiet() -> None:
    warnings.filterwarnings("ignore", category=UserWarning)


@pytest.mark.parametrize("name", NAMES)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), cut=st.integers(0, 60))
@example(seed=58, cut=0)  # two identical decks: the other C7 decides who starts
def test_redealing_hidden_cards_changes_nothing_the_observer_gets(name, seed, cut) -> None:
    rules = preset(name)
    n = players_for(name)
    rng = random.Random(seed)
    g = Game(rules, n, seed=seed, dealer=seed % n)
    moves: list[Move] = []
    while not g.is_over() and len(moves) < cut:
        m = rng.choice(g.legal_moves())
        g.push(m)
        moves.append(m)
    if g.is_over():  # compare up to the last position before the end
        moves.pop()
        g = replay(rules, n, g.dealer, [list(h) for h in g.initial_hands],
                   list(g.initial_stock), moves, False)[0]
    me = g.to_move
    (hands, stock, moves2), accepted = redeal(rules, n, g, moves, me, rng)
    game = pyspiel.load_game("python_ristiseiska", {"preset": name, "players": n,
                                                    "dealer": g.dealer})
    a = outputs(rules, n, g.dealer, [list(h) for h in g.initial_hands], list(g.initial_stock),
                moves, me, game)
    b = outputs(rules, n, g.dealer, hands, stock, moves2, me, game)
    for k, (x, y) in enumerate(zip(a, b, strict=True)):
        for key in x:
            assert x[key] == y[key], f"{name}: {key} differs at position {k} after " \
                f"{accepted} swaps of hidden cards"


def test_the_leak_suite_really_redeals() -> None:
    """Over a few deals per preset, hidden cards do get swapped (the test above is not
    comparing a deal with itself)."""
    for name in NAMES:
        rules = preset(name)
        n = players_for(name)
        total = 0
        for seed in range(3):
            rng = random.Random(seed)
            g = Game(rules, n, seed=seed, dealer=0)
            moves = []
            while not g.is_over() and len(moves) < 8:
                m = rng.choice(g.legal_moves())
                g.push(m)
                moves.append(m)
            (_h, _s, _m), accepted = redeal(rules, n, g, moves, g.to_move, rng, tries=60)
            total += accepted
        assert total > 0, name


def test_which_joker_a_hidden_hand_holds_changes_nothing() -> None:
    """The two jokers in two opponents' hands swapped: every output for the observer is the
    same, at every position (OpenSpiel's strings named them X1 and X2)."""
    rules = preset("jokerit")
    n = 4
    game = pyspiel.load_game("python_ristiseiska", {"preset": "jokerit", "players": n,
                                                    "dealer": 0})
    checked = 0
    for seed in range(60):
        rng = random.Random(seed)
        g = Game(rules, n, seed=seed, dealer=0)
        moves: list[Move] = []
        while not g.is_over() and len(moves) < 40:
            m = rng.choice(g.legal_moves())
            g.push(m)
            moves.append(m)
        if g.is_over():
            continue
        me = g.to_move
        holders = {s: [j for j, c in enumerate(h) if c.is_joker]
                   for s, h in enumerate(g.initial_hands) if s != me}
        with_joker = [s for s, js in holders.items() if js]
        if len(with_joker) != 2:
            continue
        (s1, s2) = with_joker
        hands = [list(h) for h in g.initial_hands]
        j1, j2 = holders[s1][0], holders[s2][0]
        hands[s1][j1], hands[s2][j2] = hands[s2][j2], hands[s1][j1]
        seats = replay_seats(rules, n, 0, list(g.initial_hands), list(g.initial_stock), moves)
        got = replay(rules, n, 0, hands, list(g.initial_stock), moves, False, seats)
        assert got is not None
        a = outputs(rules, n, 0, [list(h) for h in g.initial_hands], list(g.initial_stock),
                    moves, me, game)
        b = outputs(rules, n, 0, hands, list(g.initial_stock), got[1], me, game)
        assert a == b
        checked += 1
        if checked == 3:
            break
    assert checked > 0


def test_gymnasium_info_names_no_deal_seed() -> None:
    # the deal seed rebuilt every hidden hand: Game(rules, 4, seed=deal_seed, dealer=dealer)
    e = RistiseiskaGym(players=4)
    _obs, info = e.reset(seed=5)
    assert set(info) <= {"dealer"}
    done = False
    while not done:
        _obs, _r, term, trunc, info = e.step(int(np.flatnonzero(e.action_masks())[0]))
        done = term or trunc
        if not done:
            assert info == {}
    assert set(info) == {"result"} and "seed" not in str(info)


def test_openspiel_jokers_read_alike() -> None:
    # both jokers share one action id: "X1" and "X2" in the strings split one
    # information state in two (tabular CFR, the ISMCTS tree)
    game = pyspiel.load_game("python_ristiseiska", {"preset": "jokerit", "players": 4})
    rs = np.random.RandomState(0)
    for _deal in range(6):
        state = game.new_initial_state()
        while state.is_chance_node():
            state.apply_action(int(rs.choice([a for a, _ in state.chance_outcomes()])))
        while not state.is_terminal():
            for p in range(4):
                for text in (state.information_state_string(p), state.observation_string(p)):
                    assert "X1" not in text and "X2" not in text, text
            state.apply_action(int(rs.choice(state.legal_actions())))

"""The exact ceiling against random players (``ristiseiska.ceiling``, ``kernel.ceiling``, the
``ceiling`` command): the compiled expectimax agrees with a plain tree search over the engine
(no cache) on small positions, and with the cached plain-Python reference on larger ones; it
models the random bot exactly (stopping after a closing card is one of its options); the
command runs the tournament's deals and refuses what it cannot do."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ristiseiska.ceiling import (
    CeilingError,
    SeatValues,
    position_values,
    reference_values,
    run_deals,
    summary,
    tournament_game,
    unsupported,
)
from ristiseiska.game import Game
from ristiseiska.rules import Rules, preset
from ristiseiska.sim import derive_seed

SRC = str(Path(__file__).resolve().parent.parent / "src")


def _late_position(rules: Rules, n: int, seed: int, cards: int) -> Game | None:
    """A deal played at random until every hand holds at most ``cards`` cards (None if it
    ended first)."""
    rng = random.Random(seed)
    g = Game(rules, n, seed=seed, dealer=seed % n)
    while not g.is_over() and max(g.hand_sizes()) > cards:
        g.push(rng.choice(g.legal_moves()))
    return None if g.is_over() else g


def _close(a: SeatValues, b: SeatValues, tol: float = 1e-5) -> bool:
    return len(a.win) == len(b.win) and all(
        abs(x - y) <= tol * max(1.0, abs(y))
        for x, y in zip(a.win + a.points, b.win + b.points, strict=True))


RULE_SETS = [preset("ristiseiska"), preset("sjuan"), preset("ristikasi"),
             Rules(multi_play=True), Rules(ace="high", order="high-first"),
             preset("ristiseiska-pantti25")]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.sampled_from([3, 4]),
       rules=st.sampled_from(RULE_SETS), cards=st.integers(1, 3))
def test_compiled_equals_brute_force_on_small_deals(seed, n, rules, cards):
    """Few cards a hand (at most 3 with three players, 2 with four): every completion
    enumerated by the engine, no cache."""
    g = _late_position(rules, n, seed, min(cards, 6 - n))
    if g is None:
        return
    assert _close(position_values(g), reference_values(g, cache=False))


@pytest.mark.parametrize("rules", RULE_SETS, ids=lambda r: r.name or "custom")
def test_compiled_equals_the_reference_on_larger_positions(rules):
    kinds = {"more": 0, "token": 0}
    for seed in range(6):
        n = 3 + seed % 2
        g = _late_position(rules, n, seed, 4)
        if g is None:
            continue
        kinds["more"] += g.phase == "more"
        kinds["token"] += g.token_holder is not None
        v, r = position_values(g), reference_values(g)
        assert _close(v, r), (seed, v, r)
        assert v.states > 0 or g.legal_moves() == [g.legal_moves()[0]]


def test_stopping_after_a_closing_card_is_one_of_the_random_players_options():
    """Positions in the optional extra move, compared also with a tree search that leaves
    *stop* out of a random seat's options: the compiled values agree with the one that keeps
    it (the random bot's distribution) and differ from the other."""
    rules = Rules()
    found = 0
    differs = 0
    for seed in range(400):
        rng = random.Random(seed)
        g = Game(rules, 3, seed=seed)
        while not g.is_over() and not (g.phase == "more" and max(g.hand_sizes()) <= 4
                                       and len(g.legal_moves()) >= 2):
            g.push(rng.choice(g.legal_moves()))
        if g.is_over():
            continue
        found += 1
        v = position_values(g)
        assert _close(v, reference_values(g, cache=False))
        differs += not _close(v, _without_stop(g), 1e-9)
        if found >= 6:
            break
    assert found >= 3 and differs >= 1


def _without_stop(game: Game) -> SeatValues:
    """The brute force with a random seat never stopping when it could play on (wrong)."""
    def value(g: Game, me: int) -> tuple[float, float]:
        if g.is_over():
            res = g.result
            assert res is not None and res.winner is not None
            return (1.0 if res.winner == me else 0.0), float(res.points[me])
        moves = g.legal_moves()
        if g.to_move != me and g.phase == "more":
            moves = [m for m in moves if m.kind != "stop"]
        kids = []
        for m in moves:
            c = g.copy()
            c.push(m)
            kids.append(value(c, me))
        if g.to_move == me:
            return max(k[0] for k in kids), min(k[1] for k in kids)
        return sum(k[0] for k in kids) / len(kids), sum(k[1] for k in kids) / len(kids)

    vals = [value(game.copy(), me) for me in range(game.n)]
    return SeatValues(tuple(v[0] for v in vals), tuple(v[1] for v in vals))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10**6), n=st.sampled_from([3, 4, 5]), cards=st.integers(2, 6))
def test_values_are_a_probability_and_points_no_worse_than_playing_at_random(seed, n, cards):
    """The best win probability is a probability, the least points lie between 0 and the
    worst score, and neither is worse than a seat playing at random with the others (the mean
    over random completions of the same position, with room for their noise)."""
    g = _late_position(Rules(), n, seed, cards)
    if g is None:
        return
    v = position_values(g)
    rng = random.Random(seed)
    wins = [0.0] * n
    pts = [0.0] * n
    k = 60
    for _ in range(k):
        c = g.copy()
        while not c.is_over():
            c.push(rng.choice(c.legal_moves()))
        assert c.result is not None
        for s in range(n):
            wins[s] += (c.result.winner == s) / k
            pts[s] += c.result.points[s] / k
    for s in range(n):
        assert 0.0 <= v.win[s] <= 1.0
        assert 0.0 <= v.points[s] <= 21 + sum(min(14, r) for r in range(1, 14)) * 4
        assert v.win[s] >= wins[s] - 0.25
        assert v.points[s] <= pts[s] + 12


def test_a_seat_about_to_go_out_wins_and_the_others_keep_their_cards():
    """Worked by hand: the seat whose turn it is holds one card and it fits, so it goes out
    now (no choice, not even to stop): win 1 and 0 points for it; every other seat wins
    nothing and scores its cards (and the token)."""
    found = 0
    for seed in range(300):
        rng = random.Random(seed)
        g = Game(Rules(), 4, seed=seed)
        while not g.is_over():
            s = g.to_move
            if (g.hand_size(s) == 1 and g.phase == "turn"
                    and g.legal_moves()[0].kind == "play"):
                break
            g.push(rng.choice(g.legal_moves()))
        if g.is_over():
            continue
        found += 1
        v = position_values(g)
        s = g.to_move
        for u in range(4):
            if u == s:
                assert (v.win[u], v.points[u]) == (1.0, 0.0)
                continue
            cards = sum(14 if c.rank == 1 else c.rank for c in g.hand(u))
            token = 21 if g.token_holder == u else 0
            assert (v.win[u], v.points[u]) == (0.0, cards + token)
        if found >= 5:
            break
    assert found >= 5


def test_refuses_rules_and_positions_it_cannot_solve():
    assert unsupported(Rules()) is None
    assert unsupported(preset("sjuan")) is None
    for name in ("ristiseiska-pyynto", "fan-tan", "free-fan-tan", "kahdestaan-pakka",
                 "kaksi-pakkaa", "jokerit"):
        assert unsupported(preset(name)), name
    assert unsupported(Rules(hoarding="sevens-sixes-eights"))
    assert unsupported(Rules(token_mode="per-miss"))
    with pytest.raises(CeilingError, match="ask"):
        position_values(Game(preset("ristiseiska-pyynto"), 4, seed=1))
    g = Game(Rules(), 3, seed=2)
    while not g.is_over():
        g.push(g.legal_moves()[0])
    with pytest.raises(CeilingError, match="over"):
        position_values(g)
    with pytest.raises(CeilingError):
        run_deals(preset("fan-tan"), 4, 1, 1)


def test_the_deals_are_the_tournaments():
    """Deal i of seed S: the cards and dealer of ``tournament --seed S``'s deal i."""
    from ristiseiska.tournament import play_one

    play = play_one(Rules(), ["random"] * 4, 77, 3, 2)
    g = tournament_game(Rules(), 4, 77, 3)
    assert g.dealer == 3 % 4 and g.seed == derive_seed(77, 3)
    # the random players' deal, replayed on these cards, ends as the tournament's did
    rng_free = Game(Rules(), 4, seed=derive_seed(77, 3), dealer=3)
    assert rng_free.initial_hands == g.initial_hands
    assert play.deal == 3 and len(play.points) == 4


def test_run_deals_and_summary():
    rows = run_deals(Rules(), 8, 5, 3, start=2)
    assert [r.deal for r in rows] == [2, 3, 4]
    for r in rows:
        assert len(r.win) == 8 and len(r.points) == 8 and r.states > 0
        g = tournament_game(Rules(), 8, 5, r.deal)
        assert _close(SeatValues(r.win, r.points), position_values(g))
    s = summary(rows)
    means = [sum(r.win) / 8 for r in rows]
    assert s["win"].mean == pytest.approx(sum(means) / 3)
    assert s["win"].low <= s["win"].mean <= s["win"].high
    with pytest.raises(CeilingError):
        summary([])


def _cli(*args: str, tmp: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=SRC)
    return subprocess.run([sys.executable, "-m", "ristiseiska.cli", "ceiling", *args],
                          capture_output=True, text=True, env=env, timeout=600,
                          cwd=tmp)


def test_the_command_solves_a_tournaments_deals(tmp_path):
    out = tmp_path / "c.json"
    p = _cli("--deals", "2", "--seed", "5", "--start", "2", "--players", "8", "--json", str(out))
    assert p.returncode == 0, p.stderr
    assert "every seat (16 seat-deals)" in p.stdout
    assert "best probability of winning:" in p.stdout and "least expected points:" in p.stdout
    data = json.loads(out.read_text())
    assert data["seat_deals"] == 16 and [r["deal"] for r in data["rows"]] == [2, 3]
    rows = run_deals(Rules(), 8, 5, 2, start=2)
    assert data["rows"][0]["win"] == pytest.approx(list(rows[0].win))
    assert data["win"]["mean"] == pytest.approx(summary(rows)["win"].mean)
    pct = f"{100 * data['win']['mean']:.1f}%"
    assert pct in p.stdout


def test_the_command_in_finnish(tmp_path):
    p = _cli("--deals", "1", "--seed", "5", "--players", "8", "--lang", "fi")
    assert p.returncode == 0, p.stderr
    assert "paras voiton todennäköisyys:" in p.stdout
    line = next(x for x in p.stdout.splitlines() if x.startswith("pienin pisteiden"))
    assert "," in line and "." not in line  # a decimal comma
    assert "[" not in line  # one deal: no interval
    p = _cli("--deals", "2", "--seed", "5", "--players", "8", "--lang", "fi")
    line = next(x for x in p.stdout.splitlines() if x.startswith("pienin pisteiden"))
    assert "," in line and "." not in line and "; " in line  # intervals with semicolons


@pytest.mark.parametrize("args, words", [
    (("--deals", "0"), "--deals must be at least 1"),
    (("--deals", "x"), "invalid int value"),
    (("--preset", "ristiseiska-pyynto"), "failure=ask"),
    (("--preset", "no-such"), "no-such"),
    (("--players", "1"), "players"),
    (("--start", "-1"), "--start must be at least 0"),
    (("--json", "/no/such/dir/c.json"), "--json /no/such/dir/c.json: cannot write it"),
])
def test_the_command_refuses_bad_input_clearly(args, words, tmp_path):
    p = _cli(*args, tmp=tmp_path)
    assert p.returncode == 2
    assert words in p.stderr
    assert "Traceback" not in p.stderr
    assert list(tmp_path.iterdir()) == []


def test_the_command_has_help():
    p = _cli("--help")
    assert p.returncode == 0
    assert "--deals N" in p.stdout and "--seed K" in p.stdout and "--lang" in p.stdout


def test_the_module_example_runs():
    import doctest

    import ristiseiska.ceiling

    failures, tried = doctest.testmod(ristiseiska.ceiling)
    assert tried >= 3 and failures == 0


def test_the_command_resumes_from_its_file(tmp_path):
    log = tmp_path / "c.jsonl"
    p = _cli("--deals", "1", "--seed", "5", "--players", "8", "--resume", str(log))
    assert p.returncode == 0, p.stderr
    assert len(log.read_text().splitlines()) == 1
    first = json.loads(log.read_text())
    assert first["deal"] == 0 and first["seed"] == 5 and first["players"] == 8
    # deal 0 is read back, deal 1 solved and added; the figures are those of a fresh run
    p2 = _cli("--deals", "2", "--seed", "5", "--players", "8", "--resume", str(log))
    assert p2.returncode == 0, p2.stderr
    assert [json.loads(x)["deal"] for x in log.read_text().splitlines()] == [0, 1]
    fresh = _cli("--deals", "2", "--seed", "5", "--players", "8")
    assert p2.stdout.splitlines()[:3] == fresh.stdout.splitlines()[:3]
    # another seed, or a damaged line: refused, the file unchanged
    before = log.read_text()
    p3 = _cli("--deals", "1", "--seed", "6", "--players", "8", "--resume", str(log))
    assert p3.returncode == 2 and "another run" in p3.stderr and "Traceback" not in p3.stderr
    log.write_text(before + "{not json\n")
    p4 = _cli("--deals", "1", "--seed", "5", "--players", "8", "--resume", str(log))
    assert p4.returncode == 2 and "line 3" in p4.stderr
    assert log.read_text() == before + "{not json\n"

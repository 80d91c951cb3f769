"""Move-by-move analysis (issue 15): known answers, invariants, the ``analyze`` command."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ristiseiska.analysis import (
    BLUNDER,
    INACCURACY,
    MISTAKE,
    AnalysisError,
    Budget,
    analyze_record,
    deal_accuracy,
    decision_accuracy,
    decision_points,
    verdict_of,
)
from ristiseiska.cli import main
from ristiseiska.game import Game
from ristiseiska.record import dumps_record, record_from_game
from ristiseiska.rules import preset, preset_names

KNOWN = Path(__file__).parent / "data" / "analysis_known.jsonl"
SMALL = Budget(worlds=40, rollouts=2, batches=4)


def known(k: int) -> dict[str, Any]:
    return json.loads(KNOWN.read_text("utf-8").splitlines()[k])


def random_record(name: str = "ristiseiska", seed: int = 1, players: int | None = None) -> dict[str, Any]:
    rules = preset(name)
    n = players or max(rules.min_players, min(4, rules.max_players))
    g = Game(rules, n, seed=seed)
    rng = random.Random(seed)
    while not g.is_over():
        g.push(rng.choice(g.legal_moves()))
    return record_from_game(g)


def decision(a: Any, index: int) -> Any:
    return next(d for d in a.decisions if d.index == index)


# -- known answers ------------------------------------------------------------------------------

def test_going_out_with_the_extra_move_after_an_ace() -> None:
    # Seat 3 holds the ace of diamonds and the three of hearts, both playable, and an opponent
    # is down to one playable card. The ace gives an extra move, so the ace and then the three
    # end the deal at once with no points; the record plays the three first, and the opponent
    # goes out while the ace (14 points) is still in hand.
    rec = known(0)
    a = analyze_record(rec, 3)
    d = decision(a, 52)
    assert d.move == "H3" and d.best == "DA"
    assert d.points("DA") == 0.0
    assert d.verdict in ("mistake", "blunder")
    assert d.loss == pytest.approx(14.0, abs=1.0)
    assert d.to_dict("en")["reason"].startswith("Play the ace of diamonds: with it you are sure to go out")
    assert d.to_dict("fi")["reason"].startswith("Pelaa ruutuässä")


def test_dumping_the_queen_rather_than_the_three() -> None:
    # The rule book's example: with an opponent about to go out and both the queen and a three
    # of spades playable, play the queen (12 points) and keep the three (3 points).
    rec = known(1)
    a = analyze_record(rec, 3)
    d = decision(a, 58)
    assert d.move == "S3" and d.best == "SQ"
    assert d.loss == pytest.approx(9.0, abs=1.5)
    assert d.verdict == "mistake"
    assert d.to_dict("en")["reason"].startswith("Someone is about to go out")
    # the costliest decision is the one a learner should see first
    assert a.costly(3)[0].index == 58


def test_the_right_move_is_good_with_no_loss() -> None:
    rec = known(1)
    a = analyze_record(rec, 3)
    for d in a.decisions:
        if d.move == d.best:
            assert d.loss == 0.0 and d.verdict in ("good", "forced")


# -- thresholds and accuracy --------------------------------------------------------------------

def test_verdict_thresholds() -> None:
    assert verdict_of(0.0) == "good"
    assert verdict_of(INACCURACY - 0.01) == "good"
    assert verdict_of(INACCURACY) == "inaccuracy"
    assert verdict_of(MISTAKE) == "mistake"
    assert verdict_of(BLUNDER + 5) == "blunder"


def test_accuracy_formula() -> None:
    assert decision_accuracy(0.0) == 100.0
    assert decision_accuracy(8.0) == pytest.approx(50.0)
    assert decision_accuracy(16.0) == pytest.approx(25.0)
    assert deal_accuracy([]) is None


# -- invariants ---------------------------------------------------------------------------------

@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), seat=st.integers(0, 3))
def test_analysis_invariants(seed: int, seat: int) -> None:
    rec = random_record(seed=seed)
    a = analyze_record(rec, seat, SMALL, seed=seed)
    assert [d.index for d in a.decisions] == decision_points(rec, seat)
    for d in a.decisions:
        assert rec["events"][d.index]["seat"] == seat
        texts = [m.move for m in d.moves]
        assert d.move in texts and d.best == texts[0]
        assert d.loss >= 0.0 and d.se >= 0.0
        if d.forced:
            assert len(d.moves) == 1 and d.loss == 0.0
        else:
            assert len(d.moves) >= 2
            assert d.verdict == verdict_of(d.loss)
            assert all(m.points >= d.moves[0].points for m in d.moves)
        assert all(0.0 <= m.win <= 1.0 for m in d.moves)
    assert a.accuracy is None or 0.0 <= a.accuracy <= 100.0


def test_same_seed_same_numbers_other_seed_may_differ() -> None:
    rec = random_record(seed=5)
    one = analyze_record(rec, 1, SMALL, seed=3).to_dict(1)
    two = analyze_record(rec, 1, SMALL, seed=3).to_dict(1)
    assert one == two


@pytest.mark.parametrize("name", preset_names())
def test_every_rule_set_can_be_analysed(name: str) -> None:
    rec = random_record(name, seed=2)
    a = analyze_record(rec, 0, SMALL, seed=1)
    assert a.decisions
    h = analyze_record(rec, 0, SMALL, seed=1, hindsight=True)
    assert h.hindsight and [d.index for d in h.decisions] == [d.index for d in a.decisions]


def test_bad_requests_are_clear_errors() -> None:
    rec = random_record(seed=3)
    with pytest.raises(AnalysisError, match="seat"):
        analyze_record(rec, 7, SMALL)
    unfinished = dict(rec, events=rec["events"][:5], result=None)
    with pytest.raises(AnalysisError, match="not finished"):
        analyze_record(unfinished, 0, SMALL)
    broken = dict(rec, events=[{"seat": 0, "type": "play", "card": "H2"}])
    with pytest.raises(AnalysisError, match="does not replay"):
        analyze_record(broken, 0, SMALL)
    with pytest.raises(AnalysisError):
        Budget(worlds=0)
    for bad in ({"lookahead": -1}, {"tries": 0}, {"lookahead": True}, {"tries": 1.5}):
        with pytest.raises(AnalysisError, match=next(iter(bad))):
            Budget(**bad)  # type: ignore[arg-type]


def test_the_seats_next_choices_are_searched_in_the_playouts() -> None:
    """With ``lookahead`` the playouts search the analysed seat's next choices (as the master
    does); ``lookahead=0`` is the earlier evaluation, with the fixed rule. The search changes
    the values, stays deterministic for a seed, and both rank every legal move."""
    from ristiseiska.analysis import evaluate_view

    g = Game(preset("ristiseiska"), 4, seed=8)
    while len(g.legal_moves()) < 3:
        g.push(g.legal_moves()[0])
    view = g.view(g.to_move)
    plain = evaluate_view(view, Budget(worlds=40, rollouts=2, batches=4, lookahead=0), 5)
    searched = evaluate_view(view, Budget(worlds=40, rollouts=2, batches=4), 5)
    assert Budget().lookahead == 2 and Budget().tries == 4
    assert sorted(m.move for m in plain) == sorted(m.move for m in searched)
    assert {m.move: m.points for m in plain} != {m.move: m.points for m in searched}
    again = evaluate_view(view, Budget(worlds=40, rollouts=2, batches=4), 5)
    assert [(m.move, m.points, m.win) for m in again] == [(m.move, m.points, m.win) for m in searched]
    # hindsight searches the same way
    a = analyze_record(random_record(seed=5), 1, Budget(worlds=40, rollouts=2, batches=4,
                                                         lookahead=0), seed=1, hindsight=True)
    b = analyze_record(random_record(seed=5), 1, SMALL, seed=1, hindsight=True)
    assert [d.index for d in a.decisions] == [d.index for d in b.decisions]
    assert [m.points for d in a.decisions for m in d.moves] != \
        [m.points for d in b.decisions for m in d.moves]


# -- the command --------------------------------------------------------------------------------

def test_cli_json_has_exactly_the_documented_names(capsys: Any) -> None:
    assert main(["analyze", str(KNOWN), "--deal", "2", "--seat", "3", "--json", "--seed", "4"]) == 0
    obj = json.loads(capsys.readouterr().out)
    assert set(obj) == {"deal", "seat", "accuracy", "decisions"}
    assert obj["deal"] == 2 and obj["seat"] == 3
    assert 0 <= obj["accuracy"] <= 100
    for d in obj["decisions"]:
        assert set(d) == {"index", "move", "best", "loss", "verdict", "moves"}
        assert d["verdict"] in ("good", "inaccuracy", "mistake", "blunder", "forced")
        assert d["loss"] >= 0
        for m in d["moves"]:
            assert set(m) == {"move", "points", "win"}
    last = next(d for d in obj["decisions"] if d["index"] == 58)
    assert (last["move"], last["best"], last["verdict"]) == ("S3", "SQ", "mistake")


def test_cli_all_seats_json_is_a_list(capsys: Any, tmp_path: Path) -> None:
    path = tmp_path / "one.jsonl"
    path.write_text(dumps_record(random_record(seed=9)) + "\n", "utf-8")
    assert main(["analyze", str(path), "--all-seats", "--json", "--worlds", "40"]) == 0
    objs = json.loads(capsys.readouterr().out)
    assert [o["seat"] for o in objs] == [0, 1, 2, 3]


def test_cli_text_in_both_languages_and_the_plot(capsys: Any, tmp_path: Path) -> None:
    png = tmp_path / "curve.png"
    assert main(["analyze", str(KNOWN), "--seat", "3", "--lang", "en", "--plot", str(png)]) == 0
    out = capsys.readouterr().out
    assert "Where did I lose points?" in out and "mistake" in out
    # cards and actions in words, never their codes; moves numbered from 1 as in the replay
    assert "Move 53: three of hearts; better: ace of diamonds" in out
    assert "take the token" in out and " DA " not in out and "token " not in out.replace("the token", "")
    row = next(line for line in out.splitlines() if line.startswith("53 "))
    assert "three of hearts" in row and "ace of diamonds" in row and "sure to go out first" in row
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert main(["analyze", str(KNOWN), "--seat", "3", "--hindsight"]) == 0
    out = capsys.readouterr().out
    assert "Missä menetit pisteitä?" in out and "Jälkiviisaus" in out and "virhe" in out


@pytest.mark.parametrize("argv, message", [
    (["--seat", "9"], "--seat must be a seat"),
    (["--deal", "5"], "has 2 records, not 5"),
    (["--deal", "0"], "counts from 1"),
    (["--plot", "x.svg"], "ending in .png"),
    (["--worlds", "2"], "at least 4"),
    (["--lookahead", "5"], "--lookahead must be from 0 to 4"),
    (["--lookahead", "-1"], "--lookahead must be from 0 to 4"),
])
def test_cli_bad_arguments(capsys: Any, argv: list[str], message: str) -> None:
    assert main(["analyze", str(KNOWN), *argv]) == 2
    assert message in capsys.readouterr().err


def test_cli_unreadable_and_unfinished(capsys: Any, tmp_path: Path) -> None:
    assert main(["analyze", str(tmp_path / "missing.jsonl")]) == 2
    assert "cannot read" in capsys.readouterr().err
    rec = random_record(seed=4)
    rec["events"] = rec["events"][:3]
    rec["result"] = None
    path = tmp_path / "half.jsonl"
    path.write_text(json.dumps(rec) + "\n", "utf-8")
    assert main(["analyze", str(path)]) == 2
    assert "not finished" in capsys.readouterr().err


def test_the_measurement_command_writes_its_figures(tmp_path: Path, capsys: Any) -> None:
    from ristiseiska.analysis.measure import main as measure_main

    out = tmp_path / "figures.json"
    assert measure_main(["--speed-only", "--speed", "1", "--json", str(out)]) == 0
    speed = json.loads(out.read_text("utf-8"))["speed"]
    assert speed["deals"] == 1 and 0 < speed["cpu_median"] <= speed["cpu_worst"]


def test_cli_lookahead_zero_gives_the_earlier_evaluation(capsys: Any) -> None:
    base = ["analyze", str(KNOWN), "--deal", "2", "--seat", "3", "--json", "--worlds", "40"]
    assert main([*base, "--lookahead", "0"]) == 0
    plain = json.loads(capsys.readouterr().out)
    assert main(base) == 0
    searched = json.loads(capsys.readouterr().out)
    assert main([*base, "--lookahead", "2"]) == 0
    assert json.loads(capsys.readouterr().out) == searched  # 2 is the default
    assert [d["index"] for d in plain["decisions"]] == [d["index"] for d in searched["decisions"]]
    assert plain != searched

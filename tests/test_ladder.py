"""The ladder (issue 59): duplicate deals between bots rated with openskill."""

from __future__ import annotations

import json

import pytest

from ristiseiska.cli import main
from ristiseiska.ladder import (
    FORMAT,
    Ladder,
    LadderError,
    lineups,
    read_ladder,
    run_ladder,
    to_scale,
)
from ristiseiska.rules import Rules


def test_order_random_last_basic_below_expert() -> None:
    lad = run_ladder(Rules(), ["random", "basic", "expert"], deals=60, seed=1, players=2)
    names = [e.name for e in lad.entries]
    assert names[-1] == "random"
    assert names.index("basic") > names.index("expert")
    for e in lad.entries:  # every line-up of two got a share of the 60 deals, both seatings
        assert e.deals == 80
        assert e.interval[0] < e.rating < e.interval[1]
        assert e.rating == pytest.approx(to_scale(e.mu), abs=0.05)


def test_cli_orders_the_levels_by_strength_with_intervals(tmp_path, capsys) -> None:
    """Issue 59: all three at one table, each duplicate deal one match ranked by the points
    summed over its rotations (measured: this order held for seeds 0 to 5 at 150 deals).
    Rated a rotation at a time, basic was only 45 points above random here, inside its
    interval. master is left out: its first use compiles the kernel for minutes on CI
    (docs/simulation.md has a measured run with it)."""
    rc = main(["ladder", "--bots", "random,basic,expert", "--deals", "150",
               "--seed", "0", "--out", str(tmp_path), "--quiet"])
    assert rc == 0
    capsys.readouterr()
    data = json.loads((tmp_path / "ladder.json").read_text())
    assert data["players"] == 3
    bots = {b["name"]: b for b in data["bots"]}
    assert [b for b in bots] == ["expert", "basic", "random"]
    for b in bots.values():
        low, high = b["interval"]
        assert low < b["rating"] < high
    # expert apart from both beyond the intervals; basic clearly above random
    assert bots["expert"]["interval"][0] > bots["basic"]["interval"][1]
    assert bots["basic"]["rating"] - bots["random"]["rating"] > 100


def test_a_duplicate_deal_is_one_match_ranked_by_summed_points() -> None:
    from openskill.models import PlackettLuce

    from ristiseiska.ladder import points_ranks
    from ristiseiska.sim import derive_seed
    from ristiseiska.tournament import run_tournament

    lad = run_ladder(Rules(), ["random", "basic"], deals=4, seed=5)
    t = run_tournament(Rules(), ["random", "basic"], 4, seed=derive_seed(5, 0), duplicate=True)
    model = PlackettLuce(tau=0.0)
    r = {b: model.rating(name=b) for b in ("random", "basic")}
    for deal in range(4):
        summed = {"random": 0.0, "basic": 0.0}
        for p in t.plays:
            if p.deal == deal:
                for s, label in enumerate(p.labels):
                    summed[label] += p.points[s]
        (a,), (b,) = model.rate([[r["random"]], [r["basic"]]],
                                ranks=list(points_ranks([summed["random"], summed["basic"]])))
        r = {"random": a, "basic": b}
    got = {e.name: (e.mu, e.sigma, e.deals) for e in lad.entries}
    for name in r:
        assert got[name] == (pytest.approx(r[name].mu), pytest.approx(r[name].sigma), 8)
    assert points_ranks([3.0, 3.0]) == (1.5, 1.5)


def test_same_arguments_same_ratings_and_round_trip(tmp_path) -> None:
    a = run_ladder(Rules(), ["random", "basic", "expert"], deals=3, seed=4)
    b = run_ladder(Rules(), ["random", "basic", "expert"], deals=3, seed=4, workers=2)
    assert [(e.name, e.mu, e.sigma) for e in a.entries] == [(e.name, e.mu, e.sigma) for e in b.entries]
    d = a.to_dict()
    assert d["format"] == FORMAT and d["version"] == 1
    path = tmp_path / "ladder.json"
    path.write_text(json.dumps(d))
    assert read_ladder(str(path)).to_dict() == d


def test_more_bots_than_seats_share_the_deals() -> None:
    ups = lineups(["a", "b", "c", "d"], 3, seed=1)
    assert len(ups) == 4 and sorted(map(sorted, ups)) == sorted(
        [["a", "b", "c"], ["a", "b", "d"], ["a", "c", "d"], ["b", "c", "d"]])
    lad = run_ladder(Rules(), ["random", "basic", "expert", "ristiseiska.bots.simple:RandomBot"],
                     deals=4, seed=2, players=3)
    assert sum(e.deals for e in lad.entries) == 4 * 3 * 3
    assert {e.deals for e in lad.entries} == {9}


@pytest.mark.parametrize("bots, kwargs, message", [
    (["random"], {}, "at least two"),
    (["random", "random"], {}, "named twice"),
    (["random", "wizard"], {}, "unknown bot"),
    (["random", "basic"], {"deals": 0}, "at least 1"),
    (["random", "basic"], {"players": 3}, "only 2 bots"),
])
def test_bad_arguments(bots, kwargs, message) -> None:
    with pytest.raises(LadderError, match=message):
        run_ladder(Rules(), bots, **{"deals": 2, **kwargs})


@pytest.mark.parametrize("data, message", [
    ([], "not a ladder"),
    ({"format": "ristiseiska-ladder", "version": 9}, "version 9"),
    ({"format": "ristiseiska-ladder", "version": 1, "bots": [{}]}, "malformed"),
])
def test_bad_files(data, message) -> None:
    with pytest.raises(LadderError, match=message):
        Ladder.from_dict(data)


def test_cli_writes_json_and_markdown(tmp_path, capsys) -> None:
    out = tmp_path / "lad"
    rc = main(["ladder", "--bots", "random,basic,expert", "--deals", "2", "--seed", "3",
               "--out", str(out), "--quiet", "--lang", "fi"])
    printed = capsys.readouterr().out
    assert rc == 0
    assert "luokitus" in printed and "Rankinglista" in printed
    data = json.loads((out / "ladder.json").read_text())
    assert [b["name"] for b in data["bots"]][0] == "expert"
    assert set(data["bots"][0]) >= {"name", "rating", "interval", "deals", "faults"}
    md = (out / "ladder.md").read_text()
    assert md.startswith("# Rankinglista") and "| 1 | expert |" in md
    assert main(["ladder", "--bots", "random,random", "--out", str(out)]) == 2
    assert "named twice" in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    assert main(["ladder", "--bots", "random,basic", "--out", str(tmp_path / "file")]) == 2
    assert main(["ladder", "--bots", "random,basic", "--move-limit", "0"]) == 2


def test_module_examples() -> None:
    import doctest

    import ristiseiska.bots.plugins
    import ristiseiska.ladder

    for module in (ristiseiska.ladder, ristiseiska.bots.plugins):
        failures, tried = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert failures == 0 and tried > 0


def test_a_faulty_plugin_is_rated_and_its_faults_reported(tmp_path, monkeypatch, capsys) -> None:
    import sys

    (tmp_path / "p59crash.py").write_text(
        "from ristiseiska.bots.base import Bot\n\n"
        "class Crash(Bot):\n"
        "    name = 'crash'\n"
        "    def choose(self, view):\n"
        "        raise RuntimeError('boom')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        lad = run_ladder(Rules(), ["p59crash:Crash", "random"], deals=2, seed=1)
        crash = next(e for e in lad.entries if e.name == "p59crash:Crash")
        assert crash.faults["error"] > 0 and crash.deals == 4
        assert next(e for e in lad.entries if e.name == "random").faults == {}
        rc = main(["ladder", "--bots", "p59crash:Crash,random", "--deals", "1", "--quiet",
                   "--out", str(tmp_path / "out"), "--lang", "fi"])
    finally:
        sys.modules.pop("p59crash", None)
    assert rc == 0
    assert "virhe" in (tmp_path / "out" / "ladder.md").read_text()
    data = json.loads((tmp_path / "out" / "ladder.json").read_text())
    assert next(b for b in data["bots"] if b["name"] == "p59crash:Crash")["faults"]["error"] > 0

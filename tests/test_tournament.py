"""Tournaments: the library and the command line end to end."""

from __future__ import annotations

import importlib.util
import json

import pytest

from ristiseiska.cli import main
from ristiseiska.rules import Rules, preset
from ristiseiska.tournament import (
    TournamentError,
    jobs,
    mean_ci,
    paired_difference,
    parse_bot_spec,
    run_tournament,
    wilson,
)


def test_wilson_and_mean_ci() -> None:
    lo, hi = wilson(50, 100)
    assert lo < 0.5 < hi and abs((0.5 - lo) - (hi - 0.5)) < 1e-9
    assert wilson(0, 10)[0] == 0.0 and wilson(10, 10)[1] == pytest.approx(1.0)
    m, a, b = mean_ci([1.0, 2.0, 3.0])
    assert m == 2.0 and a < 2.0 < b


def test_jobs_rotate_seats() -> None:
    assert jobs(2, 3, True) == [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    assert jobs(4, 3, False) == [(0, 0), (1, 1), (2, 2), (3, 0)]


def test_bot_specs() -> None:
    assert parse_bot_spec("master:iterations=5:time_limit=0.5") == (
        "master", {"iterations": 5, "time_limit": 0.5})
    with pytest.raises(TournamentError, match="known bots"):
        parse_bot_spec("wizard")
    with pytest.raises(TournamentError, match="name=value"):
        parse_bot_spec("master:fast")


def test_duplicate_each_bot_meets_every_seat_and_is_deterministic() -> None:
    args = (Rules(), ["expert", "basic", "random"], 3)
    a = run_tournament(*args, seed=9, duplicate=True, workers=1)
    b = run_tournament(*args, seed=9, duplicate=True, workers=2, chunk_size=2)
    assert len(a.plays) == 9
    assert [p.points for p in a.plays] == [p.points for p in b.plays]
    sa, sb = a.stats(), b.stats()
    for k in sa:
        for key in ("deals", "wins", "win_rate", "mean_points", "mean_rank"):
            assert sa[k][key] == sb[k][key]
    # every deal was played from every seat by every bot
    for deal in range(3):
        seats = {p.labels.index("expert") for p in a.plays if p.deal == deal}
        assert seats == {0, 1, 2}
    total_wins = sum(s["wins"] for s in sa.values())
    assert abs(total_wins - 9) < 1e-9


def test_setup_errors() -> None:
    with pytest.raises(TournamentError, match="2–8|players"):
        run_tournament(preset("sjuan"), ["expert", "random"], 2, workers=1)
    with pytest.raises(TournamentError, match="games"):
        run_tournament(Rules(), ["expert", "random"], 0, workers=1)


def test_cli_end_to_end(tmp_path, capsys) -> None:
    out = tmp_path / "t.json"
    png = tmp_path / "t.png"
    rc = main(["tournament", "--preset", "ristiseiska", "--players", "3",
               "--bots", "expert,random,master:iterations=3:rollouts=2", "--games", "2",
               "--seed", "4", "--duplicate", "--workers", "1", "--json", str(out),
               "--plot", str(png), "--quiet"])
    assert rc == 0
    data = json.loads(out.read_text())
    assert data["deals_played"] == 6 and data["duplicate"] is True
    assert set(data["results"]) == {"expert", "random", "master:iterations=3:rollouts=2"}
    for s in data["results"].values():
        for key in ("deals", "wins", "win_rate", "win_rate_ci", "mean_points",
                    "mean_points_ci", "mean_rank"):
            assert key in s
        assert s["win_rate_ci"][0] <= s["win_rate"] <= s["win_rate_ci"][1]
    assert png.exists() and png.stat().st_size > 1000
    assert "expert" in capsys.readouterr().out


def test_cli_rules_file(tmp_path) -> None:
    f = tmp_path / "house.toml"
    f.write_text('preset = "ristiseiska"\n[rules]\ntoken_value = 25\n')
    rc = main(["tournament", "--rules", str(f), "--bots", "basic,random", "--games", "2",
               "--workers", "1", "--quiet"])
    assert rc == 0


def test_paired_difference_matches_the_deals_seat_by_seat() -> None:
    a = run_tournament(Rules(), ["expert", "random", "random"], 6, seed=2, duplicate=True, workers=1)
    b = run_tournament(Rules(), ["basic", "random", "random"], 6, seed=2, duplicate=True, workers=1)
    da, db = a.to_dict(), b.to_dict()
    d = paired_difference(da, db)
    assert d["deals"] == 18 and (d["new"], d["old"]) == ("expert", "basic")
    # the figures of the first bot are its own: the same as the tournament's statistics
    assert d["win"]["new"] == pytest.approx(a.stats()["expert"]["win_rate"])
    assert d["points"]["old"] == pytest.approx(b.stats()["basic"]["mean_points"])
    assert d["win"]["difference"] == pytest.approx(d["win"]["new"] - d["win"]["old"])
    same = paired_difference(da, da)
    assert same["win"]["difference"] == 0 and same["points"]["half_width"] == 0
    # only the plays both hold are compared
    short = dict(db, plays=db["plays"][:3])
    assert paired_difference(da, short)["deals"] == 3


@pytest.mark.parametrize("change, message", [
    ({"seed": 3}, "seed"),
    ({"players": 4}, "number of players"),
    ({"duplicate": False}, "--duplicate"),
    ({"rules": preset("sjuan").to_dict()}, "rules"),
    ({"plays": []}, "no plays"),
    ({"plays": [{"deal": 0}]}, "malformed"),
    ({"format": "something"}, "--json file"),
    ({"bots": []}, "players or bots"),
    ({"players": "three"}, "players or bots"),
])
def test_paired_difference_refuses_other_deals(change, message) -> None:
    a = run_tournament(Rules(), ["expert", "random", "random"], 2, seed=2, duplicate=True,
                       workers=1).to_dict()
    with pytest.raises(TournamentError, match=message):
        paired_difference(a, {**a, **change})


def test_cli_paired(tmp_path, capsys) -> None:
    old = tmp_path / "old.json"
    args = ["tournament", "--bots", "basic,random,random", "--games", "3", "--seed", "5",
            "--duplicate", "--workers", "1", "--quiet"]
    assert main([*args, "--json", str(old)]) == 0
    capsys.readouterr()
    new_args = ["expert" if a == "basic,random,random" else a for a in args]
    new_args[new_args.index("expert")] = "expert,random,random"
    assert main([*new_args, "--paired", str(old)]) == 0
    out = capsys.readouterr().out
    assert "expert against basic on the same 9 deals and seats" in out
    assert "percentage points" in out and "a deal" in out
    # a different seed is refused before anything is played
    assert main([*new_args[:-1], "--seed", "6", "--quiet", "--paired", str(old)]) == 2
    assert "differ in their seed" in capsys.readouterr().err


@pytest.mark.parametrize("argv, message", [
    (["--bots", "expert,nobody"], "unknown bot"),
    (["--bots", "expert,random", "--paired", "/nonexistent/x.json"], "cannot read"),
    (["--bots", "expert,random", "--players", "3"], "--players 3"),
    (["--bots", "expert,random", "--games", "0"], "--games"),
    (["--bots", "expert,random", "--workers", "0"], "--workers"),
    (["--preset", "nope", "--bots", "expert,random"], "unknown preset"),
    (["--rules", "/nonexistent/x.toml", "--bots", "expert,random"], "cannot read"),
    (["--bots", "expert,random", "--json", "/nonexistent/dir/x.json"], "does not exist"),
    (["--bots", "expert,random", "--plot", "x.txt"], "png"),
])
def test_cli_bad_arguments(argv, message, capsys) -> None:
    assert main(["tournament", "--quiet", "--games", "1", *argv]) == 2
    assert message in capsys.readouterr().err


@pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="ray is not installed")
def test_ray_local(tmp_path) -> None:
    t = run_tournament(Rules(), ["basic", "random"], 2, seed=1, ray_address="local")
    u = run_tournament(Rules(), ["basic", "random"], 2, seed=1, workers=1)
    assert [p.points for p in t.plays] == [p.points for p in u.plays]


def test_ray_missing_is_a_clear_error(monkeypatch) -> None:
    import builtins

    real = builtins.__import__

    def fake(name, *a, **k):
        if name == "ray":
            raise ImportError("no ray")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", fake)
    with pytest.raises(TournamentError, match="Ray is not installed"):
        run_tournament(Rules(), ["basic", "random"], 1, ray_address="local")

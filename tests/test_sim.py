"""``ristiseiska simulate`` and ``bench`` end to end, and the simulation library."""

from __future__ import annotations

import json

import pytest

from ristiseiska.cli import main
from ristiseiska.record import check_record, read_records
from ristiseiska.rules import Rules, preset
from ristiseiska.sim import SimSummary, choose_engine, derive_seed, simulate


@pytest.fixture(scope="module", autouse=True)
def _compiled() -> None:
    from ristiseiska.kernel import warm_up

    warm_up()


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _records(path) -> list[dict]:
    recs = []
    for _, rec in read_records(path):
        assert isinstance(rec, dict), rec
        recs.append(rec)
    return recs


@pytest.mark.parametrize("engine", ["python", "kernel"])
def test_records_are_byte_identical_for_the_same_arguments(tmp_path, capsys, engine) -> None:
    a, b, c = tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "c.jsonl"
    args = ["simulate", "--games", "40", "--seed", "17", "--engine", engine]
    assert _run(capsys, *args, "--records", str(a))[0] == 0
    assert _run(capsys, *args, "--records", str(b))[0] == 0
    assert a.read_bytes() == b.read_bytes()
    args[4] = "18"
    assert _run(capsys, *args, "--records", str(c))[0] == 0
    assert a.read_bytes() != c.read_bytes()
    recs = _records(a)
    assert len(recs) == 40
    for i, rec in enumerate(recs):
        assert check_record(rec) is None
        assert rec["deal"] == i
        assert rec["dealer"] == i % 4  # the dealer rotates
        assert rec["preset"] == "ristiseiska"
    code, out, _ = _run(capsys, "replay", "--check", str(a))
    assert code == 0, out


def test_python_engine_records_replay_from_their_seed(tmp_path, capsys) -> None:
    path = tmp_path / "r.jsonl"
    assert _run(capsys, "simulate", "--preset", "ristiseiska-pyynto", "--players", "5",
                "--games", "25", "--seed", "3", "--records", str(path),
                "--engine", "python")[0] == 0
    recs = _records(path)
    assert {r["preset"] for r in recs} == {"ristiseiska-pyynto"}
    for i, rec in enumerate(recs):
        assert rec["seed"] == derive_seed(3, i)
        assert check_record(rec, verify_seed=True) is None


def test_summary_text_and_json(capsys) -> None:
    # English by default, like the other tools; Finnish on request
    code, out, err = _run(capsys, "simulate", "--games", "50", "--seed", "2")
    assert code == 0 and err == ""
    assert "50 deals" in out and "deals/s" in out and "token at end" in out
    assert out.count("\nP") == 4
    code, out, _ = _run(capsys, "simulate", "--games", "50", "--seed", "2", "--lang", "fi")
    assert code == 0 and "jakoa" in out and "pantti lopussa" in out
    code, out, _ = _run(capsys, "simulate", "--games", "60", "--seed", "2", "--json",
                        "--players", "3", "--engine", "python")
    d = json.loads(out)
    assert d["deals"] == 60 and d["players"] == 3 and d["engine"] == "python"
    assert len(d["mean_points"]) == 3 and sum(d["wins"]) == 60


def test_chips_summary(capsys) -> None:
    for engine in ("python", "kernel"):
        code, out, _ = _run(capsys, "simulate", "--preset", "fan-tan", "--games", "40",
                            "--json", "--engine", engine)
        d = json.loads(out)
        assert code == 0 and d["engine"] == engine
        assert sum(d["mean_chips"]) == pytest.approx(0.0, abs=1e-3)  # chips only change hands
        assert "token_at_end" not in d


def test_house_rules_from_toml(tmp_path, capsys) -> None:
    toml = tmp_path / "house.toml"
    toml.write_text('[rules]\ntoken_value = 33\n', encoding="utf-8")
    rec_path = tmp_path / "h.jsonl"
    code, _, _ = _run(capsys, "simulate", "--rules", str(toml), "--games", "30",
                      "--records", str(rec_path))
    assert code == 0
    recs = _records(rec_path)
    assert all(r["rules"]["token_value"] == 33 for r in recs)
    paid = [p for r in recs for p in r["result"]["token_points"] if p]
    assert paid and set(paid) == {33}
    # --preset is the base when the file names none
    code, out, _ = _run(capsys, "simulate", "--preset", "sjuan", "--rules", str(toml),
                        "--games", "5", "--json")
    assert code == 0 and json.loads(out)["preset"] == "sjuan+house"


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["--preset", "nope"], "unknown preset"),
        (["--players", "9"], "9"),
        (["--players", "1"], "1"),
        (["--preset", "sjuan", "--players", "2"], "2"),
        (["--preset", "kahdestaan-pakka", "--players", "4"], "4"),
        (["--games", "0"], "--games"),
        (["--games", "-5"], "--games"),
        (["--rules", "/no/such/file.toml"], "cannot read"),
        (["--preset", "kaksi-pakkaa", "--engine", "kernel"], "kernel"),
        (["--records", "/no/such/dir/x.jsonl", "--games", "3"], "cannot write"),
    ],
)
def test_bad_arguments_give_one_line_errors(capsys, argv, fragment) -> None:
    code, out, err = _run(capsys, "simulate", *argv)
    assert code == 2
    assert fragment in err and "Traceback" not in err
    assert err.count("\n") == 1 and err.startswith("ristiseiska: ")


@pytest.mark.parametrize(
    "content",
    ["token_value = \n", "[rules]\ntoken_value = 'lots'\n", "[rules]\nno_such_option = 1\n",
     "preset = 'nope'\n", "[rules]\norder = 'sideways'\n"],
)
def test_malformed_toml_gives_one_line_error(tmp_path, capsys, content) -> None:
    p = tmp_path / "bad.toml"
    p.write_text(content, encoding="utf-8")
    code, _, err = _run(capsys, "simulate", "--rules", str(p), "--games", "3")
    assert code == 2 and err.count("\n") == 1 and "Traceback" not in err
    assert str(p) in err


def test_not_utf8_toml(tmp_path, capsys) -> None:
    p = tmp_path / "bin.toml"
    p.write_bytes(b"\xff\xfe\x00token")
    code, _, err = _run(capsys, "simulate", "--rules", str(p))
    assert code == 2 and "UTF-8" in err


def test_engine_choice() -> None:
    assert choose_engine("auto", preset("ristiseiska"), 4) == "kernel"
    assert choose_engine("auto", preset("sjuan"), 4) == "kernel"
    assert choose_engine("auto", preset("ristiseiska-pyynto"), 4) == "kernel"
    assert choose_engine("auto", Rules(hoarding="all-but-sevens"), 4) == "kernel"
    assert choose_engine("auto", preset("kaksi-pakkaa"), 4) == "python"
    assert choose_engine("auto", Rules(ace="first-decides"), 4) == "python"
    assert choose_engine("python", preset("ristiseiska"), 4) == "python"
    with pytest.raises(ValueError):
        choose_engine("kernel", preset("jokerit"), 4)


@pytest.mark.parametrize("engine", ["python", "kernel"])
def test_library_summary_is_consistent(engine) -> None:
    s = simulate(preset("ristiseiska"), 3, 90, seed=4, engine=engine)
    assert isinstance(s, SimSummary) and s.engine == engine and s.deals == 90
    assert sum(s.wins) == 90  # every default deal has a winner
    assert sum(s.token_end) <= 90 and s.token_paid <= sum(s.token_end)
    again = simulate(preset("ristiseiska"), 3, 90, seed=4, engine=engine)
    assert again.points == s.points and again.wins == s.wins
    other = simulate(preset("ristiseiska"), 3, 90, seed=5, engine=engine)
    assert other.points != s.points
    with pytest.raises(ValueError):
        simulate(preset("ristiseiska"), 3, 0, seed=1, engine=engine)


def test_progress_callback_counts_every_deal() -> None:
    seen: list[int] = []
    simulate(preset("ristiseiska"), 4, 250, seed=1, engine="python", progress=seen.append)
    assert sum(seen) == 250
    seen.clear()
    simulate(preset("ristiseiska"), 4, 250, seed=1, engine="kernel", progress=seen.append)
    assert sum(seen) == 250


def test_bench_runs(capsys) -> None:
    code, out, _ = _run(capsys, "bench", "--deals", "30", "--kernel-deals", "2000", "--json")
    assert code == 0
    d = json.loads(out)
    engines = {r["engine"]: r for r in d["results"]}
    assert engines["python"]["deals"] == 30 and engines["python"]["deals_per_second"] > 0
    assert engines["kernel"]["deals"] == 2000 and engines["kernel"]["deals_per_second"] > 0
    code, out, _ = _run(capsys, "bench", "--deals", "10", "--preset", "kaksi-pakkaa")
    assert code == 0 and "skipped" in out
    code, _, err = _run(capsys, "bench", "--deals", "0")
    assert code == 2 and "--deals" in err


def test_module_docstring_examples() -> None:
    import doctest

    import ristiseiska.sim

    failures, tried = doctest.testmod(ristiseiska.sim, optionflags=doctest.ELLIPSIS)
    assert tried > 0 and failures == 0


def test_workers_give_the_same_results(tmp_path, capsys) -> None:
    one, two = tmp_path / "w1.jsonl", tmp_path / "w2.jsonl"
    base = ["simulate", "--games", "1100", "--seed", "6", "--engine", "python", "--json"]
    code, out1, _ = _run(capsys, *base, "--records", str(one))
    assert code == 0
    code, out2, _ = _run(capsys, *base, "--records", str(two), "--workers", "2")
    assert code == 0
    assert one.read_bytes() == two.read_bytes()
    d1, d2 = json.loads(out1), json.loads(out2)
    for key in ("mean_points", "wins", "token_at_end", "token_paid_rate"):
        assert d1[key] == d2[key]
    a = simulate(preset("ristiseiska"), 4, 120_000, seed=2, engine="kernel")
    b = simulate(preset("ristiseiska"), 4, 120_000, seed=2, engine="kernel", workers=2)
    assert (a.points, a.wins, a.token_end, a.token_paid) == (b.points, b.wins, b.token_end,
                                                             b.token_paid)
    code, _, err = _run(capsys, "simulate", "--workers", "0")
    assert code == 2 and "--workers" in err

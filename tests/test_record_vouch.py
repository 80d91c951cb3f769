"""``ristiseiska replay --check`` vouches for a file, not only for each record in it (issue 19):
an empty file, a record whose fairness cannot be verified, several matches in one file and a
deal given twice all fail with a sentence; ``--commitment`` checks a file against the
commitment a player noted when the match began; match seeds have 256 bits."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ristiseiska import fair
from ristiseiska.cli import main
from ristiseiska.match import Match, deal_seed
from ristiseiska.record import dumps_record, record_from_game
from ristiseiska.rules import preset


def match_records(seed: int, deals: int = 2, players: int = 3, revealed: bool = True,
                  salt: str = "5a1t" * 8) -> list[dict[str, Any]]:
    """The records of a committed web-style match of ``deals`` deals, played at random."""
    rules = preset("ristiseiska").replace(match_deals=deals)
    m = Match(rules, players, seed=seed)
    rng = random.Random(seed)
    out = []
    for i in range(deals):
        g = m.new_deal()
        while not g.is_over():
            g.push(rng.choice(g.legal_moves()))
        extra: dict[str, Any] = {"deal": i + 1,
                                 "match_seed_commitment": fair.commitment(seed, salt),
                                 "match_seed_chosen": False}
        if revealed:
            extra.update(match_seed=seed, match_seed_salt=salt)
        out.append(json.loads(dumps_record(record_from_game(g, preset="ristiseiska",
                                                            extra=extra))))
        assert g.result is not None
        m.add_result(g.result)
    return out


def terminal_records(seed: int, deals: int = 2) -> list[dict[str, Any]]:
    """Records as the terminal game writes them: ``match_seed`` alone, no commitment."""
    recs = match_records(seed, deals)
    for r in recs:
        for k in ("match_seed_commitment", "match_seed_chosen", "match_seed_salt"):
            r.pop(k)
    return recs


def write(tmp_path: Path, recs: list[dict[str, Any]], name: str = "m.jsonl") -> Path:
    p = tmp_path / name
    p.write_text("".join(json.dumps(r) + "\n" for r in recs), encoding="utf-8")
    return p


def check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["replay", "--check", *args])
    return code, capsys.readouterr().out


SEED = fair.new_seed()


def test_a_whole_match_passes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recs = match_records(SEED)
    code, out = check(capsys, str(write(tmp_path, recs)))
    assert code == 0 and out == "2 records checked, 0 bad\n", out


def test_an_empty_file_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = tmp_path / "empty.jsonl"
    p.write_text("")
    code, out = check(capsys, str(p))
    assert code == 1
    assert f"{p}: the file holds no record" in out
    blank = tmp_path / "blank.jsonl"
    blank.write_text("\n\n")
    assert check(capsys, str(blank))[0] == 1


@pytest.mark.parametrize("stripped", [("match_seed", "match_seed_salt"), ("match_seed_salt",),
                                      ("match_seed",)])
def test_a_commitment_without_its_seed_or_salt_fails(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], stripped: tuple[str, ...]) -> None:
    recs = match_records(SEED)
    for r in recs:
        for k in stripped:
            r.pop(k)
    code, out = check(capsys, str(write(tmp_path, recs)))
    assert code == 1, out
    assert "nobody can verify that its hands were fixed before play" in out or \
        "match_seed" in out
    assert "2 bad" in out


def test_a_running_match_cannot_be_vouched_for_yet(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    recs = match_records(SEED, revealed=False)
    code, out = check(capsys, str(write(tmp_path, recs)))
    assert code == 1
    assert "gives match_seed_commitment but not match_seed and match_seed_salt" in out


def test_two_matches_in_one_file_fail_unless_allowed(tmp_path: Path,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    other = fair.new_seed()
    p = write(tmp_path, match_records(SEED) + match_records(other))
    code, out = check(capsys, str(p))
    assert code == 1
    assert f"{p}: the file mixes 2 matches" in out and "--allow-mixed" in out
    code, out = check(capsys, str(p), "--allow-mixed")
    assert code == 0, out
    # a match's records mixed with deals of no match are mixed as well
    lone = match_records(7, deals=1)[0]
    for k in ("match_seed_commitment", "match_seed_chosen", "match_seed", "match_seed_salt",
              "deal"):
        lone.pop(k)
    code, out = check(capsys, str(write(tmp_path, match_records(SEED) + [lone], "n.jsonl")))
    assert code == 1 and "deals of no match" in out


def test_each_match_in_its_own_file_passes(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    a = write(tmp_path, match_records(SEED), "a.jsonl")
    b = write(tmp_path, match_records(fair.new_seed()), "b.jsonl")
    assert check(capsys, str(a), str(b))[0] == 0


def test_a_duplicated_deal_fails(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recs = match_records(SEED)
    code, out = check(capsys, str(write(tmp_path, [recs[0], recs[1], recs[0]])))
    assert code == 1
    assert ":3: deal 1 of this match is already at line 1" in out
    assert "3 records checked, 1 bad" in out
    # deals of no match: the same record twice
    lone = {k: v for k, v in recs[0].items() if not k.startswith("match_") and k != "deal"}
    code, out = check(capsys, str(write(tmp_path, [lone, lone], "l.jsonl")))
    assert code == 1 and ":2: the same record is already at line 1" in out


def test_commitment_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    recs = match_records(SEED)
    p = write(tmp_path, recs)
    noted = recs[0]["match_seed_commitment"]
    assert check(capsys, str(p), "--commitment", noted.upper())[0] == 0
    wrong = fair.commitment(SEED + 1, "x")
    code, out = check(capsys, str(p), "--commitment", wrong)
    assert code == 1 and "belongs to another match" in out and "2 bad" in out
    # a terminal game's records have no commitment to compare
    q = write(tmp_path, terminal_records(5), "t.jsonl")
    code, out = check(capsys, str(q), "--commitment", noted)
    assert code == 1 and "has no match_seed_commitment" in out
    # a malformed commitment is a command-line error
    capsys.readouterr()
    assert main(["replay", "--check", str(p), "--commitment", "abc"]) == 2
    assert "64 hex digits" in capsys.readouterr().err


def test_terminal_game_records_stay_accepted(tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    code, out = check(capsys, str(write(tmp_path, terminal_records(123456789))))
    assert code == 0, out


def test_match_seeds_have_256_bits_and_old_62_bit_ones_stay_checkable(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert fair.SEED_BITS == 256
    seeds = [fair.new_seed() for _ in range(64)]
    assert all(0 <= s < 2**256 for s in seeds)
    assert max(seeds) >= 2**200  # 64 draws of 256 bits: below 2^200 is out of the question
    big = match_records(2**256 - 1, deals=1)
    old = match_records(2**62 - 1, deals=1)
    assert check(capsys, str(write(tmp_path, big, "big.jsonl")))[0] == 0
    assert check(capsys, str(write(tmp_path, old, "old.jsonl")))[0] == 0
    too_big = match_records(2**256, deals=1)
    code, out = check(capsys, str(write(tmp_path, too_big, "tb.jsonl")))
    assert code == 1 and "match_seed must be a whole number from 0 to 2^256 - 1" in out
    # the per-deal seeds stay 63-bit numbers any engine takes
    assert all(0 <= deal_seed(s, i) < 2**63 for s in seeds[:8] for i in range(3))


def test_the_web_server_draws_256_bit_seeds(tmp_path: Path) -> None:
    from ristiseiska.web import tables

    assert tables.random_seed().bit_length() > 64  # fails once in 2^192 draws


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_property_any_removed_or_repeated_line_is_noticed(data: st.DataObject) -> None:
    """A whole match passes; dropping every fair-deal key of one record, or repeating one
    record anywhere, never does."""
    import tempfile

    recs = match_records(SEED, deals=2)
    i = data.draw(st.integers(0, len(recs) - 1))
    damaged = [dict(r) for r in recs]
    if data.draw(st.booleans()):
        damaged[i].pop("match_seed")
    else:
        damaged.insert(data.draw(st.integers(0, len(damaged))), recs[i])
    with tempfile.TemporaryDirectory() as d:
        p = write(Path(d), damaged)
        assert main(["replay", "--check", str(p)]) == 1

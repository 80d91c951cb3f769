"""Matches (RULES.md §2 Match and V17): deals, target totals, ties, dealer rotation, sheet."""

from __future__ import annotations

import random

import pytest

from engine_kit import cards
from ristiseiska.game import Game, SetupError
from ristiseiska.match import Match, deal_seed
from ristiseiska.rules import Rules, preset
from ristiseiska.scoring import Result, score_deal


def play_out(g: Game, rng: random.Random) -> Result:
    while not g.is_over():
        g.push(rng.choice(g.legal_moves()))
    assert g.result is not None
    return g.result


def synthetic(rules: Rules, left: list[str], winner: int, dealer: int,
              token_holder: int | None = None) -> Result:
    hands = [cards(t) if t else [] for t in left]
    n = len(left)
    return score_deal(rules, hands, winner, [winner], token_holder, [0] * n, None, 0, "out",
                      [len(h) for h in hands], dealer)


@pytest.mark.parametrize("deals", [1, 3, 5])
def test_fixed_number_of_deals(deals: int) -> None:
    m = Match(Rules(match_deals=deals), 4, seed=8)
    rng = random.Random(8)
    played = 0
    while not m.is_over():
        g = m.new_deal()
        assert g.dealer == played % 4  # the deal passes to the left
        m.add_result(play_out(g, rng))
        played += 1
    assert played == deals == len(m.sheet)
    assert m.totals == [sum(r.points[s] for r in m.results) for s in range(4)]
    assert m.winners == [s for s in range(4) if m.totals[s] == min(m.totals)]
    with pytest.raises(SetupError, match="over"):
        m.new_deal()


@pytest.mark.parametrize("name,target", [("ristiseiska-pantti25", 200), ("sjuan", 100),
                                         ("wikipedia", 100)])
def test_target_total_ends_after_the_deal_that_reaches_it(name: str, target: int) -> None:
    rules = preset(name)
    assert rules.match_target == target and rules.match_deals == 0
    n = max(rules.min_players, 4)
    m = Match(rules, n, seed=3)
    rng = random.Random(3)
    while not m.is_over():
        before = m.totals
        assert max(before) < target or (rules.tie == "extra" and len(m.leaders) > 1)
        m.add_result(play_out(m.new_deal(), rng))
        assert len(m.sheet) < 200
    assert max(m.totals) >= target
    assert m.winners and all(m.totals[w] == min(m.totals) for w in m.winners)


def test_tie_accepted_as_a_draw() -> None:
    rules = Rules(match_deals=2, tie="draw")
    m = Match(rules, 3, seed=1)
    m.add_result(synthetic(rules, ["", "S5", "S9"], 0, 0))
    m.add_result(synthetic(rules, ["S5", "", "S2"], 1, 1))
    assert m.totals == [5, 5, 11]
    assert m.is_over() and m.winners == [0, 1]


def test_tie_broken_by_extra_deals() -> None:
    rules = Rules(match_deals=2, tie="extra")
    m = Match(rules, 3, seed=1)
    m.add_result(synthetic(rules, ["", "S5", "S9"], 0, 0))
    m.add_result(synthetic(rules, ["S5", "", "S2"], 1, 1))
    assert not m.is_over() and m.winners == [] and m.leaders == [0, 1]
    m.new_deal()  # a further deal may be dealt
    m.add_result(synthetic(rules, ["S4", "S3", ""], 2, 2))  # still tied? 9 vs 8: broken
    assert m.totals == [9, 8, 11]
    assert m.is_over() and m.winners == [1]


def test_target_with_a_tie_plays_on_with_extra() -> None:
    rules = Rules(match_deals=0, match_target=20, tie="extra")
    m = Match(rules, 2, seed=1)
    m.add_result(synthetic(rules, ["", "SK SQ"], 0, 0))  # 0, 25: target reached, no tie
    assert m.is_over() and m.winners == [0]
    m2 = Match(rules, 2, seed=1)
    m2.add_result(synthetic(rules, ["S10 H10", ""], 1, 0))
    m2.add_result(synthetic(rules, ["", "S10 H10"], 0, 1))
    assert m2.totals == [20, 20] and not m2.is_over()


def test_score_sheet_keeps_the_token_part() -> None:
    rules = Rules(match_deals=1)
    m = Match(rules, 3, seed=1)
    m.add_result(synthetic(rules, ["", "SA SK S4", "S10"], 0, 0, token_holder=1))
    row = m.sheet[0]
    assert row.points == (0, 52, 10) and row.token_points == (0, 21, 0)
    assert [row.cell(s) for s in range(3)] == ["0", "31 + 21", "10"]


def test_last_left_match_counts_losses_and_the_loser_deals() -> None:
    rules = Rules(end="last-left", match_deals=4)
    m = Match(rules, 4, seed=5)
    rng = random.Random(5)
    losses = [0] * 4
    while not m.is_over():
        g = m.new_deal()
        res = play_out(g, rng)
        if isinstance(res.loser, int):
            losses[res.loser] += 1
            assert res.next_dealer == res.loser
        m.add_result(res)
        assert m.dealer == res.next_dealer
    assert m.totals == losses or any(r.end == "stall" for r in m.results)


def test_match_is_reproducible_from_its_seed() -> None:
    a = Match(Rules(), 4, seed=77)
    b = Match(Rules(), 4, seed=77)
    assert a.new_deal().initial_hands == b.new_deal().initial_hands
    assert deal_seed(77, 0) != deal_seed(77, 1)


def test_bad_match_setups() -> None:
    with pytest.raises(SetupError):
        Match(Rules(), 3, dealer=5)
    with pytest.raises(SetupError):
        Match(Rules(), 3, names=["a"])
    m = Match(Rules(), 3, seed=1)
    with pytest.raises(SetupError, match="different number of players"):
        m.add_result(synthetic(Rules(), ["", "S5"], 0, 0))


def test_match_round_trip() -> None:
    rules = preset("ristiseiska-pantti25")
    m = Match(rules, 3, seed=4)
    rng = random.Random(4)
    for _ in range(2):
        m.add_result(play_out(m.new_deal(), rng))
    m2 = Match.from_dict(m.to_dict())
    assert m2.totals == m.totals and m2.dealer == m.dealer and m2.rules == m.rules
    assert [r.points for r in m2.sheet] == [r.points for r in m.sheet]


def test_deal_seed_is_the_documented_hash() -> None:
    import hashlib

    digest = hashlib.sha256(b"ristiseiska:42:3").digest()
    assert deal_seed(42, 3) == int.from_bytes(digest[:8], "big") >> 1
    m = Match(Rules(match_deals=5), 4, seed=42)
    for i in range(3):
        g = m.new_deal()
        assert g.seed == deal_seed(42, i)
        assert g.initial_hands == Game(Rules(match_deals=5), 4, seed=deal_seed(42, i),
                                       dealer=g.dealer).initial_hands
        m.add_result(play_out(g, random.Random(i)))

"""The daily deal (issue 57): the day, the deal, the comparison, the share text, streaks."""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta, timezone

import pytest

from ristiseiska.bots import get_bot
from ristiseiska.cards import parse_card
from ristiseiska.daily import (
    OFFERED,
    SEAT,
    DailyError,
    bot_seed,
    check_played,
    compare,
    daily_deal,
    day_of,
    day_seed,
    day_start,
    field_stats,
    parse_day,
    place_of,
    play,
    play_moves,
    reference_game,
    result_lines,
    share_text,
    streak_line,
    streaks,
)
from ristiseiska.daily.share import game_name
from ristiseiska.i18n import card_name
from ristiseiska.i18n.grammar import CASES
from ristiseiska.record import check_record, record_from_game
from ristiseiska.rules import PRESETS

SECRET = bytes(range(32))
DAY = date(2026, 12, 7)


# -- the day ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("utc", "before", "after"), [
    # winter (EET, UTC+2): midnight in Helsinki is 22:00 UTC
    (datetime(2026, 12, 6, 22, 0, tzinfo=UTC), date(2026, 12, 6), date(2026, 12, 7)),
    # summer (EEST, UTC+3): midnight in Helsinki is 21:00 UTC
    (datetime(2026, 7, 6, 21, 0, tzinfo=UTC), date(2026, 7, 6), date(2026, 7, 7)),
    # the nights the clocks turn (29 March and 25 October 2026 change at 03:00/04:00 local)
    (datetime(2026, 3, 28, 22, 0, tzinfo=UTC), date(2026, 3, 28), date(2026, 3, 29)),
    (datetime(2026, 10, 24, 21, 0, tzinfo=UTC), date(2026, 10, 24), date(2026, 10, 25)),
    (datetime(2026, 10, 25, 22, 0, tzinfo=UTC), date(2026, 10, 25), date(2026, 10, 26)),
])
def test_the_day_begins_at_helsinki_midnight_on_both_sides_of_dst(utc, before, after):
    assert day_of(utc - timedelta(microseconds=1)) == before
    assert day_of(utc) == after
    assert day_start(after) == utc and day_start(after).astimezone(UTC) == utc


def test_day_of_takes_any_time_zone_and_refuses_a_naive_time():
    tokyo = timezone(timedelta(hours=9))
    assert day_of(datetime(2026, 12, 7, 6, 59, tzinfo=tokyo)) == date(2026, 12, 6)  # 23:59 EET
    assert day_of(datetime(2026, 12, 7, 7, 0, tzinfo=tokyo)) == date(2026, 12, 7)
    with pytest.raises(DailyError, match="time zone"):
        day_of(datetime(2026, 12, 7, 12, 0))
    with pytest.raises(DailyError, match="datetime"):
        day_of("2026-12-07")  # type: ignore[arg-type]


def test_a_future_day_is_refused_and_today_and_the_past_are_not():
    now = datetime(2026, 12, 7, 21, 59, tzinfo=UTC)  # 23:59 in Helsinki
    assert check_played(DAY, now) == DAY
    assert check_played(date(2026, 1, 1), now) == date(2026, 1, 1)
    with pytest.raises(DailyError, match="not out yet"):
        check_played(date(2026, 12, 8), now)
    assert check_played(date(2026, 12, 8), now + timedelta(minutes=1)) == date(2026, 12, 8)


@pytest.mark.parametrize("bad", ["2026-13-01", "7.12.2026", "", "2026-12-7", "x" * 500])
def test_a_bad_date_is_named(bad):
    with pytest.raises(DailyError, match="YYYY-MM-DD"):
        parse_day(bad)


# -- the deal ---------------------------------------------------------------------------------

def test_the_offered_rule_sets_are_presets():
    assert OFFERED[0] == "ristiseiska"
    assert {"sjuan", "ristiseiska-pyynto"} <= set(OFFERED) <= set(PRESETS)


def test_the_seed_is_the_hmac_of_date_and_preset():
    import hashlib
    import hmac

    mac = hmac.new(SECRET, b"2026-12-07/sjuan", hashlib.sha256).digest()
    assert day_seed(SECRET, DAY, "sjuan") == int.from_bytes(mac[:8], "big") >> 1


@pytest.mark.parametrize("preset_name", OFFERED)
def test_same_secret_date_and_preset_same_deal_and_others_differ(preset_name):
    a = daily_deal(SECRET, DAY, preset_name).new_game()
    b = daily_deal(SECRET, DAY, preset_name).new_game()
    assert a.initial_hands == b.initial_hands and a.rules.name == preset_name
    for other in (daily_deal(SECRET, DAY + timedelta(days=1), preset_name),
                  daily_deal(bytes(32), DAY, preset_name)):
        assert other.new_game().initial_hands != a.initial_hands
    others = [p for p in OFFERED if p != preset_name]
    assert all(daily_deal(SECRET, DAY, p).seed != daily_deal(SECRET, DAY, preset_name).seed
               for p in others)


@pytest.mark.parametrize("preset_name", OFFERED)
def test_the_daily_match_is_one_deal_even_on_a_shared_score(preset_name):
    deal = daily_deal(SECRET, DAY, preset_name)
    r = deal.rules
    assert (r.match_deals, r.match_target, r.tie, r.name) == (1, 0, "draw", preset_name)
    m = deal.match()
    game = play(deal, get_bot("expert", seed=1).choose)
    m.add_result(game.result)
    assert m.is_over()


def test_bad_secret_and_unknown_preset_are_refused():
    with pytest.raises(DailyError, match="at least 16 bytes"):
        daily_deal(b"short", DAY)
    with pytest.raises(DailyError, match="no daily deal for rule set 'fan-tan'"):
        daily_deal(SECRET, DAY, "fan-tan")


def test_the_same_moves_meet_the_same_bot_answers():
    deal = daily_deal(SECRET, DAY)
    first = play(deal, get_bot("basic", seed=4).choose)
    mine = [m for m, s in zip(first.moves, _seats(deal, first), strict=True) if s == SEAT]
    again = play_moves(deal, [m.text() for m in mine])
    assert again.moves == first.moves and again.result == first.result
    # a different first choice gets answered, still alike twice
    other = play(deal, get_bot("random", seed=9).choose)
    mine2 = [m for m, s in zip(other.moves, _seats(deal, other), strict=True) if s == SEAT]
    assert play_moves(deal, mine2).moves == other.moves


def test_play_moves_names_a_bad_move_and_leftover_moves():
    deal = daily_deal(SECRET, DAY)
    with pytest.raises(DailyError, match="ran out"):
        play_moves(deal, [])
    game = play(deal, get_bot("expert", seed=1).choose)
    mine = [m.text() for m, s in zip(game.moves, _seats(deal, game), strict=True) if s == SEAT]
    with pytest.raises(DailyError, match="1 of the given moves left over"):
        play_moves(deal, [*mine, "token"])
    with pytest.raises(DailyError, match="move 1"):
        play_moves(deal, ["nonsense", *mine])


def test_the_terminal_game_deals_and_seeds_bots_as_the_daily_deal():
    from ristiseiska.tui.session import Session, Setup

    deal = daily_deal(SECRET, DAY, "sjuan")
    s = Session(Setup(rules=deal.rules, players=4, bots=["expert"] * 3, seed=deal.seed), save=False)
    assert s.game.initial_hands == deal.new_game().initial_hands
    assert [s.bot(seat).seed for seat in (1, 2, 3)] == [bot_seed(deal.seed, k) for k in (1, 2, 3)]
    assert s.match.rules.match_deals == 1


def test_a_daily_record_passes_replay_check_with_verify_seed(tmp_path):
    from ristiseiska.commands.replay import _check
    from ristiseiska.record import dumps_record

    deal = daily_deal(SECRET, DAY, "ristiseiska-pyynto")
    game = play(deal, get_bot("expert", seed=2).choose)
    rec = record_from_game(game, extra=deal.record_extra())
    assert check_record(rec, verify_seed=True) is None
    assert rec["match_seed"] == deal.seed
    path = tmp_path / "d.jsonl"
    path.write_text(dumps_record(rec) + "\n", encoding="utf-8")
    assert _check([str(path)], True, deal.commitment) == 0
    rec["match_seed"] = deal.seed + 1  # another seed does not open the commitment
    assert check_record(rec, verify_seed=True) is not None


# -- the comparison -----------------------------------------------------------------------------

def test_place_shares_the_better_place():
    assert [place_of(p, [q for j, q in enumerate((3, 0, 3, 12)) if j != i])
            for i, p in enumerate((3, 0, 3, 12))] == [2, 1, 2, 4]


def test_the_comparison_on_a_constructed_case():
    deal = daily_deal(SECRET, DAY)
    ref = reference_game(deal, get_bot("expert", seed=bot_seed(deal.seed, SEAT)))
    same = compare(deal, play_moves(deal, _mine(deal, ref)), ref)
    assert same.difference is None and same.points == same.reference_points
    assert same.reference_moves == tuple(_mine(deal, ref))
    # the player follows the reference until a choice from its third move on, then differs
    ref_mine = _mine(deal, ref)
    state = {"k": 0, "differed": None}

    def chooser(view):
        k = state["k"]
        state["k"] += 1
        if state["differed"] is not None:
            return get_bot("basic", seed=1).choose(view)
        other = [m for m in view.legal_moves if m != ref_mine[k]]
        if k < 2 or not other:
            return ref_mine[k]
        state["differed"] = k
        return other[0]

    played = play(deal, chooser)
    c = compare(deal, played, ref)
    k = state["differed"]
    assert k is not None
    at = [i for i, s in enumerate(_seats(deal, played)) if s == SEAT][k]
    assert c.difference is not None
    assert (c.difference.index, c.difference.turn) == (at + 1, k + 1)
    assert c.difference.player == played.moves[at] != ref_mine[k]
    assert c.difference.reference == ref.moves[at] == ref_mine[k]
    assert played.moves[:at] == ref.moves[:at]
    assert c.table == tuple(played.result.points) and c.points == c.table[SEAT]
    assert c.place == place_of(c.points, [p for i, p in enumerate(c.table) if i != SEAT])
    assert c.reference_points == ref.result.points[SEAT]
    lines = result_lines(DAY, "ristiseiska", c, "master", "en")
    assert f"First difference at move {at + 1} of the deal (your move {k + 1})" in lines[-1]
    assert lines[2].startswith("The master in your seat")


def test_compare_refuses_another_days_deal_or_an_unfinished_one():
    deal = daily_deal(SECRET, DAY)
    ref = reference_game(deal, get_bot("expert", seed=1))
    other = play(daily_deal(SECRET, DAY - timedelta(days=1)), get_bot("expert", seed=1).choose)
    with pytest.raises(DailyError, match="is not the deal of 2026-12-07"):
        compare(deal, other, ref)
    with pytest.raises(DailyError, match="not finished"):
        compare(deal, deal.new_game(), ref)


def test_the_master_bot_as_the_reference():
    # the master's Python search (no compiled kernel) on a small budget: its own line
    deal = daily_deal(SECRET, DAY, "sjuan")
    master = get_bot("master", seed=bot_seed(deal.seed, SEAT), rollout="greedy", iterations=4)
    ref = reference_game(deal, master)
    mine = _mine(deal, ref)
    c = compare(deal, play_moves(deal, mine), ref)
    assert c.difference is None and c.reference_moves == tuple(mine)


def test_field_rank_percentile_and_histogram():
    f = field_stats(3, [0, 5, 3, 10, 20, 3, 7], bins=7)
    assert (f.count, f.rank) == (8, 2)
    assert f.percentile == pytest.approx(100 * (4 + 0.5 * 2) / 7)
    assert [(b.low, b.high, b.count) for b in f.bins] == [
        (0, 2, 1), (3, 5, 4), (6, 8, 1), (9, 11, 1), (12, 14, 0), (15, 17, 0), (18, 20, 1)]
    assert f.your_bin == 1 and sum(b.count for b in f.bins) == 8
    alone = field_stats(5, [])
    assert (alone.count, alone.rank, alone.percentile) == (1, 1, None)
    assert [(b.low, b.high, b.count) for b in alone.bins] == [(5, 5, 1)]
    best = field_stats(0, [0, 1, 2, 3], bins=2)
    assert best.rank == 1 and best.percentile == pytest.approx(87.5)
    assert [(b.low, b.high, b.count) for b in best.bins] == [(0, 1, 3), (2, 3, 2)]


@pytest.mark.parametrize(("args", "message"), [
    (("3", []), "whole number"), ((3, [1, None]), "whole number"), ((3, [True]), "whole number"),
    ((3, [1], 0), "bins"), ((3, [1], 101), "bins"),
])
def test_field_stats_refuse_bad_input(args, message):
    with pytest.raises(DailyError, match=message):
        field_stats(*args)


# -- share text ---------------------------------------------------------------------------------

def test_the_share_text_reads_as_written():
    assert (share_text(DAY, "ristiseiska", 3, "master", 1, rank=2, count=14)
            == "Ristiseiska päivän jako 2026-12-07 · 3 pistettä · 2./14 · mestari 1")
    assert (share_text(DAY, "ristiseiska-pyynto", 1, "master", 0, lang="en")
            == "Ristiseiska (asking) daily deal 2026-12-07 · 1 point · master 0")


@pytest.mark.parametrize("preset_name", OFFERED)
def test_the_share_text_has_no_card_of_the_deal(preset_name):
    deal = daily_deal(SECRET, DAY, preset_name)
    ref = reference_game(deal, get_bot("expert", seed=3))
    game = play(deal, get_bot("random", seed=3).choose)
    c = compare(deal, game, ref)
    cards = {card for hand in game.initial_hands for card in hand}
    for lang in ("fi", "en"):
        text = share_text(DAY, preset_name, c.points, "master", c.reference_points, rank=2,
                          count=14, lang=lang)
        # the game is named after the seven of clubs, in every deal: the name tells nothing
        game_title = game_name(preset_name, lang)
        assert text.startswith(game_title)
        low = text[len(game_title):].lower()
        for card in cards:
            for form in {card_name(card, lang, case) for case in CASES} | {card.symbol()}:
                assert form.lower() not in low, (form, text)
        # no word of it reads as a card in any notation (h6, 6h, ♥6, herttakuutonen, …)
        for word in re.split(r"[\s·,()/]+", text[len(game_title):]):
            with pytest.raises(ValueError):
                parse_card(word.rstrip("."))
        # the comparison lines name cards (they are the player's own): the test can tell
        lines = " ".join(result_lines(DAY, preset_name, c, "master", lang)).lower()
        if c.difference is not None and c.difference.player.card is not None:
            assert card_name(c.difference.player.card, lang).lower() in lines


# -- streaks ------------------------------------------------------------------------------------

def test_streaks():
    d = date.fromisoformat
    played = [d("2026-11-20"), d("2026-11-21"), d("2026-11-22"), d("2026-11-23"),
              d("2026-12-05"), d("2026-12-06")]
    assert streaks(played, d("2026-12-07")) == (s := streaks(played, d("2026-12-07")))
    assert (s.current, s.best) == (2, 4)  # ends yesterday: today is still to play
    assert streaks([*played, d("2026-12-07"), d("2026-12-07")], d("2026-12-07")).current == 3
    assert streaks(played, d("2026-12-08")).current == 0  # a day missed
    assert streaks([], d("2026-12-07")) == streaks((), d("2026-12-07"))
    assert (streaks([], d("2026-12-07")).current, streaks([], d("2026-12-07")).best) == (0, 0)
    with pytest.raises(DailyError, match="after today"):
        streaks([d("2026-12-08")], d("2026-12-07"))
    assert streak_line(streaks(played, d("2026-12-07")), "fi") == "Putki: 2 päivää peräkkäin, pisin 4."
    assert streak_line(streaks([d("2026-12-07")], d("2026-12-07")), "en") == "Streak: 1 day, best 1."


# -- helpers ------------------------------------------------------------------------------------

def _seats(deal, game):
    from ristiseiska.daily import seats_of

    return seats_of(deal, game.moves)


def _mine(deal, game):
    return [m for m, s in zip(game.moves, _seats(deal, game), strict=True) if s == SEAT]


@pytest.mark.parametrize("name", ["day", "deal", "share", "streak"])
def test_the_docstring_examples_run(name):
    import doctest
    import importlib

    module = importlib.import_module(f"ristiseiska.daily.{name}")
    failures, tried = doctest.testmod(module)
    assert failures == 0 and tried > 0

"""The terminal game's match logic without a screen: moves, refusals, log, records, resume."""

from __future__ import annotations

import argparse
import json
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ristiseiska.cards import CARDS
from ristiseiska.cli import CliError
from ristiseiska.commands.play import add_arguments, settings_from_args
from ristiseiska.record import check_record
from ristiseiska.rules import Rules, preset
from ristiseiska.tui.session import HUMAN, STATE_FILE, Session, Setup


def play_out(s: Session, rng: random.Random, stop_after: int | None = None) -> int:
    """Play (the person picking random legal moves by their text) until the match ends or
    ``stop_after`` moves were made; return the number of moves made."""
    made = 0
    while not s.match_over:
        if stop_after is not None and made >= stop_after:
            break
        if s.deal_over:
            s.next_deal()
        elif s.human_to_move:
            move = rng.choice(s.game.legal_moves())
            s.apply_text(move.text(s.rules.distinct_decks))
        else:
            s.step_bot()
        made += 1
    return made


def test_whole_match_writes_checked_records_and_forgets_the_save(tmp_path: Path) -> None:
    setup = Setup(preset("ristiseiska").replace(match_deals=2), players=3,
                  bots=["random", "expert"], seed=11, name="Aino")
    s = Session(setup, tmp_path)
    assert (tmp_path / STATE_FILE).exists() is False  # nothing saved before a move
    play_out(s, random.Random(1))
    assert len(s.results) == 2
    assert s.totals == [sum(r.points[i] for r in s.results) for i in range(3)]
    assert s.records_path is not None and s.records_path.parent == tmp_path / "records"
    lines = s.records_path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2
    for line in lines:
        rec = json.loads(line)
        assert check_record(rec) is None
        assert rec["players"][0] == "Aino"
    assert not (tmp_path / STATE_FILE).exists()  # the match is over: no resume file left


def test_resume_rebuilds_the_same_position(tmp_path: Path) -> None:
    setup = Setup(preset("ristiseiska").replace(match_deals=3), players=4, bots=["random"] * 3, seed=5)
    s = Session(setup, tmp_path)
    rng = random.Random(2)
    play_out(s, rng, stop_after=90)  # into the second deal for this seed
    assert not s.match_over and s.deal_index == 1
    state = json.loads((tmp_path / STATE_FILE).read_text(encoding="utf-8"))
    again = Session.load(tmp_path)
    assert again is not None
    assert again.deal_index == s.deal_index
    assert [str(m) for m in again.game.moves] == [str(m) for m in s.game.moves]
    assert again.game.hand_sizes() == s.game.hand_sizes()
    assert again.game.to_move == s.game.to_move
    assert [r.points for r in again.results] == [r.points for r in s.results]
    assert state["setup"]["seed"] == 5
    assert again.rules == s.rules and again.rules.name == s.rules.name
    # and it plays on to the end
    play_out(again, rng)
    assert again.match_over and len(again.results) >= 3


def test_resume_refuses_a_foreign_file(tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_text('{"format": "something else"}', encoding="utf-8")
    with pytest.raises(ValueError):
        Session.load(tmp_path)
    assert Session.load(tmp_path / "nowhere") is None


def _opening_session(lang: str = "fi") -> Session:
    # seed 3 with the person dealing: seat 0 holds the seven of clubs and opens
    s = Session(Setup(Rules(), players=4, bots=["random"] * 3, seed=3, lang=lang), None)
    assert s.human_to_move and [str(m) for m in s.game.legal_moves()] == ["C7"]
    return s


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("", "Kirjoita kortti"),
        ("zz", "En ymmärrä"),
        ("SA", "Sinulla ei ole pataässää."),                # not in this hand (partitive)
        ("H5", "ristiseiska"),                              # in hand, but C7 opens
        ("stop", "sulkevan kortin"),
    ],
)
def test_bad_input_is_explained_in_finnish_and_changes_nothing(text: str, words: str) -> None:
    s = _opening_session()
    hand = s.game.hand(HUMAN)
    if text == "SA":
        assert "SA" not in [str(c) for c in hand]
    with pytest.raises(ValueError) as err:
        s.apply_text(text)
    assert words in str(err.value)
    assert s.game.moves == [] and s.game.hand(HUMAN) == hand


def test_bad_input_in_english() -> None:
    s = _opening_session("en")
    with pytest.raises(ValueError, match="do not understand"):
        s.apply_text("seven of nothing")
    with pytest.raises(ValueError, match="You do not have the ace of spades"):
        s.apply_text("SA")


def test_waiting_for_a_bot_is_refused() -> None:
    s = _opening_session()
    s.apply_text("ristiseiska")
    assert s.bot_to_move
    with pytest.raises(ValueError, match="Odota vuoroasi"):
        s.parse("C6")


def test_a_card_that_does_not_fit_names_the_missing_card() -> None:
    s = _opening_session()
    s.apply_text("c7")
    while s.bot_to_move:
        s.step_bot()
    hand = [str(c) for c in s.game.hand(HUMAN)]
    legal = {str(m) for m in s.game.legal_moves()}
    unfit = next(c for c in hand if c not in legal)
    with pytest.raises(ValueError) as err:
        s.apply_text(unfit)
    assert "ei sovi" in str(err.value)


def test_log_speaks_to_the_person_and_names_the_bots() -> None:
    s = _opening_session()
    s.apply_text("C7")
    assert s.log[-1].text == "Pelasit ristiseiskan."
    s.step_bot()
    assert s.log[-1].text.startswith(s.names[1] + " ")
    s_en = _opening_session("en")
    s_en.apply_text("C7")
    assert s_en.log[-1].text == "You played the seven of clubs."


def test_hint_is_a_legal_move_with_a_reason() -> None:
    s = _opening_session()
    move, reason = s.hint()
    assert move is not None and move in s.game.legal_moves() and reason
    s.apply_text("C7")
    assert s.hint() == (None, "")  # not the person's turn


def test_setup_refuses_wrong_bots() -> None:
    with pytest.raises(ValueError):
        Setup(Rules(), players=4, bots=["expert", "expert"])
    with pytest.raises(ValueError):
        Setup(Rules(), players=3, bots=["expert", "wizard"])
    assert Setup(Rules(), players=5, bots=["basic"]).bots == ["basic"] * 4


def _args(*argv: str) -> argparse.Namespace:
    p = argparse.ArgumentParser()
    add_arguments(p)
    return p.parse_args(list(argv))


def test_flags_become_settings(tmp_path: Path) -> None:
    d = settings_from_args(_args("--preset", "sjuan", "--players", "5", "--bots", "basic",
                                 "--deals", "2", "--lang", "en", "--open", "--seed", "9"))
    rules = d["rules"]
    assert isinstance(rules, Rules)
    assert rules.opening == "H7" and rules.match_deals == 2 and rules.match_target == 0
    assert d["bots"] == ["basic"] * 4 and d["lang"] == "en" and d["open_cards"] is True
    f = tmp_path / "talo.toml"
    f.write_text('preset = "ristiseiska"\ntoken_value = 25\n', encoding="utf-8")
    d = settings_from_args(_args("--rules", str(f)))
    assert d["rules"].token_value == 25 and d["preset_value"] == "@file"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    "argv",
    [
        ("--preset", "nosuch"),
        ("--players", "9"),
        ("--bots", "expert,expert"),
        ("--bots", "wizard"),
        ("--deals", "0"),
        ("--rules", "/nonexistent/rules.toml"),
        ("--preset", "sjuan", "--players", "2"),
    ],
)
def test_bad_flags_are_one_line_errors(argv: tuple[str, ...]) -> None:
    with pytest.raises(CliError):
        settings_from_args(_args(*argv))


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10**6), preset_name=st.sampled_from(
    ["ristiseiska", "ristiseiska-pyynto", "sjuan", "fan-tan", "kaksi-pakkaa", "kahdestaan-pakka",
     "jokerit", "ristikasi", "free-fan-tan"]))
def test_any_preset_plays_through_the_session(seed: int, preset_name: str) -> None:
    rules = preset(preset_name).replace(match_deals=1, match_target=0)
    n = max(rules.min_players, min(3, rules.max_players))
    s = Session(Setup(rules, players=n, bots=["random"] * (n - 1), seed=seed), None)
    play_out(s, random.Random(seed))
    assert s.match_over and len(s.results) == 1
    # every log line is a sentence, never an untranslated key
    assert all(not line.text.startswith(("tui.", "core.")) for line in s.log)


def test_bots_never_share_the_persons_name() -> None:
    names = Setup(Rules(), players=8, bots=["random"], name="aino").names
    assert len(names) == 8 and len({n.casefold() for n in names}) == 8


@pytest.mark.parametrize("name", ["jokerit", "kaksi-pakkaa", "kaksi-erilaista-pakkaa",
                                  "ristiseiska-pyynto", "kahdestaan-pakka", "free-fan-tan"])
def test_resume_round_trip_in_variants(tmp_path: Path, name: str) -> None:
    rules = preset(name).replace(match_deals=2, match_target=0)
    n = max(rules.min_players, min(3, rules.max_players))
    s = Session(Setup(rules, players=n, bots=["random"] * (n - 1), seed=4), tmp_path)
    play_out(s, random.Random(4), stop_after=40)
    again = Session.load(tmp_path)
    assert again is not None
    assert [m.text(True) for m in again.game.moves] == [m.text(True) for m in s.game.moves]
    assert [again.game.hand(i) for i in range(n)] == [s.game.hand(i) for i in range(n)]


@pytest.mark.parametrize("lang", ["fi", "en"])
def test_rules_screen_text_for_every_preset(lang: str) -> None:
    from ristiseiska.rules import preset_names
    from ristiseiska.tui.app import rules_markdown

    for name in preset_names():
        text = rules_markdown(preset(name), lang)
        assert text.startswith("#") and len(text) > 200, name
    changed = rules_markdown(preset("ristiseiska").replace(token_value=25), lang)
    assert "25" in changed


def test_recent_plays_are_the_moves_since_your_turn() -> None:
    from ristiseiska.game import Event
    from ristiseiska.tui.widgets import recent_plays

    c = [CARDS[i] for i in range(6)]
    evs = [Event(0, "play", c[0]), Event(1, "play", c[1]), Event(2, "token"),
           Event(0, "play", c[2]), Event(0, "play", c[3]), Event(1, "play", c[4])]
    assert recent_plays(evs, 0) == {int(c[4])}
    assert recent_plays(evs[:5], 0) == {int(c[2]), int(c[3])}  # your own last turn
    assert recent_plays([], 0) == set()

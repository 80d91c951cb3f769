"""Cards typed as a Finnish player writes them (issue 62): ``pata9``, ``p9``, ``pata 9``,
``ruutu3``, ``ru3``, ``hertta10``, ``risti7``; ``r3`` is explained (risti or ruutu?)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from textual.widgets import Static

from ristiseiska.cards import CARDS, JOKER_BASE, RANK_FI, Card, parse_card
from ristiseiska.rules import Rules
from ristiseiska.tui.app import PlayApp, default_settings
from ristiseiska.tui.session import HUMAN, Session, Setup
from ristiseiska.tui.typed import (
    LONG_FORM,
    SHORT_FORM,
    AmbiguousCard,
    read_typed_card,
    typed_move_text,
)

PLAIN = [c for c in CARDS if c < 52]
RANK_SHOWN = {1: "a", 11: "j", 12: "q", 13: "k"}


@pytest.mark.parametrize(("typed", "card"), [
    ("pata9", "S9"), ("p9", "S9"), ("pata 9", "S9"), ("PATA9", "S9"), ("P 9", "S9"),
    ("ruutu3", "D3"), ("ru3", "D3"), ("Ruutu 3", "D3"), ("hertta10", "H10"), ("h10", "H10"),
    ("risti7", "C7"), ("ri7", "C7"), ("ri 7", "C7"), ("pk", "SK"), ("pata kasi", "S8"),
    ("hertta-ässä", "HA"), ("ruutu kuningatar", "DQ"), ("pata9+", "S9+"),
])
def test_finnish_typed_forms_read_as_the_card(typed: str, card: str) -> None:
    got = read_typed_card(typed)
    assert got is not None and got.notation(mark_deck=True) == card


@pytest.mark.parametrize("typed", ["stop", "ohi", "pantti", "pisteet", "rules", "passaa",
                                   "x1", "zz", "p", "pata", "pata14", "hertta0"])
def test_other_texts_are_no_typed_card(typed: str) -> None:
    assert read_typed_card(typed) is None
    assert typed_move_text(typed) == typed.strip()


def test_moves_keep_their_shape() -> None:
    assert typed_move_text("anna pata9") == "give:S9"
    assert typed_move_text("give:ru3") == "give:D3"
    assert typed_move_text("x1=hertta7") == "x1=H7"
    assert typed_move_text("pata9@1") == "S9@1"
    assert typed_move_text("H7") == "H7"  # the engine's notation is left alone


@pytest.mark.parametrize("typed", ["r3", "R3", "r 3", "rk"])
def test_r_alone_is_ambiguous(typed: str) -> None:
    with pytest.raises(AmbiguousCard):
        read_typed_card(typed)


def _forms(c: Card) -> list[str]:
    r = c.rank
    digits = str(r)
    out = []
    for suit in (LONG_FORM[c.suit], SHORT_FORM[c.suit]):
        out += [f"{suit}{digits}", f"{suit} {digits}", f"{suit}{digits}".upper()]
        if r in RANK_SHOWN:
            out.append(f"{suit}{RANK_SHOWN[r]}")
        out.append(f"{suit}{RANK_FI[r][0]}")
    out.append(c.name("fi"))
    return out


@given(st.sampled_from(PLAIN), st.data())
def test_every_card_s_finnish_forms_read_back(c: Card, data: Any) -> None:
    form = data.draw(st.sampled_from(_forms(c)))
    got = read_typed_card(form)
    assert got == c, form
    # and the text the terminal hands on reads as that card in the engine
    assert parse_card(typed_move_text(form)) == c
    assert c < JOKER_BASE


# -- in the session and on the screen ---------------------------------------------------------

def _opening(lang: str) -> Session:
    # seed 3 with the person dealing: seat 0 holds the seven of clubs and opens
    s = Session(Setup(Rules(), players=4, bots=["random"] * 3, seed=3, lang=lang), None)
    assert [str(m) for m in s.game.legal_moves()] == ["C7"]
    return s


@pytest.mark.parametrize("typed", ["risti7", "ri7", "risti 7", "RISTI7", "ri seiska"])
def test_the_opening_card_typed_in_finnish_plays(typed: str) -> None:
    s = _opening("fi")
    s.apply_text(typed)
    assert [str(m) for m in s.game.moves][:1] == ["C7"]


@pytest.mark.parametrize(("lang", "words"), [
    ("fi", ["»r3«", "ristikolmosta", "ruutukolmosta", "ri3", "ru3"]),
    ("en", ["“r3”", "three of clubs", "three of diamonds", "ri3", "ru3"]),
])
def test_r3_is_explained_and_changes_nothing(lang: str, words: list[str]) -> None:
    s = _opening(lang)
    with pytest.raises(ValueError) as err:
        s.apply_text("r3")
    for w in words:
        assert w in str(err.value)
    assert s.game.moves == []


def test_a_typed_card_not_in_hand_is_named() -> None:
    s = _opening("fi")
    missing = next(c for c in PLAIN if c not in s.game.hand(HUMAN) and c.suit == 3)
    with pytest.raises(ValueError, match=f"Sinulla ei ole {missing.name('fi', 'par')}"):
        s.apply_text(f"p{missing.rank}")


def _status(app: PlayApp) -> str:
    return str(app.screen.query_one("#status", Static).render())


@pytest.mark.asyncio
@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_play_accepts_finnish_forms_on_the_input_line(tmp_path: Path, lang: str) -> None:
    app = PlayApp(default_settings(seed=3, pace=0.0, bots=["random"] * 3, lang=lang),
                  data_dir_path=tmp_path, quick=True)
    async with app.run_test(size=(80, 24)) as pilot:
        s = app.session
        assert s is not None
        await pilot.press(*"r3", "enter")
        await pilot.pause()
        assert "ri3" in _status(app) and "ru3" in _status(app) and s.game.moves == []
        await pilot.press(*"risti7", "enter")
        await pilot.pause()
        assert [str(m) for m in s.game.moves][:1] == ["C7"]
        # a legal card typed with the suit's Finnish short form and a space
        legal = [m for m in s.game.legal_moves() if m.kind == "play" and m.card is not None]
        assert legal and s.human_to_move
        c = legal[0].card
        assert c is not None
        before = len(s.game.moves)
        await pilot.press(*f"{SHORT_FORM[c.suit]} {c.rank}", "enter")
        await pilot.pause()
        assert s.game.moves[before] == legal[0]


@pytest.mark.asyncio
@pytest.mark.parametrize(("lang", "title"), [("fi", "Kortin kirjoittaminen"), ("en", "Typing a card")])
async def test_the_rules_window_says_how_to_type_a_card(tmp_path: Path, lang: str, title: str) -> None:
    from ristiseiska.tui.app import TextScreen

    app = PlayApp(default_settings(seed=3, pace=0.0, bots=["random"] * 3, lang=lang),
                  data_dir_path=tmp_path, quick=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("f1")
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        body = str(app.screen.body)
        for form in (title, "pata9", "p9", "pata 9", "ru3", "hertta10", "risti7"):
            assert form in body


def test_the_fi_catalog_reads_naturally() -> None:
    from ristiseiska.i18n import describe_event, result_lines

    assert describe_event({"seat": 0, "type": "give", "card": "DK", "to": 1}, ["Aino", "Olli"],
                          "fi") == "Aino antoi ruutukuninkaan, ja Olli sai sen."
    res = {"winner": 1, "loser": 2, "points": [1, 0, 2]}
    assert "Sara hävisi jaon." in result_lines(res, ["Aino", "Olli", "Sara"], "fi")
    assert "Sara lost the deal." in result_lines(res, ["Aino", "Olli", "Sara"], "en")
    two = dict(res, loser=[0, 2])
    assert "Aino ja Sara hävisivät jaon." in result_lines(two, ["Aino", "Olli", "Sara"], "fi")


@pytest.mark.parametrize(("argv", "words"), [
    (["presets"], "perussäännöt"), (["presets", "--lang", "fi"], "perussäännöt"),
    (["presets", "--lang", "en"], "token 21"),
])
def test_presets_speak_finnish_by_default(capsys: Any, argv: list[str], words: str) -> None:
    from ristiseiska.cli import main

    assert main(argv) == 0
    out = capsys.readouterr().out
    assert words in out
    if "en" not in argv:
        assert "token" not in out

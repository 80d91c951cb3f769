"""Issue 52 in the terminal game: a forced move (token, pass, ask, draw, chip) is made for the
person after a pause the status line announces, with a log line saying so (``Setup.auto_forced``,
the set-up screen's checkbox, ``ristiseiska play --manual-forced``); and a jokers deal that
nobody can finish ends at the swap that makes it so."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Checkbox, Static

from ristiseiska.cards import CARDS
from ristiseiska.game import Game
from ristiseiska.rules import Rules, preset
from ristiseiska.tui.app import DealOver, GameScreen, PlayApp, default_settings
from ristiseiska.tui.session import HUMAN, Session, Setup
from test_jokers_stuck import stuck_position

pytestmark = pytest.mark.asyncio
SIZE = (120, 40)
PAUSE = 1.5  # long enough to look at the status line on a busy machine
# Two players: the person opens with the seven of clubs and holds only low hearts and diamonds,
# which wait for their sixes: after the bot's first card the person cannot play.
MINE = ["C7", "HA", "H2", "H3", "H4", "H5", "DA", "D2", "D3", "D4", "D5"]


def status(app: PlayApp) -> str:
    return str(app.screen.query_one("#status", Static).render())


def token_app(tmp_path: Path, auto: bool, lang: str = "fi") -> PlayApp:
    rules = Rules()
    rest = [str(c) for c in CARDS[:52] if str(c) not in set(MINE)]
    s = Session(Setup(rules, players=2, bots=["random"], seed=1, pace=0.0, lang=lang,
                      auto_forced=auto), tmp_path)
    s.game = Game(rules, 2, hands=[MINE, rest], names=s.names)
    return PlayApp(session=s, data_dir_path=tmp_path)


async def until(pilot: Any, done: Any, limit: float = 20.0) -> None:
    for _ in range(int(limit / 0.05)):
        if done():
            return
        await pilot.pause(0.05)
    raise AssertionError("not in time")


def shorten(app: PlayApp) -> None:
    screen = app.screen
    assert isinstance(screen, GameScreen)
    screen.forced_pause = PAUSE


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_the_token_is_taken_for_the_person_after_the_pause(tmp_path: Path,
                                                                 lang: str) -> None:
    app = token_app(tmp_path, auto=True, lang=lang)
    async with app.run_test(size=SIZE) as pilot:
        shorten(app)
        s = app.session
        assert s is not None
        await pilot.press(*"c7", "enter")
        await until(pilot, lambda: len(s.game.moves) >= 2)
        assert s.human_to_move and [m.kind for m in s.game.legal_moves()] == ["token"]
        want = {"fi": "Ei pelattavaa korttia: otat pantin. Siirto tehdään puolestasi hetken "
                      "kuluttua.",
                "en": "No card to play: you take the token. The move is made for you in a "
                      "moment."}[lang]
        assert status(app) == want
        assert not any(e.type == "token" for e in s.game.events), "made without the pause"
        await until(pilot, lambda: any(e.type == "token" for e in s.game.events))
        tokens = [e for e in s.game.events if e.type == "token"]
        assert tokens and tokens[0].seat == HUMAN
        note = {"fi": "(Ei pelattavaa korttia: siirto tehtiin puolestasi.)",
                "en": "(No card to play: the move was made for you.)"}[lang]
        lines = [line.text for line in s.log if line.kind == "token" and line.seat == HUMAN]
        assert lines[0].endswith(note), lines


async def test_with_the_option_off_the_person_takes_the_token_themselves(
        tmp_path: Path) -> None:
    app = token_app(tmp_path, auto=False)
    async with app.run_test(size=SIZE) as pilot:
        shorten(app)
        s = app.session
        assert s is not None
        await pilot.press(*"c7", "enter")
        await until(pilot, lambda: len(s.game.moves) >= 2)
        assert [m.kind for m in s.game.legal_moves()] == ["token"]
        assert "Ei pelattavaa korttia" not in status(app)
        await pilot.pause(PAUSE * 3)
        assert not any(e.type == "token" for e in s.game.events)
        await pilot.press("enter")  # the only thing to do
        await until(pilot, lambda: any(e.type == "token" for e in s.game.events))
        token = next(line.text for line in s.log if line.kind == "token")
        assert "puolestasi" not in token


async def test_a_person_who_moves_first_keeps_an_unmarked_move(tmp_path: Path) -> None:
    app = token_app(tmp_path, auto=True)
    async with app.run_test(size=SIZE) as pilot:
        shorten(app)
        s = app.session
        assert s is not None
        await pilot.press(*"c7", "enter")
        await until(pilot, lambda: len(s.game.moves) >= 2)
        await pilot.press("enter")
        await until(pilot, lambda: any(e.type == "token" for e in s.game.events))
        await pilot.pause(PAUSE)
        first = next(line.text for line in s.log if line.kind == "token")
        assert "puolestasi" not in first


async def test_the_setup_checkbox_and_the_flag(tmp_path: Path) -> None:
    import argparse

    from ristiseiska.commands.play import add_arguments, settings_from_args

    p = argparse.ArgumentParser()
    add_arguments(p)
    assert settings_from_args(p.parse_args([]))["auto_forced"] is True
    assert settings_from_args(p.parse_args(["--manual-forced"]))["auto_forced"] is False
    app = PlayApp(default_settings(seed=3, pace=0.0), data_dir_path=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        box = app.screen.query_one("#auto-forced", Checkbox)
        assert box.value is True
        box.value = False
        await pilot.pause()
        await pilot.click("#start")
        await pilot.pause()
        assert app.session is not None and app.session.setup.auto_forced is False
    assert Setup.from_dict({**Setup(seed=1).to_dict(), "auto_forced": False}).auto_forced is False
    old = Setup(seed=1).to_dict()
    del old["auto_forced"]  # a match saved before issue 52
    assert Setup.from_dict(old).auto_forced is True


async def test_a_jokers_deal_nobody_can_finish_ends_at_the_swap(tmp_path: Path) -> None:
    # tests/test_jokers_stuck.py's position: the table full, the bot (seat 1) holds the real
    # diamonds seven, the person only the dead hearts king; the bot's swap ends the deal
    rules = preset("jokerit")
    s = Session(Setup(rules, players=2, bots=["random"], seed=1, pace=0.0), tmp_path)
    g = stuck_position(rules)
    g.names = s.names
    s.game = g
    app = PlayApp(session=s, data_dir_path=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(20):
            if isinstance(app.screen, DealOver):
                break
            await pilot.pause(0.05)
        assert isinstance(app.screen, DealOver)
        assert g.result is not None and g.result.end == "stuck"
        assert g.events[-1].to_dict() == {"seat": 1, "type": "swap", "card": "D7"}
        text = " ".join(str(w.render()) for w in app.screen.query(Static))
        assert "yhtään käsissä olevaa korttia ei voi enää pelata" in text

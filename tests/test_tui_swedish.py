"""``ristiseiska play --lang sv`` (issue 61): the terminal game in Swedish at 80×24."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from textual.widgets import Static

from ristiseiska.commands import play as play_cmd
from ristiseiska.tui.app import PlayApp, SetupScreen, TextScreen
from ristiseiska.tui.widgets import SafeSelect

pytestmark = pytest.mark.asyncio
SIZE = (80, 24)


def _settings(*argv: str) -> dict[str, object]:
    p = argparse.ArgumentParser()
    play_cmd.add_arguments(p)
    return play_cmd.settings_from_args(p.parse_args(list(argv)))


def _screen_text(app: PlayApp) -> str:
    return " ".join(str(w.render()) for w in app.screen.query(Static))


async def test_play_lang_sv_shows_swedish(tmp_path: Path) -> None:
    d = _settings("--lang", "sv", "--seed", "3", "--bots", "random", "--pace", "0")
    app = PlayApp(d, data_dir_path=tmp_path, quick=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        status = str(app.screen.query_one("#status", Static).render())
        assert status.startswith("Din tur"), status
        await pilot.press(*"nonsens", "enter")
        await pilot.pause()
        assert "Jag förstår inte" in str(app.screen.query_one("#status", Static).render())
        await pilot.press(*"regler", "enter")  # a command in Swedish opens the rules
        await pilot.pause()
        assert isinstance(app.screen, TextScreen)
        await pilot.press("escape")
        await pilot.pause()
        text = _screen_text(app)
        assert "Giv 1" in text and "Givare: Du" in text and "13 kort" in text, text[:400]


async def test_the_setup_screen_offers_svenska(tmp_path: Path) -> None:
    d = _settings("--lang", "sv")
    app = PlayApp(d, data_dir_path=tmp_path)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, SetupScreen)
        select = app.screen.query_one("#lang", SafeSelect)
        assert select.value == "sv"
        assert "Välkommen" in _screen_text(app)


def test_the_cli_refuses_a_language_outside_the_list(capsys: pytest.CaptureFixture[str]) -> None:
    p = argparse.ArgumentParser()
    play_cmd.add_arguments(p)
    with pytest.raises(SystemExit):
        p.parse_args(["--lang", "de"])
    assert "invalid choice: 'de'" in capsys.readouterr().err

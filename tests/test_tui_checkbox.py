"""The set-up form's checkboxes read without colour (issue 62): ``[x]`` checked, ``[ ]`` not,
at 80×24 in both languages."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Checkbox

from ristiseiska.tui.app import PlayApp, SetupScreen, default_settings

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_checked_and_unchecked_look_different_without_colour(tmp_path: Path, lang: str) -> None:
    app = PlayApp(default_settings(seed=3, pace=0.0, lang=lang), data_dir_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        assert isinstance(app.screen, SetupScreen)
        box = app.screen.query_one("#auto-forced", Checkbox)
        assert box.value is True
        assert str(box.render().plain).startswith("[x]")
        box.value = False
        await pilot.pause()
        assert str(box.render().plain).startswith("[ ]")
        opened = app.screen.query_one("#open", Checkbox)
        assert opened.value is False and str(opened.render().plain).startswith("[ ]")

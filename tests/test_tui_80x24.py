"""An 80x24 terminal shows the whole of its texts (issue 21, point 7): the input prompt with
"paina Enter", the end-of-deal keys, "pääsi pois" on its player's line; and the saved game's
resume hint names the same --data-dir."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import pytest
from rich.cells import cell_len
from rich.console import Console
from textual.widgets import Input, Static

from ristiseiska.i18n import t
from ristiseiska.tui.app import DealOver, GameScreen, PlayApp, default_settings, resume_command
from ristiseiska.tui.widgets import PlayersView

SMALL = (80, 24)



def quick_app(tmp_path: Path, lang: str) -> PlayApp:
    settings: dict[str, Any] = {"seed": 3, "pace": 0.0, "bots": ["random"] * 3, "lang": lang}
    return PlayApp(default_settings(**settings), data_dir_path=tmp_path, quick=True)


def lines_of(widget: Static) -> list[str]:
    """The widget's text as the screen wraps it at its own width."""
    width = widget.content_region.width
    console = Console(width=width, record=True, file=io.StringIO(), legacy_windows=False)
    console.print(widget.render(), overflow="fold")
    return console.export_text().splitlines()


@pytest.mark.parametrize("lang", ["fi", "en"])
@pytest.mark.asyncio
async def test_the_input_prompt_fits_80_columns(tmp_path: Path, lang: str) -> None:
    app = quick_app(tmp_path, lang)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        box = app.screen.query_one(Input)
        text = t("tui.input.placeholder", lang)
        assert text.endswith(("paina Enter", "press Enter"))
        assert box.placeholder == text
        assert cell_len(text) <= box.content_region.width, (cell_len(text), box.content_region)
        assert box.region.right <= 80


@pytest.mark.parametrize("lang", ["fi", "en"])
@pytest.mark.asyncio
async def test_the_end_of_deal_keys_and_the_players_fit_80x24(tmp_path: Path, lang: str) -> None:
    app = quick_app(tmp_path, lang)
    async with app.run_test(size=SMALL) as pilot:
        for _ in range(400):
            if isinstance(app.screen, DealOver):
                break
            await pilot.press("enter")
            await pilot.pause()
        over = app.screen
        assert isinstance(over, DealOver)
        await pilot.pause()
        hint = over.query_one("#over-hint", Static)
        text = t("tui.over.keys", lang)
        assert cell_len(text) <= hint.content_region.width  # one whole line, not cut
        assert hint.region.bottom <= 24 - 1 and hint.region.height >= 1
        assert lines_of(hint) == [text]
        # the winner's line says "pääsi pois" on the same line as the name, unwrapped
        game = app.screen_stack[-2]
        players = game.query_one(PlayersView)
        s = app.session
        assert s is not None and s.results
        winner = s.names[s.results[-1].winner]
        shown = lines_of(players)
        out = t("tui.players.out", lang)
        line = next(x for x in shown if winner in x)
        assert out in line, shown
        assert not any(x.strip() == out for x in shown)


def test_the_resume_hint_keeps_the_data_dir(tmp_path: Path) -> None:
    assert resume_command(None, tmp_path) == "ristiseiska play --resume"
    odd = tmp_path / "my games"
    cmd = resume_command(str(odd), odd)
    assert cmd == f"ristiseiska play --resume --data-dir '{odd.resolve()}'"
    for lang in ("fi", "en"):
        assert cmd in t("tui.exit.saved", lang, path="x", command=cmd)


@pytest.mark.parametrize("lang", ["fi", "en"])
@pytest.mark.asyncio
async def test_the_replay_step_line_fits_80_columns(lang: str) -> None:
    import json

    from ristiseiska.tui.analysis import AnalysisReplayApp

    known = Path(__file__).parent / "data" / "analysis_known.jsonl"
    app = AnalysisReplayApp(json.loads(known.read_text("utf-8").splitlines()[0]), lang)
    async with app.run_test(size=SMALL) as pilot:
        app.go(52)
        await pilot.pause()
        step = app.query_one("#step", Static)
        text = str(step.render())
        assert text.startswith(t("tui.replay.step", lang, i=52, n=len(app.moves)))
        assert cell_len(text) <= step.content_region.width, text

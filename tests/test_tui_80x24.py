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


@pytest.mark.parametrize("lang", ["fi", "en"])
@pytest.mark.asyncio
async def test_the_token_mark_stays_on_its_holders_line(tmp_path: Path, lang: str) -> None:
    """Issue 45: with 10 or more cards the holder's "● pantti" used to wrap onto a line of its
    own at 80×24."""
    app = quick_app(tmp_path, lang)
    async with app.run_test(size=SMALL) as pilot:
        for _ in range(200):
            await pilot.pause()
            s = app.session
            g = s.game if s is not None else None
            if g is not None and g.token_holder is not None and \
                    g.view(0).hand_sizes[g.token_holder] >= 10 and isinstance(app.screen, GameScreen):
                break
            await pilot.press("enter")
        s = app.session
        assert s is not None and s.game.token_holder is not None
        holder = s.game.token_holder
        assert s.game.view(0).hand_sizes[holder] >= 10
        players = app.screen.query_one(PlayersView)
        await pilot.pause()
        shown = str(players.render()).splitlines()
        width = players.content_region.width
        assert all(cell_len(x) <= width for x in shown), (width, shown)  # no line wraps
        mark = "●"
        assert sum(mark in x for x in shown) == 1, shown
        line = next(x for x in shown if mark in x)
        assert s.names[holder] in line, shown  # on the holder's own line
        # and every seat's line is one screen line: name and card count together
        for seat, name in enumerate(s.names):
            n = s.game.view(0).hand_sizes[seat]
            assert any(name in x and str(n) in x for x in shown), (name, shown)


@pytest.mark.parametrize("lang", ["fi", "en"])
@pytest.mark.parametrize("step", [0, 40])
@pytest.mark.asyncio
async def test_the_replay_shows_the_log_and_whole_suits_at_80x24(lang: str, step: int) -> None:
    """Issue 45: the replay viewer's hands filled the screen (the log was hidden) and wrapped
    in the middle of a suit."""
    import json

    from textual.widgets import RichLog

    from ristiseiska.tui.analysis import AnalysisReplayApp

    known = Path(__file__).parent / "data" / "analysis_known.jsonl"
    app = AnalysisReplayApp(json.loads(known.read_text("utf-8").splitlines()[0]), lang)
    async with app.run_test(size=SMALL) as pilot:
        app.go(step)
        await pilot.pause()
        log = app.query_one("#log", RichLog)
        assert log.region.height >= 6 and log.region.bottom <= 24 - 1, log.region
        assert log.region.width >= 40
        if step:
            # the latest move is on the screen
            shown = [line.text for line in log.lines][-(log.region.height - 2):]
            assert any(x.strip().startswith(f"{step}.") for x in shown), shown
        players = app.query_one(PlayersView)
        assert players.region.right <= 80 and players.region.bottom <= 24 - 1
        width = players.content_region.width
        lines = str(players.render()).splitlines()
        assert all(cell_len(x) <= width for x in lines), (width, lines)  # nothing wraps
        # each seat's hand: every suit's ranks on one line, each suit once
        hands: list[list[str]] = []
        for x in lines:
            if x.startswith("    "):
                hands[-1].append(x)
            elif x.startswith(("▶ ", "  ")):
                hands.append([])
        assert len(hands) == 4
        for h in hands:
            suits = [ch for line in h for ch in line if ch in "♣♦♥♠"]
            assert len(suits) == len(set(suits)), h
        assert not any(x.strip() in ("● pantti", "● token") for x in lines)


@pytest.mark.parametrize("lang", ["fi", "en"])
@pytest.mark.parametrize("saved_game", [False, True])
@pytest.mark.asyncio
async def test_the_start_button_is_on_screen_for_every_rule_set(tmp_path: Path, lang: str,
                                                               saved_game: bool) -> None:
    """Issue 45: in English the set-up form's start button was below the screen's edge."""
    from ristiseiska.rules import preset_names
    from ristiseiska.tui.app import SetupScreen

    d = dict(default_settings(seed=3, pace=0.0, lang=lang), saved_game=saved_game)
    app = PlayApp(d, data_dir_path=tmp_path)
    async with app.run_test(size=SMALL) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, SetupScreen)
        for name in preset_names():
            screen.query_one("#preset").value = name
            await pilot.pause()
            start = screen.query_one("#start")
            region = start.region
            assert region.height >= 1 and 0 < region.y and region.bottom <= 24 - 1, (name, region)
            assert region.right <= 80

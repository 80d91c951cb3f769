"""The status line follows the turn (issue 62): a refusal such as "Wait for your turn: it is
Aino's turn now." goes once the turn moves on, in both languages, at 80×24."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Static

from ristiseiska.tui.app import GameScreen, PlayApp, default_settings
from ristiseiska.tui.session import HUMAN

pytestmark = pytest.mark.asyncio


def _status(app: PlayApp) -> str:
    return str(app.screen.query_one("#status", Static).render())


@pytest.mark.parametrize(("lang", "wait"), [("en", "Wait for your turn: it is {name}'s turn"),
                                            ("fi", "Odota vuoroasi: nyt vuorossa on {name}")])
async def test_a_refusal_during_a_bots_turn_goes_when_the_turn_moves(tmp_path: Path, lang: str,
                                                                      wait: str) -> None:
    # seed 3: the person opens with the seven of clubs; the bots' pause is long, so that the
    # test says when a bot moves
    app = PlayApp(default_settings(seed=3, pace=600.0, bots=["random"] * 3, lang=lang),
                  data_dir_path=tmp_path, quick=True)
    async with app.run_test(size=(80, 24)) as pilot:
        s = app.session
        assert s is not None and isinstance(app.screen, GameScreen)
        await pilot.press(*"c7", "enter")  # the seven of clubs opens
        await pilot.pause()
        assert [str(m) for m in s.game.moves] == ["C7"] and s.bot_to_move
        seat = s.game.to_move
        await pilot.press("enter")  # not the person's turn
        await pilot.pause()
        refusal = wait.format(name=s.names[seat])
        assert refusal in _status(app)
        screen = app.screen
        screen._bot_timer.stop()
        screen._bot_tick()  # the bot thinks now
        for _ in range(400):  # until the turn moves on (the bot's think ends)
            if s.game.to_move != seat or s.deal_over:
                break
            await pilot.pause(0.05)
        assert s.game.to_move != seat
        await pilot.pause()
        assert refusal not in _status(app), _status(app)
        if s.human_to_move:
            assert s.game.to_move == HUMAN

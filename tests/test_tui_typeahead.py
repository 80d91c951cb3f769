"""Moves typed quickly one after another each get their own reply (issue 62): the keys of
several moves typed without a pause are read in order, and every refusal names its input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from textual import events

from ristiseiska.tui.app import GameScreen, PlayApp, default_settings

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_each_reply_follows_its_own_input(tmp_path: Path, lang: str,
                                                monkeypatch: Any) -> None:
    said: list[tuple[str, str]] = []  # (what was submitted, the status it got)
    submitted: list[str] = []
    real_submit, real_status = GameScreen.submit_text, GameScreen.set_status

    def submit(self: GameScreen, text: str) -> None:
        submitted.append(text)
        real_submit(self, text)

    def status(self: GameScreen, text: str, kind: str) -> None:
        if kind == "error" and submitted:
            said.append((submitted[-1], text))
        real_status(self, text, kind)

    monkeypatch.setattr(GameScreen, "submit_text", submit)
    monkeypatch.setattr(GameScreen, "set_status", status)
    app = PlayApp(default_settings(seed=3, pace=600.0, bots=["random"] * 3, lang=lang),
                  data_dir_path=tmp_path, quick=True)
    async with app.run_test(size=(80, 24)) as pilot:
        s = app.session
        assert s is not None
        def press(keys: list[str]) -> None:
            for key in keys:
                char = {"enter": "\r", "escape": "\x1b"}.get(key, key)
                name = {" ": "space"}.get(key, key)
                app.post_message(events.Key(name, char))

        # The first letter is read before the rest arrives (as at heavy load, when the
        # screen has taken in one key before the typist's next ones reach the app): where
        # the focus is after it decides which queue the other keys take. Then no pause
        # between the moves (all queued at once): four refusals, then the opening card.
        press(["z"])
        for _ in range(5):
            await pilot.pause()
        press(["z", "enter", *"r3", "enter", *"pata 9", "enter", *"qq", "enter", *"kk"])
        for _ in range(20):
            await pilot.pause()
        # Esc drops the half-typed "kk": it must not stick to the front of "risti 7"
        press(["escape"])
        for _ in range(5):
            await pilot.pause()
        # and an Esc queued right behind typed letters drops them too (it used to reach the
        # screen before them, so "xy" stuck to the front of the next move)
        press([*"xy", "escape", *"risti 7", "enter"])
        for _ in range(20):
            await pilot.pause()
        assert submitted == ["zz", "r3", "pata 9", "qq", "risti 7"]
        assert [text for text, _ in said] == ["zz", "r3", "pata 9", "qq"]
        for text, reply in said:
            if text in ("zz", "qq", "r3"):
                assert text in reply, (text, reply)
        assert [str(m) for m in s.game.moves] == ["C7"]
        assert not app.screen.query_one("#command").value
        # and Enter then plays the card under the cursor again (refused: a bot is to move),
        # not the empty input line (which would say nothing)
        press(["enter"])
        for _ in range(5):
            await pilot.pause()
        assert len(said) == 5 and s.names[s.game.to_move] in said[-1][1], said

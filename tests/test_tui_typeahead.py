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
        # no pause between the moves (the keys are all queued at once, as a fast typist's
        # reach a loaded machine): four refusals, then the opening card
        for key in [*"zz", "enter", *"r3", "enter", *"pata 9", "enter", *"qq", "enter",
                    *"risti 7", "enter"]:
            char = {"enter": "\r", " ": " "}.get(key, key)
            name = {" ": "space"}.get(key, key)
            app.post_message(events.Key(name, char))
        for _ in range(20):
            await pilot.pause()
        assert submitted == ["zz", "r3", "pata 9", "qq", "risti 7"]
        assert [text for text, _ in said] == ["zz", "r3", "pata 9", "qq"]
        for text, reply in said:
            if text in ("zz", "qq", "r3"):
                assert text in reply, (text, reply)
        assert [str(m) for m in s.game.moves] == ["C7"]
        # and Enter then plays the card under the cursor again (not an empty input line)
        assert not app.screen.query_one("#command").value

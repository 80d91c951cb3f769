"""The analysis in the terminal: the replay viewer with verdicts and alternatives, and
"where did I lose points?" at the end of a deal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widgets import Button, RichLog, Static

from ristiseiska.tui.analysis import AnalysisReplayApp, WhereLost
from ristiseiska.tui.app import DealOver, PlayApp, default_settings

KNOWN = Path(__file__).parent / "data" / "analysis_known.jsonl"
SIZE = (120, 48)
pytestmark = pytest.mark.asyncio


def known(k: int) -> dict[str, Any]:
    return json.loads(KNOWN.read_text("utf-8").splitlines()[k])


def pane(app: Any) -> str:
    return str(app.query_one("#analysis", Static).render())


async def test_replay_shows_the_verdict_and_the_alternatives() -> None:
    app = AnalysisReplayApp(known(0), "fi")
    async with app.run_test(size=SIZE) as pilot:
        assert "Paina a" in pane(app)
        await pilot.press("s", "s", "s")  # seat 3, whose ace decides the deal
        assert "P4" in pane(app) and "paikka" not in pane(app)  # the player by name
        await pilot.press("a")
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert 3 in app.analyses
        app.go(52)  # the position where seat 3 held the ace of diamonds and the three of hearts
        await pilot.pause()
        text = pane(app)
        # the move from this position, numbered from 1 as in the log; cards in words
        assert "Seuraava siirto 53: herttakolmonen" in text and "virhe" in text
        assert "Pelaa ruutuässä: näin pääset varmasti" in text
        bars = {line.split()[0]: line for line in text.splitlines() if "█" in line}
        assert set(bars) == {"ruutuässä", "herttakolmonen"}  # a bar per legal move
        assert bars["ruutuässä"].endswith("0,0 p · voitto 100 % · paras")
        assert bars["herttakolmonen"].endswith("14,0 p · voitto 0 % · pelattu")
        await pilot.press("w")
        await pilot.pause()
        text = pane(app)
        assert "Missä menetit pisteitä?" in text and "Siirto 53" in text
        log = [line.text for line in app.query_one("#log", RichLog).lines]
        assert any(line.startswith("52. ") for line in log)  # the moves shown, from 1
        assert not any(line.startswith("53. ") for line in log)
        # going back before the first decision of the seat says so
        app.go(0)
        await pilot.press("w")
        await pilot.pause()
        assert "ei vielä ollut valintaa" in pane(app)


async def test_where_did_i_lose_points_screen() -> None:
    class Host(App[None]):
        def on_mount(self) -> None:
            self.push_screen(WhereLost(known(1), 3, "en"))

    app = Host()
    async with app.run_test(size=SIZE) as pilot:
        await app.workers.wait_for_complete()
        screen = app.screen
        assert isinstance(screen, WhereLost)
        await pilot.pause()
        assert screen.analysis is not None
        body = str(screen.query_one("#where-body", Static).render())
        assert "Move 59: three of spades; better: queen of spades" in body
        await pilot.press("escape")
        assert not isinstance(app.screen, WhereLost)


async def test_the_deal_over_screen_offers_it(tmp_path: Path) -> None:
    settings: dict[str, Any] = {"seed": 3, "pace": 0.0, "bots": ["random"] * 3}
    app = PlayApp(default_settings(**settings), data_dir_path=tmp_path, quick=True)
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(400):
            if isinstance(app.screen, DealOver):
                break
            await pilot.press("enter")
            await pilot.pause()
        assert isinstance(app.screen, DealOver)
        app.screen.query_one("#where", Button).press()
        await pilot.pause()
        assert isinstance(app.screen, WhereLost)
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert app.screen.analysis is not None and app.screen.analysis.seat == 0

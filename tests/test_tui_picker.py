"""The joker's picker ("Mihin jokeri pelataan?") leaves the table in view (issue 62): at 80×24
its window sits below the table, and the choices scroll within it."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.containers import Vertical
from textual.widgets import OptionList

from ristiseiska.cards import CARDS, JOKERS
from ristiseiska.game import Game
from ristiseiska.rules import preset
from ristiseiska.tui.app import GameScreen, PickMove, PlayApp
from ristiseiska.tui.session import HUMAN, Session, Setup
from ristiseiska.tui.widgets import TableView

pytestmark = pytest.mark.asyncio


def _suit(suit: str, but: str) -> list[str]:
    return [f"{suit}{r}" for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"] if f"{suit}{r}" != but]


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_the_joker_picker_leaves_the_table_visible(tmp_path: Path, lang: str) -> None:
    rules = preset("jokerit")
    mine = ["C7", "X1"] + _suit("D", "D7") + _suit("S", "S7")[:12]
    rest = [str(c) for c in CARDS[:52] if str(c) not in set(mine)] + [str(JOKERS[1])]
    s = Session(Setup(rules, players=2, bots=["random"], seed=1, pace=0.0, lang=lang), tmp_path)
    s.game = Game(rules, 2, hands=[mine, rest], names=s.names)
    app = PlayApp(session=s, data_dir_path=tmp_path)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press(*"c7", "enter")
        await pilot.pause()
        assert s.human_to_move
        game = app.screen
        assert isinstance(game, GameScreen)
        table = game.query_one(TableView).region
        index = s.game.hand(HUMAN).index(JOKERS[0])
        await pilot.click(f"#card-{index}")
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, PickMove)
        box = app.screen.query_one(Vertical).region
        assert box.y >= table.bottom, (box, table)  # below the table, not over it
        assert box.bottom <= 24
        options = app.screen.query_one(OptionList)
        assert options.option_count > 1 and options.region.height >= 3
        await pilot.press("down", "enter")  # still chooses
        await pilot.pause()
        assert isinstance(app.screen, GameScreen)
        assert any(e.card == JOKERS[0] for e in s.game.events if e.type == "play")

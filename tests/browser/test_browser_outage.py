"""Issue 63 in a real browser: while the database is away the table page says that saving
failed and is being retried (in the page's language), and the note goes once saving works
again and the bots play on, without a reload."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import pytest

from ristiseiska.i18n import t
from ristiseiska.web import bot_driver

from .conftest import LiveServer
from .test_browser_table import _post

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_the_page_says_saving_is_retried_and_clears_it(
        browser: Any, live_server: LiveServer, monkeypatch: pytest.MonkeyPatch,
        lang: str) -> None:
    monkeypatch.setattr(bot_driver, "RETRY_CAP", 0.3)
    live_server.bot_delay = 0.3
    live_server.restart()
    tbl = _post(f"{live_server.url}/api/tables", {"seats": [{"kind": "bot"}] * 3, "seed": 6})
    store = live_server.app.state.store
    real = store.add_move
    down = {"on": False}

    async def add_move(*a: Any, **k: Any) -> None:
        if down["on"]:
            raise sqlite3.OperationalError("unable to open database file")
        await real(*a, **k)

    store.add_move = add_move
    ctx = await browser.new_context(viewport={"width": 1280, "height": 900},
                                    reduced_motion="reduce")
    await ctx.add_init_script(f"localStorage.setItem('rs.lang', {json.dumps(lang)});")
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"{live_server.url}/t/{tbl['id']}")
    table = live_server.table(tbl["id"])
    await page.locator("[data-card]").first.wait_for(timeout=20000)
    note = page.locator("[data-testid=saving-retry]")
    assert await note.count() == 0
    down["on"] = True
    await note.wait_for(timeout=20000)
    assert (await note.inner_text()).strip() == t("web.table.saving_retry", lang)
    stuck = sum(len(g.moves) for g in table.games)
    down["on"] = False
    await note.wait_for(state="detached", timeout=20000)
    for _ in range(200):  # the bots play on, and nobody reloaded the page
        if sum(len(g.moves) for g in table.games) > stuck + 2:
            break
        await page.wait_for_timeout(100)
    assert sum(len(g.moves) for g in table.games) > stuck + 2
    assert await note.count() == 0
    assert not errors, errors
    await ctx.close()

"""The first minute after installing in a real browser (issue 50): while the master's kernel is
compiled, the expert's rules play for it at once, a note says so once in the page's language,
and the bot to move shows *miettii…* / *thinking…* on its panel. The compilation is a future
that never ends here (nothing is compiled)."""

from __future__ import annotations

import concurrent.futures
import json
from typing import Any

import pytest

from ristiseiska.bots.pool import BotPool
from ristiseiska.i18n import t
from ristiseiska.web.shots import act

from .conftest import LiveServer
from .test_browser_table import _post

pytestmark = pytest.mark.asyncio


@pytest.mark.parametrize(("lang", "viewport"), [("fi", {"width": 1280, "height": 900}),
                                                ("en", {"width": 390, "height": 844})])
async def test_the_master_warming_up_is_said_once_and_the_expert_plays_meanwhile(
        browser: Any, live_server: LiveServer, monkeypatch: pytest.MonkeyPatch,
        lang: str, viewport: dict[str, int]) -> None:
    cold: concurrent.futures.Future[float] = concurrent.futures.Future()
    monkeypatch.setattr(BotPool, "ensure_warm", lambda self, neural=False: cold)
    live_server.bot_delay = 1.5  # time to see a bot think
    live_server.restart()
    seats = [{"kind": "friend", "name": "P0"}] + [{"kind": "bot", "bot": "master"}] * 3
    tbl = _post(f"{live_server.url}/api/tables", {"seats": seats, "seed": 11})
    tok = _post(f"{live_server.url}/api/tables/{tbl['id']}/seats/0", {"name": "Aino"})["token"]
    ctx = await browser.new_context(viewport=viewport, reduced_motion="reduce")
    await ctx.add_init_script(
        f"localStorage.setItem('rs.lang', {json.dumps(lang)});"
        f"localStorage.setItem('rs.seat.{tbl['id']}', "
        f"{json.dumps(json.dumps({'seat': 0, 'token': tok}))});")
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(f"{live_server.url}/t/{tbl['id']}")
    note = page.locator("[data-testid=toast]", has_text=t("bots.warming.master", lang))
    await page.wait_for_selector("[data-testid=hand] [data-card]")
    for _ in range(300):  # the person plays when it is their turn, until a master has moved
        if await note.count():
            break
        if not await act(page):
            await page.wait_for_timeout(100)
    await note.wait_for(timeout=5000)
    thinking = page.locator("[data-testid=thinking]")
    await thinking.first.wait_for(timeout=20000)
    assert (await thinking.first.inner_text()).strip() == t("webtable.thinking", lang)
    assert live_server.app.state.bot_pool._executor is None  # nothing compiles, nothing waits
    await page.wait_for_timeout(4000)  # more bot moves: the note is not said again
    assert await page.locator("[data-testid=toast]",
                              has_text=t("bots.warming.master", lang)).count() <= 1
    assert not errors, errors
    await ctx.close()

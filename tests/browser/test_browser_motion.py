"""The table's motion (issue 60, ui/motion.js): the deal, the token going to its taker, cards
changing hands and the points counting up are animated, briefly; a move made while they run
counts; under prefers-reduced-motion nothing moves."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from ristiseiska.web.shots import act

from .conftest import LiveServer
from .test_browser_table import _post

pytestmark = pytest.mark.asyncio

# every element that starts to move, and every animation the page starts
WATCH = """
window.__moving = [];
new MutationObserver((ms) => { for (const m of ms) if (m.target.dataset && m.target.dataset.moving === "true")
  window.__moving.push(m.target.dataset.testid || m.target.className || m.target.tagName); })
  .observe(document, { subtree: true, attributes: true, attributeFilter: ["data-moving"] });
"""


async def _table(browser: Any, server: LiveServer, motion: str, seed: int = 3) -> tuple[Any, Any, Any]:
    seats = [{"kind": "friend", "name": "Aino"}] + [{"kind": "bot", "bot": "basic"}] * 3
    t = _post(f"{server.url}/api/tables", {"seats": seats, "seed": seed, "options": {"match_deals": 2}})
    tok = _post(f"{server.url}/api/tables/{t['id']}/seats/0", {"name": "Aino"})["token"]
    ctx = await browser.new_context(viewport={"width": 1366, "height": 657}, reduced_motion=motion)
    await ctx.add_init_script(f"localStorage.setItem('rs.seat.{t['id']}', "
                              f"{json.dumps(json.dumps({'seat': 0, 'token': tok}))});" + WATCH)
    page = await ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    await page.goto(f"{server.url}/t/{t['id']}")
    await page.wait_for_selector("[data-testid=hand] [data-card]")
    return ctx, page, server.table(t["id"])


async def _play_deal(page: Any, table: Any) -> None:
    deadline = time.monotonic() + 180
    while not (table.game.is_over() and await page.locator("[data-testid=result]").count()):
        assert time.monotonic() < deadline, "the deal did not end"
        if not await act(page):
            await page.wait_for_timeout(60)


async def test_the_table_moves_and_a_move_during_the_motion_counts(
        live_server: LiveServer, browser: Any) -> None:
    ctx, page, table = await _table(browser, live_server, "no-preference")
    await _play_deal(page, table)
    moved = await page.evaluate("window.__moving")
    assert "token" in moved, moved  # the token went to its taker
    # the points count up at the deal's end, to the deal's points
    pts = page.locator("[data-testid=result] li[data-seat='1'] [data-testid=points]")
    await page.wait_for_function("([e, n]) => e.textContent.startsWith(String(n))",
                                 arg=[await pts.element_handle(), table.game.result.points[1]])
    # the next deal is dealt: the cards come in, and a card played while they do counts
    before = len(table.games)
    await page.click("[data-action=next-deal]")
    await page.wait_for_selector("[data-testid=hand] [data-moving=true]")
    mine = sum(1 for e in table.game.events if e.seat == 0) if len(table.games) > before else 0
    deadline = time.monotonic() + 30
    while not await page.locator("[data-testid=status].mine").count():
        assert time.monotonic() < deadline
        await page.wait_for_timeout(20)
    moving = await page.evaluate("document.getAnimations().some((a) => a.playState === 'running')")
    card = page.locator("[data-testid=hand] button.card[data-legal=true]").first
    if await card.count():
        await card.focus()
        await page.keyboard.press("Enter")
    else:
        await page.locator(".actions button.primary").first.click(timeout=5000)
    await page.wait_for_function("() => !document.querySelector('[data-testid=status].mine')",
                                 timeout=20000)
    assert sum(1 for e in table.game.events if e.seat == 0) == mine + 1
    assert moving, "the move was not made while the cards moved"
    assert page.errors == []
    await ctx.close()


async def test_reduced_motion_moves_nothing(live_server: LiveServer, browser: Any) -> None:
    ctx, page, table = await _table(browser, live_server, "reduce")
    await page.evaluate("window.__anims = 0; setInterval(() => { window.__anims += document.getAnimations()"
                        ".filter((a) => a.playState === 'running').length; }, 16)")
    await _play_deal(page, table)
    assert await page.evaluate("window.__moving") == []
    pts = page.locator("[data-testid=result] li[data-seat='1'] [data-testid=points]")
    assert (await pts.inner_text()).startswith(str(table.game.result.points[1]))  # at once
    await page.click("[data-action=next-deal]")
    await page.wait_for_function("() => document.querySelector('[data-testid=result]') === null")
    await page.wait_for_timeout(500)
    assert await page.evaluate("window.__moving") == []
    assert await page.evaluate("window.__anims") == 0
    await ctx.close()

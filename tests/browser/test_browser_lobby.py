"""The lobby (issue 60): one Play button starts a game against bots with the last settings,
the rule sets are cards, the full set-up is one click away, and everything needed to start a
game is above the fold on a laptop and on a phone."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ristiseiska.rules import preset

from .conftest import LiveServer, open_setup

pytestmark = pytest.mark.asyncio

LAPTOP = {"width": 1366, "height": 657}
PHONE = {"width": 390, "height": 844}

ABOVE_FOLD = """(sel) => [...document.querySelectorAll(sel)].map((e) => {
  const r = e.getBoundingClientRect();
  return r.width > 0 && r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight && r.right <= innerWidth; })"""


async def _lobby(browser: Any, server: LiveServer, size: dict[str, int], lang: str = "fi",
                 storage: dict[str, Any] | None = None) -> tuple[Any, Any]:
    phone = size["width"] < 500
    ctx = await browser.new_context(viewport=size, is_mobile=phone, has_touch=phone)
    script = f"localStorage.setItem('rs.lang', {json.dumps(lang)});"
    for k, v in (storage or {}).items():
        script += f"if (!localStorage.getItem({json.dumps(k)})) localStorage.setItem({json.dumps(k)}, {json.dumps(json.dumps(v))});"
    await ctx.add_init_script(script)
    page = await ctx.new_page()
    await page.goto(server.url + "/")
    await page.wait_for_selector("[data-testid=rule-cards] [data-action=rule-card]")
    return ctx, page


async def test_play_starts_a_game_against_three_expert_bots_in_one_click(
        live_server: LiveServer, browser: Any) -> None:
    ctx, page = await _lobby(browser, live_server, LAPTOP)
    assert await page.locator("[data-action=create]").is_hidden()  # the set-up is folded away
    await page.click("[data-action=play]")
    await page.wait_for_url("**/t/**", timeout=30000)
    tid = page.url.rsplit("/", 1)[1]
    table = live_server.table(tid)
    assert [s["kind"] for s in table.config["seats"]] == ["friend", "bot", "bot", "bot"]
    assert {s["bot"] for s in table.config["seats"][1:]} == {"expert"}
    assert table.rules.to_dict()["max_players"] == preset("ristiseiska").max_players
    assert not table.config["open"]
    # seated at once: the page shows the hand, not the seat picker
    await page.wait_for_selector("[data-testid=hand]", timeout=30000)
    # the settings are kept: the next visit's Play says the same
    kept = await page.evaluate("JSON.parse(localStorage.getItem('rs.lobby'))")
    assert kept["preset"] == "ristiseiska" and kept["bots"] == ["expert"] * 3
    assert kept["clock"] is None and kept["autoForced"] is True
    await ctx.close()


async def test_a_rule_card_chooses_the_rules_and_play_remembers_the_last_settings(
        live_server: LiveServer, browser: Any) -> None:
    last = {"preset": "ristiseiska", "bots": ["basic", "basic"], "options": {}, "clock": None,
            "autoForced": True}
    ctx, page = await _lobby(browser, live_server, LAPTOP, "en", {"rs.lobby": last})
    summary = page.locator("[data-testid=play-summary]")
    assert "3 players" in await summary.inner_text()
    card = page.locator("[data-action=rule-card][data-preset=sjuan]")
    await card.click()
    assert await card.get_attribute("aria-pressed") == "true"
    assert await page.locator("[data-action=rule-card][aria-pressed=true]").count() == 1
    assert "Sjuan" in await summary.inner_text()
    # the full set-up follows the card
    await open_setup(page)
    assert await page.locator("[data-action=preset]").input_value() == "sjuan"
    await page.click("[data-action=play]")
    await page.wait_for_url("**/t/**", timeout=30000)
    table = live_server.table(page.url.rsplit("/", 1)[1])
    want = preset("sjuan").to_dict()
    assert {k: v for k, v in table.rules.to_dict().items() if k not in ("name", "match_deals")} == {
        k: v for k, v in want.items() if k not in ("name", "match_deals")}
    assert [s.get("bot") for s in table.config["seats"][1:]] == ["basic", "basic"]
    await ctx.close()


@pytest.mark.parametrize("size", [LAPTOP, PHONE], ids=["1366x657", "390x844"])
@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_everything_needed_to_start_is_above_the_fold(
        live_server: LiveServer, browser: Any, size: dict[str, int], lang: str) -> None:
    ctx, page = await _lobby(browser, live_server, size, lang)
    for sel in ("[data-action=play]", "[data-testid=play-summary]", "[data-action=setup]",
                "[data-action=rule-card][aria-pressed=true]"):
        assert await page.evaluate(ABOVE_FOLD, sel) == [True], sel
    # on a laptop every rule set is in view; on a phone the row scrolls sideways, never the page
    cards = await page.evaluate(ABOVE_FOLD, "[data-action=rule-card]")
    if size is LAPTOP:
        assert all(cards), cards
    assert await page.evaluate(
        "document.scrollingElement.scrollWidth <= innerWidth + 1")
    # keyboard: Tab reaches Play before anything below it
    await page.keyboard.press("Tab")
    for _ in range(12):
        if await page.evaluate("document.activeElement.dataset.action") == "play":
            break
        await page.keyboard.press("Tab")
    assert await page.evaluate("document.activeElement.dataset.action") == "play"
    await ctx.close()


async def test_open_tables_show_their_players_as_avatars(live_server: LiveServer,
                                                         browser: Any) -> None:
    from .test_browser_table import _post

    seats = [{"kind": "friend", "name": "Aino Virtanen"}, {"kind": "friend"},
             {"kind": "bot", "bot": "basic"}]
    t = _post(f"{live_server.url}/api/tables", {"seats": seats, "open": True})
    _post(f"{live_server.url}/api/tables/{t['id']}/seats/0", {"name": "Aino Virtanen"})
    ctx, page = await _lobby(browser, live_server, LAPTOP)
    row = page.locator(f"[data-testid=open-table][data-table='{t['id']}']")
    await row.wait_for(timeout=20000)
    avatars = await row.locator(".open-avatars .avatar").all_inner_texts()
    assert avatars[0] == "AV" and "+" in avatars
    await ctx.close()

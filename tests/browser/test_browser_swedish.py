"""Sjuan på svenska (issue 61): the page in Swedish from the browser's own preference, a choice
made in the page remembered over it, and a whole Swedish deal from the lobby to its end."""

from __future__ import annotations

from typing import Any

import pytest

from .conftest import LiveServer
from .test_browser_play import play_until_over

pytestmark = pytest.mark.asyncio


async def _page_lang(page: Any) -> str:
    await page.wait_for_selector("[data-action=lang-sv]")
    return str(await page.evaluate("document.documentElement.lang"))


async def test_the_first_visit_takes_the_browsers_language_and_a_choice_is_kept(
        live_server: LiveServer, browser: Any) -> None:
    ctx = await browser.new_context(locale="sv-SE")
    page = await ctx.new_page()
    await page.goto(live_server.url + "/")
    assert await _page_lang(page) == "sv"
    assert await page.locator("[data-action=lang-sv]").get_attribute("aria-pressed") == "true"
    assert await page.locator("[data-action=create]").inner_text() == "Skapa bord"
    # every language of the server's list is offered, by its own name
    labels = await page.locator(".langs button .long").all_inner_texts()
    assert labels == ["suomi", "English", "svenska"]
    # a choice made in the page wins over the browser's preference from then on
    await page.click("[data-action=lang-en]")
    await page.wait_for_function("() => document.documentElement.lang === 'en'")
    await page.reload()
    assert await _page_lang(page) == "en"
    assert await page.locator("[data-action=create]").inner_text() == "Create table"
    await page.click("[data-action=lang-sv]")
    await page.wait_for_function("() => document.documentElement.lang === 'sv'")
    await page.reload()
    assert await _page_lang(page) == "sv"
    # Finnish for a Finnish browser; English for a language we do not speak
    for locale, lang in (("fi-FI", "fi"), ("de-DE", "en")):
        other = await (await browser.new_context(locale=locale)).new_page()
        await other.goto(live_server.url + "/")
        assert await _page_lang(other) == lang, locale
    # the puzzle page reads the same choice
    await page.goto(live_server.url + "/puzzles")
    await page.wait_for_selector("[data-lang=sv][aria-pressed=true]")


async def test_a_swedish_deal_from_the_lobby_to_its_end(live_server: LiveServer,
                                                       browser: Any) -> None:
    ctx = await browser.new_context(locale="sv-SE", viewport={"width": 1366, "height": 768})
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    await page.goto(live_server.url + "/")
    assert await _page_lang(page) == "sv"
    # the lobby: Sjuan, Astrid and two bots
    await page.select_option("[data-action=preset]", "sjuan")
    await page.select_option("[data-action=seat-count]", "3")
    for i, kind in enumerate(["friend", "bot", "bot"]):
        await page.select_option(f"[data-seat='{i}'] [data-action=seat-kind]", kind)
    await page.fill("[data-seat='0'] [data-action=seat-name]", "Astrid")
    await page.click("[data-action=create]")
    await page.wait_for_url("**/t/**")
    await page.wait_for_selector("[data-testid=hand] [data-card]")
    await play_until_over([page], limit_s=240)
    result = await page.locator("[data-testid=result]").inner_text()
    assert "Given är slut" in result or "Matchen är slut" in result, result
    log = " ".join(await page.locator("[data-testid=log] li").all_inner_texts())
    assert " lade " in log and "hjärter sju" in log, log[:500]
    # the rules dialog in Swedish
    await page.click("[data-action=menu]")
    await page.click("[data-action=rules]")
    text = await page.locator("[data-testid=rules-text]").inner_text()
    assert "Hjärter sju öppnar" in text and "Spelare och kort" in text, text[:300]
    await page.click("[data-action=close]")
    assert not errors

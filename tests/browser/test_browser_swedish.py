"""Sjuan på svenska (issue 61): the page in Swedish from the browser's own preference, a choice
made in the page remembered over it, and a whole Swedish deal from the lobby to its end."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer, open_setup
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
    # (the button sits in the lobby's closed full set-up: its words, not its looks)
    assert await page.locator("[data-action=create]").text_content() == "Skapa bord"
    # every language of the server's list is offered, by its own name
    labels = await page.locator(".langs button .long").all_inner_texts()
    assert labels == ["suomi", "English", "svenska"]
    # a choice made in the page wins over the browser's preference from then on
    await page.click("[data-action=lang-en]")
    await page.wait_for_function("() => document.documentElement.lang === 'en'")
    await page.reload()
    assert await _page_lang(page) == "en"
    assert await page.locator("[data-action=create]").text_content() == "Create table"
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
    await open_setup(page)
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


async def test_the_analysis_of_a_deal_in_swedish(live_server: LiveServer, browser: Any) -> None:
    """History → Analysera with the page in Swedish: the verdicts, the alternatives and the
    numbers in Swedish (decimal comma), with no Finnish or English words left over."""
    import json
    import re

    from ristiseiska import i18n

    from .test_browser_analysis import has_choice
    from .test_browser_play import create_table

    ctx = await browser.new_context(locale="sv-SE", viewport={"width": 1100, "height": 900})
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    tid = await create_table(page, live_server, "Astrid", ["friend", "bot", "bot", "bot"])
    assert await page.evaluate("document.documentElement.lang") == "sv"
    table = live_server.table(tid)
    for deal in range(4):  # a deal can leave the player only forced moves
        await play_until_over([page])
        if has_choice(table.games[deal], 0):
            break
        await page.click("[data-action=next-deal]")
        await page.wait_for_selector("[data-testid=result]", state="detached")
    else:
        pytest.skip("four deals without a choice for seat 0")
    await page.click("[data-action=menu]")
    await page.click("[data-action=history]")
    await page.click(f"[data-action=analyse][data-deal='{deal}']")
    panel = page.locator("[data-testid=analysis]")
    await panel.wait_for(timeout=120_000)  # the first analysis starts a worker process
    chips = panel.locator(".an-strip [data-action=analysis-jump]")
    indices = [int(x) for x in await chips.evaluate_all("els => els.map(e => e.dataset.index)")]
    verdicts = await chips.evaluate_all("els => els.map(e => e.dataset.verdict)")
    choice = next(i for i, v in zip(indices, verdicts, strict=True) if v != "forced")
    await chips.nth(indices.index(choice)).click()
    verdict = (await panel.locator("[data-testid=analysis-verdict]").inner_text()).strip()
    assert verdict in {"bra", "tveksamt", "misstag", "grovt misstag"}, verdict
    current = await page.locator("[data-testid=analysis-current]").inner_text()
    assert f"Nästa drag {choice + 1}:" in current, current
    labels = await panel.locator("[data-testid=analysis-bar] .an-label").all_inner_texts()
    assert len(labels) >= 2
    suits = ("klöver", "ruter", "hjärter", "spader", "joker", "pant", "pass")
    assert all(any(w in x.lower() for w in suits) for x in labels), labels
    # the points of each alternative with a decimal comma, never a point
    nums = await panel.locator("[data-testid=analysis-bar] .an-num").all_inner_texts()
    assert all(re.search(r"\d,\d p · vinst \d+ %", x) for x in nums), nums
    text = await panel.inner_text()
    assert "Analys" in text and "Precision" in text and not re.search(r"\d\.\d", text), text
    # no word of the Finnish or English catalogs that Swedish says otherwise
    here = Path(i18n.__file__).parent
    sv = json.loads((here / "analysis.sv.json").read_text("utf-8"))
    for lang in ("fi", "en"):
        other = json.loads((here / f"analysis.{lang}.json").read_text("utf-8"))
        for key, value in other.items():
            if "{" not in value and len(value) >= 4 and value != sv.get(key):
                assert value not in text, (lang, key, value)
    for word in ("Seuraava", "siirto", "pistettä", "Next move", "points", "Accuracy"):
        assert word not in text, word
    assert not errors
    await ctx.close()


@pytest.mark.skipif(not os.environ.get("RS_SHOTS"), reason="screenshots: RS_SHOTS=1")
async def test_swedish_screenshots(live_server: LiveServer, browser: Any) -> None:
    """The lobby and the table in Swedish on a laptop (1366×657) and a phone (390×844), saved
    under RS_SHOTS_DIR (default /tmp/shots-sv) to be looked at; neither page is wider than
    the window (the longer Swedish words must wrap, not overflow)."""
    from .test_browser_play import act_once

    out = Path(os.environ.get("RS_SHOTS_DIR", "/tmp/shots-sv"))
    out.mkdir(parents=True, exist_ok=True)
    for name, size, phone in (("desktop", (1366, 657), False), ("phone", (390, 844), True)):
        ctx = await browser.new_context(locale="sv-SE", is_mobile=phone, has_touch=phone,
                                        viewport={"width": size[0], "height": size[1]})
        page = await ctx.new_page()
        await page.goto(live_server.url + "/")
        assert await _page_lang(page) == "sv"
        await page.screenshot(path=str(out / f"lobby-{name}.png"))
        assert await page.evaluate(_WIDER) <= 1, name
        if not await page.locator("[data-action=create]").is_visible():
            await open_setup(page)
        await page.screenshot(path=str(out / f"lobby-setup-{name}.png"), full_page=True)
        assert await page.evaluate(_WIDER) <= 1, name
        await page.select_option("[data-action=preset]", "sjuan")
        for i, kind in enumerate(["friend", "bot", "bot", "bot"]):
            await page.select_option(f"[data-seat='{i}'] [data-action=seat-kind]", kind)
        await page.fill("[data-seat='0'] [data-action=seat-name]", "Astrid")
        await page.click("[data-action=create]")
        await page.wait_for_url("**/t/**")
        await page.wait_for_selector("[data-testid=hand] [data-card]")
        for _ in range(4):
            await act_once(page)
            await page.wait_for_timeout(800)
        await page.screenshot(path=str(out / f"table-{name}.png"))
        assert await page.evaluate(_WIDER) <= 1, name
        await ctx.close()


# how far the page reaches past the window's right edge, in pixels
_WIDER = "() => document.documentElement.scrollWidth - window.innerWidth"

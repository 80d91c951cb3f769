"""The daily deal in Chromium (issue 57): today's deal is the lobby's first offer; two devices
(two names) play it at server tables and each sees the comparison with the other (a field of
two) and with the reference bot (``expert`` here: no kernel to compile); a second try is
practice; the share text names no card; a deal fetched online is played offline in the
browser's engine and counted when the network returns."""

from __future__ import annotations

import json
import re
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ristiseiska import i18n
from ristiseiska.bots import get_bot
from ristiseiska.daily import SEAT, bot_seed, daily_deal, parse_day, reference_game

from .conftest import LiveServer
from .test_browser_offline import play_deal, visit_once
from .test_browser_play import act_once

pytestmark = pytest.mark.asyncio
SECRET = bytes(range(32))


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    """One server for the module, its daily deal compared with ``expert``."""
    with tempfile.TemporaryDirectory() as tmp:
        srv = LiveServer(f"sqlite+aiosqlite:///{Path(tmp) / 'daily.db'}", bot_delay=0.0)
        srv.start()
        srv.app.state.daily_options = {"reference": "expert", "secret": SECRET}
        yield srv
        srv.stop()


def expert_reference(day: str, preset: str) -> int:
    deal = daily_deal(SECRET, parse_day(day), preset)
    return reference_game(deal, get_bot("expert", seed=bot_seed(deal.seed, SEAT))).result.points[SEAT]


async def device(browser: Any, server: LiveServer, name: str, lang: str) -> tuple[Any, Any]:
    ctx = await browser.new_context(locale={"fi": "fi-FI", "en": "en-GB", "sv": "sv-SE"}[lang],
                                    reduced_motion="reduce")
    await ctx.add_init_script(f"localStorage.setItem('rs.name', {json.dumps(name)});"
                              f"localStorage.setItem('rs.lang', {json.dumps(lang)});")
    await ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server.url)
    page = await ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    await page.goto(server.url + "/")
    await page.wait_for_selector("[data-testid=daily-offer] [data-testid=daily-card]")
    return ctx, page


async def play_to_daily_result(page: Any, limit: int = 3000) -> None:
    for _ in range(limit):
        if await page.locator("[data-testid=daily-result]").count():
            return
        if not await act_once(page):
            await page.wait_for_timeout(40)
    raise AssertionError("the daily deal did not end")


def card_names() -> set[str]:
    """Every card's name in every language, in every case the catalogs decline it to."""
    from ristiseiska.cards import CARDS

    names = set()
    for lang in ("fi", "en", "sv"):
        for case in ("nom", "gen", "acc", "par", "ade", "ela", "ill", "all", "ine", "abl"):
            try:
                names |= {i18n.card_name(c, lang, case).casefold() for c in CARDS}
            except (KeyError, ValueError):
                pass
    return names


def assert_no_card(text: str) -> None:
    """No card's name in any language, no card code or symbol. The game's own names are taken
    out first: the Finnish name of the seven of clubs is the game's, and no spoiler."""
    low = text.casefold()
    for lang in ("fi", "en", "sv"):
        for preset in ("ristiseiska", "sjuan", "ristiseiska-pyynto"):
            low = low.replace(i18n.t(f"daily.game.{preset}", lang).casefold(), "")
    for name in card_names():
        assert not re.search(rf"(?<!\w){re.escape(name)}(?!\w)", low), (name, text)
    assert not re.search(r"[♣♦♥♠]|\b[cdhs](?:[2-9]|10|[ajqk])\b", low), text


async def test_two_devices_play_todays_deal_and_see_the_field_the_reference_and_practice(
        server: LiveServer, browser: Any) -> None:
    a_ctx, a = await device(browser, server, "Aino", "fi")
    b_ctx, b = await device(browser, server, "Bob", "en")
    # the lobby's first offer: today's deal, one card per rule set, nothing played yet
    first = a.locator("main > section").first
    assert await first.get_attribute("data-testid") == "daily-offer"
    presets = await a.locator("[data-testid=daily-card]").evaluate_all("es => es.map(e => e.dataset.preset)")
    assert presets == ["ristiseiska", "sjuan", "ristiseiska-pyynto"]
    day = await first.get_attribute("data-day")
    assert await a.locator("[data-testid=daily-streak]").get_attribute("data-current") == "0"

    results = {}
    for page in (a, b):
        await page.click("[data-action=daily-play][data-preset=ristiseiska]")
        await page.wait_for_url("**/t/**", timeout=30_000)
        await play_to_daily_result(page)
        res = page.locator("[data-testid=daily-result]")
        assert await res.get_attribute("data-counted") == "true"
        results[page] = int(await page.locator("[data-testid=daily-points]").get_attribute("data-points"))
    ref = expert_reference(day, "ristiseiska")
    assert await b.locator("[data-testid=daily-master]").get_attribute("data-points") == str(ref)
    # the second device already sees a field of two; the first sees it on its result page
    assert await b.locator("[data-testid=daily-field]").get_attribute("data-players") == "2"
    await b.wait_for_selector("[data-testid=daily-histogram] svg")
    await a.goto(f"{server.url}/daily/{day}/ristiseiska")
    await a.wait_for_selector("[data-testid=daily-result]")
    assert await a.locator("[data-testid=daily-field]").get_attribute("data-players") == "2"
    rank_a = int(await a.locator("[data-testid=daily-field]").get_attribute("data-rank"))
    assert rank_a == 1 + (results[b] < results[a])
    assert await a.locator("[data-testid=daily-master]").get_attribute("data-points") == str(ref)
    diff = await a.inner_text("[data-testid=daily-difference]")
    assert "mestari" in diff or "taitava" in diff  # the reference's name, in Finnish

    # share: the text on the clipboard is the server's and names no card
    for page in (a, b):
        share = await page.get_attribute("[data-action=daily-share]", "data-share")
        assert_no_card(share)
        await page.click("[data-action=daily-share]")
        await page.wait_for_function("() => document.querySelector('[data-testid=daily-share-note]').textContent.trim()")
        assert await page.evaluate("() => navigator.clipboard.readText()") == share
    assert "2" in share  # the field: "#r/2"
    # the analysis of the deal is one click away: the table's history, with its Analyse
    await b.click("[data-action=daily-analysis]")
    await b.wait_for_selector("[role=dialog] [data-action=analyse][data-deal='0']")

    # the lobby again: played, streak one; a second try is practice and says so
    await a.goto(server.url + "/")
    card = a.locator("[data-testid=daily-card][data-preset=ristiseiska]")
    await card.wait_for()
    assert await card.get_attribute("data-counted") == "true"
    assert await a.locator("[data-testid=daily-streak]").get_attribute("data-current") == "1"
    await a.click("[data-action=daily-play][data-preset=ristiseiska]")
    await a.wait_for_url("**/t/**", timeout=30_000)
    tid = a.url.rsplit("/", 1)[1]
    assert json.loads(await a.evaluate(f"() => localStorage.getItem('rs.daily.{tid}')"))["counted"] is False
    await a.wait_for_selector("[data-testid=toast]:has-text('harjoitus')")
    await play_to_daily_result(a)
    assert await a.locator("[data-testid=daily-result]").get_attribute("data-counted") == "false"
    await a.wait_for_selector("[data-testid=daily-practice]")
    # a page of a day that has not begun says why, and no cards
    await b.goto(f"{server.url}/daily/2999-01-01/ristiseiska")
    await b.wait_for_selector("[data-testid=daily-result-wait][data-state=missing]")
    assert "2999-01-01" in await b.inner_text("[data-testid=daily-refusal]")
    assert a.errors == [] and b.errors == []
    await a_ctx.close()
    await b_ctx.close()


async def test_a_deal_fetched_online_is_played_offline_and_counted_when_the_network_returns(
        server: LiveServer, browser: Any) -> None:
    ctx, page = await visit_once(browser, server, reduced_motion="reduce")
    await page.evaluate("() => localStorage.setItem('rs.offline.delay', '0')")
    await page.wait_for_selector("[data-action=daily-offline][data-preset=sjuan]")
    await page.click("[data-action=daily-offline][data-preset=sjuan]")
    await page.wait_for_selector("[data-testid=daily-taken]")
    device_key = await page.evaluate("() => localStorage.getItem('rs.device')")

    await ctx.set_offline(True)
    await page.reload()
    await page.click("[data-action=daily-play-offline][data-preset=sjuan]")
    await page.wait_for_url("**/offline-game")
    await page.wait_for_selector("[data-testid=hand] [data-card]", timeout=120_000)
    await play_deal(page)
    # the record waits for the network, and the page says so
    await page.wait_for_selector("[data-testid=daily-result-wait][data-state=queued]")
    queue = json.loads(await page.evaluate("() => localStorage.getItem('rs.daily.queue')"))
    assert [q["preset"] for q in queue] == ["sjuan"]
    assert json.loads(queue[0]["record"])["daily"] == f"{queue[0]['day']}/sjuan"
    saved = await page.evaluate("() => JSON.parse(localStorage.getItem('rs.offline.saved'))")
    assert saved["config"]["daily"]["preset"] == "sjuan"

    await ctx.set_offline(False)
    result = page.locator("[data-testid=daily-result]")
    await result.wait_for(timeout=60_000)
    assert await result.get_attribute("data-counted") == "true"
    assert await page.evaluate("() => localStorage.getItem('rs.daily.queue')") == "[]"
    # the server counted it: the lobby's answer for this device has it
    with urllib.request.urlopen(f"{server.url}/api/daily?device={device_key}", timeout=20) as r:
        offers = {o["preset"]: o for o in json.loads(r.read())["offers"]}
    assert offers["sjuan"]["counted"]["points"] == int(
        await page.locator("[data-testid=daily-points]").get_attribute("data-points"))
    assert page.errors == []
    await ctx.close()

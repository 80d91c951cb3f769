"""Talking at the table in the browser (issue 20, static/ui/chat.js): a phrase clicked by one
friend appears as a bubble on that friend's panel on the other friend's page, each page in its
own language; a mute hides that sender's bubbles (and is remembered for the table); free text
where the host allowed it; a spectator's reactions; axe finds nothing serious with the talk
panel open; the panel fits a phone."""

from __future__ import annotations

import json
import os
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer, open_setup
from .test_browser_table import _post, _violations

pytestmark = pytest.mark.asyncio
DESKTOP = {"width": 1366, "height": 657}
PHONE = {"width": 390, "height": 844}


async def _friends(browser: Any, server: LiveServer, langs: tuple[str, str],
                   sizes: tuple[dict[str, int], dict[str, int]] = (DESKTOP, DESKTOP),
                   chat_text: bool = False, axe: bool = False) -> tuple[list[Any], str]:
    seats = [{"kind": "friend", "name": "Aino"}, {"kind": "friend", "name": "Bea"},
             {"kind": "bot", "bot": "basic"}, {"kind": "bot", "bot": "basic"}]
    t = _post(f"{server.url}/api/tables", {"seats": seats, "chat_text": chat_text})
    pages = []
    for seat, (lang, size) in enumerate(zip(langs, sizes, strict=True)):
        tok = _post(f"{server.url}/api/tables/{t['id']}/seats/{seat}",
                    {"name": seats[seat]["name"]})["token"]
        phone = size["width"] < 500
        ctx = await browser.new_context(viewport=size, is_mobile=phone, has_touch=phone,
                                        reduced_motion="reduce", bypass_csp=axe)
        await ctx.add_init_script(
            f"localStorage.setItem('rs.lang', {json.dumps(lang)});"
            f"localStorage.setItem('rs.seat.{t['id']}', "
            f"{json.dumps(json.dumps({'seat': seat, 'token': tok}))});")
        page = await ctx.new_page()
        page.errors = []  # type: ignore[attr-defined]
        page.on("pageerror", lambda e, p=page: p.errors.append(str(e)))
        await page.goto(f"{server.url}/t/{t['id']}")
        pages.append(page)
    for page in pages:
        await page.wait_for_selector("[data-testid=hand] [data-card]")
    return pages, str(t["id"])


async def _say(page: Any, phrase: str) -> None:
    if await page.get_attribute("[data-action=chat]", "aria-expanded") != "true":
        await page.click("[data-action=chat]")
    await page.click(f"[data-action=chat-phrase][data-phrase={phrase}]")


@pytest.mark.parametrize("langs", [("fi", "en"), ("en", "fi")])
async def test_a_phrase_is_a_bubble_on_the_senders_panel_in_each_language_and_mute_hides_it(
        live_server: LiveServer, browser: Any, langs: tuple[str, str]) -> None:
    (aino, bea), tid = await _friends(browser, live_server, langs)
    words = {"fi": "Hyvä peli!", "en": "Good game!"}
    await _say(aino, "good-game")
    # Bea sees it on Aino's panel (seat 0), in Bea's language
    bubble = bea.locator(".player[data-seat='0'] [data-testid=chat-bubble]")
    await bubble.wait_for()
    assert (await bubble.inner_text()).strip() == words[langs[1]]
    assert await bubble.get_attribute("data-phrase") == "good-game"
    # ... and Aino on her own panel, in hers
    own = aino.locator(".player.me [data-testid=chat-bubble]")
    await own.wait_for()
    assert (await own.inner_text()).strip() == words[langs[0]]
    box = await bubble.bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= DESKTOP["height"]
    # it fades away after a few seconds
    await bubble.wait_for(state="detached", timeout=10000)
    # the log keeps it, in Bea's language
    await bea.click("[data-action=chat]")
    assert words[langs[1]] in await bea.locator("[data-testid=chat-log]").inner_text()
    # Bea mutes Aino: Aino's next phrase shows no bubble on Bea's page
    mute = bea.locator("[data-action=chat-mute][data-seat='0']")
    await mute.click()
    assert await mute.get_attribute("aria-pressed") == "true"
    await _say(aino, "oops")
    await aino.locator(".player.me [data-testid=chat-bubble][data-phrase=oops]").wait_for()
    await bea.wait_for_timeout(600)
    assert await bea.locator("[data-testid=chat-bubble]").count() == 0
    assert "Oho" not in await bea.locator("[data-testid=chat-log]").inner_text()
    # the mute is remembered for this table after a reload
    await bea.reload()
    await bea.wait_for_selector("[data-testid=hand] [data-card]")
    await _say(aino, "thanks")
    await bea.wait_for_timeout(800)
    assert await bea.locator("[data-testid=chat-bubble]").count() == 0
    await bea.click("[data-action=chat]")
    await bea.click("[data-action=chat-mute][data-seat='0']")  # unmuted: bubbles again
    await _say(aino, "r-laugh")
    await bea.locator(".player[data-seat='0'] [data-testid=chat-bubble][data-phrase=r-laugh]").wait_for()
    for p in (aino, bea):
        assert not p.errors, p.errors
        await p.context.close()


async def test_free_text_and_a_refusal_in_the_players_language(live_server: LiveServer,
                                                               browser: Any) -> None:
    (aino, bea), _tid = await _friends(browser, live_server, ("fi", "en"), chat_text=True)
    await aino.click("[data-action=chat]")
    await aino.fill("[data-action=chat-text]", "kiva peli")
    await aino.click("[data-action=chat-send]")
    bubble = bea.locator(".player[data-seat='0'] [data-testid=chat-bubble]")
    await bubble.wait_for()
    assert (await bubble.inner_text()).strip() == "kiva peli"
    await aino.fill("[data-action=chat-text]", "onko sulla ristiseiska?")
    await aino.click("[data-action=chat-send]")
    err = aino.locator("[data-testid=error]")
    await err.wait_for()
    text = await err.inner_text()
    assert "ei lähetetty" in text and "ristiseiska" in text
    for p in (aino, bea):
        assert not p.errors, p.errors
        await p.context.close()


async def test_no_text_field_unless_allowed_and_a_spectator_only_reacts(
        live_server: LiveServer, browser: Any) -> None:
    (aino, bea), tid = await _friends(browser, live_server, ("fi", "fi"))
    await aino.click("[data-action=chat]")
    assert await aino.locator("[data-action=chat-text]").count() == 0
    ctx = await browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
    watcher = await ctx.new_page()
    await watcher.goto(f"{live_server.url}/t/{tid}")
    await watcher.wait_for_selector("[data-testid=board]")
    await watcher.click("[data-action=chat]")
    assert await watcher.locator("[data-action=chat-phrase][data-phrase=hello]").count() == 0
    await watcher.click("[data-action=chat-phrase][data-phrase=r-wow]")
    line = aino.locator("[data-testid=chat-spectators]")
    await line.wait_for()
    # drawn by the page (issue 45: no emoji font needed), worded for a screen reader
    assert await line.locator("svg[data-icon=r-wow]").count() == 1
    for p in (aino, bea, watcher):
        await p.context.close()


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_axe_finds_nothing_serious_with_the_talk_panel_open(live_server: LiveServer,
                                                                  browser: Any, lang: str) -> None:
    (aino, bea), _tid = await _friends(browser, live_server, (lang, lang), chat_text=True,
                                       axe=True)
    await _say(aino, "hello")
    await bea.locator("[data-testid=chat-bubble]").wait_for()
    await bea.click("[data-action=chat]")
    await bea.locator("[data-testid=chat-log] li").first.wait_for()
    found = await _violations(bea)
    assert found == [], found
    for p in (aino, bea):
        await p.context.close()


async def test_on_a_phone_the_phrases_open_from_a_small_button(live_server: LiveServer,
                                                               browser: Any) -> None:
    (aino, bea), _tid = await _friends(browser, live_server, ("fi", "en"), sizes=(PHONE, PHONE))
    btn = aino.locator("[data-action=chat]")
    box = await btn.bounding_box()
    assert box and box["width"] <= 60 and box["height"] >= 44
    assert not await aino.locator("[data-testid=chat-panel]").is_visible()
    await btn.click()
    panel = await aino.locator("[data-testid=chat-panel]").bounding_box()
    assert panel and panel["x"] >= 0 and panel["x"] + panel["width"] <= PHONE["width"]
    assert panel["y"] + panel["height"] <= PHONE["height"]
    await aino.click("[data-action=chat-phrase][data-phrase=wait]")
    bubble = bea.locator(".player[data-seat='0'] [data-testid=chat-bubble]")
    await bubble.wait_for()
    assert (await bubble.inner_text()).strip() == "One moment"
    scroll = await bea.evaluate("() => { const s = document.scrollingElement; "
                                "return [s.scrollWidth - innerWidth, s.scrollHeight - innerHeight]; }")
    assert scroll[0] <= 1 and scroll[1] <= 1
    for p in (aino, bea):
        await p.context.close()


async def test_the_narrowest_phones_top_bar_holds_invite_talk_languages_and_menu(
        live_server: LiveServer, browser: Any) -> None:
    """With a friend seat still free the top bar has the most buttons: at 360 px every one of
    them is whole and on screen (before, the menu stuck out 53 px past the window)."""
    seats = [{"kind": "friend", "name": "Aino"}, {"kind": "friend", "name": "Bea"},
             {"kind": "bot", "bot": "basic"}]
    for lang in ("fi", "en"):
        t = _post(f"{live_server.url}/api/tables", {"seats": seats})
        tok = _post(f"{live_server.url}/api/tables/{t['id']}/seats/0", {"name": "Aino"})["token"]
        ctx = await browser.new_context(viewport={"width": 360, "height": 640}, is_mobile=True,
                                        has_touch=True)
        await ctx.add_init_script(
            f"localStorage.setItem('rs.lang', {json.dumps(lang)});"
            f"localStorage.setItem('rs.seat.{t['id']}', "
            f"{json.dumps(json.dumps({'seat': 0, 'token': tok}))});")
        page = await ctx.new_page()
        await page.goto(f"{live_server.url}/t/{t['id']}")
        await page.wait_for_selector("[data-action=copy-invite]")
        boxes = await page.evaluate("""() => [...document.querySelectorAll('.topbar button, .topbar a')]
            .filter((e) => e.offsetParent !== null).map((e) => { const r = e.getBoundingClientRect();
              return [e.dataset.action, r.left >= 0 && r.right <= innerWidth + 0.5, e.scrollWidth <= e.clientWidth + 1]; })""")
        assert boxes and all(inside and whole for _, inside, whole in boxes), (lang, boxes)
        assert await page.locator("[data-action=menu]").get_attribute("aria-expanded") == "false"
        await page.click("[data-action=menu]")  # still named and working without its word
        await page.wait_for_selector("[data-action=rules]")
        await ctx.close()


async def test_the_lobby_checkbox_makes_a_table_with_free_text(live_server: LiveServer,
                                                               browser: Any) -> None:
    ctx = await browser.new_context(viewport=DESKTOP, bypass_csp=True)
    page = await ctx.new_page()
    await page.goto(live_server.url + "/")
    await open_setup(page)
    assert await page.locator("[data-option=chat_text]").count() == 0  # you and bots: no talk
    await page.select_option("fieldset[data-seat='1'] [data-action=seat-kind]", "friend")
    box = page.locator("[data-option=chat_text]")
    assert not await box.is_checked()  # off by default
    assert await _violations(page) == []
    await box.check()
    await page.fill("fieldset[data-seat='0'] [data-action=seat-name]", "Aino")
    await page.click("[data-action=create]")
    await page.wait_for_url(lambda u: "/t/" in u)
    tid = page.url.rsplit("/", 1)[1]
    info = json.loads(urllib.request.urlopen(f"{live_server.url}/api/tables/{tid}",
                                             timeout=20).read())
    assert info["chat_text"] is True
    await page.wait_for_selector("[data-action=chat]")
    await page.click("[data-action=chat]")
    await page.wait_for_selector("[data-action=chat-text]")
    await ctx.close()


@pytest.mark.skipif(not os.environ.get("RS_SHOTS"), reason="screenshots: RS_SHOTS=1")
async def test_chat_screenshots(live_server: LiveServer, browser: Any) -> None:
    """docs/img/table-chat-{fi,en}.jpeg: the other friend's bubble on its panel, the talk panel
    open (made with RS_SHOTS=1; looked at before they land)."""
    img = Path(__file__).resolve().parents[2] / "docs" / "img"
    for lang, other in (("fi", "en"), ("en", "fi")):
        (me, friend), _tid = await _friends(browser, live_server, (lang, other))
        await _say(friend, "good-game")
        await me.locator(".player[data-seat='1'] [data-testid=chat-bubble]").wait_for()
        await me.click("[data-action=chat]")
        await me.locator("[data-testid=chat-panel]").wait_for()
        await me.screenshot(path=str(img / f"table-chat-{lang}.jpeg"), type="jpeg", quality=80)
        assert not me.errors and not friend.errors
        for page in (me, friend):
            await page.context.close()

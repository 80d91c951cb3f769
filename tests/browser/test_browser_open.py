"""Open tables and quick game in a real browser (issue 20): the lobby lists an open table,
*Join* seats you at it, *Quick game* takes you to a table whose empty seats bots take after the
wait; both languages; axe-core finds nothing serious in the lobby with the list."""

from __future__ import annotations

import json
from typing import Any

import pytest

from .conftest import LiveServer, open_setup
from .test_browser_table import _post, _violations

pytestmark = pytest.mark.asyncio
DESKTOP = {"width": 1366, "height": 657}
PHONE = {"width": 390, "height": 844}
TEXTS = {"fi": ("Pikapeli", "Liity", "1 vapaa paikka"), "en": ("Quick game", "Join", "1 free seat")}


async def _lobby(browser: Any, server: LiveServer, lang: str, size: dict[str, int],
                 name: str = "") -> Any:
    phone = size["width"] < 500
    ctx = await browser.new_context(viewport=size, bypass_csp=True, is_mobile=phone,
                                    has_touch=phone, reduced_motion="reduce")
    await ctx.add_init_script(f"localStorage.setItem('rs.lang', {json.dumps(lang)});"
                              f"localStorage.setItem('rs.name', {json.dumps(name)});")
    page = await ctx.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    await page.goto(server.url + "/")
    await page.wait_for_selector("[data-action=quick]")
    return page


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_the_lobby_lists_open_tables_join_seats_you_and_quick_game_plays(
        live_server: LiveServer, browser: Any, lang: str) -> None:
    live_server.app.state.open_index.quick_wait = 2.0
    quick_text, join_text, free_text = TEXTS[lang]
    seats = [{"kind": "friend", "name": "Aino"}, {"kind": "friend"},
             {"kind": "bot", "bot": "basic"}, {"kind": "bot", "bot": "basic"}]
    t = _post(f"{live_server.url}/api/tables", {"seats": seats, "open": True})
    _post(f"{live_server.url}/api/tables/{t['id']}/seats/0", {"name": "Aino"})
    private = _post(f"{live_server.url}/api/tables", {"seats": seats})

    page = await _lobby(browser, live_server, lang, DESKTOP)
    row = page.locator(f"[data-testid=open-table][data-table='{t['id']}']")
    await row.wait_for()
    assert await page.locator(f"[data-table='{private['id']}']").count() == 0
    text = await row.inner_text()
    assert "Aino" in text and free_text in text and "Ristiseiska" in text
    assert (await page.locator("[data-action=quick]").inner_text()).strip() == quick_text
    assert (await row.locator("[data-action=join]").inner_text()).strip() == join_text
    found = await _violations(page)
    assert found == [], found
    # Join without a name: the name is asked for, nothing is claimed
    await row.locator("[data-action=join]").click()
    await page.wait_for_selector("[data-testid=open-error]")
    assert await page.evaluate("document.activeElement.dataset.action") == "open-name"
    # with a name: the free seat, then the table page, seated
    await page.fill("[data-action=open-name]", "Bea")
    await row.locator("[data-action=join]").click()
    await page.wait_for_url(f"**/t/{t['id']}")
    await page.wait_for_selector("[data-testid=hand] [data-card]")  # both friends: it starts
    stored = json.loads(await page.evaluate(f"localStorage.getItem('rs.seat.{t['id']}')"))
    assert stored["seat"] == 1
    assert live_server.table(t["id"]).seats[1].name == "Bea"
    await page.context.close()

    # Quick game: a new table, the wait shown, then bots sit down and the deal starts
    page = await _lobby(browser, live_server, lang, PHONE, name="Cid")
    await page.locator(f"[data-testid=open-table][data-table='{t['id']}']").wait_for(
        state="detached")  # full now: gone from the list
    await page.click("[data-action=quick]")
    await page.wait_for_url("**/t/**")
    tid = page.url.rsplit("/", 1)[1]
    assert tid != t["id"]
    await page.wait_for_selector("[data-testid=quick-wait]")
    # strangers, not friends, are awaited at a quick table
    title = await page.locator("[data-testid=waiting] h2").inner_text()
    assert title == {"fi": "Odotetaan pelaajia", "en": "Waiting for players"}[lang]
    await page.wait_for_selector("[data-testid=hand] [data-card]", timeout=20000)
    table = live_server.table(tid)
    assert table.config["quick"] and [s.standin for s in table.seats] == [False, True, True, True]
    assert page.errors == []  # type: ignore[attr-defined]
    await page.context.close()


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_the_lobby_with_open_tables_is_accessible_on_a_phone(
        live_server: LiveServer, browser: Any, lang: str) -> None:
    seats = [{"kind": "friend", "name": "Aino"}, {"kind": "friend"}, {"kind": "friend"}]
    for _ in range(3):
        t = _post(f"{live_server.url}/api/tables", {"seats": seats, "open": True})
        _post(f"{live_server.url}/api/tables/{t['id']}/seats/0", {"name": "Aino"})
    page = await _lobby(browser, live_server, lang, PHONE)
    await page.wait_for_selector("[data-testid=open-table]")
    assert await page.locator("[data-testid=open-table]").count() == 3
    found = await _violations(page)
    assert found == [], found
    # every control of the list is a touch target of at least 44 x 44 px
    for sel in ("[data-action=join]", "[data-action=quick]", "[data-action=open-name]",
                "[data-action=refresh-open]", "[data-action=open-table]"):
        box = await page.locator(sel).first.bounding_box()
        assert box["width"] >= 44 and box["height"] >= 44, (sel, box)
    # nothing sticks out sideways on the phone
    assert await page.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    await page.context.close()


async def test_the_create_form_lists_a_table_when_asked(live_server: LiveServer,
                                                        browser: Any) -> None:
    page = await _lobby(browser, live_server, "fi", DESKTOP, name="Aino")
    await page.wait_for_selector("[data-testid=open-empty]")  # nothing listed yet
    await open_setup(page)
    await page.fill("[data-action=seat-name] >> nth=0", "Aino")
    await page.select_option("[data-action=seat-kind] >> nth=1", "friend")
    await page.check("[data-action=open-table]")
    await page.click("[data-action=create]")
    await page.wait_for_url("**/t/**")
    tid = page.url.rsplit("/", 1)[1]
    assert live_server.table(tid).config["open"] is True
    await page.goto(live_server.url + "/")
    row = page.locator(f"[data-testid=open-table][data-table='{tid}']")
    await row.wait_for()
    assert "Aino" in await row.inner_text()
    # a table made without the box ticked stays private
    await open_setup(page)
    await page.select_option("[data-action=seat-kind] >> nth=1", "friend")
    await page.click("[data-action=create]")
    await page.wait_for_url("**/t/**")
    other = page.url.rsplit("/", 1)[1]
    assert other != tid and live_server.table(other).config["open"] is False
    await page.goto(live_server.url + "/")
    await row.wait_for()
    assert await page.locator("[data-testid=open-table]").count() == 1
    assert page.errors == []  # type: ignore[attr-defined]
    await page.context.close()

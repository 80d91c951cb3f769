"""Web table defects of issue 60: the board's cards with two decks and eight players, the
last-action bubbles on a phone, the hint and the toasts never over the board or the hand, and
the players' places at the end of a match agreeing with the standings."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest

from ristiseiska.web.shots import act

from .conftest import LiveServer
from .test_browser_table import _post, my_turn, seated

pytestmark = pytest.mark.asyncio

# the widest card or slot (a slot of a row whose cards overlap is half a card wide)
BOARD_CARD = ("() => Math.max(...[...document.querySelectorAll('[data-testid=board] .bcard, [data-testid=board] .slot')]"
              ".map((e) => e.getBoundingClientRect().width))")
OVERLAP = """([a, b]) => { const x = document.querySelector(a).getBoundingClientRect();
  return [...document.querySelectorAll(b)].some((e) => { const r = e.getBoundingClientRect();
    return r.width > 0 && r.left < x.right - 1 && x.left < r.right - 1 && r.top < x.bottom - 1 && x.top < r.bottom - 1; }); }"""


@pytest.mark.parametrize(("width", "height", "least"), [(360, 740, 32), (1920, 969, 64)],
                         ids=["360x740", "1920x969"])
async def test_two_decks_and_eight_players_leave_the_board_big_cards(
        live_server: LiveServer, browser: Any, width: int, height: int, least: int) -> None:
    page, _tid = await seated(browser, live_server, {"width": width, "height": height},
                              preset="kaksi-pakkaa", kinds=("friend",) + ("bot",) * 7)
    await my_turn(page)
    assert await page.evaluate(BOARD_CARD) >= least
    # and everything still fits: no scrolling, every playable card on screen
    assert await page.evaluate("document.scrollingElement.scrollHeight <= innerHeight + 1")
    await page.context.close()


async def test_a_phone_bubble_says_the_card_short_and_the_words_on_a_tap(
        live_server: LiveServer, browser: Any) -> None:
    page, tid = await seated(browser, live_server, {"width": 360, "height": 740},
                             kinds=("friend",) + ("bot",) * 7)
    table = live_server.table(tid)
    bubble = page.locator(".players [data-testid=bubble].has-short").first
    deadline = time.monotonic() + 60
    while not await bubble.count():
        assert time.monotonic() < deadline, "no bot played a card"
        if not await act(page):
            await page.wait_for_timeout(80)
    short = (await bubble.locator(".b-short").inner_text()).strip()
    assert short[0] in "♣♦♥♠" and len(short) <= 3, short
    # the short form is whole, not cut: its box is as wide as its text
    assert await bubble.evaluate("(e) => e.scrollWidth <= e.clientWidth + 1")
    full = await bubble.get_attribute("title")
    assert full and await bubble.locator(".b-full").inner_text() == full  # read out in full
    await bubble.click()
    await page.wait_for_function(
        "(e) => e.classList.contains('open') && e.querySelector('.b-full').getBoundingClientRect().width > 30",
        arg=await bubble.element_handle())
    assert table is not None
    await page.context.close()


@pytest.mark.parametrize("size", [{"width": 1366, "height": 657}, {"width": 390, "height": 844}],
                         ids=["1366x657", "390x844"])
async def test_the_hint_is_not_over_the_board_and_a_toast_not_over_the_hand(
        live_server: LiveServer, browser: Any, size: dict[str, int]) -> None:
    page, _tid = await seated(browser, live_server, size)
    await my_turn(page)
    await page.click("[data-action=hint]")
    await page.wait_for_selector("[data-testid=hint]")
    await page.wait_for_timeout(100)  # the board's box settles to its new height
    assert not await page.evaluate(OVERLAP, ["[data-testid=hint]", "[data-testid=board] .bcard, [data-testid=board] .slot"])
    assert not await page.evaluate(OVERLAP, ["[data-testid=hint]", "[data-testid=hand] .card"])
    # a refusal (a card that cannot be played) shows a toast: not over the hand
    bad = page.locator("[data-testid=hand] button.card:not([data-legal=true])")
    if await bad.count():
        await bad.first.click(position={"x": 6, "y": 12}, force=True)  # aria-disabled
        await page.wait_for_selector("[data-testid=toast], [data-testid=error]")
        assert not await page.evaluate(OVERLAP, [".toasts", "[data-testid=hand] .card"])
    await page.context.close()


async def test_at_the_match_end_the_panels_places_agree_with_the_standings(
        live_server: LiveServer, browser: Any) -> None:
    # seed 3, two deals: the second deal's first player out is not the match winner
    seats = [{"kind": "friend", "name": "Aino"}] + [{"kind": "bot", "bot": "basic"}] * 3
    t = _post(f"{live_server.url}/api/tables",
              {"seats": seats, "seed": 3, "options": {"match_deals": 2}})
    tok = _post(f"{live_server.url}/api/tables/{t['id']}/seats/0", {"name": "Aino"})["token"]
    ctx = await browser.new_context(viewport={"width": 1366, "height": 657}, reduced_motion="reduce")
    await ctx.add_init_script(f"localStorage.setItem('rs.seat.{t['id']}', "
                              f"{json.dumps(json.dumps({'seat': 0, 'token': tok}))});")
    page = await ctx.new_page()
    await page.goto(f"{live_server.url}/t/{t['id']}")
    table = live_server.table(t["id"])
    deadline = time.monotonic() + 240
    while not table.match.is_over():
        assert time.monotonic() < deadline, "the match did not end"
        nxt = page.locator("[data-action=next-deal]")
        if await nxt.count():
            try:
                await nxt.click(timeout=3000)
            except Exception:  # noqa: BLE001 - the next deal started without it
                pass
        elif not await act(page):
            await page.wait_for_timeout(80)
    await page.wait_for_selector("[data-testid=standings]")
    totals = table.match.totals
    want = {i: 1 + sum(x < totals[i] for x in totals) for i in range(4)}
    last_out = table.game.out_order
    assert last_out[0] not in table.match.winners, "pick a seed whose last deal's first out loses"
    shown = await page.locator("[data-testid=standings] li").evaluate_all(
        "els => els.map((e) => [+e.dataset.seat, +e.dataset.place])")
    assert dict(shown) == want
    panels = await page.locator(".player [data-testid=placing]").evaluate_all(
        "els => els.map((e) => [+e.closest('.player').dataset.seat, +e.dataset.place])")
    assert dict(panels) == want
    await ctx.close()

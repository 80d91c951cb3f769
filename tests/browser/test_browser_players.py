"""Issue 47, players who are remembered: a player who opens a rematch's link on the device
they played the last match on sits down at their own kept seat without a click (the page asks
``/seats/mine`` with the browser's device key); on another device the link only watches."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import pytest

from .conftest import LiveServer

pytestmark = pytest.mark.asyncio
PHONE_A = "a" * 32
PHONE_B = "B-b_" * 6
SEATS = [{"kind": "friend", "name": "Aino"}, {"kind": "bot", "bot": "random"},
         {"kind": "friend", "name": "Bea"}, {"kind": "bot", "bot": "random"}]


def post(server: LiveServer, path: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(server.url + path, data=json.dumps(body).encode(),
                                 headers={"content-type": "application/json"}, method="POST")
    with urllib.request.urlopen(req, timeout=20) as r:
        return dict(json.loads(r.read()))


def play_out(server: LiveServer, tid: str, tokens: dict[int, str]) -> None:
    """The friends play their first legal move each turn over the WebSocket until the match
    (one deal) is over; the bots play themselves."""
    from websockets.sync.client import connect

    ws_url = server.url.replace("http", "ws") + f"/ws/{tid}"
    with connect(ws_url, origin=server.url) as ws:
        for _ in range(2000):
            msg = json.loads(ws.recv(timeout=20))
            if msg.get("type") != "state" or not msg.get("view"):
                continue
            view = msg["view"]
            if view["phase"] == "over":
                return
            seat = view["to_move"]
            if seat in tokens and msg["you"] != seat:
                ws.send(json.dumps({"type": "join", "seat": seat, "token": tokens[seat]}))
            elif seat in tokens and view["legal_moves"]:
                ws.send(json.dumps({"type": "move", "move": view["legal_moves"][0]}))
    raise AssertionError("the match did not end")


async def test_a_rematch_link_seats_its_player_on_the_same_device(live_server: LiveServer,
                                                                  browser: Any) -> None:
    made = post(live_server, "/api/tables", {"preset": "ristiseiska", "seats": SEATS,
                                             "options": {"match_deals": 1}})
    tid = made["id"]
    tokens = {0: post(live_server, f"/api/tables/{tid}/seats/0",
                      {"name": "Aino", "device": PHONE_A})["token"],
              2: post(live_server, f"/api/tables/{tid}/seats/2",
                      {"name": "Bea", "device": PHONE_B})["token"]}
    play_out(live_server, tid, tokens)
    nid = post(live_server, f"/api/tables/{tid}/rematch", {"seat": 0, "token": tokens[0]})["id"]

    # another device: the link only watches, Bea's seat stays kept
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.add_init_script(f"localStorage.setItem('rs.device', '{'c' * 24}')")
    await page.goto(f"{live_server.url}/t/{nid}")
    await page.wait_for_selector("[data-testid=seat-picker]")
    await page.wait_for_timeout(1000)
    assert live_server.table(nid).seats[2].token_hash is None
    await ctx.close()

    # Bea's phone: recognised, seated at her own seat, and the deal starts
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.add_init_script(f"localStorage.setItem('rs.device', '{PHONE_B}')")
    await page.goto(f"{live_server.url}/t/{nid}")
    await page.wait_for_selector("[data-testid=hand] [data-card]", timeout=30_000)
    assert await page.evaluate(f"() => JSON.parse(localStorage.getItem('rs.seat.{nid}')).seat") == 2
    assert live_server.table(nid).seats[2].name == "Bea"
    await ctx.close()


async def _phone_page(browser: Any, server: LiveServer, device: str, name: str,
                      lang: str = "fi") -> tuple[Any, Any]:
    ctx = await browser.new_context(viewport={"width": 390, "height": 844})
    await ctx.add_init_script(f"if (!localStorage.getItem('rs.device')) {{"
                              f"localStorage.setItem('rs.device', {json.dumps(device)});"
                              f"localStorage.setItem('rs.lang', {json.dumps(lang)});"
                              f"localStorage.setItem('rs.name', {json.dumps(name)}); }}")
    page = await ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    await page.goto(server.url + "/")
    await page.wait_for_selector("[data-action=quick]")
    return ctx, page


async def test_two_aitis_are_told_apart_and_each_gets_their_own_seat_back(
        live_server: LiveServer, browser: Any) -> None:
    """Two players called Äiti join one open table from the lobby on two phones: the second is
    "Äiti (2)" with an avatar and colour of her own; a phone whose page forgot its seat (the
    tab closed, the seat cleared) gets it back from the server, by opening the table or by
    Quick game, and the other phone's key gets nothing of hers."""
    seats = [{"kind": "friend", "name": "Äiti"}, {"kind": "friend"},
             {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    tid = post(live_server, "/api/tables", {"seats": seats, "open": True})["id"]
    phones = []
    for device in (PHONE_A, PHONE_B):
        ctx, page = await _phone_page(browser, live_server, device, "Äiti")
        row = page.locator(f"[data-testid=open-table][data-table='{tid}']")
        await row.wait_for()
        await row.locator("[data-action=join]").click()
        await page.wait_for_url(f"**/t/{tid}")
        phones.append((ctx, page))
    assert [s.name for s in live_server.table(tid).seats[:2]] == ["Äiti", "Äiti (2)"]
    (ctx_a, page_a), (ctx_b, page_b) = phones
    await page_a.wait_for_selector("[data-testid=hand] [data-card]", timeout=30_000)
    # on A's phone the other Äiti has her own mark: "Ä2", another colour, "(2)" in her name
    other = page_a.locator(".player[data-seat='1']")
    assert (await other.locator(".avatar").inner_text()).strip() == "Ä2"
    assert "Äiti (2)" in await other.locator(".pname").inner_text()
    colour = "e => getComputedStyle(e).backgroundColor"
    await page_b.wait_for_selector(".player[data-seat='0'] .avatar")
    first = page_b.locator(".player[data-seat='0']")  # the first Äiti, on B's phone
    assert (await first.locator(".avatar").inner_text()).strip() == "ÄI"
    assert await first.locator(".avatar").evaluate(colour) \
        != await other.locator(".avatar").evaluate(colour)

    # A's tab is closed and its seat forgotten: opening the table again gives it back
    await page_a.evaluate(f"() => localStorage.removeItem('rs.seat.{tid}')")
    await page_a.close()
    page_a = await ctx_a.new_page()
    page_a.errors = []
    page_a.on("pageerror", lambda e: page_a.errors.append(str(e)))
    await page_a.goto(f"{live_server.url}/t/{tid}")
    await page_a.wait_for_selector("[data-testid=hand] [data-card]", timeout=30_000)
    assert await page_a.evaluate(f"() => JSON.parse(localStorage.getItem('rs.seat.{tid}')).seat") == 0

    # B forgets hers and presses Quick game in the lobby: back at her own seat, not a new table
    await page_b.evaluate(f"() => localStorage.removeItem('rs.seat.{tid}')")
    await page_b.goto(live_server.url + "/")
    await page_b.wait_for_selector("[data-action=quick]")
    await page_b.click("[data-action=quick]")
    await page_b.wait_for_url(f"**/t/{tid}")
    await page_b.wait_for_selector("[data-testid=hand] [data-card]", timeout=30_000)
    assert await page_b.evaluate(f"() => JSON.parse(localStorage.getItem('rs.seat.{tid}')).seat") == 1

    # a third phone watching the table gets no seat
    ctx_c, page_c = await _phone_page(browser, live_server, "c" * 24, "Äiti")
    await page_c.goto(f"{live_server.url}/t/{tid}")
    await page_c.wait_for_selector(".player[data-seat='1']")
    await page_c.wait_for_timeout(800)
    assert await page_c.evaluate(f"() => localStorage.getItem('rs.seat.{tid}')") is None
    assert await page_c.locator("[data-testid=hand] [data-card]").count() == 0
    for page in (page_a, page_b, page_c):
        assert page.errors == []
    for ctx in (ctx_a, ctx_b, ctx_c):
        await ctx.close()


async def test_this_devices_history_counts_a_finished_match_once(live_server: LiveServer,
                                                                 browser: Any) -> None:
    """A match played to its end on this device shows in the lobby's history (played, won,
    average points of a deal, the puzzles' best streak), counted once however often its
    table is opened again; in both languages, with a decimal comma in Finnish."""
    import time

    from .test_browser_play import act_once

    made = post(live_server, "/api/tables", {"preset": "ristiseiska", "options": {"match_deals": 1},
                                             "seats": [{"kind": "friend", "name": "Aino"}]
                                             + [{"kind": "bot", "bot": "random"}] * 3})
    tid = made["id"]
    ctx, page = await _phone_page(browser, live_server, PHONE_A, "Aino")
    assert await page.locator("[data-testid=history-empty]").count() == 1
    seat = post(live_server, f"/api/tables/{tid}/seats/0", {"name": "Aino", "device": PHONE_A})
    await page.evaluate(f"() => {{ localStorage.setItem('rs.seat.{tid}', "
                        f"JSON.stringify({{seat: 0, token: {json.dumps(seat['token'])}}}));"
                        " localStorage.setItem('rs.puzzles', JSON.stringify({best: 4})); }")
    await page.goto(f"{live_server.url}/t/{tid}")
    deadline = time.monotonic() + 120
    while not await page.locator("[data-testid=match-winner]").count():
        assert time.monotonic() < deadline, "the match did not end"
        if not await act_once(page):
            await page.wait_for_timeout(50)
    sheet = live_server.table(tid).match
    mine = sum(r.points[0] for r in sheet.sheet)
    won = all(sum(r.points[i] for r in sheet.sheet) >= mine for i in range(4))
    for again in range(2):  # the finished table opened again counts nothing more
        if again:
            await page.goto(f"{live_server.url}/t/{tid}")
            await page.wait_for_selector("[data-testid=match-winner]")
        await page.goto(live_server.url + "/")
        await page.wait_for_selector("[data-testid=device-history] dl")
        assert await page.inner_text("[data-testid=history-matches]") == "1"
    assert (await page.inner_text("[data-testid=history-wins]")).startswith("1" if won else "0")
    assert await page.inner_text("[data-testid=history-average]") == f"{mine:.1f}".replace(".", ",")
    assert await page.inner_text("[data-testid=history-streak]") == "4"
    assert "Otteluita pelattu" in await page.inner_text("[data-testid=device-history]")
    await page.click("[data-action=lang-en]")
    await page.wait_for_function("() => document.querySelector('[data-testid=device-history]')"
                                 ".innerText.includes('Matches played')")
    assert await page.inner_text("[data-testid=history-average]") == f"{mine:.1f}"
    assert page.errors == []
    await ctx.close()


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_the_lobby_offers_the_way_back_to_a_table_this_browser_sits_at(
        live_server: LiveServer, browser: Any, lang: str) -> None:
    seats = [{"kind": "friend", "name": "Äiti"}, {"kind": "friend"}, {"kind": "friend"},
             {"kind": "bot", "bot": "random"}]
    tid = post(live_server, "/api/tables", {"seats": seats, "open": True})["id"]
    ctx, page = await _phone_page(browser, live_server, PHONE_A, "Isä", lang)
    row = page.locator(f"[data-testid=open-table][data-table='{tid}']")
    await row.locator("[data-action=join]").click()
    await page.wait_for_url(f"**/t/{tid}")
    token = await page.evaluate(f"() => localStorage.getItem('rs.seat.{tid}')")
    await page.goto(live_server.url + "/")
    back = row.locator("[data-action=back-to-seat]")
    await back.wait_for()
    assert await row.locator("[data-action=join]").count() == 0
    assert (await back.inner_text()).strip() == {"fi": "Palaa paikallesi",
                                                 "en": "Back to your seat"}[lang]
    await back.click()
    await page.wait_for_url(f"**/t/{tid}")
    await page.wait_for_timeout(500)
    assert await page.evaluate(f"() => localStorage.getItem('rs.seat.{tid}')") == token
    assert live_server.table(tid).seats[0].name == "Isä"
    assert page.errors == []
    await ctx.close()

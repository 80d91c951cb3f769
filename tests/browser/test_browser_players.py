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

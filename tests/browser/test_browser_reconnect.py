"""The page notices a server that has gone silent (issue 46): a process paused or a machine cut
off keeps the socket open but answers nothing. The page pings after 3 s of silence, leaves the
socket when no answer comes in 2 s, asks for its table over HTTP (where nginx finds the
process that has it now) and connects again. Here the test stops passing the server's frames
on to the page (Playwright's WebSocket routing) and watches the page come back by itself."""

from __future__ import annotations

import time
from typing import Any

import pytest

from .conftest import LiveServer
from .test_browser_play import create_table

pytestmark = pytest.mark.asyncio


async def test_a_silent_server_is_left_and_the_page_reconnects_after_asking_for_its_table(
        browser: Any, live_server: LiveServer) -> None:
    page = await browser.new_page(viewport={"width": 1280, "height": 900})
    sockets: list[float] = []
    silent = {"on": False}

    async def route(ws: Any) -> None:
        sockets.append(time.monotonic())
        server = ws.connect_to_server()
        if len(sockets) == 1:  # the first socket goes silent on the test's word
            server.on_message(lambda msg: None if silent["on"] else ws.send(msg))

    await page.route_web_socket("**/ws/**", route)
    tid = await create_table(page, live_server, "Aino", ["friend", "bot", "bot"])
    asked: list[float] = []
    page.on("request", lambda r: asked.append(time.monotonic())
            if r.url.endswith(f"/api/tables/{tid}/here") else None)
    await page.wait_for_selector("[data-testid=hand] [data-card]")
    assert len(sockets) == 1
    silent["on"] = True
    t0 = time.monotonic()
    # the bots play on at the server, but nothing reaches the page: after 3 s a ping, after
    # 2 s more without an answer the socket is left
    # (the page's timers run late on a loaded machine: the waits are bounded generously and
    # only the lower bound, the page's own patience, is a property of the page)
    await page.wait_for_selector("[data-testid=reconnecting]", timeout=45_000)
    left = time.monotonic() - t0
    await page.wait_for_selector("[data-testid=reconnecting]", state="detached",
                                 timeout=45_000)
    assert len(sockets) == 2, sockets
    assert asked and t0 < asked[0] < sockets[1], (asked, sockets, t0)  # asked, then connected
    assert left >= 3.0, left
    await page.wait_for_selector("[data-testid=hand] [data-card]")
    await page.close()

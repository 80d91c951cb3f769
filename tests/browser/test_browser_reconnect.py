"""The page notices a server that has gone silent (issue 46): a process paused or a machine cut
off keeps the socket open but answers nothing. The page pings after 3 s of silence, leaves the
socket when no answer comes in 2 s, asks for its table over HTTP (where nginx finds the
process that has it now) and connects again. Here the test stops passing the server's frames
on to the page (Playwright's WebSocket routing) and watches the page come back by itself."""

from __future__ import annotations

import asyncio
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
    left_at: list[float] = []
    silent = {"on": False}

    async def route(ws: Any) -> None:
        sockets.append(time.monotonic())
        server = ws.connect_to_server()
        if len(sockets) == 1:  # the first socket goes silent on the test's word
            server.on_message(lambda msg: None if silent["on"] else ws.send(msg))
            ws.on_close(lambda *_: left_at.append(time.monotonic()))  # the page leaves it

    await page.route_web_socket("**/ws/**", route)
    tid = await create_table(page, live_server, "Aino", ["friend", "bot", "bot"])
    asked: list[float] = []
    page.on("request", lambda r: asked.append(time.monotonic())
            if r.url.endswith(f"/api/tables/{tid}/here") else None)
    await page.wait_for_selector("[data-testid=hand] [data-card]")
    assert len(sockets) == 1
    # The "reconnecting" notice shows only from leaving the socket to the new one's opening,
    # a few hundred ms that a polling wait can miss on a loaded machine: the page itself
    # records whether it was ever shown.
    await page.evaluate("""() => {
        window.rsSawReconnecting = false;
        new MutationObserver((records) => {
            for (const r of records) for (const n of r.addedNodes) {
                if (n.nodeType === 1 && (n.matches("[data-testid=reconnecting]")
                        || n.querySelector("[data-testid=reconnecting]"))) window.rsSawReconnecting = true;
            }
        }).observe(document.body, { childList: true, subtree: true });
    }""")
    silent["on"] = True
    t0 = time.monotonic()
    # the bots play on at the server, but nothing reaches the page: after 3 s without a frame
    # a ping, after 2 s more without an answer the socket is left and a new one opened. The
    # waits are bounded generously (the page's timers run late on a loaded machine); only the
    # lower bound, the page's own patience, is a property of the page.
    deadline = t0 + 60
    while len(sockets) < 2 and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    assert len(sockets) == 2, sockets
    await page.wait_for_selector("[data-testid=reconnecting]", state="detached", timeout=45_000)
    assert await page.evaluate("window.rsSawReconnecting") is True
    assert left_at and left_at[0] - t0 >= 1.5, (left_at, t0)  # it waited for the ping's answer
    assert asked and t0 < asked[0] < sockets[1], (asked, sockets, t0)  # asked, then connected
    await page.wait_for_selector("[data-testid=hand] [data-card]")
    await page.close()

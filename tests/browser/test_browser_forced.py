"""Issue 52 in the browser: a two-player ``jokerit`` deal that reaches the position where
nothing left can ever be played ends at once, and a forced move is made for the person after a
pause the page announces.

The server's seed source deals match seed 19: played with the line below (each seat's choice
of the skewed policy "a swap only as the last play" of tests/skewed_kit.py), the table fills up
while a joker stands for the hearts seven, seat 0 can only pass (the server passes for her
after the pause) and seat 1's only move is to swap the real seven in: the joker taken back and
seat 0's spades ace can never be played, so the swap ends the deal as ``stuck``.
"""

from __future__ import annotations

import asyncio
import random
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.match import Match
from ristiseiska.rules import preset
from ristiseiska.web.forced import forced_move

from .conftest import LiveServer

pytestmark = pytest.mark.asyncio
SEED = 19


def the_line() -> list[str]:
    """The deal's moves, computed here as the policy plays them (and checked to end stuck)."""
    import skewed_kit

    g = Match(preset("jokerit"), 2, seed=SEED).new_deal()
    rng = random.Random(SEED)
    policy = skewed_kit.POLICIES["swap-last"]
    while not g.is_over():
        g.push(policy(g, rng))
    assert g.result is not None and g.result.end == "stuck"
    moves = [m.text() for m in g.moves]
    assert moves[-2:] == ["pass", "swap:H7"]
    return moves


class SeededServer(LiveServer):
    """The live server with a fixed match seed and its event loop at hand (to play the seats'
    moves straight into the table, as their pages would)."""

    loop: asyncio.AbstractEventLoop

    def start(self) -> None:
        import uvicorn

        from ristiseiska.web.app import create_app

        self.app = create_app(self.db, bot_delay=self.bot_delay, seed_source=lambda: SEED)
        self.server = uvicorn.Server(uvicorn.Config(self.app, log_level="warning"))
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))

        async def serve() -> None:
            self.loop = asyncio.get_running_loop()
            await self.server.serve(sockets=[sock])

        self.thread = threading.Thread(target=lambda: asyncio.run(serve()), daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=20)


@pytest.fixture
def seeded(tmp_path: Path) -> Iterator[SeededServer]:
    srv = SeededServer(f"sqlite+aiosqlite:///{tmp_path / 'forced.db'}")
    srv.start()
    yield srv
    srv.stop()


async def test_a_jokerit_deal_nobody_can_finish_ends_at_once_and_the_pass_is_made_for_her(
        seeded: SeededServer, browser: Any) -> None:
    line = the_line()
    anna_ctx = await browser.new_context(viewport={"width": 1280, "height": 800})
    ville_ctx = await browser.new_context(viewport={"width": 390, "height": 844})
    anna, ville = await anna_ctx.new_page(), await ville_ctx.new_page()
    await anna.goto(seeded.url + "/")
    await anna.select_option("[data-action=preset]", "jokerit")
    await anna.select_option("[data-action=seat-count]", "2")
    for i in range(2):
        await anna.select_option(f"[data-seat='{i}'] [data-action=seat-kind]", "friend")
    await anna.fill("[data-seat='0'] [data-action=seat-name]", "Anna")
    assert await anna.locator("[data-option=auto_forced]").is_checked()  # on by default
    await anna.click("[data-action=create]")
    await anna.wait_for_url("**/t/**")
    url = anna.url
    tid = url.rsplit("/", 1)[1]
    await ville.goto(url)
    await ville.wait_for_selector("[data-testid=seat-picker]")
    await ville.fill("[data-action=name]", "Ville")
    await ville.click("[data-action=take-seat][data-seat='1']")
    await ville.wait_for_selector("[data-testid=hand] [data-card]")
    t = seeded.table(tid)
    assert t.config["auto_forced"] is True and t.config["seed"] == SEED
    g = t.game
    # the seats' moves up to the last two, straight into the table (the pages follow along);
    # the test run's pause is a minute (tests/conftest.py), so no move is made for anybody yet
    for text in line[:-2]:
        seeded.run(t.play(g.to_move, text))
    assert g.to_move == 0 and forced_move(g) is not None and forced_move(g).text() == "pass"
    assert not g.is_over()
    # the pages catch up with the moves: the table's state is sent once more (a page that fell
    # behind under load takes the whole state from it), then each page shows every move
    seeded.run(_broadcast(t))
    for page in (anna, ville):
        await page.locator("[data-testid=log] li").nth(len(line) - 3).wait_for(
            state="attached", timeout=60000)
    # Anna's only move is to pass: with a short pause the server makes it for her
    t.forced.pause = 1.5
    seeded.run(_rebroadcast(t))
    status = anna.locator("[data-testid=status][data-forced=true]")
    await status.wait_for(timeout=5000)
    assert (await status.inner_text()).startswith("Ei pelattavaa korttia: sanot ohi.")
    shown = time.monotonic()
    log_line = "(Ei pelattavaa korttia: siirto tehtiin pelaajan puolesta.)"
    await anna.locator("[data-testid=log] li", has_text=log_line).first.wait_for(
        state="attached", timeout=8000)
    assert time.monotonic() - shown > 0.5, "the pass came without the pause"
    assert g.events[-1].to_dict() == {"seat": 0, "type": "pass"} and len(g.moves) == len(line) - 1
    # Ville's only move: swap the real hearts seven in for the joker. It ends the deal at once.
    await ville.locator("[data-testid=hand] button[data-card=H7][data-legal=true]").click(
        position={"x": 6, "y": 12})
    for page in (anna, ville):
        reason = page.locator("[data-testid=end-reason]")
        await reason.wait_for(timeout=8000)
        assert await reason.get_attribute("data-end") == "stuck"
        assert "yhtään käsissä olevaa korttia ei voi enää pelata" in await reason.inner_text()
    assert g.is_over() and g.result is not None and g.result.end == "stuck"
    assert g.result.loser == (0, 1) and len(g.moves) == len(line)
    await anna_ctx.close()
    await ville_ctx.close()


async def _broadcast(t: Any) -> None:
    async with t.lock:
        t._broadcast()


async def _rebroadcast(t: Any) -> None:
    async with t.lock:
        t.forced.running = None  # arm the pause again with the new length
        t._broadcast()

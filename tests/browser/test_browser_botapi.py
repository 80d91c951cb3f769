"""A person plays a whole match in the page at a table with a Bot API program (the example
client, examples/bot_api_client.py) and a bot of ours (issue 59)."""

from __future__ import annotations

import asyncio
import importlib.util
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer, open_setup
from .test_browser_play import play_until_over

pytestmark = pytest.mark.asyncio
ROOT = Path(__file__).resolve().parents[2]


def _client() -> Any:
    spec = importlib.util.spec_from_file_location("bot_api_client",
                                                  ROOT / "examples" / "bot_api_client.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


async def test_a_person_plays_a_match_with_an_api_bot(live_server: LiveServer,
                                                      browser: Any) -> None:
    db = live_server.db.replace("sqlite+aiosqlite", "sqlite")
    r = subprocess.run([sys.executable, "-m", "ristiseiska.cli", "bots", "add", "webbot",
                        "--database-url", db], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    token = r.stdout.splitlines()[-1]
    page = await browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    # the lobby's seat picker seats the program (kind "bot-api", its name typed)
    await page.goto(live_server.url + "/")
    await open_setup(page)
    await page.select_option("[data-action=seat-count]", "3")
    for i, kind in enumerate(["friend", "bot-api", "bot"]):
        await page.select_option(f"[data-seat='{i}'] [data-action=seat-kind]", kind)
    await page.fill("[data-seat='1'] [data-action=bot-api-name]", "webbot")
    await page.fill("[data-seat='0'] [data-action=seat-name]", "Aino")
    deals = page.locator("[data-option=match_deals]")
    await deals.evaluate("el => { el.closest('details').open = true; }")
    await deals.fill("1")
    await deals.dispatch_event("change")
    await page.click("[data-action=create]")
    await page.wait_for_url("**/t/**")
    tid = page.url.rsplit("/", 1)[1]
    bot = asyncio.create_task(_client().play(f"ws://127.0.0.1:{live_server.port}", tid, token))
    try:
        await page.wait_for_selector("[data-testid=hand] [data-card]")
        table = live_server.table(tid)
        assert table.seats[1].api == "webbot" and table.seats[0].name == "Aino"
        assert table.rules.match_deals == 1
        await play_until_over([page], limit_s=240)
        await page.wait_for_selector("[data-testid=match-winner]", timeout=60_000)
        sheet = await asyncio.wait_for(bot, 60)
        assert sheet["over"] and sheet["totals"] == table.match.totals
        # the program played its own moves: the clock's stand-in never had to
        assert not table.clock.marks
        assert not errors
    finally:
        bot.cancel()

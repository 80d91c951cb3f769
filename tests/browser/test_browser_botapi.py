"""A person plays a whole match in the page at a table with a Bot API program (the example
client, examples/bot_api_client.py) and a bot of ours (issue 59)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer
from .test_browser_play import join_table, play_until_over

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
    body = {"seats": [{"kind": "friend"}, {"kind": "bot-api:webbot"},
                      {"kind": "bot", "bot": "basic"}], "options": {"match_deals": 1}}
    req = urllib.request.Request(live_server.url + "/api/tables", data=json.dumps(body).encode(),
                                 method="POST", headers={"content-type": "application/json"})
    tid = json.loads(await asyncio.to_thread(lambda: urllib.request.urlopen(req,
                                                                            timeout=30).read()))["id"]
    bot = asyncio.create_task(_client().play(f"ws://127.0.0.1:{live_server.port}", tid, token))
    page = await browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    try:
        await join_table(page, f"{live_server.url}/t/{tid}", "Aino", 0)
        table = live_server.table(tid)
        assert table.seats[1].api == "webbot"
        await play_until_over([page], limit_s=240)
        await page.wait_for_selector("[data-testid=match-winner]", timeout=60_000)
        sheet = await asyncio.wait_for(bot, 60)
        assert sheet["over"] and sheet["totals"] == table.match.totals
        # the program played its own moves: the clock's stand-in never had to
        assert not table.clock.marks
        assert not errors
    finally:
        bot.cancel()

"""Rated play in a real browser (issue 58): two devices (browser contexts) play a rated quick
game together (bots fill the other seats), see their ratings change in the lobby and open their
player page, which shows the rating chart and the match; the leaderboard lists them. With
RS_SHOTS=1 the player page and a leaderboard are screenshot in fi/en/sv, desktop and phone
(RS_SHOTS_DIR, default /tmp/shots-pages)."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer
from .test_browser_play import play_until_over

pytestmark = pytest.mark.asyncio
DESKTOP = {"width": 1366, "height": 657}
PHONE = {"width": 390, "height": 844}


async def _device(browser: Any, server: LiveServer, name: str, size: dict[str, int]) -> Any:
    phone = size["width"] < 500
    ctx = await browser.new_context(viewport=size, is_mobile=phone, has_touch=phone,
                                    reduced_motion="reduce")
    await ctx.add_init_script(f"localStorage.setItem('rs.lang', 'fi');"
                              f"localStorage.setItem('rs.name', {json.dumps(name)});")
    page = await ctx.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    await page.goto(server.url + "/")
    await page.wait_for_selector("[data-action=quick]")
    return page


async def test_two_devices_play_a_rated_quick_game_and_see_their_pages(
        live_server: LiveServer, browser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from ristiseiska.web import open_tables

    index = live_server.app.state.open_index
    index.quick_wait = 3.0  # the second device joins within it; bots fill the rest
    # a one-deal match: Sjuan plays to a target, so the server's longest match is its length
    monkeypatch.setattr(open_tables, "QUICK_PRESET", "sjuan")
    index.max_match_deals = 1
    a = await _device(browser, live_server, "Aino", DESKTOP)
    b = await _device(browser, live_server, "Bea", PHONE)
    for p in (a, b):  # before: no rated match, no rating line (the answer came: no page link)
        await p.wait_for_function("""async () => {
            const r = await fetch("/api/ratings/mine", {method: "POST",
              headers: {"content-type": "application/json"},
              body: JSON.stringify({device: localStorage.getItem("rs.device")})});
            return r.ok && (await r.json()).handle === null;
          }""")
        assert await p.locator("[data-testid=my-rating]").count() == 0
    await a.click("[data-action=quick]")
    await a.wait_for_url("**/t/**")
    tid = a.url.rsplit("/", 1)[1]
    await b.click("[data-action=quick]")
    await b.wait_for_url(f"**/t/{tid}")
    for p in (a, b):
        await p.wait_for_selector("[data-testid=hand] [data-card]", timeout=30000)
    table = live_server.table(tid)
    assert table.config["rated"] is True
    await play_until_over([a, b], limit_s=180)
    # the match is rated when its last move is stored: wait for that, not for a time
    await a.wait_for_function("""async () => {
        const r = await fetch("/api/ratings/mine", {method: "POST",
          headers: {"content-type": "application/json"},
          body: JSON.stringify({device: localStorage.getItem("rs.device")})});
        const d = await r.json();
        window.__mine = d;
        return Object.values(d.ratings).some((x) => x.matches > 0);
      }""", polling=250, timeout=20000)

    ratings = {}
    for p, name in ((a, "Aino"), (b, "Bea")):
        await p.goto(live_server.url + "/")
        num = p.locator("[data-testid=my-rating-sjuan]")
        await num.wait_for()
        ratings[name] = int(await num.inner_text())
        line = await p.locator("[data-testid=my-rating]").inner_text()
        assert "alustava" in line and "pelaat kuin" in line
        if os.environ.get("RS_SHOTS"):
            out = Path(os.environ.get("RS_SHOTS_DIR", "/tmp/shots-pages"))
            out.mkdir(parents=True, exist_ok=True)
            await p.screenshot(path=str(out / f"lobby-{name}.png"))
        await p.click("[data-testid=my-page]")
        await p.wait_for_url("**/p/**")
        assert re.search(r"/p/[0-9a-f]{12}\?lang=fi$", p.url)
        assert await p.locator("[data-testid=player-name]").inner_text() == name
        assert await p.locator("[data-testid=rating-chart] polyline").count() == 1
        assert await p.locator("[data-testid=matches] tbody tr").count() == 1
        assert (await p.locator("[data-testid=rating-sjuan]").inner_text()
                == str(ratings[name]))
        assert p.errors == []  # type: ignore[attr-defined]
    # one was placed above the other: their ratings moved apart from 1500
    assert ratings["Aino"] != 1500 and ratings["Bea"] != 1500
    assert ratings["Aino"] != ratings["Bea"] or table.match.totals[0] == table.match.totals[1]
    await a.goto(live_server.url + "/leaderboard/sjuan?lang=en")
    names = await a.locator("[data-testid=provisional] tbody tr td:nth-child(2)").all_inner_texts()
    assert sorted(names) == ["Aino", "Bea"]
    assert await a.locator("[data-testid=bots] tbody tr").count() == 5

    if os.environ.get("RS_SHOTS"):
        out = Path(os.environ.get("RS_SHOTS_DIR", "/tmp/shots-pages"))
        out.mkdir(parents=True, exist_ok=True)
        page_url = a.url.replace("/leaderboard/sjuan?lang=en", "")
        handle = (await b.evaluate("location.pathname")).rsplit("/", 1)[1]
        for size_name, size in (("desktop", DESKTOP), ("phone", PHONE)):
            await a.set_viewport_size(size)
            for lang in ("fi", "en", "sv"):
                for what, path in (("player", f"/p/{handle}"),
                                   ("board", "/leaderboard/sjuan")):
                    await a.goto(f"{page_url}{path}?lang={lang}")
                    await a.screenshot(path=str(out / f"{what}-{lang}-{size_name}.png"),
                                       full_page=True)
                    width = await a.evaluate("document.documentElement.scrollWidth")
                    assert width <= size["width"], (what, lang, size_name, width)
    for p in (a, b):
        await p.context.close()

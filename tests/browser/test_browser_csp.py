"""The front end works under the server's Content-Security-Policy (no inline scripts, no
eval, no foreign origins): the lobby and a table page load, a table is created and a card is
played, and the browser reports no policy violation."""

from __future__ import annotations

from typing import Any

import pytest

from ristiseiska.web.security import CSP

from .conftest import LiveServer
from .test_browser_play import act_once, create_table

pytestmark = pytest.mark.asyncio


async def test_the_pages_run_under_the_csp_without_violations(live_server: LiveServer,
                                                             browser: Any) -> None:
    page = await (await browser.new_context()).new_page()
    await page.add_init_script(
        "window.__csp = []; document.addEventListener('securitypolicyviolation', "
        "e => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));")
    console: list[str] = []
    page.on("console", lambda m: console.append(m.text) if m.type == "error" else None)
    response = await page.goto(live_server.url + "/")
    assert response is not None and response.headers["content-security-policy"] == CSP
    tid = await create_table(page, live_server, "Aino", ["friend", "bot", "bot"])
    for _ in range(30):
        if await act_once(page):
            break
        await page.wait_for_timeout(100)
    await page.screenshot(path=str(live_server.db.split("///")[1]) + ".png")
    assert await page.evaluate("window.__csp") == []
    assert not [c for c in console if "Content Security Policy" in c], console
    assert tid in page.url

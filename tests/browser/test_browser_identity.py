"""Issue 58, an identity across devices, in a real browser: a transfer code carries the player
(and so their rating) to a new browser context; a passkey made by Chromium's virtual
authenticator signs in from another context; deleting the identity removes it everywhere.
``IDENTITY_SHOTS=DIR`` keeps screenshots of the panel (desktop and phone, fi/en/sv)."""

from __future__ import annotations

import asyncio
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.ratings import Rating, standings
from ristiseiska.store import ratings as stored
from ristiseiska.web.seats import check_device

from .conftest import LiveServer

pytestmark = pytest.mark.asyncio
DESKTOP = {"width": 1366, "height": 657}
PHONE = {"width": 390, "height": 844}
AUTHENTICATOR = {"protocol": "ctap2", "transport": "internal", "hasResidentKey": True,
                 "hasUserVerification": True, "isUserVerified": True}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    srv = LiveServer(f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('id') / 'browser.db'}")
    srv.start()
    # WebAuthn needs a secure context and a domain as its relying party: localhost
    srv.url = srv.url.replace("127.0.0.1", "localhost")
    yield srv
    srv.stop()


async def on_server(server: LiveServer, coro: Any) -> Any:
    """Run ``coro`` on the server's event loop (its store is bound to it)."""
    loop = server.server.servers[0].get_loop()
    return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(coro, loop))


async def win(server: LiveServer, key: str, match: str) -> None:
    """A rated match the device's player won against two new players."""
    player = f"device:{check_device(key)}"
    await on_server(server, stored.rate_match(server.app.state.store, match, "ristiseiska",
                                              [player, Rating(), Rating()], standings([0, 4, 9])))


async def device(browser: Any, server: LiveServer, key: str, viewport: dict[str, int] = DESKTOP,
                 locale: str = "fi-FI") -> Any:
    """A page of a new context (a new device) whose device key is ``key``, with the identity
    panel open."""
    ctx = await browser.new_context(viewport=viewport, locale=locale)
    await ctx.add_init_script(
        f"if (!localStorage.getItem('rs.device')) localStorage.setItem('rs.device', '{key}')")
    page = await ctx.new_page()
    await page.goto(server.url + "/")
    await page.click("[data-action=identity]")
    await page.wait_for_selector("[data-testid=identity-rating]")
    return page


async def rating(page: Any) -> str:
    return str(await page.inner_text("[data-testid=identity-rating]"))


async def note(page: Any, pattern: str) -> str:
    await page.wait_for_function(
        "(p) => new RegExp(p).test(document.querySelector('[data-testid=identity-note]')"
        ".textContent)", arg=pattern, timeout=20_000)
    return str(await page.inner_text("[data-testid=identity-note]"))


async def shots(page: Any, name: str) -> None:
    where = os.environ.get("IDENTITY_SHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        panel = page.locator("[data-testid=identity]")
        await panel.screenshot(path=f"{where}/{name}.png")
        await panel.scroll_into_view_if_needed()
        await page.screenshot(path=f"{where}/{name}-window.png")


async def test_a_transfer_code_moves_the_identity(browser: Any, server: LiveServer) -> None:
    key_a, key_b = "transfer-phone-a-0001", "transfer-laptop-b-001"
    await win(server, key_a, "m-browser-1")
    await win(server, key_a, "m-browser-2")
    a = await device(browser, server, key_a)
    theirs = await rating(a)
    assert re.search(r"\b(1[6-9]\d\d)\b", theirs) and "2 ottelua" in theirs, theirs
    await a.click("[data-action=identity-code]")
    code = await a.inner_text("[data-testid=identity-code]")
    assert re.fullmatch(r"[A-Z0-9]{4}-[A-Z0-9]{4}", code), code
    await shots(a, "code-fi-desktop")
    b = await device(browser, server, key_b, PHONE)
    assert "1500" in await rating(b)
    await b.fill("[data-action=identity-code-input]", code.lower())
    await b.click("[data-action=identity-link]")
    await note(b, "Valmis")
    await b.wait_for_function("(r) => document.querySelector('[data-testid=identity-rating]')"
                              ".textContent === r", arg=theirs)
    assert "Laitteita: 2" in await b.inner_text("[data-testid=identity-facts]")
    await shots(b, "linked-fi-phone")
    # the same code again, on a third device: refused, nothing changed
    c = await device(browser, server, "transfer-third-c-0001", PHONE, locale="en-GB")
    await c.fill("[data-action=identity-code-input]", code)
    await c.click("[data-action=identity-link]")
    assert "used already" in await note(c, "used")
    assert "1500" in await rating(c)
    await shots(c, "refused-en-phone")
    d = await device(browser, server, "transfer-fourth-d-001", DESKTOP, locale="sv-SE")
    await d.click("[data-action=identity-delete]")
    await shots(d, "delete-sv-desktop")
    for p in (a, b, c, d):
        await p.context.close()


async def test_a_passkey_signs_in_elsewhere_and_deleting_removes_it_everywhere(
        browser: Any, server: LiveServer) -> None:
    key_a, key_b = "passkey-phone-a-00001", "passkey-laptop-b-0001"
    await win(server, key_a, "m-browser-3")
    a = await device(browser, server, key_a)
    theirs = await rating(a)
    cdp_a = await a.context.new_cdp_session(a)
    await cdp_a.send("WebAuthn.enable")
    auth_a = (await cdp_a.send("WebAuthn.addVirtualAuthenticator",
                               {"options": AUTHENTICATOR}))["authenticatorId"]
    await a.click("[data-action=identity-add-passkey]")
    await note(a, "Pääsyavain lisätty")
    assert "pääsyavaimia: 1" in await a.inner_text("[data-testid=identity-facts]")
    creds = (await cdp_a.send("WebAuthn.getCredentials", {"authenticatorId": auth_a}))["credentials"]
    assert len(creds) == 1 and creds[0]["isResidentCredential"] and creds[0]["rpId"] == "localhost"
    # another device that holds the same passkey (as a synced passkey would be)
    b = await device(browser, server, key_b, PHONE)
    assert "1500" in await rating(b)
    cdp_b = await b.context.new_cdp_session(b)
    await cdp_b.send("WebAuthn.enable")
    auth_b = (await cdp_b.send("WebAuthn.addVirtualAuthenticator",
                               {"options": AUTHENTICATOR}))["authenticatorId"]
    await cdp_b.send("WebAuthn.addCredential", {"authenticatorId": auth_b, "credential": creds[0]})
    await b.click("[data-action=identity-sign-in]")
    await note(b, "Valmis")
    await b.wait_for_function("(r) => document.querySelector('[data-testid=identity-rating]')"
                              ".textContent === r", arg=theirs)
    await shots(b, "passkey-fi-phone")
    # deleted on the second device: gone on both
    await b.click("[data-action=identity-delete]")
    await b.click("[data-action=identity-delete-yes]")
    said = await note(b, "Poistettu")
    assert "luokituksia 1" in said and "laitteita 2" in said and "pääsyavaimia 1" in said, said
    assert await b.evaluate("localStorage.getItem('rs.device')") != key_b  # a fresh key
    await a.reload()
    await a.click("[data-action=identity]")
    await a.wait_for_selector("[data-testid=identity-facts]")
    assert "1500" in await rating(a) and "0 ottelua" in await rating(a)
    assert "pääsyavaimia: 0" in await a.inner_text("[data-testid=identity-facts]")
    # the passkey no longer signs anybody in
    await a.click("[data-action=identity-sign-in]")
    await note(a, "ei tunneta")
    for p in (a, b):
        await p.context.close()

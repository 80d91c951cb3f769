"""Issue 47, screen readers: each card of the hand says what it is and where ("pataässä, kortti
3/7 kädessäsi"), the others' cards are only face down (hidden from the accessibility tree,
their count in words), and each move of the others is read out once through a polite live
region, never the player's own."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ristiseiska import i18n

from .conftest import LiveServer
from .test_browser_play import act_once, create_table

pytestmark = pytest.mark.asyncio
PATTERN = {"fi": r"^(.+), kortti (\d+)/(\d+) kädessäsi$",
           "en": r"^(.+), card (\d+) of (\d+) in your hand$"}


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_hand_cards_say_what_and_where_they_are(live_server: LiveServer, browser: Any,
                                                      lang: str) -> None:
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.add_init_script(f"localStorage.setItem('rs.lang', '{lang}')")
    tid = await create_table(page, live_server, "Testaaja", ["friend", "bot", "bot", "bot"])
    table = live_server.table(tid)
    shown = await page.locator("[data-testid=hand] button.card").evaluate_all(
        "els => els.map(e => [e.dataset.card, e.getAttribute('aria-label')])")
    n = len(table.game.hand(0))
    assert len(shown) == n
    for i, (code, label) in enumerate(shown):
        m = re.match(PATTERN[lang], label)
        assert m, label
        assert m.group(1) == i18n.card_name(code, lang)
        assert (int(m.group(2)), int(m.group(3))) == (i + 1, n)
    # the others' cards: face down only, hidden from screen readers, counted in words
    for fan in await page.locator(".player:not(.me) .fan").all():
        assert await fan.get_attribute("aria-hidden") == "true"
    tree = await page.locator("section.arena").aria_snapshot()
    others = {str(c) for s in (1, 2, 3) for c in table.game.hand(s)}
    names = {i18n.card_name(c, lang) for c in others}
    board = {i18n.card_name(c, lang) for r in table.game.view(0).to_dict()["rows"]
             for c in r["cards"]}
    assert not [nm for nm in names - board if re.search(rf"\b{re.escape(nm)}\b", tree)]
    await ctx.close()


async def test_the_others_moves_are_read_out_once_and_not_ones_own(live_server: LiveServer,
                                                                   browser: Any) -> None:
    ctx = await browser.new_context()
    page = await ctx.new_page()
    tid = await create_table(page, live_server, "Testaaja", ["friend", "bot", "bot", "bot"])
    region = page.locator("[data-testid=announce]")
    assert await region.get_attribute("aria-live") == "polite"
    heard: list[str] = []
    for _ in range(400):
        text = await region.inner_text()
        if text and (not heard or heard[-1] != text):
            heard.append(text)
        if await page.locator("[data-testid=result]").count():
            break
        if not await act_once(page):
            await page.wait_for_timeout(40)
    table = live_server.table(tid)
    g = table.games[0]
    assert heard, "nothing was read out"
    names = table.match.names
    mine = {i18n.describe_event(e.to_dict(), names, "fi") for e in g.events if e.seat == 0}
    theirs = {i18n.describe_event(e.to_dict(), names, "fi") for e in g.events if e.seat != 0}
    # the status line's words when the turn comes to this player
    turn = [v for k, v in i18n.catalog("fi").items()
            if k in ("web.table.your_turn", "web.table.more") or k.startswith("webtable.cannot.")]
    for text in heard:
        assert not any(s and s in text and s not in theirs for s in mine), text
        # besides the others' moves: "your turn" and the deal's end (issue 60)
        for words in turn:
            text = text.replace(words, "")
        text = text.strip()
        if text and i18n.t("a11y.deal_points", "fi", list="").split(":")[0] not in text:
            assert any(s in text for s in theirs), text
    await ctx.close()

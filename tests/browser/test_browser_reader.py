"""Issue 60, screen readers as in the best accessible card rooms: one live region reads each
move of the others exactly once, the end of the deal and of the match; keys 1–6 read the
hand, the board, the card counts, the turn, the last moves and the score on demand; "?" lists
the keys; after a move the focus stays on a card still in the hand."""

from __future__ import annotations

import re
from typing import Any

import pytest

from ristiseiska import i18n

from .conftest import LiveServer, open_setup
from .test_browser_play import act_once

pytestmark = pytest.mark.asyncio

# Every change of the live region's text, recorded in the page as it happens (no polling to
# miss one under load). A trailing no-break space marks a repeat of the same words.
RECORD = """
window.__heard = [];
new MutationObserver(() => {
  const el = document.querySelector('[data-testid=announce]');
  if (!el) return;
  const raw = el.textContent;
  if (raw && raw !== window.__last) window.__heard.push(raw.replace(/\\u00a0$/, ''));
  window.__last = raw;
}).observe(document, {childList: true, characterData: true, subtree: true});
"""


async def one_deal_table(page: Any, server: LiveServer, lang: str) -> str:
    await page.goto(server.url + "/")
    await open_setup(page)
    await page.click("[data-testid=setup] details summary")
    await page.fill("[data-option=match_deals]", "1")
    await page.dispatch_event("[data-option=match_deals]", "change")
    await page.select_option("[data-action=seat-count]", "4")
    for i, kind in enumerate(["friend", "bot", "bot", "bot"]):
        await page.select_option(f"[data-seat='{i}'] [data-action=seat-kind]", kind)
    await page.fill("[data-seat='0'] [data-action=seat-name]", "Testaaja")
    await page.click("[data-action=create]")
    await page.wait_for_url("**/t/**")
    await page.wait_for_selector("[data-testid=hand] [data-card]")
    return str(page.url.rsplit("/", 1)[1])


async def heard(page: Any) -> list[str]:
    return list(await page.evaluate("window.__heard"))


async def read_key(page: Any, key: str) -> str:
    n = len(await heard(page))
    await page.keyboard.press(key)
    await page.wait_for_function("n => window.__heard.length > n", arg=n)
    return (await heard(page))[-1]


def pts(n: int, lang: str) -> str:
    return i18n.tn("webtable.points", n, lang)


async def check_reading_keys(page: Any, table: Any, lang: str) -> None:
    g = table.game
    names = table.match.names
    view = g.view(0).to_dict()
    # 1: the hand, suit by suit
    text = await read_key(page, "1")
    body = text[len(i18n.t("a11y.read.hand", lang, list="")) - 1:].rstrip(".")
    groups = dict(part.split(": ", 1) for part in body.split("; "))
    want: dict[str, set[str]] = {}
    for c in g.hand(0):
        suit = i18n.t(f"webtable.suit.{str(c)[0]}", lang)
        want.setdefault(suit, set()).add(i18n.card_name(c, lang))
    assert {k: set(v.split(", ")) for k, v in groups.items()} == want, text
    # 2: each row of the board, its lowest and highest card
    text = await read_key(page, "2")
    for r in view["rows"]:
        if r["cards"]:
            assert i18n.card_name(r["cards"][0], lang) in text, text
            assert i18n.card_name(r["cards"][-1], lang) in text, text
    # 3: every player's card count
    text = await read_key(page, "3")
    for s, name in enumerate(names):
        n = len(g.hand(s))
        assert f"{name} {i18n.tn('webtable.cards', n, lang)}" in text, text
    # 4: whose turn: the status line's words (it is this player's turn)
    text = await read_key(page, "4")
    assert text == await page.locator("[data-testid=status]").inner_text()
    # 5: the last five moves, the log's sentences
    text = await read_key(page, "5")
    last = [i18n.describe_event(e.to_dict(), names, lang) for e in g.events[-5:]]
    if last:
        assert text.endswith(" ".join(last[-2:])) and all(s in text for s in last), text
    else:
        assert text == i18n.t("a11y.read.no_moves", lang)
    # 6: the score: no deal finished yet
    assert await read_key(page, "6") == i18n.t("a11y.read.no_score", lang)


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_a_whole_deal_is_read_out_and_the_keys_read_the_state(
        live_server: LiveServer, browser: Any, lang: str) -> None:
    ctx = await browser.new_context()
    page = await ctx.new_page()
    await page.add_init_script(f"localStorage.setItem('rs.lang', '{lang}')")
    await page.add_init_script(RECORD)
    tid = await one_deal_table(page, live_server, lang)
    table = live_server.table(tid)
    keyed = 0  # the region's entries that answered a key (not moves)
    checked = False
    for _ in range(600):
        if await page.locator("[data-testid=result]").count():
            break
        if not checked and await page.locator("[data-testid=status].mine").count():
            before = len(await heard(page))
            await check_reading_keys(page, table, lang)
            keyed = len(await heard(page)) - before
            checked = True
        if not await act_once(page):
            await page.wait_for_timeout(40)
    assert checked, "it was never this player's turn"
    names = table.match.names
    sheet = table.match
    assert len(sheet.results) == 1  # a one-deal match: over now
    match_over = i18n.t("web.result.match_over", lang)
    await page.wait_for_function("s => window.__heard.some(t => t.includes(s))", arg=match_over)
    texts = await heard(page)
    # the key answers came in one run; leave them out of the moves
    start = next(i for i, x in enumerate(texts) if x.startswith(
        i18n.t("a11y.read.hand", lang, list="").split(":")[0]))
    moves = texts[:start] + texts[start + keyed:]
    spoken = "\n".join(moves)
    g = table.games[0]
    theirs = [i18n.describe_event(e.to_dict(), names, lang) for e in g.events if e.seat != 0]
    mine = [i18n.describe_event(e.to_dict(), names, lang) for e in g.events if e.seat == 0]
    for s in set(theirs):
        assert spoken.count(s) == theirs.count(s), (s, texts[-4:], theirs[-4:])
    for s in set(mine) - set(theirs):
        assert s not in spoken, (s, moves)
    # the deal's end: who went out, everyone's points, the standings; then the match's end
    r = g.result
    winner = r.winner
    went_out = (i18n.t("web.result.winner", lang, name=names[winner]) if winner is not None
                else i18n.t("web.result.no_winner", lang))
    end = next(x for x in moves if went_out in x)
    for s, name in enumerate(names):
        assert f"{name} {pts(r.points[s], lang)}" in end, end
    assert i18n.t("a11y.standings", lang, list="").split(":")[0] in end, end
    totals = sheet.totals
    best = min(totals)
    assert match_over in spoken
    winners = ", ".join(n for n, x in zip(names, totals, strict=True) if x == best)
    assert i18n.t("web.result.match_winner", lang, names=winners) in spoken
    # the score after the match: every total
    text = await read_key(page, "6")
    for name, x in zip(names, totals, strict=True):
        assert f"{name} {pts(x, lang)}" in text, text
    assert await read_key(page, "4") == i18n.t("a11y.read.turn_over", lang)
    await ctx.close()


async def test_the_help_dialog_lists_the_keys(live_server: LiveServer, browser: Any) -> None:
    for lang in ("fi", "en", "sv"):
        ctx = await browser.new_context()
        page = await ctx.new_page()
        await page.add_init_script(f"localStorage.setItem('rs.lang', '{lang}')")
        await one_deal_table(page, live_server, lang)
        await page.keyboard.press("?")
        box = page.locator("[role=dialog] [data-testid=keys-help]")
        await box.wait_for()
        text = await box.inner_text()
        for k in range(1, 7):
            assert i18n.t(f"a11y.help.k{k}", lang) in text
        assert i18n.t("a11y.help.help", lang) in text
        assert i18n.t("a11y.help.hint", lang, k=i18n.t("webtable.key.hint", lang)) in text
        await page.keyboard.press("Escape")
        await box.wait_for(state="detached")
        await ctx.close()


async def test_after_a_move_the_focus_is_on_a_card_still_in_the_hand(
        live_server: LiveServer, browser: Any) -> None:
    ctx = await browser.new_context()
    page = await ctx.new_page()
    tid = await one_deal_table(page, live_server, "fi")
    table = live_server.table(tid)
    hand = page.locator("[data-testid=hand] button.card")
    for _ in range(3):  # a few moves, each played from the keyboard
        await page.wait_for_selector("[data-testid=status].mine", timeout=60000)
        legal = page.locator("[data-testid=hand] button.card[data-legal=true]")
        if not await legal.count():
            act = page.locator("[data-testid=status].mine ~ .actions button.primary")
            await act.first.click()
            continue
        n = await hand.count()
        played = await legal.last.get_attribute("data-card")
        await legal.last.focus()
        await page.keyboard.press("Enter")
        choice = page.locator("[data-testid=choice] [data-action=choose]")
        await page.wait_for_function(
            "n => document.querySelectorAll('[data-testid=hand] button.card').length < n"
            " || !!document.querySelector('[data-testid=choice]')", arg=n)
        if await choice.count():
            await choice.first.click()
            break
        focused = await page.evaluate(
            "document.activeElement && document.activeElement.dataset.card || null")
        assert focused is not None and focused != played
        assert focused in {str(c) for c in table.game.hand(0)}
        assert re.search(r"kortti \d+/\d+ kädessäsi$",
                         await page.evaluate("document.activeElement.getAttribute('aria-label')"))
    await ctx.close()

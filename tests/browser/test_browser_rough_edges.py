"""The rough edges a player meets on the first evening (issue 45, the browser part), each at the
viewport where it was seen: a spectator's notice over the board, the open talk panel over the
action buttons, the score sheet cutting off a column, the phone's small board, the asking game's
give buttons, the stock without a label, emoji drawn as boxes without a colour-emoji font, the
hint repeating its move, and /puzzles' accessibility."""

from __future__ import annotations

import json
import re
from typing import Any

import pytest

from ristiseiska.web.shots import act

from .conftest import LiveServer
from .test_browser_table import _post, _violations, seated

pytestmark = pytest.mark.asyncio
LAPTOP = {"width": 1366, "height": 657}
PHONE = {"width": 390, "height": 844}
BOTS4 = [{"kind": "bot", "bot": "basic"}] * 4


def _overlap(a: dict[str, float], b: dict[str, float]) -> bool:
    return (a["x"] < b["x"] + b["width"] - 0.5 and b["x"] < a["x"] + a["width"] - 0.5
            and a["y"] < b["y"] + b["height"] - 0.5 and b["y"] < a["y"] + a["height"] - 0.5)


async def _boxes(page: Any, selector: str) -> list[dict[str, float]]:
    return list(await page.locator(selector).evaluate_all(
        "els => els.filter(e => e.offsetParent !== null).map(e => { const r = e.getBoundingClientRect();"
        " return {x: r.x, y: r.y, width: r.width, height: r.height}; })"))


async def _watcher(browser: Any, server: LiveServer, table_id: str, size: dict[str, int],
                   lang: str) -> Any:
    """A fresh browser (no seat, no name) opening a table's link."""
    phone = size["width"] < 500
    ctx = await browser.new_context(viewport=size, is_mobile=phone, has_touch=phone,
                                    reduced_motion="reduce")
    await ctx.add_init_script(f"localStorage.setItem('rs.lang', {json.dumps(lang)});")
    page = await ctx.new_page()
    page.errors = []  # type: ignore[attr-defined]
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    await page.goto(f"{server.url}/t/{table_id}")
    return page


@pytest.mark.parametrize(("size", "lang"), [
    pytest.param(LAPTOP, "fi", id="1366x657-fi"), pytest.param(PHONE, "fi", id="390x844-fi"),
    pytest.param(PHONE, "en", id="390x844-en")])
async def test_a_spectators_notice_leaves_every_row_of_the_board_in_view(
        live_server: LiveServer, browser: Any, size: dict[str, int], lang: str) -> None:
    t = _post(f"{live_server.url}/api/tables", {"seats": BOTS4})
    page = await _watcher(browser, live_server, t["id"], size, lang)
    notice = page.locator("[data-testid=seat-picker]")
    await notice.wait_for()
    await page.wait_for_selector("[data-testid=board] [data-card]")
    box = await notice.bounding_box()
    rows = await _boxes(page, "[data-testid=board] [data-row]")
    assert len(rows) == 4
    for r in rows:
        assert not _overlap(box, r), (box, r)
    # the notice is on screen and says there is no free seat, once (not "pick a free seat")
    assert box["y"] >= 0 and box["y"] + box["height"] <= size["height"]
    text = await notice.inner_text()
    assert ("vapaata" if lang == "fi" else "taken") in text
    assert ("Valitse" if lang == "fi" else "Pick") not in text
    assert not page.errors


async def _inject_chat(page: Any, table_id: str, n: int) -> None:
    """``n`` chat messages arrive at the page (as the socket would hand them over)."""
    await page.evaluate("""async ([id, n]) => {
        const m = await import('/static/ui/chat.js');
        const phrases = ['hello', 'good-luck', 'wait', 'oops', 'thanks', 'sorry'];
        for (let i = 0; i < n; i++) m.receiveChat(id, {seat: 1 + i % 3, name: 'Bot', phrase: phrases[i % phrases.length]});
    }""", [table_id, n])


async def test_the_open_talk_panel_leaves_hint_and_the_forced_action_free(
        live_server: LiveServer, browser: Any) -> None:
    # seed 11: seat 0 has no card to play on its first turn (Take the token shows)
    page, tid = await seated(browser, live_server, LAPTOP, seed=11)
    await page.wait_for_selector("[data-testid=status].mine")
    await _inject_chat(page, tid, 12)
    await page.click("[data-action=chat]")
    panel = page.locator("[data-testid=chat-panel]")
    await panel.wait_for()
    pbox = await panel.bounding_box()
    buttons = await _boxes(page, ".mine .actions button")
    assert len(buttons) >= 2  # Hint and the forced action
    for b in buttons:
        assert not _overlap(pbox, b), (pbox, b)
    # the panel is still usable: its reactions and the log are on screen
    log = await page.locator("[data-testid=chat-log]").bounding_box()
    assert log and log["height"] >= 40
    await page.click("[data-action=hint]")  # not covered: the click lands
    await page.wait_for_selector("[data-testid=hint]")


@pytest.mark.parametrize("size", [pytest.param({"width": 1920, "height": 969}, id="1920x969"),
                                  pytest.param({"width": 2560, "height": 1329}, id="2560x1329")])
async def test_the_score_sheet_beside_the_table_shows_every_players_column(
        live_server: LiveServer, browser: Any, size: dict[str, int]) -> None:
    # the names a table of bots gets (first names, as in the issue), not the short "P1"
    seats = [{"kind": "friend", "name": "Aino"}] + [{"kind": "bot", "bot": "basic"}] * 3
    t = _post(f"{live_server.url}/api/tables", {"seats": seats, "seed": 5})
    tok = _post(f"{live_server.url}/api/tables/{t['id']}/seats/0", {"name": "Aino"})["token"]
    ctx = await browser.new_context(viewport=size, reduced_motion="reduce")
    await ctx.add_init_script(
        f"localStorage.setItem('rs.seat.{t['id']}', {json.dumps(json.dumps({'seat': 0, 'token': tok}))});")
    page = await ctx.new_page()
    await page.goto(f"{live_server.url}/t/{t['id']}")
    sheet = page.locator("[data-testid=score-sheet]")
    await sheet.wait_for()
    scroller = await page.locator(".sheet-scroll").bounding_box()
    heads = await _boxes(page, "[data-testid=score-sheet] thead th")
    assert len(heads) == 5
    for h in heads:
        assert scroller["x"] - 0.5 <= h["x"] and h["x"] + h["width"] <= scroller["x"] + scroller["width"] + 0.5, (h, scroller)
    assert await page.locator(".sheet-scroll").evaluate("e => e.scrollWidth <= e.clientWidth + 1")


EIGHT = ["Annikki", "Bertta", "Cecilia", "Doris", "Eveliina", "Fredrika", "Gunilla", "Henrietta"]


@pytest.mark.parametrize("size", [pytest.param(PHONE, id="390x844"),
                                  pytest.param(LAPTOP, id="1366x657"),
                                  pytest.param({"width": 1920, "height": 969}, id="1920x969")])
async def test_the_score_sheet_of_eight_players_shows_their_names(
        live_server: LiveServer, browser: Any, size: dict[str, int]) -> None:
    """Issue 60: with eight players the sheet's eight name columns cut every name to "A…";
    now a row per player, and every name shows whole (none of these needs cutting)."""
    t = _post(f"{live_server.url}/api/tables",
              {"seats": [{"kind": "friend", "name": n} for n in EIGHT]})
    toks = [_post(f"{live_server.url}/api/tables/{t['id']}/seats/{i}", {"name": n})["token"]
            for i, n in enumerate(EIGHT)]
    ctx = await browser.new_context(viewport=size, reduced_motion="reduce")
    await ctx.add_init_script(
        f"localStorage.setItem('rs.seat.{t['id']}', {json.dumps(json.dumps({'seat': 0, 'token': toks[0]}))});")
    page = await ctx.new_page()
    await page.goto(f"{live_server.url}/t/{t['id']}")
    await page.wait_for_selector("[data-testid=hand] [data-card]")
    sheet = page.locator("[data-testid=score-sheet]")
    if not await sheet.is_visible():  # the drawer from the menu, below the side box's width
        await page.click("[data-action=menu]")
        await page.click("[data-action=show-sheet]")
    await sheet.wait_for()
    names = await page.locator("[data-testid=score-sheet] tbody th").evaluate_all(
        "els => els.map(e => [e.innerText, e.scrollWidth <= e.clientWidth, e.offsetParent !== null])")
    assert names == [[n, True, True] for n in EIGHT], names
    # on screen: every name's cell lies within the viewport's width
    for box in await _boxes(page, "[data-testid=score-sheet] tbody th"):
        assert box["x"] >= -0.5 and box["x"] + box["width"] <= size["width"] + 0.5, box
    await ctx.close()


async def test_on_a_phone_the_board_uses_the_height_with_bigger_cards(
        live_server: LiveServer, browser: Any) -> None:
    page, _tid = await seated(browser, live_server, PHONE)
    await page.wait_for_selector("[data-testid=board] [data-card]")
    widths = await page.locator("[data-testid=board] [data-card], [data-testid=board] [data-slot]").evaluate_all(
        "els => els.map(e => e.getBoundingClientRect().width)")
    assert min(widths) >= 40, min(widths)
    # every board card is on screen, and no board card lies under the hand or the players
    cards = await _boxes(page, "[data-testid=board] [data-card], [data-testid=board] [data-slot]")
    hand = await page.locator("section.mine").bounding_box()
    for c in cards:
        assert c["x"] >= -0.5 and c["x"] + c["width"] <= PHONE["width"] + 0.5, c
        assert c["y"] + c["height"] <= hand["y"] + 0.5, (c, hand)
    for p in await _boxes(page, ".arena .player"):
        for c in cards:
            assert not _overlap(p, c), (p, c)


# -- no emoji as an empty box ------------------------------------------------------------------
# the pictographs a font without colour emoji draws as boxes (the suits ♣♦♥♠ are in every font)
EMOJI = re.compile("[\U0001F000-\U0001FFFF\uFE0F\u2764\u263A]")


async def test_talk_icons_and_reactions_never_depend_on_an_emoji_font(
        live_server: LiveServer, browser: Any) -> None:
    # this machine has no colour-emoji font (the case of the issue): every icon of the talk
    # button, the reactions, the mutes and the bubbles is drawn by the page itself
    page, tid = await seated(browser, live_server, LAPTOP)
    await page.click("[data-action=chat]")
    await page.wait_for_selector(".chat-reactions [data-action=chat-phrase]")
    for p in ("r-laugh", "r-clap", "r-think", "r-thumbs", "r-heart"):
        await page.evaluate("async ([id, p]) => (await import('/static/ui/chat.js')).receiveChat(id, {seat: 1, name: 'Bea', phrase: p})",
                            [tid, p])
    await page.wait_for_selector(".player[data-seat='1'] [data-testid=chat-bubble]")
    text = await page.evaluate("document.body.innerText")
    assert not EMOJI.findall(text), EMOJI.findall(text)
    n = await page.locator(".chat-reactions [data-action=chat-phrase]").count()
    assert n == 7
    assert await page.locator(".chat-reactions [data-action=chat-phrase] svg").count() == n
    assert await page.locator("[data-action=chat] svg").count() == 1
    assert await page.locator(".player[data-seat='1'] [data-testid=chat-bubble] svg").count() == 1


# -- the hint ---------------------------------------------------------------------------------

@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_the_hint_names_its_move_once(live_server: LiveServer, browser: Any,
                                            lang: str) -> None:
    page, _tid = await seated(browser, live_server, LAPTOP, lang=lang, seed=3)
    for _ in range(200):  # a turn with a choice of cards
        await page.wait_for_selector("[data-testid=status].mine", timeout=20000)
        if await page.locator("[data-testid=hand] button[data-legal=true]").count() >= 2:
            break
        await act(page)
        await page.wait_for_timeout(100)
    await page.click("[data-action=hint]")
    hint = page.locator("[data-testid=hint]")
    await hint.wait_for()
    text = await hint.evaluate("e => [...e.childNodes].filter(n => n.nodeName !== 'BUTTON')"
                               ".map(n => n.textContent).join('')")
    verb = "Pelaa " if lang == "fi" else "Play "
    assert text.count(verb) <= 1, text
    if lang == "fi":
        assert not re.search(r"\d\.\d", text), text  # a decimal comma


# -- the asking game and the stock -------------------------------------------------------------

async def test_the_give_phase_keeps_the_board_and_gives_from_the_hand(
        live_server: LiveServer, browser: Any) -> None:
    page, tid = await seated(browser, live_server, LAPTOP, preset="ristiseiska-pyynto", seed=4)
    table = live_server.table(tid)
    await page.wait_for_selector("[data-testid=board] [data-row]")
    slot = page.locator("[data-testid=board] .bcard, [data-testid=board] .slot").first
    before = 0.0
    for _ in range(6000):  # deal after deal until seat 0 is asked for a card
        g = table.game
        if g is not None and g.phase == "give" and g.to_move == 0:
            break
        if g is not None and g.to_move == 0 and await page.locator("[data-testid=status].mine").count():
            before = await slot.evaluate("e => e.getBoundingClientRect().width")  # a usual turn
        if g is not None and g.is_over() and await page.locator("[data-action=next-deal]").count():
            await page.click("[data-action=next-deal]")
            await page.wait_for_timeout(200)
        elif not await act(page):
            await page.wait_for_timeout(30)
    else:
        raise AssertionError("seat 0 never had to give a card")
    await page.wait_for_selector("[data-testid=status].mine")
    status = await page.locator("[data-testid=status]").inner_text()
    assert status.strip()
    # no row of give buttons: the cards to give are the hand's, the board keeps its size
    assert await page.locator(".mine .actions button").count() <= 2
    after = await slot.evaluate("e => e.getBoundingClientRect().width")
    assert after >= before - 0.5, (before, after)
    legal = page.locator("[data-testid=hand] button[data-legal=true]")
    assert await legal.count() >= 1
    moves = len(table.game.moves)
    await legal.first.click(position={"x": 6, "y": 12})
    for _ in range(100):
        if len(table.game.moves) > moves:
            break
        await page.wait_for_timeout(50)
    assert str(table.game.moves[moves]).startswith("give")


@pytest.mark.parametrize("lang", ["fi", "en"])
async def test_the_stock_pile_says_what_it_is(live_server: LiveServer, browser: Any,
                                              lang: str) -> None:
    page, _tid = await seated(browser, live_server, LAPTOP, lang=lang,
                              kinds=("friend", "bot"), preset="kahdestaan-pakka")
    stock = page.locator("[data-testid=stock]")
    await stock.wait_for()
    text = await stock.inner_text()
    assert ("pakka" if lang == "fi" else "stock") in text.lower(), text
    assert re.search(r"\d", text)


# -- /puzzles ---------------------------------------------------------------------------------

def _puzzle_ids() -> list[str]:
    """An easy and a medium puzzle (each grade's badge has its own colour) and, further down the
    list, candidates for a position with a suit row still empty."""
    from ristiseiska.puzzles import shipped

    items = shipped()
    ids = []
    for grade in ("easy", "medium", "hard"):
        ids += [p["id"] for p in items if p["difficulty"]["grade"] == grade][:1]
    return ids + [p["id"] for p in items if "pyynto" in p["id"]][:40]


@pytest.mark.parametrize("size", [pytest.param(LAPTOP, id="1366x657"),
                                  pytest.param(PHONE, id="390x844")])
async def test_puzzles_have_no_serious_accessibility_violation(
        live_server: LiveServer, browser: Any, size: dict[str, int]) -> None:
    ids = _puzzle_ids()
    for lang in ("fi", "en"):
        ctx = await browser.new_context(viewport=size, bypass_csp=True)
        await ctx.add_init_script(f"localStorage.setItem('rs.lang', {json.dumps(lang)});")
        page = await ctx.new_page()
        empty_seen = False
        for k, pid in enumerate(ids):
            await page.goto(f"{live_server.url}/puzzles#{pid}")
            await page.reload()
            await page.wait_for_selector(f"[data-testid=position][data-puzzle='{pid}']")
            empty = await page.locator(".pz-empty").count() > 0
            if k >= 3 and (empty_seen or not empty):
                continue  # only the first position with an empty row among the candidates
            empty_seen = empty_seen or empty
            assert await _violations(page) == [], (lang, pid)
            await page.locator("[data-testid=hand] button[data-move], [data-testid=moves] button").last.click()
            await page.wait_for_selector("[data-testid=verdict]")
            assert await _violations(page) == [], (lang, pid, "verdict")
        assert empty_seen
        await ctx.close()

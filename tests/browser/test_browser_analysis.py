"""History → Analyse in a real browser: the verdicts and the bar of alternatives appear."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import pytest

from .conftest import LiveServer
from .test_browser_play import create_table, play_until_over

pytestmark = pytest.mark.asyncio
VERDICTS = {"good", "inaccuracy", "mistake", "blunder", "forced"}


def has_choice(game: Any, seat: int) -> bool:
    """Whether ``seat`` ever had more than one legal move in the finished ``game``."""
    from ristiseiska.game import Game

    r = Game(game.rules, game.n, hands=[list(h) for h in game.initial_hands],
             stock=list(game.initial_stock), dealer=game.dealer)
    for m in game.moves:
        if r.to_move == seat and len(r.legal_moves()) > 1:
            return True
        r.push(m)
    return False


async def test_history_analyse_shows_verdicts(live_server: LiveServer, browser: Any) -> None:
    ctx = await browser.new_context(viewport={"width": 1100, "height": 900})
    page = await ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    tid = await create_table(page, live_server, "Aino", ["friend", "bot", "bot", "bot"])
    table = live_server.table(tid)
    # play deals until the player had a real choice (a deal can leave only forced moves)
    for deal in range(4):
        await play_until_over([page])
        if has_choice(table.games[deal], 0):
            break
        await page.click("[data-action=next-deal]")
        await page.wait_for_selector("[data-testid=result]", state="detached")
    else:
        pytest.skip("four deals without a choice for seat 0")
    game = table.games[deal]
    mine = [i for i, e in enumerate(game.events) if e.seat == 0]

    await page.click("[data-action=menu]")  # issue 20: the rest of the toolbar is a menu
    await page.click("[data-action=history]")
    await page.click(f"[data-action=analyse][data-deal='{deal}']")
    panel = page.locator("[data-testid=analysis]")
    await panel.wait_for(timeout=120_000)  # the first analysis starts a worker process
    chips = panel.locator(".an-strip [data-action=analysis-jump]")
    indices = [int(x) for x in await chips.evaluate_all("els => els.map(e => e.dataset.index)")]
    assert indices == mine  # every decision of the player's own seat, and only those
    verdicts = await chips.evaluate_all("els => els.map(e => e.dataset.verdict)")
    assert set(verdicts) <= VERDICTS
    # jump to a real choice: its verdict in words and a bar per legal move, one of them best
    choice = next(i for i, v in zip(indices, verdicts, strict=True) if v != "forced")
    await chips.nth(indices.index(choice)).click()
    verdict = panel.locator("[data-testid=analysis-verdict]")
    assert await verdict.get_attribute("data-verdict") in VERDICTS - {"forced"}
    assert (await verdict.inner_text()).strip() in {"hyvä", "epätarkka", "virhe", "paha virhe"}
    assert await panel.locator("[data-testid=analysis-bar] [data-move]").count() >= 2
    assert await panel.locator("[data-testid=analysis-bar] [data-best=true]").count() == 1
    current = await page.locator("[data-testid=analysis-current]").inner_text()
    # the move from the replayed position, counted from 1 as in the log; cards in words
    assert f"Seuraava siirto {choice + 1}:" in current and "Tapahtuma" not in current
    labels = await panel.locator("[data-testid=analysis-bar] .an-label").all_inner_texts()
    card_words = ("risti", "ruutu", "hertta", "pata", "jokeri", "pantti", "vuoro", "ohi")
    assert all(any(w in x.lower() for w in card_words) for x in labels), labels
    # Finnish decimals with a comma (issue 61): "12,3 p · voitto 40 %"
    nums = await panel.locator("[data-testid=analysis-bar] .an-num").all_inner_texts()
    assert all(re.search(r"\d,\d p · voitto \d+ %", x) for x in nums), nums
    assert (await panel.locator("[data-testid=analysis-reason]").inner_text()).strip()
    # the analysis opens beside the replayed position, within the window
    felt = await page.locator("[data-testid=replay] .replay-board").bounding_box()
    box = await panel.bounding_box()
    assert felt is not None and box is not None
    assert box["x"] >= felt["x"] + felt["width"] - 1 and box["y"] < 900 - 100
    # the replay moved to that position
    assert f"{choice} /" in await page.locator("[data-testid=replay]").inner_text()
    shots = os.environ.get("RISTISEISKA_SHOTS")
    if shots:  # the picture in docs/analysis.md: the costliest decision if there is one
        costly = panel.locator("[data-testid=analysis-costly] [data-action=analysis-jump]")
        if await costly.count():
            await costly.first.click()
        # the whole window: the analysis beside the replayed position
        await page.screenshot(path=str(Path(shots) / "analysis-browser.png"))
    # another seat's analysis is refused while the match goes on, in the page's words
    await panel.locator("[data-action=analysis-seat][data-seat='1']").click()
    refusal = page.locator("[data-testid=analysis-seat-error]")
    await refusal.wait_for()
    assert "oman paikkasi" in await refusal.inner_text()
    assert await panel.locator("[data-action=analysis-seat][aria-pressed=true]").get_attribute("data-seat") == "0"
    # a second press answers from the store at once
    await page.click(f"[data-action=analyse][data-deal='{deal}']")
    await panel.wait_for()
    assert not errors
    await ctx.close()

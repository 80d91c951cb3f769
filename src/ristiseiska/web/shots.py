"""Screenshots of the browser game for the docs, and its page weight and first-render time.

    python -m ristiseiska.web.shots                 # docs/img/*.jpeg, Finnish and English
    python -m ristiseiska.web.shots --lang en --out /tmp/shots
    python -m ristiseiska.web.shots --measure       # only print the page weight and timings

A throwaway server (temporary SQLite database, loopback only) hosts one seeded table: you and
three bots. Headless Chromium (Debian's ``/usr/bin/chromium``, driven by Playwright) opens the
lobby, plays the table's cards, and saves: the lobby, the table mid-deal at
1366×657 and 1920×969, the turn clock running on your panel (1366×657, ``table-clock-*``;
``--only clock`` makes just that one), the end of a match (standings), and a phone view
(390×844, two decks). This is a developer tool: it needs the ``dev`` extra (Playwright)
and Chromium, and says so when they are missing.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import socket
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from .. import i18n

CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run", "--disable-quic"]
DESKTOP: Any = {"width": 1280, "height": 900}
PHONE: Any = {"width": 390, "height": 844}
LAPTOP: Any = {"width": 1366, "height": 657}  # a 1366x768 screen less the browser's bars
WIDE: Any = {"width": 1920, "height": 969}
SEED = 20261130
FORCED = ("stop", "token", "pass", "ask", "draw", "chip")


class Server:
    """uvicorn serving a fresh app in a daemon thread on a free loopback port."""

    def __init__(self, db: str, bot_delay: float) -> None:
        import uvicorn

        from .app import create_app

        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.url = f"http://127.0.0.1:{self.port}"
        self.app = create_app(db, bot_delay=bot_delay, resume=False)
        self.server = uvicorn.Server(uvicorn.Config(self.app, host="127.0.0.1", port=self.port,
                                                    log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 30
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("the screenshot server did not start")
            time.sleep(0.02)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=20)


def _post(url: str, body: dict[str, Any]) -> dict[str, Any]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        return dict(json.loads(r.read()))


def new_table(base: str, name: str, seed: int = SEED, options: Any = None,
              preset: str = "ristiseiska", clock: int | None = None) -> tuple[str, str]:
    """A table of you and three bots, seated; returns (table id, seat token)."""
    seats = [{"kind": "friend", "name": name}] + [{"kind": "bot", "bot": "basic"}] * 3
    t = _post(f"{base}/api/tables", {"preset": preset, "seats": seats, "seed": seed,
                                     "options": options or {}, "clock": clock})
    c = _post(f"{base}/api/tables/{t['id']}/seats/0", {"name": name})
    return str(t["id"]), str(c["token"])


async def act(page: Any) -> bool:
    """Make one move if it is this page's turn (the first playable card, else the forced
    action); whether a move was made."""
    cards = page.locator("[data-testid=hand] button[data-legal=true]:not([aria-disabled=true])")
    try:
        if await cards.count():
            # the cards of a big hand overlap: click the visible corner, as a player would
            await cards.first.click(timeout=2000, position={"x": 6, "y": 12})
            choice = page.locator("[data-testid=choice] [data-action=choose]")
            if await choice.count():
                await choice.first.click(timeout=2000)
            return True
        for action in FORCED:
            btn = page.locator(f".actions button[data-action={action}]")
            if await btn.count():
                await btn.first.click(timeout=2000)
                return True
    except Exception:  # noqa: BLE001 - the page re-rendered under us: try again
        return False
    return False


async def play_until(page: Any, done: Any, limit_s: float = 120) -> None:
    deadline = time.monotonic() + limit_s
    while time.monotonic() < deadline:
        r = done()
        if asyncio.iscoroutine(r):
            r = await r
        if r:
            return
        if not await act(page):
            await page.wait_for_timeout(60)
    raise RuntimeError("the deal did not get there in time")


async def open_table(browser: Any, base: str, lang: str, viewport: Any,
                     name: str, mobile: bool = False, options: Any = None,
                     preset: str = "ristiseiska", clock: int | None = None
                     ) -> tuple[Any, Any, str]:
    tid, token = new_table(base, name, options=options, preset=preset, clock=clock)
    ctx = await browser.new_context(viewport=viewport, is_mobile=mobile, has_touch=mobile,
                                    device_scale_factor=1, reduced_motion="reduce")
    await ctx.add_init_script(
        f"localStorage.setItem('rs.lang', {json.dumps(lang)});"
        f"localStorage.setItem('rs.seat.{tid}', {json.dumps(json.dumps({'seat': 0, 'token': token}))});")
    page = await ctx.new_page()
    await page.goto(f"{base}/t/{tid}")
    await page.wait_for_selector("[data-testid=hand] [data-card]")
    return ctx, page, tid


async def measure(browser: Any, base: str) -> dict[str, Any]:
    """Bytes the table page loads (cold cache) and its paint timings."""
    tid, token = new_table(base, "Mittari", seed=SEED + 1)
    ctx = await browser.new_context(viewport=DESKTOP)
    await ctx.add_init_script(
        f"localStorage.setItem('rs.seat.{tid}', {json.dumps(json.dumps({'seat': 0, 'token': token}))});")
    page = await ctx.new_page()
    sizes: list[int] = []

    async def on_response(resp: Any) -> None:
        try:
            sizes.append(len(await resp.body()))
        except Exception:  # noqa: BLE001 - e.g. a redirect has no body
            pass

    page.on("response", lambda r: asyncio.ensure_future(on_response(r)))
    t0 = time.perf_counter()
    await page.goto(f"{base}/t/{tid}")
    await page.wait_for_selector("[data-testid=board] [data-card]")
    board_ms = (time.perf_counter() - t0) * 1000
    await page.wait_for_load_state("networkidle")
    paints = await page.evaluate(
        "() => Object.fromEntries(performance.getEntriesByType('paint')"
        ".map(e => [e.name, Math.round(e.startTime)]))")
    resources = await page.evaluate(
        "() => performance.getEntriesByType('resource').length + 1")
    await ctx.close()
    return {"bytes": sum(sizes), "requests": resources,
            "first_paint_ms": paints.get("first-paint"),
            "first_contentful_paint_ms": paints.get("first-contentful-paint"),
            "board_shown_ms": round(board_ms)}


async def shoot(out: Path, langs: list[str], only_measure: bool,
                fmt: str = "jpeg", only: str | None = None) -> dict[str, Any]:
    from playwright.async_api import async_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        raise SystemExit("Chromium is not installed (apt-get install -y chromium)")
    written: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, \
            Server(f"sqlite+aiosqlite:///{tmp}/shots.db", bot_delay=0.05) as srv:
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            try:
                figures = await measure(browser, srv.url)
                if only_measure:
                    return {"measure": figures, "written": written}
                out.mkdir(parents=True, exist_ok=True)

                async def save(page: Any, name: str, full: bool = False) -> None:
                    # JPEG keeps the committed images small (a PNG of the table is ~350 KB)
                    path = out / name.replace(".png", f".{fmt}")
                    extra: dict[str, Any] = {"quality": 62} if fmt == "jpeg" else {}
                    await page.screenshot(path=str(path), full_page=full, type=fmt, **extra)
                    written.append(str(path))

                for lang in langs:
                    name = "Aino" if lang == "fi" else "Alice"
                    # the turn clock (issue 20): a 60-second clock running on your panel
                    if only in (None, "clock"):
                        ctx, page, tid = await open_table(browser, srv.url, lang, LAPTOP, name,
                                                          clock=60)
                        table = srv.app.state.tables.live[tid]
                        await play_until(page, lambda t=table: _moves(t) >= 14)
                        await page.wait_for_selector(".me [data-testid=clock]")
                        await page.wait_for_timeout(3200)  # the countdown has run a little
                        await save(page, f"table-clock-{lang}.png")
                        await ctx.close()
                    if only == "clock":
                        continue
                    # lobby
                    ctx = await browser.new_context(viewport=DESKTOP, reduced_motion="reduce")
                    await ctx.add_init_script(f"localStorage.setItem('rs.lang', {json.dumps(lang)});")
                    page = await ctx.new_page()
                    await page.goto(srv.url + "/")
                    await page.wait_for_selector("[data-action=create]")
                    await save(page, f"lobby-{lang}.png")
                    await ctx.close()
                    # the table fills the window: a 1366x768 laptop and a 1920x1080 screen
                    for size, shot in ((LAPTOP, "table"), (WIDE, "table-wide")):
                        ctx, page, tid = await open_table(browser, srv.url, lang, size, name)
                        table = srv.app.state.tables.live[tid]
                        await play_until(page, lambda t=table: _moves(t) >= 22)
                        await page.wait_for_timeout(300)
                        await save(page, f"{shot}-{lang}.png")
                        await ctx.close()
                    # the end of a (one-deal) match: standings, the winner, rematch
                    ctx, page, tid = await open_table(browser, srv.url, lang, LAPTOP, name,
                                                      options={"match_deals": 1})
                    await play_until(page, lambda pg=page: _has(pg, "[data-testid=standings]"))
                    await page.wait_for_timeout(200)
                    await save(page, f"end-{lang}.png")
                    await ctx.close()
                    # phone, two decks
                    ctx, page, tid = await open_table(browser, srv.url, lang, PHONE, name,
                                                      mobile=True, preset="kaksi-pakkaa")
                    table = srv.app.state.tables.live[tid]
                    await play_until(page, lambda t=table: _moves(t) >= 18)
                    await page.wait_for_timeout(300)
                    await save(page, f"phone-{lang}.png")
                    await ctx.close()
            finally:
                await browser.close()
    return {"measure": figures, "written": written}


def _moves(table: Any) -> int:
    g = table.game
    return len(g.moves) if g is not None else 0


async def _has(page: Any, selector: str) -> bool:
    return bool(await page.locator(selector).count())


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ristiseiska.web.shots",
                                 description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("docs/img"),
                    help="folder for the images (default docs/img)")
    ap.add_argument("--lang", choices=[*i18n.LANGS, "both"], default="both",
                    help="language of the screenshots")
    ap.add_argument("--measure", action="store_true", help="only print page weight and timings")
    ap.add_argument("--format", choices=["jpeg", "png"], default="jpeg",
                    help="image format (default jpeg: small files)")
    ap.add_argument("--only", choices=["clock"], default=None,
                    help="only this screenshot (clock: the turn clock running)")
    args = ap.parse_args(argv)
    try:
        import playwright  # noqa: F401
    except ImportError:
        print("shots needs Playwright: pip install 'ristiseiska[shots]' (and apt-get install chromium)",
              file=sys.stderr)
        return 2
    # both: the two languages of the docs' images (the default and the fallback)
    langs = [i18n.DEFAULT_LANG, i18n.FALLBACK_LANG] if args.lang == "both" else [args.lang]
    result = asyncio.run(shoot(args.out, langs, args.measure, args.format, args.only))
    m = result["measure"]
    print(f"page weight: {m['bytes'] / 1024:.0f} KiB in {m['requests']} requests (cold cache)")
    print(f"first paint: {m['first_paint_ms']} ms, first contentful paint: "
          f"{m['first_contentful_paint_ms']} ms, board shown: {m['board_shown_ms']} ms")
    for path in result["written"]:
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

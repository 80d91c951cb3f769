"""What offline play costs (issue 47): the first download and each bot's time a move in the
browser, measured in Chromium with Playwright (a development tool, like ``web/shots.py``).

    python -m ristiseiska.web.offline_bench [--throttle 4] [--deals 1]

A server on a free port; one visit (counting every byte the page and its service worker
fetch until the offline engine is cached); then, with the network off, a deal per bot level
(``random``, ``basic``, ``expert``, ``neural``: three bots of the level against the first
legal card) with Chromium's CPU throttling (``Emulation.setCPUThrottlingRate``, on the page and
on the engine's worker) and the engine's own time per bot move (measured in the worker around
the engine's call) and per hint. docs/web.md quotes its output.
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import statistics
import tempfile
import time
from typing import Any

LEVELS = ("random", "basic", "expert", "neural")
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
THROTTLED: list[str] = []  # worker sessions that answered the throttling command
CACHED = """async () => {
  let n = 0;
  for (const key of await caches.keys()) {
    if (!key.startsWith("rs-")) continue;
    const cache = await caches.open(key);
    for (const req of await cache.keys()) n += (await (await cache.match(req)).arrayBuffer()).byteLength;
  }
  return n;
}"""


async def _throttle(ctx: Any, page: Any, rate: float) -> None:
    """CPU throttling on the page and on every worker of its renderer (the engine's)."""
    cdp = await ctx.new_cdp_session(page)
    await cdp.send("Emulation.setCPUThrottlingRate", {"rate": rate})
    await cdp.send("Target.setAutoAttach", {"autoAttach": True, "waitForDebuggerOnStart": False,
                                            "flatten": False})

    def attached(event: dict[str, Any]) -> None:
        sid = event["sessionId"]
        asyncio.ensure_future(cdp.send("Target.sendMessageToTarget", {
            "sessionId": sid, "message": '{"id": 1, "method": "Emulation.setCPUThrottlingRate", '
            f'"params": {{"rate": {rate}}}}}'}))

    cdp.on("Target.attachedToTarget", attached)
    cdp.on("Target.receivedMessageFromTarget",
           lambda e: THROTTLED.append(e["sessionId"]) if '"id":1,' in e["message"] else None)


async def measure(throttle: float, deals: int) -> dict[str, Any]:
    from playwright.async_api import Error as PlaywrightError
    from playwright.async_api import async_playwright

    from .shots import CHROMIUM_ARGS, Server

    out: dict[str, Any] = {"throttle": throttle}
    with tempfile.TemporaryDirectory() as tmp, Server(f"sqlite+aiosqlite:///{tmp}/b.db",
                                                      0.05) as server:
        url = server.url
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            ctx = await browser.new_context()
            sizes: list[int] = []

            async def count(response: Any) -> None:
                try:
                    sizes.append(len(await response.body()))
                except Exception:  # noqa: BLE001 - redirects and aborted requests have none
                    pass

            ctx.on("response", lambda r: asyncio.ensure_future(count(r)))
            page = await ctx.new_page()
            await page.goto(url + "/")
            await page.wait_for_function("() => navigator.serviceWorker.controller !== null",
                                         timeout=300_000)
            await page.wait_for_function("""async () => {
              const key = (await caches.keys()).find((k) => k.startsWith("rs-engine-"));
              return !!key && !!(await (await caches.open(key)).match("/offline/engine.zip"));
            }""", timeout=300_000)
            await page.wait_for_timeout(500)
            out["page_bytes"] = sum(sizes)  # the page's own requests (the worker's not seen)
            out["cached_bytes"] = await page.evaluate(CACHED)
            await ctx.set_offline(True)
            for level in LEVELS:
                print(f"{level}…", flush=True)
                await page.goto(url + "/")
                await page.evaluate("() => localStorage.setItem('rs.offline.delay', '0')")
                await page.select_option("[data-action=offline-level]", level)
                await page.click("button[data-action=play-offline]")
                await page.wait_for_url("**/offline-game")
                await _throttle(ctx, page, throttle)
                await page.evaluate("() => { window.__rsTimes = []; }")
                t0 = time.perf_counter()
                await page.wait_for_selector("[data-testid=hand] [data-card]", timeout=300_000)
                out.setdefault("boot_s", []).append(round(time.perf_counter() - t0, 1))
                hints: list[float] = []
                for deal in range(deals):
                    while not await page.locator("[data-testid=result]").count():
                        cards = page.locator("[data-testid=hand] button[data-legal=true]")
                        if await page.locator("button[data-action=hint]").count() and len(hints) < 5:
                            n = await page.evaluate("() => window.__rsTimes.length")
                            await page.click("button[data-action=hint]")
                            await page.wait_for_function(
                                f"() => window.__rsTimes.slice({n}).some((m) => m.request === 'hint')")
                            hints += await page.evaluate(
                                f"() => window.__rsTimes.slice({n}).filter((m) => m.request === 'hint').map((m) => m.ms)")
                        try:  # the page may re-render under a click: try again
                            if await cards.count():
                                await cards.first.click(position={"x": 6, "y": 12}, timeout=5000)
                                continue
                            for action in ("token", "pass", "ask", "draw", "chip", "stop"):
                                b = page.locator(f"button[data-action={action}]")
                                if await b.count():
                                    await b.first.click(timeout=5000)
                                    break
                            else:
                                await page.wait_for_timeout(30)
                        except PlaywrightError:
                            pass
                    if deal + 1 < deals:
                        await page.click("button[data-action=next-deal]")
                        await page.wait_for_selector("[data-testid=result]", state="detached")
                times = await page.evaluate(
                    "() => window.__rsTimes.filter((m) => m.request === 'bot').map((m) => m.ms)")
                out[level] = times
                out.setdefault("hint", []).extend(hints)
            await browser.close()
    return out


def summary(values: list[float]) -> str:
    if not values:
        return "–"
    v = sorted(values)
    p95 = v[min(len(v) - 1, int(len(v) * 0.95))]
    return (f"{len(v):4d} moves  median {statistics.median(v):7.1f} ms  p95 {p95:7.1f} ms  "
            f"max {v[-1]:7.1f} ms")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--throttle", type=float, default=4.0, help="CPU slow-down (1: none)")
    ap.add_argument("--deals", type=int, default=1, help="deals per bot level")
    args = ap.parse_args(argv)
    r = asyncio.run(measure(args.throttle, args.deals))
    print(f"first visit: the service worker caches {r['cached_bytes'] / 1e6:.1f} MB (the app "
          f"shell and the offline engine); the page itself fetched {r['page_bytes'] / 1e6:.1f} MB")
    print(f"throttling reached {len(set(THROTTLED))} worker(s) besides the page")
    print(f"engine start (throttle {args.throttle:g}×), s: {r['boot_s']}")
    for level in LEVELS:
        print(f"{level:7s} {summary(r[level])}")
    print(f"{'hint':7s} {summary(r['hint'])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

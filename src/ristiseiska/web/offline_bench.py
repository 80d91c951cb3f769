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
THROTTLED: list[str] = []  # the workers' answers to the throttling command
# a fixed piece of work, timed before and after the throttling (what it does on this machine)
LOOP = """() => { const t0 = performance.now(); let x = 0;
  for (let i = 0; i < 5e7; i++) x += i % 7; return performance.now() - t0; }"""
# The engine's own loop on the page's main thread (Chromium throttles only pages: a worker
# answers "Operation is only supported for pages, not workers"): Pyodide, the engine archive
# and offline.handle as the worker runs them, a deal per level, each bot move timed.
MAIN_THREAD = """async ({ levels, deals }) => {
  const { loadPyodide } = await import("/static/vendor/pyodide/pyodide.mjs");
  const t0 = performance.now();
  const py = await loadPyodide({ indexURL: "/static/vendor/pyodide/", fullStdLib: false });
  const r = await fetch("/offline/engine.zip");
  py.unpackArchive(await r.arrayBuffer(), "zip", { extractDir: "/home/pyodide/engine" });
  py.runPython("import sys; sys.path.insert(0, '/home/pyodide/engine'); from ristiseiska import offline");
  const off = py.globals.get("offline");
  const out = { boot_ms: performance.now() - t0 };
  const timed = (list, msg) => { const t = performance.now(); const a = off.handle(msg);
    list.push(performance.now() - t); return a; };
  for (const level of levels) {
    const bots = [], hints = [], start = [];
    timed(start, JSON.stringify({ type: "start", config: { preset: "ristiseiska",
      bots: [level, level, level], seed: 7, name: "A" } }));
    for (let d = 0; d < deals; d++) {
      for (;;) {
        if (off.bot_due()) { timed(bots, '{"type": "bot"}'); continue; }
        const st = JSON.parse(off.handle('{"type": "state"}'))[0];
        if (st.view.phase === "over") break;
        if (hints.length < 10) timed(hints, '{"type": "hint"}');
        off.handle(JSON.stringify({ type: "move", move: st.view.legal_moves[0] }));
      }
      if (d + 1 < deals) off.handle('{"type": "next-deal"}');
    }
    out[level] = bots; out["hint " + level] = hints; out["start " + level] = start;
  }
  return out;
}"""
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
           lambda e: THROTTLED.append(e["message"]) if '"id":1,' in e["message"] else None)


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
            out["wire_bytes"] = wire_bytes(url)
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
            # the same engine on a page's main thread, which the throttling reaches (the
            # context may compile WebAssembly on its page: the CSP gives that to the worker)
            await ctx.set_offline(False)
            main_ctx = await browser.new_context(bypass_csp=True)
            main_page = await main_ctx.new_page()
            await main_page.goto(url + "/offline.html")
            cdp = await main_ctx.new_cdp_session(main_page)
            out["loop_ms"] = [await main_page.evaluate(LOOP)]
            await cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
            out["loop_ms"].append(await main_page.evaluate(LOOP))
            print("main thread…", flush=True)
            out["main"] = await main_page.evaluate(MAIN_THREAD, {"levels": list(LEVELS),
                                                                 "deals": deals})
            await browser.close()
    return out


def wire_bytes(url: str) -> int:
    """The bytes of every file the service worker caches as they cross the network to a
    browser that accepts gzip (the Pyodide files come compressed: ``web/pwa.py``)."""
    import urllib.request

    from .pwa import offline

    o = offline()
    total = 0
    for path in o.shell + o.engine:
        req = urllib.request.Request(url + path, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(req, timeout=60) as r:  # (urllib does not decompress)
            total += len(r.read())
    return total


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
    print(f"over the network (gzip where the server compresses): {r['wire_bytes'] / 1e6:.1f} MB")
    refused = sum("error" in m for m in THROTTLED)
    print(f"the offline game's worker (as played; Chromium refused the throttling for "
          f"{refused} of {len(THROTTLED)} worker(s): {THROTTLED[:1]}):")
    print(f"  engine start with the first deal, s: {r['boot_s']}")
    for level in LEVELS:
        print(f"  {level:7s} {summary(r[level])}")
    print(f"  {'hint':7s} {summary(r['hint'])}")
    m = r["main"]
    free, slow = r["loop_ms"]
    print(f"the same engine on a page's main thread, throttled {args.throttle:g}× (a fixed "
          f"loop took {free:.0f} ms, throttled {slow:.0f} ms: {slow / free:.1f}× slower): "
          f"Pyodide and the engine loaded in {m['boot_ms'] / 1000:.1f} s")
    for level in LEVELS:
        print(f"  {level:7s} {summary(m[level])}  (start of the match "
              f"{m['start ' + level][0]:.0f} ms)")
        print(f"  {'hint':7s} {summary(m['hint ' + level])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

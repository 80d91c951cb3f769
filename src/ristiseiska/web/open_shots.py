"""Screenshots of the lobby with open tables (issue 20), for the docs.

    python -m ristiseiska.web.open_shots            # docs/img/lobby-open-{fi,en}{,-phone}.jpeg

A throwaway server (temporary SQLite database, loopback only) gets a few open tables — a host
waiting for a friend, a quick table with two players, a table with house rules and a clock
setting where the server knows one; a quick table whose bots sat down is not listed (nobody
joins a started match) — and headless Chromium
photographs the lobby at 1366×657 and 390×844. A developer tool: it needs Playwright and
Chromium, like ``web.shots``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from .. import i18n
from .shots import CHROMIUM_ARGS, LAPTOP, PHONE, Server, _post


def populate(base: str, app: Any) -> None:
    """The open tables shown: made through the HTTP API as players would."""
    import time

    friend = {"kind": "friend"}
    app.state.open_index.quick_wait = 0.5  # this one's bots sit down: then it is not listed
    _post(f"{base}/api/quick", {"name": "Jussi"})
    time.sleep(1.5)
    t = _post(f"{base}/api/tables", {"open": True, "options": {"token_value": 30}, "seats": [
        {"kind": "friend", "name": "Aino"}, friend, {"kind": "bot", "bot": "basic"},
        {"kind": "bot", "bot": "expert"}]})
    _post(f"{base}/api/tables/{t['id']}/seats/0", {"name": "Aino"})
    t = _post(f"{base}/api/tables", {"open": True, "preset": "sjuan", "seats": [
        {"kind": "friend", "name": "Mikko"}, friend, friend, friend, {"kind": "bot"}],
        "options": {"match_deals": 3}})
    _post(f"{base}/api/tables/{t['id']}/seats/0", {"name": "Mikko"})
    _post(f"{base}/api/tables/{t['id']}/seats/1", {"name": "Sanna"})
    app.state.open_index.quick_wait = 600.0  # the quick table keeps waiting for the photo
    q = _post(f"{base}/api/quick", {"name": "Leena"})
    _post(f"{base}/api/quick", {"name": "Petri"})
    assert q["seat"] == 0


async def shoot(out: Path, langs: list[str]) -> list[str]:
    from playwright.async_api import async_playwright

    chromium = shutil.which("chromium") or "/usr/bin/chromium"
    if not Path(chromium).exists():
        raise SystemExit("Chromium is not installed (apt-get install -y chromium)")
    written: list[str] = []
    with tempfile.TemporaryDirectory() as tmp, \
            Server(f"sqlite+aiosqlite:///{tmp}/shots.db", bot_delay=0.05) as srv:
        await asyncio.to_thread(populate, srv.url, srv.app)
        out.mkdir(parents=True, exist_ok=True)
        async with async_playwright() as p:
            browser = await p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            try:
                for lang in langs:
                    for size, suffix in ((LAPTOP, ""), (PHONE, "-phone")):
                        phone = size is PHONE
                        ctx = await browser.new_context(viewport=size, reduced_motion="reduce",
                                                        is_mobile=phone, has_touch=phone)
                        name = "Aino" if lang == "fi" else "Alice"
                        await ctx.add_init_script(
                            f"localStorage.setItem('rs.lang', {json.dumps(lang)});"
                            f"localStorage.setItem('rs.name', {json.dumps(name)});")
                        page = await ctx.new_page()
                        await page.goto(srv.url + "/")
                        await page.wait_for_selector("[data-testid=open-table]")
                        # the open tables sit below Play and the rule cards (issue 60)
                        await page.locator("[data-testid=open-lobby]").evaluate(
                            "(e) => e.scrollIntoView({ block: 'start' })")
                        await page.wait_for_timeout(200)
                        path = out / f"lobby-open-{lang}{suffix}.jpeg"
                        await page.screenshot(path=str(path), type="jpeg", quality=62)
                        written.append(str(path))
                        await ctx.close()
            finally:
                await browser.close()
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ristiseiska.web.open_shots",
                                 description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=Path("docs/img"))
    ap.add_argument("--lang", choices=[*i18n.LANGS, "both"], default="both")
    args = ap.parse_args(argv)
    try:
        import playwright  # noqa: F401
    except ImportError:
        print("open_shots needs Playwright (the dev extra) and Chromium", file=sys.stderr)
        return 2
    # both: the two languages of the docs' images (the default and the fallback)
    langs = [i18n.DEFAULT_LANG, i18n.FALLBACK_LANG] if args.lang == "both" else [args.lang]
    for path in asyncio.run(shoot(args.out, langs)):
        print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Real-browser tests: a live server in a thread and Debian's Chromium through Playwright.

Run them in their own pytest call (``pytest tests/browser``); they are skipped when Chromium or
Playwright is missing. Needs ``apt-get install -y chromium`` (Playwright's own download is not
used).
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
        "--disable-background-networking", "--disable-component-update", "--disable-sync",
        "--no-first-run", "--disable-quic"]

playwright_api = pytest.importorskip("playwright.async_api")
if not Path(CHROMIUM).exists():
    pytest.skip("Chromium is not installed (apt-get install -y chromium)",
                allow_module_level=True)


class LiveServer:
    """uvicorn in a daemon thread; ``restart()`` stops it and starts a fresh app on the same
    database and port, as a server restart would."""

    def __init__(self, db: str, bot_delay: float = 0.05) -> None:
        self.db = db
        self.bot_delay = bot_delay
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        self.port = s.getsockname()[1]
        s.close()
        self.url = f"http://127.0.0.1:{self.port}"
        self.app: Any = None
        self.server: Any = None
        self.thread: threading.Thread | None = None

    def start(self) -> None:
        import uvicorn

        from ristiseiska.web.app import create_app

        self.app = create_app(self.db, bot_delay=self.bot_delay)
        config = uvicorn.Config(self.app, log_level="warning", ws_max_size=1 << 20)
        self.server = uvicorn.Server(config)
        sock = socket.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        self.thread = threading.Thread(
            target=lambda: asyncio.run(self.server.serve(sockets=[sock])), daemon=True)
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if time.monotonic() > deadline:
                raise RuntimeError("the test server did not start")
            time.sleep(0.02)

    def stop(self) -> None:
        if self.server is not None:
            self.server.should_exit = True
            if self.thread is not None:
                self.thread.join(timeout=20)
            self.server = None

    def restart(self) -> None:
        self.stop()
        self.start()

    def table(self, table_id: str) -> Any:
        live = self.app.state.tables.live
        if table_id not in live:  # tables are loaded on first visit, not at start-up
            import urllib.request

            urllib.request.urlopen(f"{self.url}/api/tables/{table_id}", timeout=20).close()
        return live[table_id]


@pytest.fixture
def live_server(tmp_path: Path) -> Iterator[LiveServer]:
    srv = LiveServer(f"sqlite+aiosqlite:///{tmp_path / 'browser.db'}")
    srv.start()
    yield srv
    srv.stop()


class FinnishFirst:
    """The browser, its contexts in Finnish unless a test names another ``locale``: a first
    visit takes the browser's language (issue 61), and these tests were written for the page's
    Finnish default."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)

    async def new_context(self, **kw: Any) -> Any:
        kw.setdefault("locale", "fi-FI")
        return await self._browser.new_context(**kw)

    async def new_page(self, **kw: Any) -> Any:
        kw.setdefault("locale", "fi-FI")
        return await self._browser.new_page(**kw)


@pytest_asyncio.fixture
async def browser() -> AsyncIterator[Any]:
    async with playwright_api.async_playwright() as p:
        b = await p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield FinnishFirst(b)
        await b.close()


async def open_setup(page: Any) -> None:
    """Open the lobby's full set-up (a disclosure under Play and the rule cards, issue 60)."""
    await page.click("[data-action=setup]")
    await page.wait_for_selector("[data-action=create]")


async def counted(page: Any, timeout: float = 30_000) -> None:
    """Wait until every figure that counts up (a deal's points, a total: ui/motion.js) shows
    its final value."""
    await page.wait_for_function("() => !document.querySelector('[data-counting]')",
                                 timeout=timeout)

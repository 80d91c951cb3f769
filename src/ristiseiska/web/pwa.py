"""The installable app and offline play (issue 47): manifest, service worker, offline page, and
the project's own engine packed for the browser.

- ``GET /manifest.webmanifest`` — name, icons (``static/icons``, drawn by ``web/icons.py``),
  theme colour, ``display: standalone``.
- ``GET /sw.js`` — the service worker (``static/pwa/sw.js``) with this server's version and
  its file lists filled in. The version is a hash of every static file and of the engine
  archive, so any change of either gives a new cache and the old one is dropped.
- ``GET /offline.html`` — what a page that needs the server shows without a network.
- The app shell the worker keeps also has every preset's rules in both languages
  (``GET /api/rules?preset=P&lang=L``, web/app.py), so the lobby shows them offline.
- ``GET /offline-game`` — the page of the match played in the browser (``ui/offline.js``).
- ``GET /offline/engine.zip`` — the engine's Python modules, read from this installed package
  when the server starts: the browser plays with exactly the server's rules (one engine).
- ``GET /static/vendor/pyodide/FILE`` — Pyodide's files, gzip-compressed on the wire for a
  browser that accepts it (:data:`GZIP_FILES`: the WebAssembly binary shrinks from 9.6 to
  3.6 MB), compressed once per server and kept in memory; other files as they are.
- ``GET /offline/worker.js`` — the Web Worker that runs Pyodide (vendored under
  ``static/vendor/pyodide``) with that archive. Its own Content-Security-Policy adds
  ``'wasm-unsafe-eval'`` (WebAssembly may be compiled) for the worker only; the pages keep
  the strict policy of ``security.CSP``.
"""

from __future__ import annotations

import asyncio
import gzip
import hashlib
import io
import json
import mimetypes
import threading
import zipfile
from importlib import resources
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from .. import i18n
from ..rules import PRESETS
from .security import CSP

STATIC = resources.files("ristiseiska.web").joinpath("static")
PACKAGE = resources.files("ristiseiska")
THEME = "#1f6b43"  # --green of style.css
PYODIDE = "vendor/pyodide"
# what the worker loads of it (its licence and package.json are not fetched)
PYODIDE_FILES = ("pyodide.mjs", "pyodide.asm.mjs", "pyodide.asm.wasm", "python_stdlib.zip",
                 "pyodide-lock.json")
# what gzip shrinks (python_stdlib.zip is compressed already)
GZIP_FILES = ("pyodide.asm.wasm", "pyodide.asm.mjs", "pyodide.mjs", "pyodide-lock.json")
# the worker may compile WebAssembly (Pyodide); nothing else is loosened
WORKER_CSP = CSP.replace("script-src 'self'", "script-src 'self' 'wasm-unsafe-eval'")

# The engine's modules the browser needs: the pure-Python core, the catalogs, the rules
# explained, the quick bots and the plain-Python evaluation of the shipped network (the
# ``neural`` level, with the weights file itself: :data:`WEIGHTS`). ``bots/__init__.py`` is
# replaced by a registry of these bots only (the package's own imports the searching bots,
# which need numpy and numba).
ENGINE_MODULES = [
    "__init__.py", "cards.py", "rules.py", "table.py", "game.py", "state.py", "legal.py",
    "refusals.py", "dealing.py", "kernel_rules.py", "match.py", "record.py",
    "view.py", "moves.py", "scoring.py", "fair.py", "explain.py", "offline.py", "forced.py",
    "i18n/__init__.py", "i18n/grammar.py",
    "bots/base.py", "bots/cardtypes.py", "bots/expert.py", "bots/history.py", "bots/knowledge.py",
    "bots/reasons.py", "bots/simple.py", "bots/neural_plain.py", "learn/__init__.py",
    "daily/deal.py",
]
WEIGHTS = "learn/weights/neural.npz"  # the server's neural bot's own file, not a copy
OFFLINE_BOTS = ("random", "basic", "expert", "neural")
RENDERER = ("markdown_it", "mdurl")
BOTS_INIT = '''"""The bots the browser plays (issue 47): the pure-Python levels of ristiseiska.bots."""
from .base import Bot
from .expert import BasicBot, ExpertBot
from .reasons import render
from .simple import RandomBot

BOTS = {"random": RandomBot, "basic": BasicBot, "expert": ExpertBot, "neural": None}
BOT_NAMES = tuple(BOTS)


def get_bot(name, seed=None, **options):
    key = name.strip().lower() if isinstance(name, str) else None
    if key == "neural":  # the network's weights are read on first use only
        from .neural_plain import PlainNeuralBot

        return PlainNeuralBot(seed=seed, **options)
    cls = BOTS.get(key)
    if cls is None:
        raise ValueError(f"unknown bot {name!r}; known bots: {', '.join(BOTS)}")
    return cls(seed=seed, **options)
'''


# The daily deal offline (issue 57) needs daily/deal.py only: the package's __init__ imports
# the day's time zone (Europe/Helsinki), and Pyodide has no time-zone database. The day is the
# server's business (it hands out the deal), so the browser's daily/day.py holds its error only.
DAILY_STUBS = {
    "daily/__init__.py": '"""The daily deal in the browser (issue 57): daily.deal only."""\n',
    "daily/day.py": ('"""The browser\'s stand-in for daily/day.py (no time zones in Pyodide)."""\n\n\n'
                     "class DailyError(ValueError):\n"
                     '    """Bad input to the daily deal."""\n'),
}


def engine_zip() -> bytes:
    """The archive of :data:`ENGINE_MODULES`, every catalog (as ``ristiseiska/...``) and the
    Markdown renderer (:data:`RENDERER`); the same bytes for the same sources (fixed dates),
    so its hash is a version."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        def add(name: str, data: bytes, top: str = "ristiseiska/") -> None:
            info = zipfile.ZipInfo(top + name, date_time=(2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            z.writestr(info, data)

        for name in ENGINE_MODULES:
            add(name, PACKAGE.joinpath(name).read_bytes())
        add("bots/__init__.py", BOTS_INIT.encode())
        for name, text in DAILY_STUBS.items():
            add(name, text.encode())
        # already compressed (an .npz): stored as it is
        info = zipfile.ZipInfo("ristiseiska/" + WEIGHTS, date_time=(2026, 1, 1, 0, 0, 0))
        z.writestr(info, PACKAGE.joinpath(WEIGHTS).read_bytes(), zipfile.ZIP_STORED)
        for entry in sorted(PACKAGE.joinpath("i18n").iterdir(), key=lambda e: e.name):
            if entry.name.endswith(".json"):
                add(f"i18n/{entry.name}", entry.read_bytes())
        # the rule book's Markdown renderer (explain.py), a dependency of the package: the
        # installed copy, as the server uses it (both MIT)
        for dep in RENDERER:
            root = resources.files(dep)
            for path in _py_files(root, ""):
                add(path, root.joinpath(path).read_bytes(), top=f"{dep}/")
    return buf.getvalue()


def _py_files(root: Any, prefix: str) -> list[str]:
    out: list[str] = []
    for entry in sorted(root.iterdir(), key=lambda e: e.name):
        if entry.is_dir() and entry.name != "__pycache__":
            out += _py_files(entry, f"{prefix}{entry.name}/")
        elif entry.name.endswith(".py"):
            out.append(prefix + entry.name)
    return out


def static_files() -> list[str]:
    """Every static file's path under ``/static/`` (sorted), Pyodide's apart."""
    out: list[str] = []

    def walk(d: Any, prefix: str) -> None:
        for entry in d.iterdir():
            if entry.is_dir():
                walk(entry, f"{prefix}{entry.name}/")
            elif not entry.name.startswith(".") and entry.name != "README.md":
                out.append(prefix + entry.name)

    walk(STATIC, "")
    return sorted(out)


def manifest(lang: str = i18n.DEFAULT_LANG) -> dict[str, Any]:
    lang = i18n.norm_lang(lang)
    icons = [{"src": "/static/icons/icon-192.png", "sizes": "192x192", "type": "image/png",
              "purpose": "any"},
             {"src": "/static/icons/icon-512.png", "sizes": "512x512", "type": "image/png",
              "purpose": "any"},
             {"src": "/static/icons/maskable-512.png", "sizes": "512x512", "type": "image/png",
              "purpose": "maskable"}]
    return {
        "name": "Ristiseiska", "short_name": "Ristiseiska", "id": "/", "start_url": "/",
        "scope": "/", "display": "standalone", "orientation": "any", "lang": lang,
        "description": i18n.t("offline.manifest_description", lang),
        "theme_color": THEME, "background_color": THEME, "icons": icons,
        "categories": ["games"],
    }


class Offline:
    """What the routes serve, computed once per app (the package does not change under a
    running server)."""

    def __init__(self) -> None:
        self.zip = engine_zip()
        files = static_files()
        h = hashlib.sha256(self.zip)
        for f in files:
            h.update(f.encode())
            h.update(STATIC.joinpath(f).read_bytes())
        self.version = h.hexdigest()[:16]
        langs = i18n.LANGS
        self.shell = ["/", "/offline.html", "/manifest.webmanifest", "/api/langs", "/api/meta"] + [
            f"/api/i18n/{lang}" for lang in langs] + [
            f"/api/meta?lang={lang}" for lang in langs] + [
            f"/static/{f}" for f in files if not f.startswith(PYODIDE + "/")] + [
            f"/api/rules?preset={name}&lang={lang}" for name in PRESETS for lang in langs]
        self.engine = ["/offline/worker.js", "/offline/engine.zip"] + [
            f"/static/{PYODIDE}/{f}" for f in PYODIDE_FILES]

        self._gz: dict[str, bytes] = {}
        self._gz_lock = threading.Lock()

    def gzipped(self, name: str) -> bytes:
        """A Pyodide file gzip-compressed (:data:`GZIP_FILES`; compressed on first use)."""
        with self._gz_lock:
            if name not in self._gz:
                data = STATIC.joinpath(PYODIDE, name).read_bytes()
                self._gz[name] = gzip.compress(data, 6, mtime=0)
            return self._gz[name]

    def sw(self) -> str:
        text = STATIC.joinpath("pwa", "sw.js").read_text("utf-8")
        return (text.replace('"__VERSION__"', json.dumps(self.version))
                .replace('["__SHELL__"]', json.dumps(self.shell))
                .replace('["__ENGINE__"]', json.dumps(self.engine)))


router = APIRouter()
_OFFLINE: list[Offline] = []


def offline() -> Offline:
    if not _OFFLINE:
        _OFFLINE.append(Offline())
    return _OFFLINE[0]


@router.get("/manifest.webmanifest", include_in_schema=False)
async def get_manifest(request: Request) -> Response:
    lang = i18n.norm_lang(request.query_params.get("lang", "")[:8] or i18n.DEFAULT_LANG)
    return JSONResponse(manifest(lang), media_type="application/manifest+json",
                        headers={"Cache-Control": "no-cache"})


@router.get("/sw.js", include_in_schema=False)
async def get_sw() -> Response:
    # never cached by HTTP: the browser must see a new version as soon as it is served
    return Response(offline().sw(), media_type="text/javascript",
                    headers={"Cache-Control": "no-cache", "Service-Worker-Allowed": "/"})


@router.get("/offline.html", include_in_schema=False)
async def get_offline_page() -> Response:
    return Response(offline_page(), media_type="text/html; charset=utf-8")


def offline_page() -> str:
    """The page a server page falls back to without a network: pwa/offline.html with a section
    per language of i18n.LANGS, the default's first (the words from the offline.page.* texts)."""
    from html import escape

    sections = []
    for i, lang in enumerate(i18n.LANGS):
        text = escape(i18n.t("offline.page.text", lang, play="\0")).replace(
            "\0", f"<strong>{escape(i18n.t('offline.play', lang))}</strong>")
        first = ' data-testid="offline-page"' if i == 0 else ""
        action = ' data-action="lobby"' if i == 0 else ""
        sections.append(
            f'<section class="panel" lang="{lang}"{first}>\n'
            f"<h2>{escape(i18n.t('offline.page.head', lang))}</h2>\n<p>{text}</p>\n"
            f'<p><a class="button" href="/"{action}>{escape(i18n.t("offline.page.button", lang))}'
            "</a></p>\n</section>")
    page = STATIC.joinpath("pwa", "offline.html").read_text("utf-8")
    return page.replace("<!--SECTIONS-->", "\n".join(sections))


@router.get("/offline-game", include_in_schema=False)
async def get_offline_game() -> FileResponse:
    return FileResponse(str(STATIC.joinpath("index.html")))


@router.get("/offline/engine.zip", include_in_schema=False)
async def get_engine() -> Response:
    o = offline()
    return Response(o.zip, media_type="application/zip",
                    headers={"Cache-Control": "no-cache", "X-Engine-Version": o.version})


@router.get("/static/vendor/pyodide/{name}", include_in_schema=False)
async def get_pyodide(name: str, request: Request) -> Response:
    """Pyodide's files (before the static mount): the large text and WebAssembly ones
    gzip-compressed when the browser accepts it, which it decompresses before its caches."""
    path = STATIC.joinpath(PYODIDE, name)
    if "/" in name or name.startswith(".") or not path.is_file():
        return Response(status_code=404)
    media = mimetypes.guess_type(name)[0] or "application/octet-stream"
    if name.endswith((".mjs", ".js")):
        media = "text/javascript"
    elif name.endswith(".wasm"):
        media = "application/wasm"
    accepts = "gzip" in request.headers.get("accept-encoding", "").lower()
    if name in GZIP_FILES and accepts:
        body = await asyncio.to_thread(offline().gzipped, name)
        return Response(body, media_type=media,
                        headers={"Content-Encoding": "gzip", "Vary": "Accept-Encoding"})
    return FileResponse(str(path), media_type=media, headers={"Vary": "Accept-Encoding"})


@router.get("/offline/worker.js", include_in_schema=False)
async def get_worker() -> Response:
    text = STATIC.joinpath("pwa", "worker.js").read_text("utf-8")
    return Response(text, media_type="text/javascript",
                    headers={"Cache-Control": "no-cache", "content-security-policy": WORKER_CSP})

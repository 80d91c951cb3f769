"""The FastAPI app: lobby and table HTTP API, the WebSocket game protocol, static files.

WebSocket protocol (``/ws/{table_id}``), JSON text frames, at most ``MAX_MESSAGE`` bytes:

client → server
  ``{"type": "join", "seat": 2, "token": "…"}``   sit down with the seat token from claiming
  ``{"type": "move", "move": "H6", "id": 7}``     play (``id`` is echoed in the ack)
  ``{"type": "next-deal"}`` · ``{"type": "hint"}`` · ``{"type": "lang", "lang": "en"}`` ·
  ``{"type": "ping"}`` · ``{"type": "start"}`` (the host starts before every friend has come;
  bots stand in) · ``{"type": "replace", "target": 2}`` (the host seats a bot for a friend
  away past the grace time; the friend takes the seat back by joining again) ·
  ``{"type": "chat", "phrase": ID}`` / ``{"type": "chat", "text": T}`` (table talk, chat.py)
  ``{"type": "back"}`` (*I'm back*: the player takes back the seat the turn clock's stand-in
  kept after two timeouts in a row; web/clock.py)
server → client
  ``{"type": "state", "you": seat|null, "table": {…}, "sheet": {…}, "deal": n, "view": {…},
  "log": […], "labels": {…}}`` — ``view`` is ``Game.view(you).to_dict()``; a spectator's has no
  hand and no moves; ``view`` is ``null`` for everyone, the host included, while the table
  waits for its friends (``table.waiting``); ``table`` (seats, rules) is left out when
  unchanged since the last state; a table with a turn clock adds ``"clock": {"seat": S,
  "remaining_ms": M}`` while a friend decides, else ``null`` (web/clock.py); a table with
  ``auto_forced`` (the default) adds ``"forced": {"seat": S, "move": "token", "remaining_ms":
  M}`` while the server waits to make a person's only, forced move, else ``null``
  (web/forced.py)
  ``{"type": "ack", "move": "H6", "id": 7}`` (after the move is stored) ·
  ``{"type": "hint", "move": …, "reason": …}`` · ``{"type": "error", "code": …, "message": …}``
  · ``{"type": "pong"}`` · ``{"type": "chat", "seat": S|null, "name": N, "phrase": ID}`` (or
  ``"text"``; to everyone at the table) · ``{"type": "notice", "code": "warming", "level":
  "master"}`` (once per table: that level's compiled code is still being built, so it plays by
  the expert's rules meanwhile; bots/pool.py ``STAND_IN``) · ``"saving-retry"``/``"saved"``
  notices (web/bot_driver.py)

A bad message gets an error reply to its sender only; nothing changes and the socket stays open.
A move's ``id`` makes it idempotent: a resent id gets the same ack again and is not played twice.
Limits, origins, headers and hostile input are handled in ``security.py``.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import dataclasses
import html
import logging
import time
from collections.abc import AsyncIterator, Callable
from importlib import resources
from typing import Any

from fastapi import FastAPI, Query, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from fastapi.staticfiles import StaticFiles

from .. import i18n
from ..bots.pool import BotPool
from ..cards import CARDS
from ..game import Game, SetupError
from ..i18n import PLAYER_NAMES as BOT_FIRST_NAMES
from ..offline import replay_frames
from ..ops.metrics import Metrics
from ..record import dumps_record
from ..rules import CHOICES, OPTION_HELP, PRESETS, Rules, RulesError, preset
from ..store import Store
from . import bot_api, chat, open_tables, player_pages, rated
from . import bots as botlib
from .analysis_api import close_pool as close_analysis_pool
from .analysis_api import router as analysis_router
from .clock import option as clock_option
from .connections import Conn
from .daily_api import router as daily_router
from .daily_page import router as daily_page_router
from .errors import ActionError
from .forced import option as forced_option
from .identity_api import router as identity_router
from .live_table import LiveTable
from .ops_api import router as ops_router
from .players import router as players_router
from .puzzles_api import router as puzzles_router
from .pwa import router as pwa_router
from .rates import SharedRate
from .records import finished, record_of
from .rematch import router as rematch_router
from .rule_texts import explain, explain_html, fairness_text
from .seats import MAX_NAME
from .security import (
    Guard,
    InputError,
    Limits,
    RateLimiter,
    SecurityHeaders,
    clean_text,
    json_body,
    name_key,
    parse_json,
)
from .table_views import _dumps
from .tables import Tables

log = logging.getLogger("ristiseiska.web")

MAX_MESSAGE = 4096
MAX_BODY = 16384
STATIC = resources.files("ristiseiska.web").joinpath("static")


_STATUS = {"no-table": 404, "store": 503, "storage-fault": 503, "server-full": 429}


def _err(e: ActionError, status: int = 400) -> JSONResponse:
    status = _STATUS.get(e.code, status)
    headers = {"Retry-After": "60"} if status in (429, 503) else None
    if e.code == "moved":  # another process holds the table for a few seconds more
        status, headers = 503, {"Retry-After": "5"}
    return JSONResponse({"error": e.code, "message": e.message}, status_code=status,
                        headers=headers)


def lobby_meta(lang: str) -> dict[str, Any]:
    """Presets, every rule option with its labels in ``lang``, and the bot levels."""
    ex: Any
    try:
        from .. import explain as ex
    except ImportError:  # pragma: no cover - explain ships with the package
        ex = None

    def call(fn: str, *a: Any, default: str) -> str:
        f = getattr(ex, fn, None) if ex else None
        try:
            return str(f(*a, lang)) if f else default
        except Exception:  # noqa: BLE001 - a missing text falls back to the raw name
            return default

    options: dict[str, Any] = {}
    defaults = Rules()
    for f in dataclasses.fields(Rules):
        if f.name == "name":
            continue
        choices = list(CHOICES.get(f.name, {}))
        options[f.name] = {
            "type": f.type, "default": getattr(defaults, f.name), "choices": choices,
            "label": call("option_label", f.name, default=f.name),
            "help": call("option_help", f.name, default=OPTION_HELP.get(f.name, "")),
            "choice_labels": {c: call("option_value_label", f.name, c, default=c)
                              for c in choices},
        }
    presets = [{"name": n, "description": call("preset_summary", n, default=d),
                "title": call("preset_title", n, default=n), "rules": preset(n).to_dict()}
               for n, (d, _o) in PRESETS.items()]
    return {"presets": presets, "options": options, "bots": botlib.levels(),
            "default_bot": botlib.default_level(), "langs": list(i18n.LANGS),
            "languages": list(i18n.LANGUAGES),
            "chat_phrases": chat.meta(lang)}


def build_config(data: Any, max_match_deals: int = 100) -> dict[str, Any]:
    """Validate a create-table request into the stored table configuration (without the seed
    commitment, which :meth:`Tables.seal` adds). A match is at most ``max_match_deals`` long:
    one with only a points target also ends there."""
    if not isinstance(data, dict):
        raise ActionError("bad-request", "send a JSON object")
    name = data.get("preset", "ristiseiska")
    if not isinstance(name, str) or name not in PRESETS:
        raise ActionError("bad-preset", f"unknown preset {name!r}")
    options = data.get("options") or {}
    seats = data.get("seats")
    if not isinstance(seats, list) or not 2 <= len(seats) <= 8:
        raise ActionError("bad-seats", "a table has 2 to 8 seats")
    try:
        rules = preset(name)
        if options:
            rules = Rules.from_dict(options, base=rules)
        rules.check_players(len(seats))
        if rules.match_deals > max_match_deals:
            raise RulesError(f"this server plays matches of at most {max_match_deals} deals, "
                             f"not {rules.match_deals}")
        if rules.match_deals == 0:
            rules = rules.replace(match_deals=max_match_deals)
    except RulesError as e:
        raise ActionError("bad-rules", str(e)) from e
    levels = botlib.levels()
    clean = []
    # Bots without a name get Finnish first names that nobody at the table uses already.
    given: set[str] = set()
    for i, s in enumerate(seats):
        if isinstance(s, dict) and s.get("name") is not None:
            try:
                nm = clean_text(s["name"], MAX_NAME)
            except InputError as e:
                raise ActionError("bad-name", f"seat {i + 1}: {e.message}") from None
            if nm and name_key(nm) in given:
                raise ActionError("bad-name", f"seat {i + 1}: {nm!r} is already at the table; "
                                  "every seat needs its own name")
            given.add(name_key(nm))
    free_names = iter([n for n in BOT_FIRST_NAMES if name_key(n) not in given])
    for i, s in enumerate(seats):
        if not isinstance(s, dict) or s.get("kind") not in ("friend", "bot"):
            raise ActionError("bad-seats", f"seat {i + 1}: kind must be 'friend' or 'bot'")
        bot = s.get("bot") or botlib.default_level()
        if s["kind"] == "bot" and bot not in levels:
            raise ActionError("bad-seats", f"seat {i + 1}: unknown bot {bot!r}")
        nm = clean_text(s["name"], MAX_NAME) if isinstance(s.get("name"), str) else ""
        if not nm:
            nm = (next(free_names, f"{bot} {i + 1}") if s["kind"] == "bot" else f"P{i + 1}")
        clean.append({"kind": s["kind"], "bot": bot if s["kind"] == "bot" else None,
                      "name": nm})
    seed = data.get("seed")
    if seed is not None:
        if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**62:
            raise ActionError("bad-seed", "seed must be a whole number from 0 to 2^62")
        # whoever chooses the seed knows every hand: only for practice against bots
        if sum(1 for s in clean if s["kind"] == "friend") > 1:
            raise ActionError("seed-not-allowed", "a chosen seed is only for practice tables "
                              "(one person and bots); tables with friends get a fair seed "
                              "from the server")
    try:  # the first deal must be possible (e.g. two decks with two players)
        Game(rules, len(clean), seed=0)
    except (SetupError, RulesError) as e:
        raise ActionError("bad-rules", str(e)) from e
    listed = open_tables.option(data)
    if seed is not None and listed["open"]:
        # strangers would sit down to deals their creator knows (docs/web.md, *Open tables*)
        raise ActionError("seed-open", "a table with a chosen seed cannot be listed open: "
                          "leave the seed out, or keep the table to yourself")
    return {"preset": name if rules == preset(name) else None, "base": name,
            "rules": rules.to_dict(), "seats": clean, "seed": seed,
            **listed,
            **chat.option(data),  # issue 20: free text at the table (web/chat.py)
            **clock_option(data, ActionError),
            **forced_option(data, ActionError),  # issue 52 (web/forced.py)
            **rated.option(data)}  # issue 58 (web/rated.py)


def _warm_bots(pool: BotPool, say: Callable[[str], None]) -> None:
    say("ristiseiska: preparing the master bot in a background process (the first run "
        "compiles it: a few minutes, more on a busy machine; meanwhile the lobby works and a master bot "
        "plays by the expert's rules)")
    start = time.perf_counter()

    def done(fut: concurrent.futures.Future[float]) -> None:
        if fut.cancelled():
            return
        err = fut.exception()
        if err is not None and pool.closed:  # the server stopped while it was compiling
            say("ristiseiska: stopped before the master bot was ready (the next start "
                "prepares it again)")
        elif err is not None:
            log.error("preparing the master bot failed: %s", err)
            say(f"ristiseiska: preparing the master bot failed: {err}")
        else:
            say(f"ristiseiska: the master bot is ready ({time.perf_counter() - start:.1f} s)")

    pool.ensure_warm().add_done_callback(done)  # the tables' bots ask the pool when it is done


def create_app(database_url: str | None = None, bot_delay: float = 0.8,
               resume: bool = True, limits: Limits | None = None,
               seed_source: Callable[[], int] | None = None, warm_bots: bool = False,
               say: Callable[[str], None] | None = None, process_label: str | None = None,
               shared_database: bool = False,
               quick_wait: float = open_tables.QUICK_WAIT,
               durability: str = "power-cut",
               daily: dict[str, Any] | None = None) -> FastAPI:
    """The web app. ``limits``: see :class:`Limits`; ``seed_source`` draws match seeds (the
    default is the secure one; tests pass a seeded one to be reproducible). ``warm_bots``
    compiles the master bot's kernel in a worker process at start-up (``say`` reports
    progress), so the first master move does not wait for it. ``process_label`` names this
    process in a response header (``serve --processes``); ``shared_database``: other
    processes use the database too (see :class:`Store`). ``quick_wait``: seconds before bots
    take a quick game's empty seats (web/open_tables.py). ``durability``: what an ``ack``
    means (:class:`Store`)."""
    store = Store(database_url, shared=shared_database, durability=durability)
    state: dict[str, Tables] = {}
    lim = limits or Limits()
    # per address for the whole server: in the database where processes share it (rates.py)
    created = SharedRate(store, "tables", lim.tables_per_minute)
    metrics = Metrics()  # this process's own (docs/hosting.md, *Operators' tools*)

    @contextlib.asynccontextmanager
    async def lifespan(_app: FastAPI) -> AsyncIterator[None]:
        await store.init()
        pool = BotPool()  # the searching bots think in these processes, never on the loop
        _app.state.bot_pool = pool
        if warm_bots:
            _warm_bots(pool, say or (lambda msg: None))
        tables = Tables(store, bot_delay, pool, open_tables=lim.open_tables,
                        idle_seconds=lim.idle_seconds, seed_source=seed_source, metrics=metrics)
        state["tables"] = tables
        _app.state.tables = tables
        tables.start_sweeper()
        open_index = await open_tables.start(_app, tables, store, shared_database, quick_wait,
                                             build_config)
        try:
            yield
        finally:
            open_index.close()
            await tables.close()
            await store.close()
            await asyncio.to_thread(pool.close)
            await asyncio.to_thread(close_analysis_pool)

    app = FastAPI(title="ristiseiska", lifespan=lifespan, docs_url=None, redoc_url=None)
    app.state.store = store
    app.state.limits = lim
    app.state.daily_options = daily or {}  # DailyService's secret, reference, clock (issue 57)
    app.add_middleware(Guard, limits=lim)
    app.add_middleware(SecurityHeaders)
    if process_label is not None:
        from .processes import ProcessHeader

        app.add_middleware(ProcessHeader, label=process_label)
    app.include_router(analysis_router)  # analysis of finished deals (web/analysis_api.py)
    app.include_router(puzzles_router)  # the puzzle trainer (web/puzzles_api.py)
    app.include_router(rematch_router)  # issue 20: the same players at a new table
    app.include_router(open_tables.router)  # issue 20: open tables, quick game
    app.include_router(pwa_router)  # issue 47: installable app, offline play (web/pwa.py)
    app.include_router(players_router)  # issue 47: players recognised by their device
    app.include_router(ops_router(store, metrics))  # issue 63: /metrics, /healthz
    app.include_router(rated.router)  # issue 58: players' ratings
    app.include_router(daily_router)  # issue 57: the daily deal (web/daily_api.py)
    app.include_router(identity_router)  # issue 58: an identity across devices
    app.include_router(daily_page_router)  # issue 57: the daily deal's result page
    app.include_router(player_pages.router)  # issue 58: /p/{handle}, /leaderboard/{family}

    def tables() -> Tables:
        return state["tables"]

    index = STATIC.joinpath("index.html")

    @app.get("/", include_in_schema=False)
    async def home() -> FileResponse:
        return FileResponse(str(index))

    @app.get("/t/{table_id}", include_in_schema=False)
    async def table_page(table_id: str) -> FileResponse:
        return FileResponse(str(index))

    @app.get("/api/meta")
    async def meta(lang: str = Query("fi", max_length=8)) -> dict[str, Any]:
        return lobby_meta(i18n.norm_lang(lang))

    @app.get("/api/rules")
    async def preset_rules(preset_name: str = Query("ristiseiska", alias="preset", max_length=40),
                           lang: str = Query("fi", max_length=8)) -> Response:
        """A preset's rules in words (issue 47: the lobby shows them offline too; the service
        worker keeps every preset's in both languages)."""
        if preset_name not in PRESETS:
            return JSONResponse({"error": "bad-preset", "message": "no such preset"},
                                status_code=404)
        rules = preset(preset_name)
        lang = i18n.norm_lang(lang)
        return JSONResponse({"preset": preset_name, "text": explain(rules, lang),
                             "html": explain_html(rules, lang)})

    @app.get("/api/langs")
    async def langs(request: Request) -> Response:
        """The languages (i18n/languages.json) and the one this browser's Accept-Language
        asks for; the page picks from these on a first visit."""
        body = {"langs": list(i18n.LANGUAGES), "default": i18n.DEFAULT_LANG,
                "fallback": i18n.FALLBACK_LANG,
                "preferred": i18n.lang_from_prefs(request.headers.get("accept-language", "")[:200])}
        return JSONResponse(body, headers={"Cache-Control": "no-cache"})

    @app.get("/api/i18n/{lang}")
    async def catalog(lang: str) -> Response:
        lang = i18n.norm_lang(lang)
        cards = {}
        for c in CARDS:
            cards[str(c)] = i18n.card_name(c, lang)
        body = {"lang": lang, "texts": i18n.catalog(lang), "cards": cards}
        return JSONResponse(body, headers={"Cache-Control": "max-age=60"})

    @app.post("/api/tables")
    async def create_table(request: Request) -> Response:
        addr = request.scope.get("client_addr", "")
        if lim.per_address and (wait := await created.retry_after(addr)):
            return JSONResponse({"error": "rate-limited", "message":
                                 f"at most {lim.tables_per_minute} new tables a minute from "
                                 "one address; wait a moment"}, status_code=429,
                                headers={"Retry-After": str(wait)})
        data = await json_body(request, lim)
        try:
            config = await bot_api.build(store, data, build_config, lim.max_match_deals)  # #59
            t = await tables().create(config)
        except ActionError as e:
            return _err(e)
        return JSONResponse({"id": t.id, "url": f"/t/{t.id}", "table": t.public_info()},
                            status_code=201)

    @app.get("/api/tables/{table_id}")
    async def get_table(table_id: str) -> Response:
        try:
            t = await tables().get(table_id, own=False)
        except ActionError as e:
            return _err(e)
        return JSONResponse(t.public_info())

    loading: set[asyncio.Task[Any]] = set()

    @app.get("/api/tables/{table_id}/here")
    async def here(table_id: str) -> Response:
        """The page asks this before it connects again (issue 46): any answer says that this
        process is alive, at once; the table is loaded meanwhile (the socket that follows
        waits for that; taken over only from a dead owner, as any read: the player's join
        takes it). nginx gives up on a process that does not answer it."""
        if table_id not in tables().live:
            task = asyncio.get_running_loop().create_task(
                _quietly(tables().get(table_id, own=False)))
            loading.add(task)
            task.add_done_callback(loading.discard)
        return Response(status_code=204, headers={"Cache-Control": "no-store"})

    @app.post("/api/tables/{table_id}/seats/{seat}")
    async def claim(table_id: str, seat: int, request: Request) -> Response:
        data = await json_body(request, lim)
        try:
            t = await tables().get(table_id)
            name = data.get("name", "") if isinstance(data, dict) else ""
            device = data.get("device") if isinstance(data, dict) else None  # issue 47
            token = await t.claim(seat, name if name is not None else "", device=device)
        except ActionError as e:
            return _err(e, 409 if e.code in ("seat-taken", "name-taken", "seat-reserved",
                                              "started-without") else 400)
        return JSONResponse({"id": table_id, "url": f"/t/{table_id}", "seat": seat,
                             "token": token}, status_code=201)

    @app.get("/api/tables/{table_id}/rules")
    async def rules_text(table_id: str, lang: str = Query("fi", max_length=8)) -> Response:
        try:
            t = await tables().get(table_id, own=False)
        except ActionError as e:
            return _err(e)
        lang = i18n.norm_lang(lang)
        fair_lines = fairness_text(t, lang)
        text = "\n\n".join([explain(t.rules, lang), *fair_lines])
        rendered = explain_html(t.rules, lang)
        if rendered is not None:
            rendered += "".join(f"<p class=\"fair\">{html.escape(line)}</p>"
                                for line in fair_lines)
        return JSONResponse({"text": text, "html": rendered, "rules": t.rules.to_dict(),
                             "preset": t.config.get("preset"), "fairness": t.fairness()})

    @app.get("/api/tables/{table_id}/record")
    async def record(table_id: str, deal: int | None = None) -> Response:
        try:
            t = await tables().get(table_id, own=False)
        except ActionError as e:
            return _err(e)
        games = finished(t)
        if deal is not None:
            games = [(i, g) for i, g in games if i == deal]
            if not games:
                return JSONResponse({"error": "no-deal", "message": "no such finished deal"},
                                    status_code=404)
        lines = [dumps_record(record_of(t, i, g)) for i, g in games]
        # one deal and the whole match get different names, so both downloads can be kept
        which = f"deal{deal + 1}" if deal is not None else "all"
        return PlainTextResponse("".join(line + "\n" for line in lines),
                                 media_type="application/x-ndjson",
                                 headers={"Content-Disposition":
                                          f'attachment; filename="ristiseiska-{table_id[:8]}-{which}.jsonl"'})

    @app.get("/api/tables/{table_id}/deals/{deal}/replay")
    async def replay(table_id: str, deal: int, lang: str = "fi") -> Response:
        try:
            t = await tables().get(table_id, own=False)
        except ActionError as e:
            return _err(e)
        games = dict(finished(t))
        if deal not in games:
            return JSONResponse({"error": "no-deal", "message": "only finished deals replay"},
                                status_code=404)
        return JSONResponse(replay_frames(games[deal], i18n.norm_lang(lang)))

    @app.websocket("/ws/{table_id}")
    async def ws(websocket: WebSocket, table_id: str) -> None:
        await websocket.accept()
        conn = Conn(addr=websocket.scope.get("client_addr", ""))
        for attempt in range(3):
            try:  # a spectator never moves the table; a seated player's join may (handle)
                t = await tables().get(table_id, own=False)
                await t.attach(conn)
                break
            except ActionError as e:
                if e.code == "reload" and attempt < 2:
                    continue
                await websocket.send_json({"type": "error", "code": e.code, "message": e.message})
                await websocket.close(code=4404 if e.code == "no-table" else 4429)
                return
        rate = RateLimiter(lim.messages_per_second, lim.message_burst, max_keys=1)
        if (token := bot_api.bearer(websocket.headers)) is not None:  # web/bot_api.py
            if not await bot_api.admit(websocket, t, conn, token):  # refused: told, closed
                return await t.detach(conn)
        writer = asyncio.create_task(_writer(websocket, conn, t))
        try:
            while True:
                raw = await websocket.receive()
                if raw["type"] == "websocket.disconnect":
                    break
                if lim.per_address and not rate.allow(0):
                    conn.send(_error("rate-limited", "too many messages; this one was ignored"))
                    continue
                text = raw.get("text")
                if text is None:
                    data = raw.get("bytes") or b""
                    conn.send(_error("bad-message", "send JSON text frames")
                              if len(data) <= lim.max_message else
                              _error("too-large", f"messages are at most {lim.max_message} bytes"))
                    continue
                try:
                    await handle(t, conn, text, lim)
                except Exception:  # a bug must cost an error frame, not the socket
                    logging.getLogger("ristiseiska.web").exception("message failed")
                    conn.send(_error("server-error", "that message could not be handled; "
                                     "nothing changed"))
        except WebSocketDisconnect:
            pass
        finally:
            conn.queue.put_nowait(None)
            try:
                await t.detach(conn)
            finally:
                with contextlib.suppress(Exception):
                    await writer
            if t.idle and tables().live.get(t.id) is t:  # reloaded if anyone asks again
                tables().live.pop(t.id, None)

    # static assets last so the API routes win
    app.mount("/static", StaticFiles(directory=str(STATIC)), name="static")
    return app


async def _quietly(work: Any) -> None:
    with contextlib.suppress(Exception):  # a missing table: the socket is told
        await work


def _error(code: str, message: str) -> dict[str, Any]:
    return {"type": "error", "code": code, "message": message}


async def _writer(websocket: WebSocket, conn: Conn, t: LiveTable) -> None:
    """Send the connection's outbox in order; states get the log and labels in its language."""
    lang = "fi"
    while True:
        if conn.overflow:
            with contextlib.suppress(Exception):
                await websocket.close(code=1013)
            return
        msg = await conn.queue.get()
        if msg is None:
            return
        if msg.get("type") == "lang":
            lang = msg["lang"]
            continue
        try:
            if msg.get("type") == "state":
                text = t.encode_state(msg, lang)
            else:
                text = _dumps(msg)  # acks, errors, talk: the same text as json.dumps
            await websocket.send_text(text)
            if conn.fmt == "rl" and msg.get("type") == "state":  # web/bot_api.py
                await bot_api.send_rl(websocket, t, conn)
            if msg.get("code") == "moved":  # another process owns the table now: the page
                await websocket.close(code=1012)  # reconnects, and nginx finds the owner
                return
        except Exception:
            return


async def handle(t: LiveTable, conn: Conn, text: str, lim: Limits | None = None) -> None:
    lim = lim or Limits()
    try:
        msg = parse_json(text, lim.max_message, lim.max_depth)
    except InputError as e:
        message = (f"messages are at most {lim.max_message} bytes" if e.code == "too-large"
                   else e.message)
        conn.send(_error(e.code, message))
        return
    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
        conn.send(_error("bad-message", "a message is an object with a 'type'"))
        return
    kind = msg["type"]
    try:
        if "seat" in msg and kind != "join" and msg["seat"] != conn.seat:
            raise ActionError("not-your-seat", "you can only act for your own seat")
        if kind == "join":
            if t.follower and t.on_claim is not None:  # a seated player: this process takes
                t.check_token(msg.get("seat"), msg.get("token"))  # the table, if it may
                await t.on_claim(t)
            await t.join(conn, msg.get("seat"), msg.get("token"))
        elif kind == "auth":  # a Bot API program without the header (web/bot_api.py)
            await bot_api.seat_bot(t, conn, msg.get("token"), msg.get("format"),
                                   msg.get("knowledge"))
        elif kind == "move":
            played = await t.play(conn.seat, bot_api.move_of(t, conn, msg), msg.get("id"))
            ack: dict[str, Any] = {"type": "ack", "move": played}
            if msg.get("id") is not None:
                ack["id"] = msg["id"]
            conn.send(ack)
        elif kind == "next-deal":
            await t.next_deal(conn.seat)
        elif kind == "start":
            await t.start_now(conn.seat)
        elif kind == "replace":
            await t.replace(conn.seat, msg.get("target"))
        elif kind == "back":  # the turn clock's stand-in gives the seat back (web/clock.py)
            await t.clock.back(conn.seat)
        elif kind == "hint":
            conn.send(await t.ahint(conn.seat, i18n.norm_lang(str(msg.get("lang", "fi")))))
        elif kind == "lang":
            conn.send({"type": "lang", "lang": i18n.norm_lang(str(msg.get("lang", "fi")))})
            async with t.lock:
                conn.send(t.state_for(conn, t.public_info(), t.sheet()))
        elif kind == "ping":
            conn.send({"type": "pong"})
        elif kind == "chat":  # issue 20: phrases, reactions, text (web/chat.py)
            chat.handle(t, conn, msg)
        else:
            raise ActionError("bad-type", f"unknown message type {kind[:32]!r}")
    except ActionError as e:
        conn.send(_error(e.code, e.message))


# records, replays: a finished deal's replay is offline.replay_frames (the installed app runs
# it too); the rule texts: web/rule_texts.py

"""Open tables and quick game (issue 20, point 5).

- ``POST /api/tables`` takes ``"open": true`` (default false, :func:`option`): the table is
  listed in the lobby while it has a free friend seat and its match has not started (once it
  has, nobody can take a seat in it: issue 46, web/tables.py ``LiveTable.claim``).
- ``GET /api/tables?open=1&lang=fi&limit=50`` lists open tables, newest first, at most 50:
  the rules in words (in ``lang``), the preset, the players (names of taken seats, bots marked,
  the free seats), the turn clock (``config["clock"]``, null when the table has none) and
  whether the deal has started. Nothing secret: no token, no hand, no seed.
- ``POST /api/quick`` ``{"name": N, "lang"?: L, "preset"?: P}`` seats the player at the open
  table waiting longest for players (of preset ``P`` when given), or makes a new open quick
  table (4 friend seats, the player at the first) whose empty seats stand-in bots take
  ``quick_wait`` seconds later (20 by default, ``serve --quick-wait``), when the deal starts.
  The answer is the seat claim's: ``{"id", "url", "seat", "token"}`` (201). With
  ``"device": KEY`` (the browser's private key, issue 47) the seat is the device's, and a
  player whose device already has a seat in an unfinished match at an open table is given that
  seat back instead (200, ``"returned": true``; web/players.py).
- ``GET /api/tables/{id}/quick`` tells a quick table's page how long until the bots sit down.

**The index.** Every open table is kept in memory (:class:`OpenIndex`): its configuration,
creation time and the last known state of its seats. A table that is live in this process is
read from memory at each listing (a few fields per seat, no replay); one that left memory keeps
the state it had then. At start-up the index is rebuilt from the database (``rs_open``, one
query and two small ones for the seats and the host's start, nothing replayed). With several
processes (``serve --processes``) each process reads the open tables from the database at most
every :data:`REFRESH` seconds, so every process lists every open table (each table's state is
stored before anyone is told of it); a quick game then answers ``307`` to the chosen seat's
claim URL, which nginx sends to the table's own process.

**The wait.** A quick table's deadline (``fill_at``, wall-clock time) is stored in its
configuration. A table in memory has one timer (``loop.call_later``, no task) that seats the
stand-ins at the deadline, the way the host's *Start now* does (stored in ``rs_table_state``).
After a restart the wait does not start again: a quick table loaded past its deadline is filled
at once (single process: the waiting ones are loaded at start-up; with several processes the
table's own process does it when the table is first asked for).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import JSONResponse, RedirectResponse, Response

from .. import i18n
from ..rules import PRESETS, Rules, preset
from ..store import Store
from ..store.schema import StoredTable
from .errors import ActionError
from .live_table import LiveTable
from .rates import SharedRate
from .seats import DEVICE_SEP, MAX_NAME, check_device
from .security import InputError, clean_text, json_body
from .tables import Tables

log = logging.getLogger("ristiseiska.web")

QUICK_WAIT = 20.0  # seconds before stand-in bots take a quick table's empty seats
QUICK_SEATS = 4  # a new quick table: the player and three free friend seats
QUICK_CLOCK = 30  # a quick table asks for a turn clock (the clock option of issue 20)
QUICK_PRESET = "ristiseiska"
MAX_LIST = 50  # open tables in one listing
MAX_AGE = 6 * 3600.0  # an open table is listed for this long after it was made
REFRESH = 2.0  # with several processes: read the open tables from the database this often
SWEEP = 60.0  # forget finished and old entries this often
PROMISE = 10.0  # seconds a seat handed out by a redirect is not handed out again
RETRY = 5.0  # a fill the database refused is tried again after this long

_STATUS = {"no-table": 404, "store": 503, "storage-fault": 503, "server-full": 429,
           "rate-limited": 429, "name-taken": 409, "seat-taken": 409}


def option(data: dict[str, Any]) -> dict[str, Any]:
    """The ``open`` table option for :func:`web.app.build_config` (default false)."""
    value = data.get("open", False)
    if not isinstance(value, bool):
        raise ActionError("bad-open", "'open' is true (list the table in the lobby) or false")
    return {"open": value}


@dataclass
class Snap:
    """What the listing needs of a table's changing state."""

    names: list[str]
    taken: list[bool]
    standin: list[bool]
    started: bool
    finished: bool
    online: int | None = None  # players connected (known only for tables live here)
    # the hashes of the devices the players sat down with (issue 47; never listed)
    devices: list[str | None] = field(default_factory=list)


def snap_live(t: LiveTable) -> Snap:
    return Snap(names=[s.name for s in t.seats],
                taken=[s.kind == "bot" or s.token_hash is not None for s in t.seats],
                standin=[s.standin for s in t.seats], started=t.started,
                finished=t.match.is_over(),
                online=len({c.seat for c in t.conns if c.seat is not None}),
                devices=[s.device_hash if s.token_hash is not None else None for s in t.seats])


def snap_stored(st: StoredTable) -> Snap:
    seats = st.config["seats"]
    taken = [s["kind"] == "bot" or st.token_hashes.get(i) is not None
             for i, s in enumerate(seats)]
    devices = [(st.token_hashes.get(i) or "").partition(DEVICE_SEP)[2] or None
               for i in range(len(seats))]
    return Snap(names=[st.seat_names.get(i, s["name"]) for i, s in enumerate(seats)],
                taken=taken, standin=[i in st.standins for i in range(len(seats))],
                started=st.started or all(taken), finished=st.finished, devices=devices)


@dataclass(eq=False)
class Entry:
    id: str
    created: float  # Unix time
    config: dict[str, Any]
    snap: Snap
    table: LiveTable | None = None  # the table object last seen in memory
    words: dict[str, dict[str, Any]] = field(default_factory=dict)  # lang -> rule texts

    def free(self, snap: Snap | None = None) -> list[int]:
        """Friend seats anyone may claim: nobody holds them and no rematch keeps them, and the
        match has not started (a seat a bot took at the start stays the bot's)."""
        s = snap or self.snap
        if s.started:
            return []
        reserved = set(self.config.get("reserved", ()))
        return [i for i, seat in enumerate(self.config["seats"])
                if seat["kind"] == "friend" and not s.taken[i] and i not in reserved]


def rule_words(config: dict[str, Any], lang: str) -> dict[str, Any]:
    """The table's rules in a few words: the preset's title and summary and each house rule
    that differs from it (the lobby's and the rules dialog's own texts)."""
    from .. import explain as ex

    base = config.get("base") or config.get("preset") or QUICK_PRESET
    rules = Rules.from_dict(config["rules"])
    known = base in PRESETS
    diff = rules.differences(preset(base) if known else Rules())
    changes = [f"{ex.option_label(k, lang)}: {ex.option_value_label(k, v, lang)}"
               for k, v in diff.items()]
    title = ex.preset_title(base, lang) if known else i18n.t("open.house_rules", lang)
    summary = ex.preset_summary(base, lang) if known else ""
    text = summary + (" · " if summary and changes else "") + "; ".join(changes)
    return {"title": title, "summary": summary, "changes": changes, "text": text}


class OpenIndex:
    """The open tables this process knows, and the quick tables' timers."""

    def __init__(self, tables: Tables, store: Store, shared: bool = False,
                 quick_wait: float = QUICK_WAIT, max_age: float = MAX_AGE,
                 quick_per_minute: int = 20, per_address: bool = True,
                 max_match_deals: int = 100, clock: Callable[[], float] = time.time,
                 make_config: Callable[[Any, int], dict[str, Any]] | None = None) -> None:
        # web.app.build_config, handed in by the app (importing web.app here would be a
        # circle: the app imports this module)
        self.make_config = make_config
        self.tables = tables
        self.store = store
        self.shared = shared
        self.quick_wait = quick_wait
        self.max_age = max_age
        self.max_match_deals = max_match_deals
        self.clock = clock
        self.per_address = per_address
        self.quick_rate = SharedRate(store, "quick", quick_per_minute)  # the whole server's
        self.quick_per_minute = quick_per_minute
        self.entries: dict[str, Entry] = {}  # oldest first
        self.timers: dict[str, asyncio.TimerHandle] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        self._promised: dict[tuple[str, int], float] = {}
        self._refreshed = float("-inf")
        self._refreshing: asyncio.Lock | None = None
        self._quick: asyncio.Lock | None = None
        self._sweeper: asyncio.TimerHandle | None = None
        tables.on_live.append(self.on_live)

    # -- keeping the index ------------------------------------------------------------------
    async def start(self) -> None:
        """Rebuild the index from the database; fill the quick tables whose wait ran out
        while the server was down (single process: their own process is this one)."""
        self._refreshing = asyncio.Lock()
        self._quick = asyncio.Lock()
        try:
            await self.refresh()
        except Exception as err:  # noqa: BLE001 - the lobby works without the list
            log.warning("the open tables could not be read at start-up: %s", err)
        if not self.shared:  # the quick tables' timers run on (past due: filled at once)
            for e in list(self.entries.values()):
                if e.config.get("fill_at") is not None and not e.snap.started:
                    with contextlib.suppress(ActionError):
                        await self.tables.get(e.id)  # on_live arms its timer
        self._sweeper = asyncio.get_running_loop().call_later(SWEEP, self._sweep)

    def close(self) -> None:
        for h in self.timers.values():
            h.cancel()
        self.timers.clear()
        if self._sweeper is not None:
            self._sweeper.cancel()
        for task in list(self._tasks):
            task.cancel()

    async def refresh(self) -> None:
        """Read the open tables from the database (each table's state is stored before
        anybody is told of it, so this is what every process knows)."""
        assert self._refreshing is not None
        async with self._refreshing:
            rows = await self.store.open_tables(self.clock() - self.max_age, 5000,
                                                frozenset(self.entries))
            self._refreshed = self.clock()
            seen: dict[str, Entry] = {}
            for created, st in reversed(rows):  # oldest first
                e = self.entries.get(st.id)
                if e is None:
                    if not st.config:  # known when asked, forgotten meanwhile: next time
                        continue
                    e = Entry(st.id, created, st.config, snap_stored(st))
                elif self.shared or e.table is None:
                    st.config = e.config  # (not read again: it never changes)
                    e.snap = snap_stored(st)
                seen[st.id] = e
            if self.shared:  # the database is the truth: finished and old ones are gone
                self.entries = seen
            else:
                merged = {**seen, **{k: v for k, v in self.entries.items() if k not in seen}}
                self.entries = dict(sorted(merged.items(), key=lambda kv: kv[1].created))

    def on_live(self, t: LiveTable, made: bool) -> None:
        """A table came into memory: made here, or loaded (on its first visit)."""
        if t.config.get("open"):
            e = self.entries.get(t.id)
            if e is None and made:
                self.entries[t.id] = Entry(t.id, self.clock(), t.config, snap_live(t),
                                           None if self.shared else t)
            elif e is not None:
                e.table = t
        if t.config.get("fill_at") is not None and not t.started:
            # with several processes the one that made the table drops its copy (quick): the
            # table's own process loads it on the redirected seat claim and arms it then
            if not (made and self.shared):
                self._arm(t)

    def _current(self, e: Entry) -> Snap:
        """The entry's state now: from memory for a table live here (a single process), else
        what it was when it left memory or was read from the database."""
        if self.shared:
            return e.snap
        live = self.tables.live.get(e.id)
        if live is not None and not live.closed:
            e.table = live
            e.snap = snap_live(live)
        elif e.table is not None:  # it left memory: nothing changes it any more
            e.snap = snap_live(e.table)
            e.snap.online = 0
            e.table = None
        return e.snap

    def _sweep(self) -> None:
        now = self.clock()
        for tid, e in list(self.entries.items()):
            snap = self._current(e)
            if snap.finished or now - e.created > self.max_age:
                del self.entries[tid]
        for key, until in list(self._promised.items()):
            if until <= now:
                del self._promised[key]
        self._sweeper = asyncio.get_running_loop().call_later(SWEEP, self._sweep)

    # -- the quick tables' wait -------------------------------------------------------------
    def _arm(self, t: LiveTable, delay: float | None = None) -> None:
        old = self.timers.pop(t.id, None)
        if old is not None:
            old.cancel()
        if delay is None:
            delay = max(0.0, float(t.config["fill_at"]) - self.clock())
        self.timers[t.id] = asyncio.get_running_loop().call_later(delay, self._fire, t)

    def _fire(self, t: LiveTable) -> None:
        self.timers.pop(t.id, None)  # a timer armed again cancels the old one: this is it
        if t.closed or t.started or self.tables.live.get(t.id) is not t:
            return  # started, or left memory (armed again when it is loaded)
        task = asyncio.get_running_loop().create_task(self._fill(t))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _fill(self, t: LiveTable) -> None:
        """Bots stand in for the empty seats and the deal starts (the host's *Start now*)."""
        try:
            await t.start_now(t.host)
        except ActionError as e:
            if e.code == "started":
                return
            log.warning("quick table %s: the bots could not sit down: %s", t.id, e.message)
            if not t.closed:
                self._arm(t, RETRY)

    def fill_in(self, t: LiveTable) -> float | None:
        """Seconds until the bots take a quick table's empty seats (None: not waiting)."""
        fill_at = t.config.get("fill_at")
        if fill_at is None or t.started:
            return None
        return max(0.0, float(fill_at) - self.clock())

    # -- listing ----------------------------------------------------------------------------
    async def listing(self, lang: str, limit: int = MAX_LIST) -> list[dict[str, Any]]:
        if self.shared and self.clock() - self._refreshed >= REFRESH:
            await self.refresh()
        now = self.clock()
        out = []
        for tid in reversed(list(self.entries)):
            e = self.entries.get(tid)
            if e is None or now - e.created > self.max_age:
                continue
            snap = self._current(e)
            free = e.free(snap)
            if snap.finished or not free:
                continue
            out.append(self.describe(e, snap, free, lang))
            if len(out) >= limit:
                break
        return out

    def describe(self, e: Entry, snap: Snap, free: list[int], lang: str) -> dict[str, Any]:
        """One open table as the lobby shows it: public facts only (no token, no card)."""
        words = e.words.get(lang)
        if words is None:
            words = e.words[lang] = rule_words(e.config, lang)
        reserved = set(e.config.get("reserved", ()))
        players = []
        for i, s in enumerate(e.config["seats"]):
            shown = s["kind"] == "bot" or snap.taken[i] or i in reserved
            players.append({"seat": i, "name": snap.names[i] if shown else None,
                            "kind": s["kind"], "bot": s.get("bot") if s["kind"] == "bot" else None,
                            "free": i in free, "standin": snap.standin[i],
                            "reserved": i in reserved and not snap.taken[i]})
        return {"id": e.id, "url": f"/t/{e.id}", "preset": e.config.get("preset"),
                "base": e.config.get("base"), "title": words["title"], "rules": words["text"],
                "changes": words["changes"], "players": players, "seats": len(players),
                "free": free, "free_count": len(free), "clock": e.config.get("clock"),
                "state": "started" if snap.started else "waiting",
                "created": int(e.created), "quick": bool(e.config.get("quick")),
                "online": snap.online}

    # -- quick game -------------------------------------------------------------------------
    def _candidates(self, preset_name: str | None) -> list[Entry]:
        """Open tables waiting for players, the one waiting longest first. A host's own open
        table counts only while its host is here (single process); a quick table always (its
        bots sit down at the deadline)."""
        now = self.clock()
        out = []
        for e in self.entries.values():
            if now - e.created > self.max_age:
                continue
            if preset_name is not None and e.config.get("preset") != preset_name:
                continue
            snap = self._current(e)
            if snap.finished or snap.started or not e.free(snap):
                continue
            if not e.config.get("quick"):
                live = None if self.shared else self.tables.live.get(e.id)
                if live is None or live.host not in {c.seat for c in live.conns}:
                    continue
            out.append(e)
        out.sort(key=lambda x: x.created)
        return out

    async def quick(self, data: Any, addr: str) -> Response:
        try:
            name, preset_name, lang = quick_request(data)
            device = data.get("device")
            device_hash = check_device(device)  # issue 47: a malformed key changes nothing
        except ActionError as e:
            return _err(e)
        if self.per_address and (wait := await self.quick_rate.retry_after(addr)):
            return JSONResponse({"error": "rate-limited", "message":
                                 f"at most {self.quick_per_minute} quick games a minute from one "
                                 "address; wait a moment"}, status_code=429,
                                headers={"Retry-After": str(wait)})
        assert self._quick is not None
        try:
            async with self._quick:  # one quick game at a time here: never the same seat
                if self.shared:  # what the other processes did, up to now
                    await self.refresh()
                if device_hash is not None:  # a match of this player's still going: back to it
                    answer = await self._return(device_hash)
                    if answer is not None:
                        return answer
                for entry in self._candidates(preset_name):
                    answer = await self._try_table(entry, name, device)
                    if answer is not None:
                        return answer
                return await self._new_table(name, preset_name or QUICK_PRESET, device)
        except ActionError as e:
            return _err(e)

    async def _return(self, device_hash: str) -> Response | None:
        """The newest open table whose unfinished match this device has a seat in (issue 47):
        the player is given that seat back instead of a new one."""
        now = self.clock()
        for e in reversed(list(self.entries.values())):
            if now - e.created > self.max_age:
                continue
            snap = self._current(e)
            if snap.finished or device_hash not in snap.devices:
                continue
            if self.shared:  # the table's own process gives it back (the body goes along)
                return RedirectResponse(f"/api/tables/{e.id}/seats/mine", status_code=307)
            try:
                t = await self.tables.get(e.id)
            except ActionError:
                continue
            seat = t.device_seat(device_hash)
            if seat is None or t.match.is_over():
                continue
            try:
                token = await t.renew(seat, device_hash)
            except ActionError as err:
                if err.code == "store":
                    raise
                continue
            return _seated(t.id, seat, token, status=200)
        return None

    async def _try_table(self, e: Entry, name: str, device: Any = None) -> Response | None:
        if self.shared:  # the table's own process claims the seat (nginx pins the URL)
            now = self.clock()
            for seat in e.free():
                if self._promised.get((e.id, seat), 0.0) > now:
                    continue
                clash = [i for i, (n, taken) in enumerate(zip(e.snap.names, e.snap.taken,
                                                               strict=True))
                         if taken and n is not None and _same(n, name)]
                mine = check_device(device)
                devices = e.snap.devices or [None] * len(e.snap.names)
                if clash and (mine is None or any(devices[i] in (None, mine) for i in clash)):
                    return None  # as the claim would refuse it (another device: "Äiti (2)")
                self._promised[(e.id, seat)] = now + PROMISE
                return RedirectResponse(f"/api/tables/{e.id}/seats/{seat}", status_code=307)
            return None
        try:
            t = await self.tables.get(e.id)
        except ActionError as err:
            if err.code in ("no-table", "broken-table"):
                self.entries.pop(e.id, None)
                return None
            raise
        for seat in e.free(snap_live(t)):
            try:
                token = await t.claim(seat, name, device=device)
            except ActionError as err:
                if err.code in ("seat-taken", "seat-reserved"):
                    continue
                if err.code == "name-taken":
                    return None  # somebody of that name sits there (perhaps the player)
                raise
            return _seated(t.id, seat, token)
        return None

    async def _new_table(self, name: str, preset_name: str, device: Any = None) -> Response:
        if self.make_config is None:
            raise ActionError("no-quick", "this server makes no quick tables")
        build_config = self.make_config
        rules = preset(preset_name)
        n = min(max(QUICK_SEATS, rules.min_players), rules.max_players)
        config = build_config({"preset": preset_name, "open": True, "clock": QUICK_CLOCK,
                               "seats": [{"kind": "friend", "name": name}]
                               + [{"kind": "friend"} for _ in range(n - 1)]},
                              self.max_match_deals)
        config["quick"] = True
        config["fill_at"] = self.clock() + self.quick_wait
        t = await self.tables.create(config)
        if self.shared:
            # the table's own process (nginx hashes its id) loads it from the database on the
            # redirected claim and runs its wait; this process's copy leaves memory now, so
            # that it never fills the table behind the owner's back (nor, were this process
            # the owner, keeps a copy that was never armed)
            if self.tables.live.get(t.id) is t:
                del self.tables.live[t.id]
            await t.close()
            self._promised[(t.id, 0)] = self.clock() + PROMISE
            return RedirectResponse(f"/api/tables/{t.id}/seats/0", status_code=307)
        token = await t.claim(0, name, device=device)
        return _seated(t.id, 0, token)


def _same(a: str, b: str) -> bool:
    from .security import name_key

    return name_key(a) == name_key(b)


def quick_request(data: Any) -> tuple[str, str | None, str]:
    """A quick-game request checked: (name, preset or None, lang). Raises ActionError."""
    if not isinstance(data, dict):
        raise ActionError("bad-request", "send a JSON object with your 'name'")
    raw = data.get("name")
    try:
        name = clean_text(raw, MAX_NAME) if raw is not None else ""
    except InputError as e:
        raise ActionError("bad-name", e.message) from None
    if not name:
        raise ActionError("bad-name", "type your name first: the other players see it")
    preset_name = data.get("preset")
    if preset_name is not None and (not isinstance(preset_name, str)
                                    or preset_name not in PRESETS):
        raise ActionError("bad-preset", f"unknown preset {str(preset_name)[:40]!r}")
    lang = data.get("lang", i18n.DEFAULT_LANG)
    if not isinstance(lang, str) or lang.lower() not in i18n.LANGS:
        raise ActionError("bad-lang", f"lang is one of {', '.join(i18n.LANGS)}")
    return name, preset_name, lang.lower()


def _seated(table_id: str, seat: int, token: str, status: int = 201) -> JSONResponse:
    """A seat taken (201), or given back to its player (200, issue 47)."""
    return JSONResponse({"id": table_id, "url": f"/t/{table_id}", "seat": seat,
                         "token": token, "returned": status == 200}, status_code=status)


def _err(e: ActionError) -> JSONResponse:
    status = _STATUS.get(e.code, 400)
    headers = {"Retry-After": "60"} if status in (429, 503) else None
    return JSONResponse({"error": e.code, "message": e.message}, status_code=status,
                        headers=headers)


async def start(app: Any, tables: Tables, store: Store, shared: bool,
                quick_wait: float,
                make_config: Callable[[Any, int], dict[str, Any]] | None = None) -> OpenIndex:
    """Make the app's index (``app.state.open_index``) and rebuild it from the database."""
    lim = app.state.limits
    index = OpenIndex(tables, store, shared=shared, quick_wait=quick_wait,
                      quick_per_minute=getattr(lim, "quick_per_minute", 20),
                      per_address=lim.per_address, max_match_deals=lim.max_match_deals,
                      make_config=make_config)
    app.state.open_index = index
    await index.start()
    return index


router = APIRouter()


@router.get("/api/tables")
async def list_open(request: Request, open_: str | None = Query(None, alias="open", max_length=8),
                    lang: str = Query("fi", max_length=8),
                    limit: int = Query(MAX_LIST, ge=1, le=MAX_LIST)) -> Response:
    if open_ not in ("1", "true"):
        return JSONResponse({"error": "bad-request", "message": "only open tables are listed: "
                             "ask for /api/tables?open=1"}, status_code=400)
    index: OpenIndex = request.app.state.open_index
    try:
        tables = await index.listing(i18n.norm_lang(lang), limit)
    except Exception as err:  # noqa: BLE001 - e.g. the database is away (several processes)
        log.warning("listing the open tables failed: %s", err)
        return JSONResponse({"error": "store", "message": "the open tables cannot be read "
                             "now; try again in a moment"}, status_code=503,
                            headers={"Retry-After": "5"})
    return JSONResponse({"tables": tables}, headers={"Cache-Control": "no-store"})


@router.post("/api/quick")
async def quick(request: Request) -> Response:
    data = await json_body(request, request.app.state.limits)
    index: OpenIndex = request.app.state.open_index
    return await index.quick(data, request.scope.get("client_addr", ""))


@router.get("/api/tables/{table_id}/quick")
async def quick_state(table_id: str, request: Request) -> Response:
    index: OpenIndex = request.app.state.open_index
    try:
        t = await index.tables.get(table_id, own=False)
    except ActionError as e:
        return _err(e)
    left = index.fill_in(t)
    return JSONResponse({"quick": bool(t.config.get("quick")), "waiting": not t.started,
                         "fill_in_ms": None if left is None else int(left * 1000)},
                        headers={"Cache-Control": "no-store"})

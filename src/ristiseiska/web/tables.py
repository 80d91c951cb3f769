"""All live tables of a server process (:class:`Tables`): loaded from the store on first use,
unloaded when idle, owned by one process at a time, and the sweeper that keeps the garbage
collector's pauses short.

A live table itself is :class:`~ristiseiska.web.live_table.LiveTable`, told in parts: its seats
(web/seats.py), what it sends (web/table_views.py) and its bots (web/bot_driver.py). Their
names are also importable from here, where they lived before (tests and older trees' load
tests import them from this module).
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import math
import secrets
import time
from collections.abc import Callable
from typing import Any

from sqlalchemy.exc import IntegrityError

from .. import fair
from ..aio import Outbox as Outbox
from ..bots.pool import BotPool
from ..moves import Move
from ..ops.metrics import UNSERVED, Metrics
from ..store import Store
from ..store.errors import StorageFault
from .connections import MAX_CONNECTIONS as MAX_CONNECTIONS
from .connections import MAX_OUTBOX as MAX_OUTBOX
from .connections import Conn as Conn
from .errors import MOVED as MOVED
from .errors import STORAGE_FAULT, store_error
from .errors import ActionError as ActionError
from .live_table import MAX_MOVE_IDS as MAX_MOVE_IDS
from .live_table import LiveTable as LiveTable
from .records import finished as finished
from .records import record_of as record_of
from .seats import AWAY_GRACE as AWAY_GRACE
from .seats import DEVICE_SEP as DEVICE_SEP
from .seats import MAX_NAME as MAX_NAME
from .seats import Seat as Seat
from .seats import check_device as check_device
from .seats import hash_token as hash_token
from .table_views import HISTORY as HISTORY
from .table_views import LOG as LOG
from .table_views import _dumps as _dumps
from .table_views import board_layout as board_layout
from .table_views import public_view as public_view

# the garbage collector's thresholds while serving (Tables.start_sweeper)
GC_YOUNG = 50_000
GC_OLDER = (50, 100)
# Seconds between looks at which tables another process has taken over (docs/hosting.md).
OWNER_CHECK = 1.0
# Who owns a table (docs/hosting.md, *Who owns a table*): reading never moves a table another
# live process owns; a seated player's connection (or a write) takes it over only once that
# process's claim is HOLD seconds old, or at once if its heartbeat (every HEARTBEAT seconds)
# is older than LEASE seconds.
HOLD = 12.0
LEASE = 6.0
HEARTBEAT = 1.0
ELSEWHERE = ("another server process holds this table for a few seconds more; reconnect "
             "in a moment (nothing was changed here)")
log = logging.getLogger("ristiseiska.web")


class Tables:
    """All live tables, loaded from the store on first use."""

    def __init__(self, store: Store, bot_delay: float, pool: BotPool | None = None,
                 open_tables: int = 5000,
                 idle_seconds: float = 300.0, seed_source: Callable[[], int] | None = None,
                 metrics: Metrics | None = None) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.pool = pool
        self.open_tables = open_tables
        self.idle_seconds = idle_seconds
        self.seed_source = seed_source or fair.new_seed
        self.live: dict[str, LiveTable] = {}
        self.metrics = metrics or UNSERVED  # the app's (ops/metrics.py)
        if metrics is not None:  # its gauges read the tables in memory
            metrics.watch(lambda: self.live.values())
        # one load at a time per table, many tables at once (a failover brings a process many
        # tables together: loading them one by one kept the last waiting for seconds)
        self._loading: dict[str, tuple[asyncio.Lock, list[int]]] = {}
        self._sweeper: asyncio.Task[None] | None = None
        self._gc_threshold: tuple[int, ...] | None = None  # Python's, while we serve
        # told of every table that comes into memory, made or loaded (web/open_tables.py)
        self.on_live: list[Callable[[LiveTable, bool], None]] = []  # (table, made)
        # a storage fault is told at once to everyone at a live table: what they were last
        # acknowledged may be lost, and nothing more will be
        listeners = getattr(store, "on_fault", None)  # (test and benchmark stores have none)
        if listeners is not None:
            listeners.append(self._storage_fault)

    def _storage_fault(self, _why: str) -> None:
        err = ActionError("storage-fault", STORAGE_FAULT)
        for t in list(self.live.values()):
            t._error_all(err)

    async def get(self, table_id: str, own: bool = True) -> LiveTable:
        """The live table. ``own``: this process is to write it (a seated player, a seat
        claim), so it takes the table over if it may (:data:`HOLD`); else (a read, a
        spectator) a table another live process owns is served from a follower copy."""
        t = self.live.get(table_id)
        if t is not None and not t.follower and await self._current(t):
            t.last_active = time.monotonic()
            return t
        if not isinstance(table_id, str) or not 8 <= len(table_id) <= 64:
            raise ActionError("no-table", "no such table")
        lock, users = self._loading.setdefault(table_id, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                t = await self._load(table_id, own)
                t.last_active = time.monotonic()
                return t
        finally:
            users[0] -= 1
            if not users[0]:
                del self._loading[table_id]

    async def claim_for(self, t: LiveTable) -> None:
        """A seated player joined at follower copy ``t``: take the table over (in place: its
        connections stay), or raise ``moved`` while another live process's claim holds."""
        await self.get(t.id, own=True)
        if t.follower or t.closed:  # loaded afresh meanwhile (it left memory)
            raise ActionError("moved", ELSEWHERE)

    async def _load(self, table_id: str, own: bool) -> LiveTable:
        """The table from memory or, once, from the store (the caller holds its load lock)."""
        t = self.live.get(table_id)
        if t is not None and not t.closed:
            if t.follower:
                if own:
                    await self._promote(t, HOLD)
                elif time.monotonic() - t.owner_checked >= OWNER_CHECK:
                    await self._refresh(t)
            return t
        self._make_room()
        epoch = None
        try:
            if self.fencing:
                # take it over, then read it: every move its last owner stored is seen, and
                # none it tries to store from now on is (a read takes it only from a dead
                # owner: math.inf never lets a live one's claim lapse)
                epoch = await self.store.take(table_id, hold=HOLD if own else math.inf,
                                              lease=LEASE)
            st = await self.store.load(table_id)
        except IntegrityError:  # no such table to own
            st = None
        except Exception as e:  # noqa: BLE001
            raise store_error(e, "the table could not be read") from e
        if st is None:
            raise ActionError("no-table", "no such table")
        if self.fencing and epoch is None and own:
            raise ActionError("moved", ELSEWHERE)
        try:
            t = LiveTable.from_stored(st, self.store, self.bot_delay)
            t.pool = self.pool
            t.metrics = self.metrics
        except Exception as e:  # e.g. stored moves an older engine accepted
            raise ActionError("broken-table", f"this table cannot be restored: {e}") from e
        self.live[table_id] = t
        if self.fencing and epoch is None:
            self._follow(t)
        else:
            self._own(t, epoch)
            self._tell_live(t, False)  # (a follower's quick-table timer runs at its owner)
        return t

    def _follow(self, t: LiveTable) -> None:
        t.follower = True
        t.epoch = 0  # no owner has it: a write slipped through would be refused
        t.owner_checked = time.monotonic()
        t.on_lost = self._lost
        t.on_claim = self.claim_for

    async def _promote(self, t: LiveTable, hold: float) -> bool:
        """Take follower ``t`` over if ``hold`` allows (else raise ``moved`` when the hold is
        a writer's, else False); it then reads every move the last owner stored."""
        try:
            epoch = await self.store.take(t.id, hold=hold, lease=LEASE)
            if epoch is None:
                if hold == math.inf:
                    return False
                raise ActionError("moved", ELSEWHERE)
            st = await self.store.load(t.id)
        except ActionError:
            raise
        except Exception as e:  # noqa: BLE001
            raise store_error(e, "the table could not be read") from e
        await self._catch_up(t, st)
        if not t.closed:
            t.follower = False
            t.on_claim = None
            self._own(t, epoch)
            log.info("table %s: taken over by this server process (epoch %d)", t.id, epoch)
            self._tell_live(t, False)
            t.kick()
        return True

    async def _refresh(self, t: LiveTable) -> None:
        """Bring follower ``t`` up to date (at most once per ``OWNER_CHECK``); a table whose
        owner died is taken over."""
        t.owner_checked = time.monotonic()
        if await self._promote(t, math.inf):
            return
        try:
            st = await self.store.load(t.id)
        except Exception as e:  # noqa: BLE001
            raise store_error(e, "the table could not be read") from e
        await self._catch_up(t, st)

    async def _catch_up(self, t: LiveTable, st: Any) -> None:
        if st is None:
            t.lost()
            raise ActionError("no-table", "no such table")
        async with t.lock:
            try:
                t.follow(st)
            except Exception:  # noqa: BLE001 - not a continuation: this copy goes
                log.warning("table %s: the follower copy could not follow the store", t.id)
                t.lost()
                raise ActionError("moved", ELSEWHERE) from None

    @property
    def fencing(self) -> bool:
        return bool(getattr(self.store, "fencing", False))

    def _own(self, t: LiveTable, epoch: int | None) -> None:
        if epoch is not None:
            self.metrics.claims.inc()
        t.epoch = epoch
        t.owner_checked = time.monotonic()
        t.on_lost = self._lost

    def _lost(self, t: LiveTable) -> None:
        if self.live.get(t.id) is t:
            del self.live[t.id]

    async def _current(self, t: LiveTable) -> bool:
        """Whether this copy of the table is still the owner's (looked up at most once a
        second: a stale copy can show an old position for that long, but never store)."""
        if t.closed:
            return False
        if t.epoch is None or time.monotonic() - t.owner_checked < OWNER_CHECK:
            return True
        try:
            now = await self.store.owners([t.id])
        except Exception:  # noqa: BLE001 - the database away: show what is in memory
            return True  # (a write would be refused all the same)
        if now.get(t.id) != t.epoch:
            t.lost()
            return False
        t.owner_checked = time.monotonic()
        return True

    async def follow_all(self) -> None:
        """Refresh every follower copy somebody watches (the sweeper, every ``OWNER_CHECK``
        seconds): its spectators see the owner's moves, and a dead owner's table is taken."""
        for t in [t for t in self.live.values() if t.follower and t.conns and not t.closed]:
            with contextlib.suppress(ActionError):
                await self.get(t.id, own=False)

    async def check_owners(self) -> int:
        """Drop every table in memory another process has taken over (the sweeper calls it
        every ``OWNER_CHECK`` seconds); returns how many left."""
        mine = {tid: t for tid, t in self.live.items()
                if t.epoch is not None and not t.closed and not t.follower}
        if not mine:
            return 0
        now = await self.store.owners(list(mine))
        gone = 0
        checked = time.monotonic()
        for tid, t in mine.items():
            if now.get(tid) != t.epoch:
                t.lost()
                gone += 1
            else:
                t.owner_checked = checked
        return gone

    def _tell_live(self, t: LiveTable, made: bool) -> None:
        for hook in self.on_live:
            try:
                hook(t, made)
            except Exception:  # noqa: BLE001 - a listener must not cost the table
                log.exception("a table listener failed for %s", t.id)

    def seal(self, config: dict[str, Any]) -> dict[str, Any]:
        """Give a new table's configuration its match seed and the commitment to it: drawn
        here unless the creator chose one (then marked ``seed_chosen``)."""
        config = dict(config)
        daily = bool(config.get("daily"))  # the day's deal: its seed and salt (issue 57)
        chosen = config.get("seed") is not None and not daily
        if config.get("seed") is None:
            config["seed"] = self.seed_source()
        salt = str(config["seed_salt"]) if daily else fair.new_salt()
        config["seed_salt"] = salt
        config["seed_commitment"] = fair.commitment(int(config["seed"]), salt)
        config["seed_chosen"] = chosen
        return config

    def _make_room(self) -> None:
        """Refuse a table when memory is full of live tables, after unloading idle ones."""
        if len(self.live) < self.open_tables:
            return
        self.unload_idle(5.0)
        if len(self.live) >= self.open_tables:
            raise ActionError("server-full", "the server has as many open tables as it "
                              "can hold; try again in a few minutes")

    async def create(self, config: dict[str, Any], table_id: str | None = None) -> LiveTable:
        self._make_room()
        config = self.seal(config)
        table_id = table_id or secrets.token_urlsafe(16)
        try:
            await self.store.create_table(table_id, config,
                                          [s["name"] for s in config["seats"]])
        except Exception as e:  # noqa: BLE001 - e.g. a read-only or full database
            raise store_error(e, "the table could not be saved") from e
        t = LiveTable(table_id, config, self.store, self.bot_delay)
        t.pool = self.pool
        t.metrics = self.metrics
        self.live[table_id] = t
        try:
            # a new table: any process may write it at once (with nginx, the table's own
            # process takes it at the first seat claim; reads still never move it)
            self._own(t, await self.store.take(table_id, lapsed=True) if self.fencing else None)
            await t.start_first_deal()
        except Exception as e:  # noqa: BLE001
            self.live.pop(table_id, None)
            raise store_error(e, "the first deal could not be saved") from e
        self._tell_live(t, True)
        t.kick()
        return t

    def unload_idle(self, idle_seconds: float | None = None) -> int:
        """Drop tables nobody has used for ``idle_seconds`` from memory (they stay stored
        and are loaded again on the next visit). Returns how many left."""
        limit = self.idle_seconds if idle_seconds is None else idle_seconds
        gone = [tid for tid, t in self.live.items() if t.unloadable(limit)]
        for tid in gone:
            t = self.live.pop(tid)
            t.closed = True
        return len(gone)

    def start_sweeper(self, gc_freeze_every: float = 1.0, gc_full_every: float = 600.0) -> None:
        """Unload idle tables now and then, and keep the garbage collector's pauses short:
        with a thousand tables in memory a full collection walks every object and stalled
        every table for up to 0.3 s (measured). Objects that survived a while are frozen
        (left out of collections) every ``gc_freeze_every`` seconds, so a collection only
        walks what is new; every ``gc_full_every`` seconds they are thawed and one full
        collection frees any cycles among them.

        The youngest generation is collected every ``GC_YOUNG`` allocations instead of
        Python's 700: a move allocates thousands of short-lived objects that reference
        counting frees anyway, and each early collection walked them (and promoted the
        survivors, which the next one walked again) — 7% of the server's CPU per move at a
        thousand tables, 0.4% after (docs/notes/2026-12-02-server-cpu-passes.md,
        *Third pass*). Restored by :meth:`close`."""
        if self._gc_threshold is None:
            self._gc_threshold = gc.get_threshold()
            gc.set_threshold(GC_YOUNG, *GC_OLDER)

        async def sweep() -> None:
            period = max(1.0, min(60.0, self.idle_seconds / 4))
            last_sweep = last_full = last_owners = last_beat = time.monotonic()
            while True:
                await asyncio.sleep(min(period, gc_freeze_every))
                now = time.monotonic()
                if now - last_sweep >= period:
                    self.unload_idle()
                    last_sweep = now
                try:  # a database file changed under us is noticed even without writes
                    getattr(self.store, "verify", lambda: None)()
                except StorageFault:
                    self.store.tell_fault()
                if self.fencing and now - last_beat >= HEARTBEAT:
                    last_beat = now
                    try:  # this process's claims hold while it says it is alive
                        await self.store.beat()
                    except Exception:  # noqa: BLE001 - the database away: the next round
                        log.debug("heartbeat failed", exc_info=True)
                if self.fencing and now - last_owners >= OWNER_CHECK:
                    last_owners = now
                    try:  # tables another process took over while this one was away
                        await self.check_owners()
                        await self.follow_all()
                    except Exception:  # noqa: BLE001 - the database away: the next round
                        log.debug("owner check failed", exc_info=True)
                if now - last_full >= gc_full_every:
                    gc.unfreeze()
                    gc.collect()
                    last_full = now
                gc.freeze()

        gc.freeze()
        self._sweeper = asyncio.get_running_loop().create_task(sweep())

    async def resume_all(self) -> None:
        """Nothing to do at start-up: every table is loaded on its first visit (bots-only
        tables pause while nobody watches, so none needs to run unseen). Kept for callers."""

    async def close(self) -> None:
        if self._sweeper is not None:
            self._sweeper.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._sweeper
            gc.unfreeze()
        if self._gc_threshold is not None:
            gc.set_threshold(*self._gc_threshold)
            self._gc_threshold = None
        for t in self.live.values():
            await t.close()
        if self.fencing:  # gone: the other processes may take this one's tables at once
            with contextlib.suppress(Exception):
                await self.store.beat(alive=False)


def random_seed() -> int:
    return fair.new_seed()


Chooser = Callable[[Any], Move]

"""The turn clock (issue 20): a time limit per decision at tables with friends.

A table created with ``"clock": 15 | 30 | 60`` (seconds; ``null``, the default, is no clock)
gives every friend seat that must decide — play a card, take the token, pass, whatever the turn
asks — that many seconds. While one does, every state frame carries
``"clock": {"seat": S, "remaining_ms": M}`` (``null`` otherwise: a bot or a stand-in to move,
the deal or the match over, the table waiting). At zero the seat's stand-in bot (the default
level, as for the stand-ins the host seats) makes that one move; its history event has
``"timeout": true`` and the log says the clock played it. After two timeouts in a row the
stand-in keeps the seat until its player sends ``{"type": "back"}`` (the page's *I'm back*);
a move the player makes resets the count.

Timing. One ``loop.call_later`` handle per table, never a task per second: it fires at the
deadline, or earlier at a *checkpoint* (every :data:`CHECKPOINT` seconds of a running clock),
where the time left is stored and the timer set again. The timeout move is made under the
table's lock; a searching stand-in would think in the bot pool with the lock released, the way
``LiveTable._bot_step`` does (the default level answers at once).

Stored (``rs_clock``, ``rs_clock_timeouts``; docs/web-api.md "The turn clock"): at each turn start the
turn (deal, ply, seat) and its full budget, at each checkpoint the time left, when the clock
pauses or the server stops the exact time left, plus the timeouts in a row and the held seats.
After a restart (a SIGKILL too) the same turn resumes with the stored time left: never more
than the option, never less than the stored state shows (the player may win back at most one
checkpoint interval of what ran before a crash). The clock runs only while the table is in
memory and somebody is connected to it — never while the server is down or nobody is there.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from .. import i18n
from ..bots.pool import shared_pool
from ..moves import Move
from . import bots as botlib

CHOICES = (15, 30, 60, 180)  # seconds per decision (180: a long clock, issue 47)
CHECKPOINT = 5.0  # seconds of a running clock between two stored times left
STRIKES = 2  # timeouts in a row after which the stand-in keeps the seat
# Tests only: a factor on every clock time (0.02 makes a 15-second clock run in 0.3 s), so a
# test can let a clock run out in another process too. Unset, the clock is the real one.
SCALE_ENV = "RISTISEISKA_TEST_CLOCK_SCALE"
log = logging.getLogger("ristiseiska.web")

Key = tuple[int, int, int]  # (deal index, ply, seat) of one decision


def option(data: Mapping[str, Any], error: Callable[[str, str], Exception]) -> dict[str, Any]:
    """The ``clock`` option of a create-table request, for the table's configuration."""
    value = data.get("clock")
    if value is None:
        return {"clock": None}
    if isinstance(value, bool) or not isinstance(value, int) or value not in CHOICES:
        shown = repr(value) if not isinstance(value, str) else repr(value[:20])
        raise error("bad-clock", f"clock must be 15, 30, 60 or 180 (seconds per decision) or null "
                    f"for no clock, not {shown}")
    return {"clock": value}


def test_scale() -> float:
    """The test-only factor from :data:`SCALE_ENV` (1.0 when unset or not a positive number)."""
    raw = os.environ.get(SCALE_ENV)
    if not raw:
        return 1.0
    try:
        value = float(raw)
    except ValueError:
        return 1.0
    return value if 0 < value <= 1 else 1.0


def describe(event: Mapping[str, Any], names: Sequence[str] | None, lang: str) -> str:
    """An event's log sentence; a move the clock made says so."""
    text = i18n.describe_event(event, names, lang)
    if event.get("timeout"):
        text = f"{text} {i18n.t('clock.log.timeout', lang)}"
    elif event.get("auto"):  # a forced move made for the player (web/forced.py)
        text = f"{text} {i18n.t('forced.log.auto', lang)}"
    return text


class TurnClock:
    """The clock of one :class:`~ristiseiska.web.live_table.LiveTable` (``table.clock``)."""

    def __init__(self, table: Any, error: Callable[[str, str], Exception]) -> None:
        self.t = table
        self.error = error  # the table's ActionError (no import of live_table.py here)
        seconds = table.config.get("clock")
        self.seconds: int | None = seconds if seconds in CHOICES else None
        self.scale = test_scale()
        self.strikes: dict[int, int] = {}  # seat -> timeouts in a row
        self.held: set[int] = set()  # seats the clock's stand-in keeps until "back"
        self.marks: set[tuple[int, int]] = set()  # (deal index, ply) of timeout moves
        self.running: Key | None = None
        self.deadline = 0.0  # loop time the running decision's time is up
        self.saved: tuple[Key, int] | None = None  # a paused or restored turn's ms left
        self._gen = 0  # bumped at every (re)arming: a stale timer or task does nothing
        self._handle: asyncio.TimerHandle | None = None
        self._dirty = False
        self._writer: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        return self.seconds is not None

    def budget(self) -> float:
        """A whole decision's time, in seconds of the loop's clock."""
        return float(self.seconds or 0) * self.scale

    # -- restoring --------------------------------------------------------------------------
    def restore(self, state: Mapping[str, Any] | None, timeouts: Sequence[tuple[int, int]]
                ) -> None:
        """Take the stored state back after a restart (every field checked: a row written by
        an older or damaged server is ignored, field by field)."""
        self.marks = {(int(d), int(p)) for d, p in timeouts}
        if not state:
            return
        n = self.t.n
        strikes = state.get("strikes")
        if isinstance(strikes, dict):
            for k, v in strikes.items():
                with contextlib.suppress(TypeError, ValueError):
                    if 0 <= int(k) < n and int(v) > 0:
                        self.strikes[int(k)] = int(v)
        held = state.get("held")
        if isinstance(held, list):
            self.held = {int(s) for s in held
                         if isinstance(s, int) and 0 <= s < n and self.t.seats[s].standin}
        turn = state.get("turn")
        if isinstance(turn, list) and len(turn) == 4 and all(isinstance(x, int) for x in turn):
            deal, ply, seat, left = turn
            self.saved = ((deal, ply, seat), max(0, left))

    def mark(self, deal: int, events: list[dict[str, Any]], start: int) -> None:
        """Mark the events from ``start`` on that are moves the clock made (event = ply)."""
        for i in range(start, len(events)):
            if (deal, i) in self.marks:
                events[i] = {**events[i], "timeout": True}

    # -- the running clock --------------------------------------------------------------------
    def turn(self) -> Key | None:
        """The decision the clock times now, if any."""
        t = self.t
        if not self.enabled or t.closed or t.follower or not t.started or not t.conns:
            return None
        g = t.game
        if g is None or g.is_over():
            return None
        seat = g.to_move
        s = t.seats[seat]
        if s.kind != "friend" or s.standin:
            return None
        return (len(t.games) - 1, len(g.moves), seat)

    def left(self) -> float:
        """Seconds left on the running decision (0 at most once it is up)."""
        if self.running is None:
            return 0.0
        return max(0.0, self.deadline - asyncio.get_running_loop().time())

    def sync(self) -> None:
        """Start, keep or stop the timer for the table's current position. Called at every
        broadcast (the table's state changed), so no change can be missed; synchronous."""
        key = self.turn()
        if key == self.running:
            return
        loop = asyncio.get_running_loop()
        if self.running is not None:  # that decision is made, or the clock pauses
            self.saved = (self.running, int(self.left() * 1000))
            self._cancel()
            self.running = None
        if key is not None:
            budget = self.budget()
            if self.saved is not None and self.saved[0] == key:
                budget = min(budget, self.saved[1] / 1000)  # resumed: what was left
            self.running = key
            self.deadline = loop.time() + budget
            self.saved = None
            self._arm(budget)
        self.persist()

    def _arm(self, left: float) -> None:
        self._cancel()
        self._gen += 1
        gen = self._gen
        wait = max(0.0, min(left, CHECKPOINT * self.scale))
        loop = asyncio.get_running_loop()
        self._handle = loop.call_later(wait, lambda: loop.create_task(self._expire(gen)))

    def _cancel(self) -> None:
        self._gen += 1
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    def frame(self) -> dict[str, Any]:
        """The state frame's part: nothing for a table without a clock."""
        if not self.enabled:
            return {}
        self.sync()
        if self.running is None:
            return {"clock": None}
        return {"clock": {"seat": self.running[2], "remaining_ms": int(self.left() * 1000)}}

    def info(self) -> dict[str, Any]:
        """The table part (``public_info``): the option and the seats the stand-in keeps."""
        return {"clock": self.seconds, "clock_held": sorted(self.held)}

    # -- when the time is up ---------------------------------------------------------------------
    async def _expire(self, gen: int) -> None:
        t = self.t
        try:
            async with t.lock:
                if gen != self._gen or t.closed or self.running is None:
                    return
                if self.running != self.turn():  # changed without a broadcast yet
                    self.sync()
                    return
                left = self.left()
                if left > 0.001:  # a checkpoint: store the time left, wait on
                    self._arm(left)
                    self.persist()
                    return
                moved = await self._timeout_move(gen)
            if moved:
                t.kick()  # the next seat may be a bot (or the stand-in keeps this one)
        except Exception as e:  # noqa: BLE001 - a store refusal or a bug: try again shortly
            log.warning("table %s: the clock's move failed (%s); trying again", t.id, e)
            with contextlib.suppress(RuntimeError):
                if gen == self._gen and not t.closed:
                    self._arm(2.0 * max(self.scale, 0.05))

    async def _timeout_move(self, gen: int) -> bool:
        """The stand-in's move for the seat whose time is up (the caller holds the lock and
        the lock is released only while a searching bot thinks)."""
        t = self.t
        g = t.game
        assert self.running is not None and g is not None
        deal, ply, seat = self.running
        level = botlib.default_level()
        legal = g.legal_moves()
        move: Move
        if len(legal) == 1:
            move = legal[0]
        else:
            view = t.seat_view(g, seat)
            if botlib.pooled(level):
                t.lock.release()
                try:
                    pending: Move | None = await botlib.choose_pooled(
                        t.pool or shared_pool(), level, t._bot_seed(seat), view)
                except Exception:  # noqa: BLE001 - checked below
                    log.exception("the clock's stand-in at table %s failed", t.id)
                    pending = legal[0]
                finally:
                    await t.lock.acquire()
                if (gen != self._gen or t.closed or t.game is not g
                        or len(g.moves) != ply or self.running != (deal, ply, seat)):
                    return False  # the player moved meanwhile
                move = t._checked(seat, level, legal, pending, view)
            else:
                move = t._checked(seat, level, legal, None, view)
        self.marks.add((deal, ply))  # before the move: its event is built marked
        try:
            await t._apply(seat, move)  # stores, then broadcasts (the next turn's clock)
        except BaseException:
            self.marks.discard((deal, ply))
            raise
        self.strikes[seat] = self.strikes.get(seat, 0) + 1
        add = getattr(t.store, "add_timeout", None)
        if add is not None:
            try:
                await add(t.id, deal, ply)
            except Exception as e:  # noqa: BLE001 - the move stands; only its mark is lost
                log.warning("table %s: the clock's mark could not be saved: %s", t.id, e)
        if self.strikes[seat] >= STRIKES and not t.seats[seat].standin:
            try:
                await t._save_state(sorted({*t._standins(), seat}),
                                    "the stand-in could not be saved")
            except Exception as e:  # noqa: BLE001 - the clock goes on timing the seat
                log.warning("table %s: %s", t.id, e)
            else:
                t.seats[seat].standin = True
                self.held.add(seat)
                t._broadcast()
        self.persist()
        return True

    # -- the player ------------------------------------------------------------------------------
    def moved(self, seat: int) -> None:
        """The player made a move themselves: their timeouts in a row start again at zero."""
        if self.strikes.pop(seat, 0):
            self.persist()

    def check_move(self, seat: int) -> None:
        """A player whose seat the clock's stand-in keeps comes back before moving (else the
        stand-in and the player would both play the seat)."""
        if seat in self.held and self.t.seats[seat].standin:
            raise self.error("seat-held", "a bot plays your seat since your time ran out "
                             "twice in a row: send 'back' (I'm back) first")

    def holds(self, seat: int) -> bool:
        """The clock's stand-in keeps this seat (only *I'm back* returns it, not a rejoin)."""
        return seat in self.held

    async def back(self, seat: int | None) -> None:
        """``{"type": "back"}``: the player takes their seat back from the stand-in."""
        t = self.t
        if seat is None:
            raise self.error("not-seated", "only a player can come back to a seat; "
                             "take a seat first")
        async with t.lock:
            if not t.seats[seat].standin:
                raise self.error("not-standin", "nobody plays your seat for you: it is "
                                 "yours already")
            await t._save_state([s for s in t._standins() if s != seat],
                                "your return could not be saved")
            t.seats[seat].standin = False
            t.seats[seat].away_since = None
            self.held.discard(seat)
            self.strikes.pop(seat, None)
            t._broadcast()
            self.persist()
        t.kick()

    # -- storing ---------------------------------------------------------------------------------
    def snapshot(self) -> dict[str, Any]:
        turn: list[int] | None = None
        if self.running is not None:
            turn = [*self.running, int(self.left() * 1000)]
        elif self.saved is not None:
            turn = [*self.saved[0], self.saved[1]]
        return {"turn": turn, "strikes": {str(k): v for k, v in self.strikes.items() if v},
                "held": sorted(self.held)}

    def persist(self) -> None:
        """Store the clock's state soon, off the move's path: one writer per table writes
        the newest state (so a slow database never holds a move back, and writes that pile
        up are merged into one)."""
        if getattr(self.t.store, "set_clock", None) is None or not self.enabled and not (
                self.held or self.strikes):
            return
        self._dirty = True
        if self._writer is None or self._writer.done():
            with contextlib.suppress(RuntimeError):
                self._writer = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        while self._dirty:
            self._dirty = False
            try:
                await self.t.store.set_clock(self.t.id, self.snapshot())
            except Exception as e:  # noqa: BLE001 - the clock runs on in memory
                log.warning("table %s: the clock could not be saved: %s", self.t.id, e)

    async def close(self) -> None:
        """The table leaves memory (or the server stops): the clock stops and what is left
        on it is stored."""
        if self.running is not None:
            self.saved = (self.running, int(self.left() * 1000))
            self.running = None
        self._cancel()
        if self._writer is not None and not self._writer.done():
            with contextlib.suppress(Exception):
                await self._writer
        if self.enabled and getattr(self.t.store, "set_clock", None) is not None:
            with contextlib.suppress(Exception):
                await self.t.store.set_clock(self.t.id, self.snapshot())

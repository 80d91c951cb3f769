"""Forced moves made for a person (issue 52).

When a person's only legal move is one with no choice in it — take the token, pass, ask for a
card, draw from the stock or pay a chip — the server makes it for them after a short pause
(:data:`PAUSE` seconds). While it waits, every state frame carries
``"forced": {"seat": S, "move": "token", "remaining_ms": M}`` (``null`` otherwise), so the page
tells the player what is about to happen ("No card to play: you take the token"); the player
may still make the move themselves meanwhile. The move's history event has ``"auto": true``
and the log says it was made for the player.

A table option, ``"auto_forced"`` (``true`` by default), set when the table is created and shown
to everyone at the table (``public_info``): with ``false`` the person makes every move
themselves. Bots and stand-ins move as before (web/bot_driver.py).

Timing as the turn clock's (web/clock.py): one ``loop.call_later`` handle per table, armed at
every broadcast for the position shown; the move is made under the table's lock and only if
the position is still the one the pause was for. The marks are stored (``rs_forced_moves``,
like the clock's timeouts) and come back after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import Callable, Mapping
from typing import Any

from ..forced import KINDS, forced_move

PAUSE = 2.0  # seconds the table shows what is about to happen
# Tests only: the pause in seconds (a browser test shortens it, then lengthens it to look).
PAUSE_ENV = "RISTISEISKA_TEST_FORCED_PAUSE"
log = logging.getLogger("ristiseiska.web")
__all__ = ["KINDS", "PAUSE", "PAUSE_ENV", "ForcedMoves", "forced_move", "option", "pause_seconds"]

Key = tuple[int, int, int]  # (deal index, ply, seat) of one forced decision


def option(data: Mapping[str, Any], error: Callable[[str, str], Exception]) -> dict[str, Any]:
    """The ``auto_forced`` option of a create-table request (default ``true``)."""
    value = data.get("auto_forced", True)
    if not isinstance(value, bool):
        raise error("bad-auto-forced", "auto_forced must be true (forced moves are made for "
                    "the player after a short pause) or false")
    return {"auto_forced": value}


def pause_seconds() -> float:
    raw = os.environ.get(PAUSE_ENV)
    if raw:
        with contextlib.suppress(ValueError):
            value = float(raw)
            if 0 <= value <= 60:
                return value
    return PAUSE


class ForcedMoves:
    """The forced moves of one :class:`~ristiseiska.web.live_table.LiveTable` (``table.forced``)."""

    def __init__(self, table: Any) -> None:
        self.t = table
        self.enabled = table.config.get("auto_forced", True) is not False
        self.pause = pause_seconds()
        self.marks: set[tuple[int, int]] = set()  # (deal index, ply) of moves made here
        self.running: Key | None = None
        self.deadline = 0.0
        self._gen = 0
        self._handle: asyncio.TimerHandle | None = None

    def _person(self, seat: int) -> bool:
        s = self.t.seats[seat]
        return s.kind == "friend" and not s.standin

    def due(self) -> Key | None:
        """The forced decision of a person the table shows now, if any."""
        t = self.t
        if not self.enabled or t.closed or t.follower or not t.started or not t.conns:
            return None
        g = t.game
        if g is None or forced_move(g) is None or not self._person(g.to_move):
            return None
        return (len(t.games) - 1, len(g.moves), g.to_move)

    def mark(self, deal: int, events: list[dict[str, Any]], start: int) -> None:
        """Mark the events from ``start`` on that were made for the player (event = ply)."""
        for i in range(start, len(events)):
            if (deal, i) in self.marks:
                events[i] = {**events[i], "auto": True}

    def frame(self) -> dict[str, Any]:
        """The state frame's part (nothing when the option is off); starts or stops the pause
        for the position shown."""
        if not self.enabled:
            return {}
        self.sync()
        if self.running is None:
            return {"forced": None}
        g = self.t.game
        move = forced_move(g) if g is not None else None
        left = max(0.0, self.deadline - asyncio.get_running_loop().time())
        return {"forced": {"seat": self.running[2],
                           "move": move.text() if move is not None else None,
                           "remaining_ms": int(left * 1000)}}

    def info(self) -> dict[str, Any]:
        return {"auto_forced": self.enabled}

    def sync(self) -> None:
        key = self.due()
        if key == self.running:
            return
        self._cancel()
        self.running = key
        if key is not None:
            loop = asyncio.get_running_loop()
            self.deadline = loop.time() + self.pause
            self._gen += 1
            gen = self._gen
            self._handle = loop.call_later(self.pause,
                                           lambda: loop.create_task(self._fire(gen)))

    def _cancel(self) -> None:
        self._gen += 1
        if self._handle is not None:
            self._handle.cancel()
            self._handle = None

    async def _fire(self, gen: int) -> None:
        t = self.t
        try:
            async with t.lock:
                if gen != self._gen or t.closed or self.running is None:
                    return
                key = self.running
                if key != self.due():  # the player moved (or left) meanwhile
                    t._broadcast()
                    return
                g = t.game
                move = forced_move(g) if g is not None else None
                if g is None or move is None:
                    return
                self.marks.add((key[0], key[1]))  # before the move: its event is built marked
                try:
                    await t._apply(key[2], move)  # stores, then broadcasts (the next pause)
                except BaseException:
                    self.marks.discard((key[0], key[1]))
                    raise
                add = getattr(t.store, "add_forced", None)
                if add is not None:
                    try:
                        await add(t.id, key[0], key[1])
                    except Exception as e:  # noqa: BLE001 - the move stands; only its mark is lost
                        log.warning("table %s: the forced move's mark could not be saved: %s",
                                    t.id, e)
            t.kick()  # the next seat may be a bot
        except Exception as e:  # noqa: BLE001 - a store refusal: try again after a pause
            log.warning("table %s: the forced move failed (%s); trying again", t.id, e)
            with contextlib.suppress(RuntimeError):
                if gen == self._gen and not t.closed:
                    self.running = None
                    loop = asyncio.get_running_loop()
                    loop.call_later(max(self.pause, 1.0), t._rebroadcast)

    def close(self) -> None:
        self._cancel()
        self.running = None

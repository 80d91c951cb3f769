"""The bots at a live table: when one is due, its pace (a jittered pause), its move (a quick
bot here, a searching one in the worker pool without the table's lock, the stand-in while the
pool warms up) and the check that a faulty bot never stalls the table.

While the database is away the bots retry saving (capped backoff, for as long as the table
lives) and every connection is sent ``{"type": "notice", "code": "saving-retry"}`` (also one
that arrives meanwhile), then ``{"type": "notice", "code": "saved"}`` once a write succeeds."""

from __future__ import annotations

import asyncio
import logging
import time
from typing import TYPE_CHECKING, Any

from ..aio import sleep_on
from ..bots.pool import shared_pool
from ..game import Game, IllegalMoveError
from ..moves import Move
from . import bots as botlib
from .errors import ActionError

if TYPE_CHECKING:
    import random

    from ..bots.pool import BotPool
    from ..match import Match
    from ..ops.metrics import Metrics
    from .connections import Conn
    from .seats import Seat

log = logging.getLogger("ristiseiska.web")

# the longest pause, in seconds, between a bot's tries to save while the database is away
RETRY_CAP = 5.0


class BotDriver:
    """The bots' part of :class:`~ristiseiska.web.live_table.LiveTable` (a mixin)."""

    if TYPE_CHECKING:  # what it uses of the rest of the live table
        id: str
        config: dict[str, Any]
        seats: list[Seat]
        match: Match
        lock: asyncio.Lock
        conns: set[Conn]
        bots: dict[int, Any]
        pool: BotPool | None
        metrics: Metrics
        bot_delay: float
        closed: bool
        follower: bool
        started: bool
        store_failures: int
        _bot_task: asyncio.Task[None] | None
        _pace: random.Random
        _warming_told: set[str]

        @property
        def game(self) -> Game | None: ...
        @property
        def has_friends(self) -> bool: ...
        def plays_bot(self, seat: int) -> bool: ...
        def seat_view(self, g: Game, seat: int) -> Any: ...
        async def _apply(self, seat: int, move: Move, move_id: Any = None) -> None: ...
        async def _next_deal_locked(self) -> None: ...
        async def _reconcile(self) -> None: ...

    def _bot(self, seat: int) -> Any:
        if seat not in self.bots:
            level = self.seats[seat].bot or botlib.default_level()  # a stand-in plays the default
            self.bots[seat] = botlib.make_bot(level, self._bot_seed(seat))
        return self.bots[seat]

    def _bot_seed(self, seat: int) -> int:
        given = self.config.get("bot_seeds")  # the daily deal's bots (issue 57)
        if isinstance(given, dict) and str(seat) in given:
            return int(given[str(seat)])
        return int(self.config["seed"]) * 31 + seat

    # -- bots -------------------------------------------------------------------------------
    def kick(self) -> None:
        """Make sure the bot driver runs if a bot (or a bot-only table's next deal) is due."""
        if self.closed or self.follower:  # a follower copy: the owner's bots play
            return
        if self._bot_task is None or self._bot_task.done():
            self._bot_task = asyncio.get_running_loop().create_task(self._drive())

    def _due(self) -> str | None:
        g = self.game
        if g is None or not self.started:
            return None
        if not self.conns:
            # nobody connected: the bots wait (a bots-only table would otherwise play on
            # unseen forever, and a process that only created a table must not play it)
            return None
        if g.is_over():
            if not self.has_friends and not self.match.is_over():
                return "deal"
            return None
        return "bot" if self.plays_bot(g.to_move) else None

    async def _drive(self) -> None:
        loop = asyncio.get_running_loop()
        while not self.closed and self._due():
            # a little jitter: bots feel less mechanical and many tables do not move in step
            await sleep_on(loop, self.bot_delay * self._pace.uniform(0.7, 1.3))
            try:
                await self._bot_step()  # it takes the lock itself (not while a bot thinks)
            except ActionError as e:  # the store refused (e.g. the database is away)
                if e.code in ("moved", "storage-fault"):  # final: everyone has been told
                    return
                self.store_failures += 1
                if self.store_failures == 1:
                    log.warning("table %s: %s; the bots retry until it can be saved",
                                self.id, e.message, extra={"table": self.id})
                    self._tell_saving(False)
                # never give up while the table lives: the database may come back any time
                await sleep_on(loop, min(RETRY_CAP, 0.5 * 2.0 ** min(self.store_failures, 8)))
            else:
                self._saved()

    def _saved(self) -> None:
        """A write went through: after an outage, say so (in the log and on the page)."""
        if self.store_failures:
            log.warning("table %s: saving works again after %d failed tries", self.id,
                        self.store_failures, extra={"table": self.id})
            self.store_failures = 0
            self._tell_saving(True)

    def _tell_saving(self, ok: bool) -> None:
        """The page shows *saving failed, retrying* until it hears *saved* (web.table.saving)."""
        for c in list(self.conns):
            c.send({"type": "notice", "code": "saved" if ok else "saving-retry"})

    def _error_all(self, e: ActionError) -> None:
        for c in list(self.conns):
            c.send({"type": "error", "code": e.code, "message": e.message})

    async def _bot_step(self) -> None:
        async with self.lock:
            await self._reconcile()  # after a failed write: what did the store keep?
            due = self._due()
            g = self.game
            if due == "deal":
                await self._next_deal_locked()
                return
            if due != "bot" or g is None:
                return
            seat, done = g.to_move, len(g.moves)
            legal = g.legal_moves()
            level = self.seats[seat].bot or botlib.default_level()
            if len(legal) == 1:  # forced: no bot and no view needed
                await self._apply(seat, legal[0])
                return
            view = self.seat_view(g, seat)
            if not botlib.pooled(level):  # a quick bot
                with self.metrics.bot_seconds.labels(level).time():
                    chosen = self._checked(seat, level, legal, None, view)
                await self._apply(seat, chosen)
                return
            stand = (self.pool or shared_pool()).stand_in(level)
            if stand is not None:  # its compiled code is still being built: no waiting on it
                self._tell_warming(level)
                move = self._stand_in_move(seat, stand, view)
                await self._apply(seat, self._checked(seat, stand, legal, move, view))
                return
        # A searching bot thinks in another process, without the table's lock: the table (and
        # the event loop) keep answering meanwhile.
        began = time.perf_counter()
        try:
            pending: Move | None = await botlib.choose_pooled(
                self.pool or shared_pool(), level, self._bot_seed(seat), view)
        except Exception:  # noqa: BLE001 - checked and logged below
            log.exception("bot %r at table %s seat %d failed; it plays %s instead",
                          level, self.id, seat, legal[0])
            pending = legal[0]
        self.metrics.bot_seconds.labels(level).observe(time.perf_counter() - began)
        async with self.lock:
            if self.closed or self.game is not g or len(g.moves) != done or g.is_over():
                return  # the position changed while the bot thought
            await self._apply(seat, self._checked(seat, level, legal, pending, view))

    def _stand_in_move(self, seat: int, level: str, view: Any) -> Move | None:
        try:
            move: Move = botlib.make_bot(level, self._bot_seed(seat)).choose(view)
        except Exception:  # noqa: BLE001 - _checked logs the fallback
            log.exception("stand-in %r at table %s seat %d failed", level, self.id, seat)
            return None
        return move

    def _tell_warming(self, level: str) -> None:
        """Say once per table and level that a bot plays by its stand-in's rules for now
        (the page shows it in words: bots.warming.*)."""
        if level in self._warming_told:
            return
        self._warming_told.add(level)
        for c in list(self.conns):
            c.send({"type": "notice", "code": "warming", "level": level})

    def _checked(self, seat: int, level: str, legal: list[Move], move: Move | None,
                 view: Any) -> Move:
        """The bot's move if it is legal (asking a quick bot here when ``move`` is None);
        otherwise, logged, the first legal move: a faulty bot must not stall the table."""
        try:
            if move is None and not botlib.pooled(level):
                move = self._bot(seat).choose(view)
            if move is None:
                raise IllegalMoveError("the bot gave no move")
            if move not in legal:
                raise IllegalMoveError(f"the bot chose {move}, which is not a legal move")
            return move
        except Exception:  # noqa: BLE001 - any failure of a bot
            log.exception("bot %r at table %s seat %d failed; it plays %s instead",
                          level, self.id, seat, legal[0])
            return legal[0]

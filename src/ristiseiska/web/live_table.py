"""A live table: the match, the current deal, the seats, the connections and the bots.

Every accepted move is written to the store before anyone hears of it; a table is rebuilt after
a restart by replaying its stored moves from the match seed. The class is told in parts, each
in its own module: the seats (web/seats.py), what is sent (web/table_views.py) and the bots
(web/bot_driver.py); here are its state, the connections and the moves.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import random
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any

from ..bots.pool import BotPool
from ..game import Game, IllegalMoveError
from ..match import Match
from ..moves import Move, MoveError
from ..ops.metrics import UNSERVED, Metrics
from ..rules import Rules
from ..store import Store
from ..store.errors import Fenced
from ..store.schema import StoredTable
from . import bots as botlib
from . import clock as clockmod
from . import forced as forcedmod
from . import rated
from .bot_driver import BotDriver
from .connections import MAX_CONNECTIONS, Conn
from .errors import MOVED, ActionError, store_error
from .seats import AWAY_GRACE, DEVICE_SEP, Seat, Seating
from .table_views import TableViews

MAX_MOVE_IDS = 256  # acknowledged move ids remembered per seat (a resent id gets its ack again)
log = logging.getLogger("ristiseiska.web")


class LiveTable(Seating, TableViews, BotDriver):
    pool: BotPool | None = None  # where the searching bots think (set by Tables)
    metrics: Metrics = UNSERVED  # the app's (set by Tables; ops/metrics.py)

    def __init__(self, table_id: str, config: dict[str, Any], store: Store,
                 bot_delay: float) -> None:
        self.id = table_id
        self.config = config
        self.store = store
        self.bot_delay = bot_delay
        self.rules = Rules.from_dict(config["rules"])
        if config.get("preset"):
            self.rules = self.rules.replace(name=config["preset"])
        self.seats = [Seat(s["kind"], s.get("bot"), s["name"], api=s.get("api"))
                      for s in config["seats"]]
        self.n = len(self.seats)
        self.match = Match(self.rules, self.n, seed=int(config["seed"]),
                           names=[s.name for s in self.seats])
        self.games: list[Game] = []  # every deal started, the last one is current
        self.lock = asyncio.Lock()
        self.conns: set[Conn] = set()
        self.bots: dict[int, Any] = {}
        self._bot_task: asyncio.Task[None] | None = None
        self.closed = False
        self._pace = random.Random()  # pacing only; never decides a move
        self._rules_dict = self.rules.to_dict()
        self._log: dict[tuple[int, int | None, str], list[str]] = {}
        self._rows: dict[int, Any] = {}  # public_view's row parts for the current game
        # The first deal waits for every friend seat to be taken (or for the host's word);
        # a bot-only table starts at once.
        self.started = not self.has_friends or self._all_friends_seated()  # (Bot API seats)
        self.away_grace = AWAY_GRACE
        # (deal, seat) -> the history's events as JSON texts, one per event, as seat sees them
        self._hist: dict[tuple[int, int | None], list[str]] = {}
        # (deal, seat) -> the same events as dicts (shared by the JSON above, the log and the
        # bots' views, so no event is converted twice)
        self._ev: dict[tuple[int, int | None], list[dict[str, Any]]] = {}
        # deal -> every event's record form once (each seat's list above shares the dicts of
        # the events it may see whole: most of them)
        self._ev_all: dict[int, list[dict[str, Any]]] = {}
        # (deal, seat) and (deal, seat, lang) -> (count, the JSON array of the first count
        # history texts or log sentences): see _joined
        self._texts: dict[tuple[Any, ...], tuple[int, str]] = {}
        self._acked: dict[int, OrderedDict[Any, str]] = {}
        self.last_active = time.monotonic()
        self.store_failures = 0  # the bots' failed tries to save in a row (web/bot_driver.py)
        # a write failed: it may have been committed all the same (a connection lost after the
        # commit), so the store is asked what it holds before the next write (_reconcile)
        self._unsure = False
        self.rematch: str | None = None  # the id of this match's rematch, once made (issue 20)
        self.clock = clockmod.TurnClock(self, ActionError)  # the turn clock (issue 20)
        self.forced = forcedmod.ForcedMoves(self)  # forced moves made for a person (issue 52)
        self._warming_told: set[str] = set()  # levels whose stand-in the table was told of
        # This process's fencing number for the table (Store.take), None where no owners are
        # kept; the last time it was found current; told when another process took it over.
        self.epoch: int | None = None
        self.owner_checked = 0.0
        self.on_lost: Callable[[LiveTable], None] | None = None
        # A follower copy: read from the store while another live process owns the table
        # (docs/hosting.md, *Who owns a table*). It serves reads and spectators, runs no bot
        # and no clock, and its fencing number 0 (no owner has it) makes any write refused.
        # ``on_claim`` asks the process to take the table over for a seated player.
        self.follower = False
        self.on_claim: Callable[[LiveTable], Awaitable[None]] | None = None

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def from_stored(cls, st: StoredTable, store: Store, bot_delay: float) -> LiveTable:
        t = cls(st.id, st.config, store, bot_delay)
        for seat, name in st.seat_names.items():
            t.seats[seat].name = name
            stored = st.token_hashes.get(seat)  # "TOKENHASH" or "TOKENHASH|DEVICEHASH"
            if stored is not None:
                token_hash, _, device_hash = stored.partition(DEVICE_SEP)
                t.seats[seat].token_hash = token_hash
                t.seats[seat].device_hash = device_hash or None
        t.match.names = [s.name for s in t.seats]
        for d in range(st.deals):
            g = t.match.new_deal()
            for text in st.moves.get(d, []):
                g.push(g.parse_move(text))
            t.games.append(g)
            if g.result is not None:
                t.match.add_result(g.result)
        # A table that was already under way goes on, with the stand-ins the host seated (a
        # database from before rs_table_state has none: the host can seat them again); a
        # table still waiting keeps waiting.
        t.started = (t.started or st.started or st.deals > 1 or bool(st.moves.get(0))
                     or t._all_friends_seated())
        for seat in st.standins:
            if 0 <= seat < t.n and t.seats[seat].kind == "friend":
                t.seats[seat].standin = True
        t.clock.restore(st.clock, st.timeouts)
        t.forced.marks = {(int(d), int(p)) for d, p in getattr(st, "forced", [])}
        for seat, mid, text in st.move_ids[-MAX_MOVE_IDS * t.n:]:  # acknowledged before
            with contextlib.suppress(ValueError):
                acked = t._acked.setdefault(seat, OrderedDict())
                acked[json.loads(mid)] = text
                if len(acked) > MAX_MOVE_IDS:
                    acked.popitem(last=False)
        return t

    def follow(self, st: StoredTable) -> bool:
        """Catch this copy up with what the owner stored since (a follower, or one about to
        be owned: every stored move is then seen). The caller holds the lock. Returns whether
        anything changed; raises ``ValueError`` if the stored table is not a continuation of
        this copy (the caller loads it afresh)."""
        changed = False
        for seat, name in st.seat_names.items():
            s = self.seats[seat]
            stored = st.token_hashes.get(seat)
            token_hash, _, device_hash = (stored or "").partition(DEVICE_SEP)
            now = (name, token_hash or None, device_hash or None)
            if (s.name, s.token_hash, s.device_hash) != now:
                s.name, s.token_hash, s.device_hash = now
                changed = True
        self.match.names = [s.name for s in self.seats]
        if st.deals < len(self.games):
            raise ValueError("the stored table has fewer deals than this copy")
        for d in range(st.deals):
            if d == len(self.games):
                self.games.append(self.match.new_deal())
                changed = True
            g = self.games[d]
            texts = st.moves.get(d, [])
            if len(texts) < len(g.moves):
                raise ValueError("the stored deal has fewer moves than this copy")
            for text in texts[len(g.moves):]:
                g.push(g.parse_move(text))
                changed = True
                if g.result is not None:
                    self.match.add_result(g.result)
        started = self.started or st.started or st.deals > 1 or bool(st.moves.get(0))
        standins = {s for s in st.standins if 0 <= s < self.n and self.seats[s].kind == "friend"}
        for i, s in enumerate(self.seats):
            if s.kind == "friend" and s.standin != (i in standins):
                s.standin = i in standins
                changed = True
        if started != self.started:
            self.started, changed = started, True
        self.forced.marks = {(int(d), int(p)) for d, p in getattr(st, "forced", [])}
        for seat, mid, text in st.move_ids[-MAX_MOVE_IDS * self.n:]:
            with contextlib.suppress(ValueError):
                acked = self._acked.setdefault(seat, OrderedDict())
                acked[json.loads(mid)] = text
                if len(acked) > MAX_MOVE_IDS:
                    acked.popitem(last=False)
        if changed:
            self._broadcast()
        return changed

    @property
    def game(self) -> Game | None:
        return self.games[-1] if self.games else None

    # -- connections ------------------------------------------------------------------------
    async def attach(self, conn: Conn) -> None:
        async with self.lock:
            if self.closed:  # unloaded from memory meanwhile: the caller loads it again
                raise ActionError("reload", "the table was reloaded; connect again")
            if len(self.conns) >= MAX_CONNECTIONS:
                raise ActionError("table-full", "too many connections to this table")
            self.conns.add(conn)
            self._broadcast()
            if self.store_failures:  # the page shows that saving is being retried
                conn.send({"type": "notice", "code": "saving-retry"})
        self.kick()

    async def detach(self, conn: Conn) -> None:
        # first, without waiting for the lock: a cancelled handler must still leave
        self.conns.discard(conn)
        self.last_active = time.monotonic()
        async with self.lock:
            seat = conn.seat
            if seat is not None and seat not in self._online():
                self.seats[seat].away_since = time.monotonic()
                # tell everyone again once the grace is over (the host may then seat a bot)
                with contextlib.suppress(RuntimeError):
                    asyncio.get_running_loop().call_later(self.away_grace + 0.05,
                                                          self._rebroadcast)
            self._broadcast()

    def _rebroadcast(self) -> None:
        if not self.closed:
            self._broadcast()

    @property
    def idle(self) -> bool:
        """Nothing left to do in memory: the match is over and nobody is watching."""
        return not self.conns and self.match.is_over()

    def unloadable(self, idle_seconds: float) -> bool:
        """Nobody has watched for ``idle_seconds`` and no bot is mid-move: the table may
        leave memory (it is rebuilt from the store on the next visit)."""
        return (not self.conns and not self.lock.locked()
                and (self._bot_task is None or self._bot_task.done())
                and time.monotonic() - self.last_active >= idle_seconds)

    async def join(self, conn: Conn, seat: Any, token: Any, api: str | None = None) -> None:
        """Seat ``conn`` with the seat token, or (``api``) as the Bot API program that holds
        ``seat`` (its bearer token was checked already: web/bot_api.py)."""
        async with self.lock:
            if api is not None and 0 <= seat < self.n and self.seats[seat].api == api:
                conn.seat = seat
            else:
                conn.seat = self.check_token(seat, token)
            s = self.seats[conn.seat]
            s.away_since = None
            if s.standin and not self.clock.holds(conn.seat):  # back: the stand-in leaves
                s.standin = False
                try:
                    await self.store.set_table_state(self.id, self.started, self._standins())
                except Exception as e:  # noqa: BLE001
                    # The friend plays on all the same: refusing them their own seat would be
                    # worse. A restart may bring the stand-in back; their next join clears it
                    # again (and any later stored change writes every seat afresh).
                    log.warning("table %s: seat %d's return could not be saved: %s",
                                self.id, conn.seat, e)
            self._broadcast()

    # -- playing ----------------------------------------------------------------------------
    async def start_first_deal(self) -> None:
        async with self.lock:
            if not self.games:
                await self._start_deal(0)
                self.games.append(self.match.new_deal())

    async def _apply(self, seat: int, move: Move, move_id: Any = None) -> None:
        """Push, store, then tell everyone. The caller holds the lock."""
        if self._unsure:  # (the bots and the players' moves have reconciled already)
            where = (len(self.games), len(self.game.moves) if self.game else 0)
            await self._reconcile()
            if where != (len(self.games), len(self.game.moves) if self.game else 0):
                raise ActionError("store", "a move saved before was read back; this one was "
                                  "not played")
        g = self.game
        assert g is not None
        g.push(move)
        try:
            # the canonical text that replays it: deck marks, rows, ends, jokers' cards
            args = (self.id, len(self.games) - 1, len(g.moves) - 1, seat,
                    move.text(g.rules.distinct_decks))
            extra: dict[str, Any] = {}
            if self.epoch is not None:  # stored only while this process still owns the table
                extra["epoch"] = self.epoch
            if move_id is not None:  # a failover's new owner knows it was acknowledged
                extra["move_id"] = json.dumps(move_id)
            with self.metrics.store_seconds.labels("move").time():
                await self.store.add_move(*args, **extra)
        except Exception as e:
            self.metrics.store_errors.labels("move").inc()
            g.pop()
            self._forget_events()
            if isinstance(e, Fenced):
                self.lost()
            else:
                self._unsure = True
            raise store_error(e, "the move could not be saved") from e
        self.metrics.moves.inc()
        self._saved()
        if g.result is not None:
            self.match.add_result(g.result)
            if self.match.is_over():
                with contextlib.suppress(Exception):
                    await self.store.set_finished(self.id)
                await rated.rate_finished(self)  # issue 58: once, never raises
                if self.config.get("daily"):  # issue 57: the daily try counts (never raises)
                    from ..daily.service import count_finished

                    await count_finished(self)
        self._broadcast()

    async def play(self, seat: int | None, text: Any, move_id: Any = None) -> str:
        """Play ``text`` for ``seat``. A ``move_id`` already acknowledged for this seat with
        the same move is answered again without playing it twice."""
        if seat is None:
            raise ActionError("not-seated", "spectators cannot play; take a seat first")
        if not isinstance(text, str) or not 0 < len(text) <= 32:
            raise ActionError("bad-move", "a move is a short text such as 'H6' or 'stop'")
        if move_id is not None and not (isinstance(move_id, str) and len(move_id) <= 64
                                        or isinstance(move_id, int)
                                        and not isinstance(move_id, bool)):
            raise ActionError("bad-id", "a move id is a whole number or a short text")
        acked = self._acked.setdefault(seat, OrderedDict())
        began = time.perf_counter()
        async with self.lock:
            await self._reconcile()  # after a failed write: a move stored all the same
            if move_id is not None and move_id in acked:
                if acked[move_id] != text.strip().upper() and acked[move_id] != text:
                    raise ActionError("id-reused", f"move id {move_id!r} was already used "
                                      f"for {acked[move_id]}")
                return acked[move_id]
            self.clock.check_move(seat)  # a seat the clock's stand-in keeps: "back" first
            played = await self._play_locked(seat, text, move_id)
            self.clock.moved(seat)
            if move_id is not None:
                acked[move_id] = played
                if len(acked) > MAX_MOVE_IDS:
                    acked.popitem(last=False)
        self.metrics.move_seconds.observe(time.perf_counter() - began)  # checked, stored, told
        self.kick()
        return played

    async def _play_locked(self, seat: int, text: str, move_id: Any = None) -> str:
        g = self.game
        if g is None or g.is_over():
            raise ActionError("no-deal", "no deal is being played now")
        if not self.started:
            raise ActionError("waiting", "the deal starts when every friend has sat down")
        if g.to_move != seat:
            raise ActionError("not-your-turn", f"it is seat {g.to_move}'s move, not yours")
        try:
            move = g.parse_move(text)
        except IllegalMoveError as e:
            raise ActionError("illegal", str(e)) from e
        except (MoveError, ValueError) as e:
            raise ActionError("bad-move", str(e)) from e
        try:
            await self._apply(seat, move, move_id)
        except IllegalMoveError as e:
            raise ActionError("illegal", str(e)) from e
        return move.text(g.rules.distinct_decks)

    async def next_deal(self, seat: int | None) -> None:
        if seat is None:
            raise ActionError("not-seated", "only a player at the table can deal")
        async with self.lock:
            await self._next_deal_locked()
        self.kick()

    async def _next_deal_locked(self) -> None:
        await self._reconcile()
        g = self.game
        if g is not None and not g.is_over():
            raise ActionError("deal-running", "the deal is still being played")
        if self.match.is_over():
            raise ActionError("match-over", "the match is over")
        try:
            await self._start_deal(len(self.games))
        except Exception as e:  # noqa: BLE001
            if not isinstance(e, Fenced):
                self._unsure = True
            raise store_error(e, "the next deal could not be saved") from e
        self.games.append(self.match.new_deal())
        self._saved()
        self._broadcast()

    async def _reconcile(self) -> None:
        """After a failed write (the caller holds the lock): take in what the store holds
        beyond this copy, i.e. a move or a deal whose commit went through although its caller
        heard of a failure, so nothing is lost or stored twice. Raises the store's error
        (nothing changed) while the database is still away."""
        if not self._unsure:
            return
        try:
            deals, moves = await self.store.tail(self.id, len(self.games) - 1)
        except Exception as e:  # noqa: BLE001
            if isinstance(e, Fenced):
                self.lost()
            raise store_error(e, "the table could not be read back") from e
        self._unsure = False
        g = self.game
        read = bool(g is not None and len(moves) > len(g.moves))
        if g is not None:
            for seat, text, move_id in moves[len(g.moves):]:
                log.warning("table %s: move %s was saved although its write failed",
                            self.id, text, extra={"table": self.id})
                g.push(g.parse_move(text))
                self.metrics.moves.inc()
                if move_id is not None:  # the player's resend gets its ack, not a refusal
                    with contextlib.suppress(ValueError):
                        self._acked.setdefault(seat, OrderedDict())[json.loads(move_id)] = text
                if g.result is not None:
                    self.match.add_result(g.result)
                    if self.match.is_over():
                        with contextlib.suppress(Exception):
                            await self.store.set_finished(self.id)
        if deals > len(self.games) and (g is None or g.is_over()):
            log.warning("table %s: deal %d was saved although its write failed",
                        self.id, deals, extra={"table": self.id})
            self.games.append(self.match.new_deal())
            read = True
        if read:
            self._broadcast()

    async def _start_deal(self, deal: int) -> None:
        try:
            with self.metrics.store_seconds.labels("deal").time():
                if self.epoch is None:
                    await self.store.start_deal(self.id, deal)
                else:
                    await self.store.start_deal(self.id, deal, epoch=self.epoch)
        except Exception as e:
            self.metrics.store_errors.labels("deal").inc()
            if isinstance(e, Fenced):
                self.lost()
            raise

    def lost(self) -> None:
        """Another process owns the table now: this copy is stale. It stops (no bot, no
        clock, no write) and tells every connection, whose page reconnects (through nginx,
        to the new owner)."""
        if self.closed:
            return
        self.closed = True
        self.metrics.lost.inc()
        log.warning("table %s: taken over by another server process; this copy stops",
                    self.id)
        self._error_all(ActionError("moved", MOVED))
        if self.on_lost is not None:
            self.on_lost(self)
        with contextlib.suppress(RuntimeError):
            asyncio.get_running_loop().create_task(self.close())

    def hint(self, seat: int | None, lang: str) -> dict[str, Any]:
        move, reason = botlib.hint(self._hint_view(seat), lang)
        return {"type": "hint", "move": self._move_text(move), "reason": reason}

    async def ahint(self, seat: int | None, lang: str) -> dict[str, Any]:
        """:meth:`hint` with the search in a thread (up to a second: the event loop goes on)."""
        view = self._hint_view(seat)
        move, reason = await asyncio.to_thread(botlib.hint, view, lang)
        return {"type": "hint", "move": self._move_text(move), "reason": reason}

    def _hint_view(self, seat: int | None) -> Any:
        g = self.game
        if seat is None or g is None or g.is_over() or g.to_move != seat or not self.started:
            raise ActionError("no-hint", "a hint is given on your own move")
        return g.view(seat)

    def _move_text(self, move: Move) -> str:
        """A move as the text that replays it (the second deck's mark included)."""
        g = self.game
        return move.text(g.rules.distinct_decks) if g is not None else str(move)

    async def close(self) -> None:
        self.closed = True
        await self.clock.close()
        self.forced.close()
        if self._bot_task is not None:
            self._bot_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._bot_task

"""Live tables: the match, the current deal, the seats, the connections and the bots.

The server is the only authority. Each connection gets only what its seat may see
(``Game.view(seat).to_dict()``, docs/architecture.md); spectators get the public part with no hand.
Every accepted move is written to the store before anyone hears of it; a table is rebuilt after
a restart by replaying its stored moves from the match seed.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import logging
import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .. import i18n
from ..bots.pool import BotPool, shared_pool
from ..game import Game, IllegalMoveError
from ..match import Match
from ..moves import Move, MoveError
from ..rules import Rules
from ..store import Store, StoredTable
from ..table import Table
from ..view import public_event
from . import bots as botlib

MAX_NAME = 24
MAX_OUTBOX = 500  # messages waiting for one slow connection
MAX_CONNECTIONS = 64  # per table: players, their reconnecting tabs and spectators
# How long a friend must be gone before the host may seat a stand-in bot for them: long enough
# that a page reload or a short network drop never costs anyone their seat.
AWAY_GRACE = 20.0


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


class ActionError(Exception):
    """A refused request: ``code`` is stable for programs, ``message`` is for people."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(eq=False)
class Conn:
    """One WebSocket: its seat (``None`` for a spectator) and an ordered outbox."""

    seat: int | None = None
    queue: asyncio.Queue[dict[str, Any] | None] = field(default_factory=asyncio.Queue)
    overflow: bool = False
    last_info: dict[str, Any] | None = None  # the table part this connection has

    def send(self, msg: dict[str, Any]) -> None:
        # A client that stops reading must not make the server hoard messages for it: past
        # the limit it is dropped (its page reconnects and gets the current state).
        if self.queue.qsize() >= MAX_OUTBOX:
            self.overflow = True
            return
        self.queue.put_nowait(msg)


@dataclass
class Seat:
    kind: str  # "friend" or "bot"
    bot: str | None
    name: str
    token_hash: str | None = None
    # a bot plays this friend seat for now (the friend is away or never came); the friend takes
    # the seat back by simply coming back (joining with their token)
    standin: bool = False
    away_since: float | None = None  # monotonic time the friend's last connection closed

log = logging.getLogger("ristiseiska.web")


class LiveTable:
    pool: BotPool | None = None  # where the searching bots think (set by Tables)

    def __init__(self, table_id: str, config: dict[str, Any], store: Store,
                 bot_delay: float) -> None:
        self.id = table_id
        self.config = config
        self.store = store
        self.bot_delay = bot_delay
        self.rules = Rules.from_dict(config["rules"])
        if config.get("preset"):
            self.rules = self.rules.replace(name=config["preset"])
        self.seats = [Seat(s["kind"], s.get("bot"), s["name"]) for s in config["seats"]]
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
        # The first deal waits for every friend seat to be taken (or for the host's word);
        # a bot-only table starts at once.
        self.started = not self.has_friends
        self.away_grace = AWAY_GRACE

    # -- building ---------------------------------------------------------------------------
    @classmethod
    def from_stored(cls, st: StoredTable, store: Store, bot_delay: float) -> LiveTable:
        t = cls(st.id, st.config, store, bot_delay)
        for seat, name in st.seat_names.items():
            t.seats[seat].name = name
            t.seats[seat].token_hash = st.token_hashes.get(seat)
        t.match.names = [s.name for s in t.seats]
        for d in range(st.deals):
            g = t.match.new_deal()
            for text in st.moves.get(d, []):
                g.push(g.parse_move(text))
            t.games.append(g)
            if g.result is not None:
                t.match.add_result(g.result)
        # A table that was already under way goes on (a stand-in chosen before the restart is
        # gone: the host can seat one again); a table still waiting keeps waiting.
        t.started = (t.started or st.deals > 1 or bool(st.moves.get(0))
                     or t._all_friends_seated())
        return t

    @property
    def game(self) -> Game | None:
        return self.games[-1] if self.games else None

    def _bot(self, seat: int) -> Any:
        if seat not in self.bots:
            level = self.seats[seat].bot or botlib.default_level()  # a stand-in plays the default
            self.bots[seat] = botlib.make_bot(level, self._bot_seed(seat))
        return self.bots[seat]

    def _bot_seed(self, seat: int) -> int:
        return int(self.config["seed"]) * 31 + seat

    @property
    def has_friends(self) -> bool:
        return any(s.kind == "friend" for s in self.seats)

    @property
    def host(self) -> int | None:
        """The seat that decides for the table (start now, seat a stand-in): the first friend
        seat, where the lobby sits the creator."""
        return next((i for i, s in enumerate(self.seats) if s.kind == "friend"), None)

    def _all_friends_seated(self) -> bool:
        return all(s.kind == "bot" or s.token_hash is not None for s in self.seats)

    def plays_bot(self, seat: int) -> bool:
        s = self.seats[seat]
        return s.kind == "bot" or s.standin

    def _online(self) -> set[int]:
        return {c.seat for c in self.conns if c.seat is not None}

    def _away(self, seat: int, online: set[int], now: float) -> bool:
        """A friend seat nobody has taken, or whose player has been gone past the grace."""
        s = self.seats[seat]
        if s.kind != "friend" or seat in online:
            return False
        if s.token_hash is None:
            return True
        return s.away_since is not None and now - s.away_since >= self.away_grace

    # -- seats ------------------------------------------------------------------------------
    def check_token(self, seat: Any, token: Any) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < self.n:
            raise ActionError("bad-seat", f"no seat {seat!r} at this table")
        stored = self.seats[seat].token_hash
        if (not isinstance(token, str) or stored is None or len(token) > 200
                or not hmac.compare_digest(hash_token(token), stored)):
            raise ActionError("bad-token", "that seat token is not valid for this seat")
        return seat

    async def claim(self, seat: int, name: str) -> str:
        if not 0 <= seat < self.n:
            raise ActionError("bad-seat", f"no seat {seat} at this table")
        if self.seats[seat].kind != "friend":
            raise ActionError("bot-seat", "a bot plays that seat")
        name = " ".join(str(name).split())[:MAX_NAME] or self.seats[seat].name
        token = secrets.token_urlsafe(24)
        async with self.lock:
            if self.seats[seat].token_hash is not None:
                raise ActionError("seat-taken", "somebody already sits there")
            h = hash_token(token)
            if not await self.store.claim_seat(self.id, seat, name, h):
                raise ActionError("seat-taken", "somebody already sits there")
            self.seats[seat].token_hash = h
            self.seats[seat].name = name
            self.match.names[seat] = name
            for g in self.games:
                g.names[seat] = name
            self._log.clear()
            self.seats[seat].away_since = time.monotonic()  # until their page connects
            if not self.started and self._all_friends_seated():
                self.started = True
            self._broadcast()
        self.kick()
        return token

    async def start_now(self, seat: int | None) -> None:
        """The host starts before every friend has come: bots stand in for the empty seats
        (a friend who comes later takes theirs over)."""
        async with self.lock:
            if seat is None or seat != self.host:
                raise ActionError("not-host", "only the table's host can start the deal")
            if self.started:
                raise ActionError("started", "the deal has already started")
            for s in self.seats:
                if s.kind == "friend" and s.token_hash is None:
                    s.standin = True
            self.started = True
            self._broadcast()
        self.kick()

    async def replace(self, seat: int | None, target: Any) -> None:
        """The host seats a bot for a friend who has been away past the grace time."""
        async with self.lock:
            if seat is None or seat != self.host:
                raise ActionError("not-host", "only the table's host can seat a bot for a friend")
            if not isinstance(target, int) or isinstance(target, bool) or not 0 <= target < self.n:
                raise ActionError("bad-seat", f"no seat {target!r} at this table")
            if not self.started:
                raise ActionError("not-started", "start the deal first")
            s = self.seats[target]
            if s.kind != "friend" or s.standin:
                raise ActionError("not-away", "a bot already plays that seat")
            if not self._away(target, self._online(), time.monotonic()):
                raise ActionError("not-away", "that player is here (or only just left)")
            s.standin = True
            self._broadcast()
        self.kick()

    # -- messages out -----------------------------------------------------------------------
    def public_info(self) -> dict[str, Any]:
        online = self._online()
        now = time.monotonic()
        return {
            "id": self.id,
            "preset": self.config.get("preset"),
            "rules": self._rules_dict,
            "seats": [
                {"seat": i, "name": s.name, "kind": s.kind, "bot": s.bot,
                 "taken": s.kind == "bot" or s.token_hash is not None, "online": i in online,
                 "standin": s.standin, "away": self._away(i, online, now)}
                for i, s in enumerate(self.seats)
            ],
            "waiting": not self.started,
            "host": self.host,
            "deals_finished": len(self.match.results),
            "match_over": self.match.is_over(),
        }

    def view_for(self, seat: int | None) -> dict[str, Any] | None:
        g = self.game
        if g is None:
            return None
        if seat is not None:
            d = dict(g.view(seat).to_dict())
            if not self.started:  # nobody moves before the deal starts
                d["legal_moves"] = []
            return self._decorate(g, d)
        # A spectator: the public part of any seat's view, without hand, moves or private cards.
        d = dict(g.view(0).to_dict())
        d["seat"] = None
        d["hand"] = []
        d["legal_moves"] = []
        mark = g.rules.distinct_decks
        d["history"] = [public_event(e.to_dict(mark), None) for e in g.events]
        return self._decorate(g, d)

    @staticmethod
    def _decorate(g: Game, d: dict[str, Any]) -> dict[str, Any]:
        d["layout"] = board_layout(g.table)
        # Once the deal is over nothing is secret (the score counts the cards left, the record
        # and the replay show them): every hand left is shown face up.
        if g.is_over():
            mark = g.rules.distinct_decks
            d["final_hands"] = [[c.notation(mark) for c in g.hand(s)] for s in range(g.n)]
        return d

    def sheet(self) -> dict[str, Any]:
        return {
            "rows": [{"deal": r.deal, "dealer": r.dealer, "card_points": list(r.card_points),
                      "token_points": list(r.token_points), "points": list(r.points),
                      "winner": r.winner} for r in self.match.sheet],
            "totals": self.match.totals,
            "over": self.match.is_over(),
            "winners": self.match.winners,
        }

    def state_for(self, conn: Conn, info: dict[str, Any], sheet: dict[str, Any]) -> dict[str, Any]:
        """A full state for one connection (always with the table part)."""
        conn.last_info = info
        return {"type": "state", "you": conn.seat, "table": info, "sheet": sheet,
                "deal": len(self.games), "view": self.view_for(conn.seat)}

    def _broadcast(self) -> None:
        """Queue each connection its own state. The table part (seats, rules) is sent only
        when it changed since that connection last got it; the page keeps the last one."""
        info = self.public_info()
        sheet = self.sheet()
        cache: dict[int | None, dict[str, Any] | None] = {}
        for c in list(self.conns):
            if c.seat not in cache:
                cache[c.seat] = self.view_for(c.seat)
            msg = {"type": "state", "you": c.seat, "sheet": sheet, "deal": len(self.games),
                   "view": cache[c.seat]}
            if c.last_info != info:
                msg["table"] = c.last_info = info
            c.send(msg)

    def described(self, seat: int | None, lang: str, history: list[dict[str, Any]],
                  names: list[str]) -> list[str]:
        """The deal's history as sentences for ``seat`` in ``lang`` (cached, grows by event)."""
        key = (len(self.games), seat, lang)
        cached = self._log.get(key)
        if cached is None or len(cached) > len(history):
            cached = self._log[key] = []
        for ev in history[len(cached):]:
            cached.append(i18n.describe_event(ev, names, lang))
        return list(cached)

    # -- connections ------------------------------------------------------------------------
    async def attach(self, conn: Conn) -> None:
        async with self.lock:
            if len(self.conns) >= MAX_CONNECTIONS:
                raise ActionError("table-full", "too many connections to this table")
            self.conns.add(conn)
            self._broadcast()
        self.kick()

    async def detach(self, conn: Conn) -> None:
        async with self.lock:
            self.conns.discard(conn)
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

    async def join(self, conn: Conn, seat: Any, token: Any) -> None:
        async with self.lock:
            conn.seat = self.check_token(seat, token)
            s = self.seats[conn.seat]
            s.away_since = None
            s.standin = False  # back at the table: the stand-in bot leaves
            self._broadcast()

    # -- playing ----------------------------------------------------------------------------
    async def start_first_deal(self) -> None:
        async with self.lock:
            if not self.games:
                await self.store.start_deal(self.id, 0)
                self.games.append(self.match.new_deal())

    async def _apply(self, seat: int, move: Move) -> None:
        """Push, store, then tell everyone. The caller holds the lock."""
        g = self.game
        assert g is not None
        g.push(move)
        try:
            await self.store.add_move(self.id, len(self.games) - 1, len(g.moves) - 1, seat,
                                      str(move))
        except Exception as e:
            g.pop()
            raise ActionError("store", f"the move could not be saved: {type(e).__name__}") from e
        if g.result is not None:
            self.match.add_result(g.result)
            if self.match.is_over():
                with contextlib.suppress(Exception):
                    await self.store.set_finished(self.id)
        self._broadcast()

    async def play(self, seat: int | None, text: Any) -> str:
        if seat is None:
            raise ActionError("not-seated", "spectators cannot play; take a seat first")
        if not isinstance(text, str) or not 0 < len(text) <= 32:
            raise ActionError("bad-move", "a move is a short text such as 'H6' or 'stop'")
        async with self.lock:
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
                await self._apply(seat, move)
            except IllegalMoveError as e:
                raise ActionError("illegal", str(e)) from e
        self.kick()
        return str(move)

    async def next_deal(self, seat: int | None) -> None:
        if seat is None:
            raise ActionError("not-seated", "only a player at the table can deal")
        async with self.lock:
            await self._next_deal_locked()
        self.kick()

    async def _next_deal_locked(self) -> None:
        g = self.game
        if g is not None and not g.is_over():
            raise ActionError("deal-running", "the deal is still being played")
        if self.match.is_over():
            raise ActionError("match-over", "the match is over")
        await self.store.start_deal(self.id, len(self.games))
        self.games.append(self.match.new_deal())
        self._broadcast()

    def hint(self, seat: int | None, lang: str) -> dict[str, Any]:
        g = self.game
        if seat is None or g is None or g.is_over() or g.to_move != seat or not self.started:
            raise ActionError("no-hint", "a hint is given on your own move")
        move, reason = botlib.hint(g.view(seat), lang)
        return {"type": "hint", "move": str(move), "reason": reason}

    # -- bots -------------------------------------------------------------------------------
    def kick(self) -> None:
        """Make sure the bot driver runs if a bot (or a bot-only table's next deal) is due."""
        if self.closed:
            return
        if self._bot_task is None or self._bot_task.done():
            self._bot_task = asyncio.get_running_loop().create_task(self._drive())

    def _due(self) -> str | None:
        g = self.game
        if g is None or not self.started:
            return None
        if g.is_over():
            if not self.has_friends and not self.match.is_over():
                return "deal"
            return None
        return "bot" if self.plays_bot(g.to_move) else None

    async def _drive(self) -> None:
        while not self.closed and self._due():
            # a little jitter: bots feel less mechanical and many tables do not move in step
            await asyncio.sleep(self.bot_delay * self._pace.uniform(0.7, 1.3))
            try:
                await self._bot_step()
            except ActionError:  # the store refused (e.g. the database is away): retry later
                await asyncio.sleep(1.0)

    async def _bot_step(self) -> None:
        async with self.lock:
            due = self._due()
            g = self.game
            if due == "deal":
                await self._next_deal_locked()
                return
            if due != "bot" or g is None:
                return
            seat, done = g.to_move, len(g.moves)
            legal = g.legal_moves()
            level, view = self.seats[seat].bot or botlib.default_level(), g.view(seat)
            if len(legal) == 1 or not botlib.pooled(level):  # forced, or a quick bot
                move = legal[0] if len(legal) == 1 else self._checked(seat, level, legal, None, view)
                await self._apply(seat, move)
                return
        # A searching bot thinks in another process, without the table's lock: the table (and
        # the event loop) keep answering meanwhile.
        try:
            pending: Move | None = await botlib.choose_pooled(
                self.pool or shared_pool(), level, self._bot_seed(seat), view)
        except Exception:  # noqa: BLE001 - checked and logged below
            log.exception("bot %r at table %s seat %d failed; it plays %s instead",
                          level, self.id, seat, legal[0])
            pending = legal[0]
        async with self.lock:
            if self.closed or self.game is not g or len(g.moves) != done or g.is_over():
                return  # the position changed while the bot thought
            await self._apply(seat, self._checked(seat, level, legal, pending, view))

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

    async def close(self) -> None:
        self.closed = True
        if self._bot_task is not None:
            self._bot_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._bot_task


class Tables:
    """All live tables, loaded from the store on first use."""

    def __init__(self, store: Store, bot_delay: float, pool: BotPool | None = None) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.pool = pool
        self.live: dict[str, LiveTable] = {}
        self._loading = asyncio.Lock()

    async def get(self, table_id: str) -> LiveTable:
        t = self.live.get(table_id)
        if t is not None:
            return t
        if not isinstance(table_id, str) or not 8 <= len(table_id) <= 64:
            raise ActionError("no-table", "no such table")
        async with self._loading:
            t = self.live.get(table_id)
            if t is None:
                st = await self.store.load(table_id)
                if st is None:
                    raise ActionError("no-table", "no such table")
                try:
                    t = LiveTable.from_stored(st, self.store, self.bot_delay)
                    t.pool = self.pool
                except Exception as e:  # e.g. stored moves an older engine accepted
                    raise ActionError("broken-table",
                                      f"this table cannot be restored: {e}") from e
                self.live[table_id] = t
        return t

    async def create(self, config: dict[str, Any]) -> LiveTable:
        table_id = secrets.token_urlsafe(16)
        await self.store.create_table(table_id, config, [s["name"] for s in config["seats"]])
        t = LiveTable(table_id, config, self.store, self.bot_delay)
        t.pool = self.pool
        self.live[table_id] = t
        await t.start_first_deal()
        t.kick()
        return t

    async def resume_all(self) -> None:
        """After a restart: load unfinished tables so bot-only tables play on by themselves."""
        for tid in await self.store.unfinished_ids():
            with contextlib.suppress(Exception):
                t = await self.get(tid)
                t.kick()

    async def close(self) -> None:
        for t in self.live.values():
            await t.close()


def board_layout(table: Table) -> dict[str, Any]:
    """Where each row's cards lie on its line of slots, so a page can draw every row on one
    grid with the centre rank in one column: ``line`` is the ranks slot by slot (empty in free
    Fan Tan before the first card), ``min``/``max`` the slots still in use (the first ace closes
    the other ace end), ``center`` the starting slot, ``ends`` each row's ``[lo, hi]`` slots
    (``[-1, -1]`` while unopened)."""
    return {"line": list(table.line[0]) if table.line else [], "min": table.minr,
            "max": table.maxr, "center": table.center,
            "ends": [[table.lo[r], table.hi[r]] for r in range(table.nrows)]}


def random_seed() -> int:
    return random.SystemRandom().getrandbits(62)


Chooser = Callable[[Any], Move]

"""Live tables: the match, the current deal, the seats, the connections and the bots.

The server is the only authority. Each connection gets only what its seat may see
(``Game.view(seat).to_dict()``, docs/architecture.md); spectators get the public part with no hand.
Every accepted move is written to the store before anyone hears of it; a table is rebuilt after
a restart by replaying its stored moves from the match seed.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import hashlib
import hmac
import json
import logging
import random
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy.exc import IntegrityError

from .. import fair, i18n
from ..aio import Outbox, sleep_on
from ..bots.pool import BotPool, shared_pool
from ..cards import CARDS
from ..game import Game, IllegalMoveError
from ..match import Match
from ..moves import Move, MoveError
from ..record import record_from_game
from ..rules import Rules
from ..store import Fenced, StorageFault, Store, StoredTable
from ..table import NO, Table
from ..view import make_view, public_event
from . import bots as botlib
from . import clock as clockmod
from . import forced as forcedmod
from .security import InputError, clean_text, name_key

MAX_NAME = 24
MAX_OUTBOX = 500  # messages waiting for one slow connection
MAX_CONNECTIONS = 64  # per table: players, their reconnecting tabs and spectators
# the garbage collector's thresholds while serving (Tables.start_sweeper)
GC_YOUNG = 50_000
GC_OLDER = (50, 100)
# How long a friend must be gone before the host may seat a stand-in bot for them: long enough
# that a page reload or a short network drop never costs anyone their seat.
AWAY_GRACE = 20.0

MAX_MOVE_IDS = 256  # acknowledged move ids remembered per seat (a resent id gets its ack again)
HISTORY = "\u0000history\u0000"  # placeholders the writer replaces with cached JSON
LOG = "\u0000log\u0000"
# Seconds between looks at which tables another process has taken over (docs/hosting.md).
OWNER_CHECK = 1.0
log = logging.getLogger("ristiseiska.web")


try:  # the fast JSON encoder (a dependency; the standard one only if it is missing)
    import orjson

    def _dumps(value: Any) -> str:
        # the same text as json.dumps(ensure_ascii=False, separators=(",", ":")) for what the
        # server sends (str keys, ints, strs, lists, bools, None), in a fraction of the time
        try:
            return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()
        except orjson.JSONEncodeError:  # e.g. the revealed 256-bit match seed (orjson: 64 bits)
            return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
except ImportError:  # pragma: no cover - orjson is a declared dependency
    def _dumps(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


# What a player is told when the database file changed under the server (the operator's log
# says which file and how; a player is not told the server's paths).
STORAGE_FAULT = ("the server's database was damaged or removed while it ran, so nothing more "
                 "can be saved: this was not accepted. Tell whoever runs the server")


MOVED = ("this table is now served by another server process; reconnect (nothing was "
         "changed here)")


def store_error(e: Exception, doing: str) -> ActionError:
    """A storage failure as a clear, stable error (nothing was changed)."""
    if isinstance(e, Fenced):
        return ActionError("moved", f"{doing}: {MOVED}")
    if isinstance(e, StorageFault):
        return ActionError("storage-fault", f"{doing}: {STORAGE_FAULT}")
    text = str(e).lower()
    if "readonly" in text or "read-only" in text or "read only" in text:
        why = "the database is read-only"
    elif "disk" in text and "full" in text:
        why = "the database disk is full"
    elif "locked" in text:
        why = "the database is busy"
    else:
        why = f"the database refused ({type(e).__name__})"
    return ActionError("store", f"{doing}: {why}; nothing was changed")


DEVICE_SEP = "|"


def check_device(device: Any) -> str | None:
    """The hash of a device key (issue 47: 16–64 URL-safe characters the browser made once),
    ``None`` without one; anything else is refused, nothing changed."""
    if device is None:
        return None
    if (not isinstance(device, str) or not 16 <= len(device) <= 64
            or not all(c.isascii() and (c.isalnum() or c in "-_") for c in device)):
        raise ActionError("bad-device", "a device key is 16 to 64 letters, digits, - or _")
    return hashlib.sha256(f"device:{device}".encode()).hexdigest()[:32]  # 128 bits


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
    queue: Outbox = field(default_factory=Outbox)
    addr: str = ""
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
    # the hash of the device key the player's browser sent with the claim (issue 47: two
    # players of one name on two devices are told apart); stored after the seat token's hash
    # in the seat row's token_hash ("TOKENHASH|DEVICEHASH", DEVICE_SEP)
    device_hash: str | None = None

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
        self._rows: dict[int, Any] = {}  # public_view's row parts for the current game
        # The first deal waits for every friend seat to be taken (or for the host's word);
        # a bot-only table starts at once.
        self.started = not self.has_friends
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
        self.store_failures = 0
        self.rematch: str | None = None  # the id of this match's rematch, once made (issue 20)
        self.clock = clockmod.TurnClock(self, ActionError)  # the turn clock (issue 20)
        self.forced = forcedmod.ForcedMoves(self)  # forced moves made for a person (issue 52)
        self._warming_told: set[str] = set()  # levels whose stand-in the table was told of
        # This process's fencing number for the table (Store.take), None where no owners are
        # kept; the last time it was found current; told when another process took it over.
        self.epoch: int | None = None
        self.owner_checked = 0.0
        self.on_lost: Callable[[LiveTable], None] | None = None

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

    def _standins(self) -> list[int]:
        return [i for i, s in enumerate(self.seats) if s.standin]

    async def _save_state(self, standins: list[int], doing: str) -> None:
        """Store that the table has started and its stand-in seats; the caller holds the lock
        and changes memory only after this returns."""
        try:
            await self.store.set_table_state(self.id, True, standins)
        except Exception as e:  # noqa: BLE001 - every storage failure is reported alike
            raise store_error(e, doing) from e

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

    async def claim(self, seat: int, name: str, reserved_ok: bool = False,
                    device: Any = None, device_hash: str | None = None) -> str:
        """Seat a friend; ``device`` is the private key of the player's browser (issue 47),
        when it sends one (``device_hash``: its hash, known already, e.g. a rematch's player
        from the last match). A name already at the table is refused (``name-taken``), except
        that a player on another device gets it with a number: the second Äiti is
        "Äiti (2)". A seat a rematch keeps is theirs also by the device they played on."""
        if not 0 <= seat < self.n:
            raise ActionError("bad-seat", f"no seat {seat} at this table")
        if self.seats[seat].kind != "friend":
            raise ActionError("bot-seat", "a bot plays that seat")
        device_hash = check_device(device) or device_hash
        if not reserved_ok and self._reserved(seat) and (
                device_hash is None or device_hash != self.reserved_device(seat)):
            raise ActionError("seat-reserved", "this seat is kept for its player from the "
                              "last match (they take it with Rematch)")
        try:
            name = clean_text(name, MAX_NAME) or self.seats[seat].name
        except InputError as e:
            raise ActionError(e.code, e.message) from None
        token = secrets.token_urlsafe(24)
        async with self.lock:
            if self.seats[seat].token_hash is not None:
                raise ActionError("seat-taken", "somebody already sits there")
            if self.started:
                # Nobody sits down in a match whose cards someone has seen (issue 46): a host
                # who started early and looked at a hand must not call friends in only when
                # it is good. The bot keeps the seat to the end; the rematch has it free.
                raise ActionError("started-without", "this match started without this seat's "
                                  "player: a bot plays it to the end. Watch, or sit down in the "
                                  "rematch")
            key = name_key(name)
            clash = [i for i, s in enumerate(self.seats) if i != seat and name_key(s.name) == key]
            friends = [i for i in clash
                       if self.seats[i].kind == "friend" and not self._unclaimed_standin(i)]
            if friends and (device_hash is None or any(
                    self.seats[i].device_hash in (None, device_hash) for i in friends)):
                # the same person (or nobody can tell): one name, one seat
                raise ActionError("name-taken", f"{name!r} is already at this table; "
                                  "choose another name")
            if friends:  # somebody else of that name, on another device
                name = self._numbered(name)
                key = name_key(name)
                clash = [i for i, s in enumerate(self.seats)
                         if i != seat and name_key(s.name) == key]
            # a bot (or a stand-in at a seat nobody took) gives its name up to a person
            renames = self._rename_bots(clash, name)
            h = hash_token(token)
            kept = h if device_hash is None else f"{h}{DEVICE_SEP}{device_hash}"
            try:
                stored = await self.store.claim_seat(self.id, seat, name, kept, renames)
            except Exception as e:  # noqa: BLE001 - every storage failure is reported alike
                raise store_error(e, "the seat could not be saved") from e
            if not stored:
                raise ActionError("seat-taken", "somebody already sits there")
            self.seats[seat].token_hash = h
            self.seats[seat].device_hash = device_hash
            self._rename({**renames, seat: name})
            self.seats[seat].away_since = time.monotonic()  # until their page connects
            if not self.started and self._all_friends_seated():
                self.started = True
            self._broadcast()
        self.kick()
        return token

    def device_seat(self, device_hash: str) -> int | None:
        """The friend seat this device holds at the table (issue 47), if any."""
        return next((i for i, s in enumerate(self.seats) if s.kind == "friend"
                     and s.token_hash is not None and s.device_hash == device_hash), None)

    async def renew(self, seat: int, device_hash: str) -> str:
        """Give a player their own seat back (issue 47): the device they sat down with proves
        it is theirs, so the seat gets a new token (the old one no longer seats anybody; the
        browser keeps one token a table for all its tabs). Raises ``not-recognised``."""
        token = secrets.token_urlsafe(24)
        h = hash_token(token)
        async with self.lock:
            s = self.seats[seat]
            if s.kind != "friend" or s.token_hash is None or s.device_hash != device_hash:
                raise ActionError("not-recognised", "no seat at this table is kept for this "
                                  "device")
            try:
                stored = await self.store.renew_seat(
                    self.id, seat, f"{s.token_hash}{DEVICE_SEP}{device_hash}",
                    f"{h}{DEVICE_SEP}{device_hash}")
            except Exception as e:  # noqa: BLE001 - every storage failure is reported alike
                raise store_error(e, "the seat could not be given back") from e
            if not stored:
                raise ActionError("seat-taken", "the seat changed meanwhile; try again")
            s.token_hash = h
        return token

    async def start_now(self, seat: int | None) -> None:
        """The host starts before every friend has come: bots play the empty seats for the
        whole match, and nobody can take them any more (:meth:`claim`): no one ever joins a
        match whose cards someone has already seen."""
        async with self.lock:
            if seat is None or seat != self.host:
                raise ActionError("not-host", "only the table's host can start the deal")
            if self.started:
                raise ActionError("started", "the deal has already started")
            empty = [i for i, s in enumerate(self.seats)
                     if s.kind == "friend" and s.token_hash is None]
            # a seat nobody named ("P3") gets a first name for its stand-in
            names = self._rename_bots([i for i in empty if self.seats[i].name == f"P{i + 1}"], "")
            if names:
                try:
                    await self.store.name_free_seats(self.id, names)
                except Exception as e:  # noqa: BLE001 - every storage failure is reported alike
                    raise store_error(e, "the start could not be saved") from e
            await self._save_state(sorted({*self._standins(), *empty}),
                                   "the start could not be saved")
            for i in empty:
                self.seats[i].standin = True
            self._rename(names)
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
            await self._save_state(sorted({*self._standins(), target}),
                                   "the stand-in could not be saved")
            s.standin = True
            self._broadcast()
        self.kick()

    def _numbered(self, name: str) -> str:
        """``name`` with the first number not at the table: "Äiti (2)", "Äiti (3)" …"""
        used = {name_key(s.name) for s in self.seats}
        k = 2
        while name_key(f"{name} ({k})") in used:
            k += 1
        return f"{name} ({k})"

    def _rename_bots(self, seats: list[int], taken: str) -> dict[int, str]:
        used = {name_key(s.name) for s in self.seats} | {name_key(taken)}
        free = [n for n in i18n.PLAYER_NAMES if name_key(n) not in used]
        out = {}
        for i in seats:
            out[i] = free.pop(0) if free else f"{self.seats[i].bot or 'bot'} {i + 1}"
        return out

    def _unclaimed_standin(self, seat: int) -> bool:
        s = self.seats[seat]
        return s.kind == "friend" and s.standin and s.token_hash is None

    def _rename(self, names: dict[int, str]) -> None:
        """New names for seats (stored already): the seats, the match, its deals, the log."""
        if not names:
            return
        for i, new in names.items():
            self.seats[i].name = new
            self.match.names[i] = new
            for g in self.games:
                g.names[i] = new
        self._log.clear()  # the log's sentences name the players
        self._texts.clear()

    def reserved_device(self, seat: int) -> str | None:
        """The device hash of the player a rematch keeps ``seat`` for (issue 47), if known."""
        devices = self.config.get("reserved_devices") or {}
        return devices.get(str(seat)) if isinstance(devices, dict) else None

    def _reserved(self, seat: int) -> bool:
        """A rematch keeps its friend seats for the players of the last match (issue 20)."""
        return seat in self.config.get("reserved", ()) and self.seats[seat].token_hash is None

    def broadcast_info(self) -> None:
        """Tell everyone the table part changed (e.g. a rematch was made); caller holds the lock."""
        self._broadcast()

    # -- messages out -----------------------------------------------------------------------
    def public_info(self) -> dict[str, Any]:
        online = self._online()
        now = time.monotonic()
        reserved = self.config.get("reserved", ())
        return {
            "id": self.id,
            "preset": self.config.get("preset"),
            "rules": self._rules_dict,
            "seats": [
                {"seat": i, "name": s.name, "kind": s.kind, "bot": s.bot,
                 "taken": s.kind == "bot" or s.token_hash is not None, "online": i in online,
                 "standin": s.standin,
                 "away": s.kind == "friend" and self._away(i, online, now),
                 "reserved": i in reserved and s.token_hash is None}  # as _reserved
                for i, s in enumerate(self.seats)
            ],
            "rematch": self.rematch,
            # issue 20 (web/chat.py): free text, never where strangers sit (issue 46)
            "chat_text": (bool(self.config.get("chat_text")) and not self.config.get("open")
                          and not self.config.get("quick")),
            "quick": bool(self.config.get("quick")),  # a quick game's table (web/open_tables.py)
            **self.clock.info(),
            **self.forced.info(),
            "waiting": not self.started,
            "host": self.host,
            "deals_finished": len(self.match.results),
            "match_over": self.match.is_over(),
            **self.fairness(),
        }

    def fairness(self) -> dict[str, Any]:
        """The match seed's commitment (from the start) and, once the match is over, the seed
        and salt that open it (fair.py). ``seed_chosen``: the creator picked the seed."""
        c = self.config
        out: dict[str, Any] = {"seed_commitment": c.get("seed_commitment"),
                               "seed_chosen": bool(c.get("seed_chosen"))}
        if c.get("seed_chosen"):
            out["seed"] = int(c["seed"])  # a chosen seed is no secret
        if self.match.is_over() and c.get("seed_salt"):
            out["seed"] = int(c["seed"])
            out["seed_salt"] = c["seed_salt"]
        return out

    def view_for(self, seat: int | None) -> dict[str, Any] | None:
        """``seat``'s view (``None``: a spectator's) with the full history."""
        d = self._view(seat)
        if d is not None:
            d["history"] = [json.loads(e) for e in self._history(seat)]
        return d

    def _view(self, seat: int | None) -> dict[str, Any] | None:
        """The view without its history (``"history"`` is a placeholder)."""
        g = self.game
        if g is None or not self.started:
            # Before the deal starts nobody sees anything of it, the host included: the deal
            # is fixed by the seed committed at creation, but a host who saw a hand while
            # waiting for friends could create tables until one had a good hand.
            return None
        if seat is None:  # the public part, built straight from the game (every broadcast)
            d = public_view(g, self._rows)
            d["history"] = HISTORY
            return self._decorate(g, d)
        if seat is not None:
            d = dict(make_view(g, seat, history=False).to_dict())
        else:
            # A spectator: the public part of a seat's view with everything private emptied
            # (hand, legal moves, dead cards); the history is the spectator's own.
            d = dict(make_view(g, 0, history=False).to_dict())
            d["seat"] = None
            d["hand"] = []
            d["legal_moves"] = []
            if "dead" in d:
                d["dead"] = []
            d.pop("open_hands", None)
        d["history"] = HISTORY
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

    def _views(self, seats: set[int | None]) -> dict[int | None, dict[str, Any] | None]:
        """Views (history placeholders) for several seats at once: the public part is built
        once and each seat gets only its own fields (hand, legal moves, dead cards), which
        are exactly the fields of ``SeatView.to_dict`` that depend on the seat."""
        g = self.game
        if g is None or not self.started:  # nothing of a deal before it starts (_view)
            return dict.fromkeys(seats)
        base = self._view(None)
        assert base is not None
        mark = g.rules.distinct_decks
        notes = _notes(mark)
        out: dict[int | None, dict[str, Any] | None] = {}
        for seat in seats:
            if seat is None:
                out[seat] = base
                continue
            d = dict(base)
            d["seat"] = seat
            d["hand"] = [notes[c] for c in g.hand(seat)]
            d["legal_moves"] = ([m.text(mark) for m in g.legal_moves()]
                                if g.to_move == seat else [])
            if "dead" in d:
                d["dead"] = [notes[c] for c in g.dead_cards(seat)]
            out[seat] = d
        return out

    def _history(self, seat: int | None) -> list[str]:
        """The current deal's events as ``seat`` may see them, each as JSON text, extended
        by the events since the last call (so a move costs the same late in a deal)."""
        g = self.game
        assert g is not None
        key = (len(self.games), seat)
        parts = self._hist.get(key)
        if parts is None:
            parts = self._hist[key] = []
            for k in [k for k in self._hist if k[0] < key[0] - 1]:
                del self._hist[k]  # older deals: no queued message can need them any more
        if len(parts) < len(g.events):
            for e in self._events(seat)[len(parts):]:
                parts.append(_dumps(e))
        return parts

    def _events(self, seat: int | None) -> list[dict[str, Any]]:
        """The current deal's events as ``seat`` may see them (``public_event``), as dicts,
        extended by the events since the last call. Read only: they are shared."""
        g = self.game
        assert g is not None
        key = (len(self.games), seat)
        evs = self._ev.get(key)
        if evs is None:
            evs = self._ev[key] = []
            for k in [k for k in self._ev if k[0] < key[0] - 1]:
                del self._ev[k]
        events = g.events
        if len(evs) > len(events):  # never after a stored move; kept exact all the same
            del evs[len(events):]
        if len(evs) < len(events):
            whole = self._ev_all.get(key[0])
            if whole is None:
                whole = self._ev_all[key[0]] = []
                for old in [k for k in self._ev_all if k < key[0] - 1]:
                    del self._ev_all[old]
            if len(whole) > len(events):
                del whole[len(events):]
            if len(whole) < len(events):
                mark = g.rules.distinct_decks
                whole.extend(e.to_dict(mark) for e in events[len(whole):])
            start = len(evs)
            for ev in whole[start:len(events)]:
                evs.append(public_event(ev, seat))
            if self.clock.marks:  # the moves the clock made say so
                self.clock.mark(len(self.games) - 1, evs, start)
            if self.forced.marks:  # and the forced moves made for a person
                self.forced.mark(len(self.games) - 1, evs, start)
        return evs

    def seat_view(self, g: Game, seat: int) -> Any:
        """``g.view(seat)`` (the same view) with the history taken from the event cache."""
        v = make_view(g, seat, history=False)
        object.__setattr__(v, "history", tuple(self._events(seat)))  # a frozen dataclass
        return v

    def encode_state(self, msg: dict[str, Any], lang: str) -> str:
        """A queued state as the JSON text for its connection: the cached history and log
        (in ``lang``) are spliced in where the placeholders are."""
        view = msg.get("view")
        if view is None or view.get("history") != HISTORY:
            return _dumps(msg)
        deal, seat, count = msg["_hist"]
        parts = self._hist.get((deal, seat), [])
        count = min(count, len(parts))
        names = view["names"]
        body = {k: v for k, v in msg.items() if k != "_hist"}
        body["log"] = LOG
        body["labels"] = {m: i18n.describe_move(m, lang) for m in view["legal_moves"]}
        text = _dumps(body)
        log_key = (deal, seat, lang)
        sentences = self._log.get(log_key)
        if sentences is None:
            sentences = self._log[log_key] = []
        if len(sentences) < count:
            evs = self._ev.get((deal, seat), [])
            for i in range(len(sentences), count):
                e = evs[i] if i < len(evs) else json.loads(parts[i])
                sentences.append(_dumps(clockmod.describe(e, names, lang)))
        text = text.replace(_dumps(HISTORY), self._joined((deal, seat), parts, count), 1)
        return text.replace(_dumps(LOG), self._joined(log_key, sentences, count), 1)

    def _joined(self, key: tuple[Any, ...], parts: list[str], count: int) -> str:
        """``"[" + ",".join(parts[:count]) + "]"``, kept per ``key`` and extended by the new
        parts only: one contiguous copy instead of a walk over every event's text."""
        hit = self._texts.get(key)
        if hit is not None and hit[0] == count:
            return hit[1]
        if hit is not None and 0 < hit[0] < count:
            text = hit[1][:-1] + "," + ",".join(parts[hit[0]:count]) + "]"
        else:
            text = "[" + ",".join(parts[:count]) + "]"
        if len(self._texts) > 16:  # older deals and languages: rebuilt if ever asked again
            self._texts.clear()
        self._texts[key] = (count, text)
        return text

    def _forget_events(self) -> None:
        """Drop every cached form of the deal's events (a move taken back: the store refused
        it), so that nothing of it is ever sent."""
        self._hist.clear()
        self._ev.clear()
        self._ev_all.clear()
        self._log.clear()
        self._texts.clear()

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
        view = self._view(conn.seat)
        msg: dict[str, Any] = {"type": "state", "you": conn.seat, "table": info,
                               "sheet": sheet, "deal": len(self.games), "view": view,
                               **self.clock.frame(), **self.forced.frame()}
        if view is not None:
            msg["_hist"] = (len(self.games), conn.seat, len(self._history(conn.seat)))
        return msg

    def _broadcast(self) -> None:
        """Queue each connection its own state. The table part (seats, rules) is sent only
        when it changed since that connection last got it; the page keeps the last one."""
        clock = self.clock.frame()  # starts, keeps or stops the turn clock (web/clock.py)
        clock.update(self.forced.frame())  # and the pause before a forced move (web/forced.py)
        info = self.public_info()
        sheet = self.sheet()
        self.last_active = time.monotonic()
        cache = self._views({c.seat for c in self.conns})
        for c in list(self.conns):
            msg: dict[str, Any] = {"type": "state", "you": c.seat, "sheet": sheet,
                                   "deal": len(self.games), "view": cache[c.seat], **clock}
            if cache[c.seat] is not None:
                msg["_hist"] = (len(self.games), c.seat, len(self._history(c.seat)))
            if c.last_info != info:
                msg["table"] = c.last_info = info
            c.send(msg)

    # -- connections ------------------------------------------------------------------------
    async def attach(self, conn: Conn) -> None:
        async with self.lock:
            if self.closed:  # unloaded from memory meanwhile: the caller loads it again
                raise ActionError("reload", "the table was reloaded; connect again")
            if len(self.conns) >= MAX_CONNECTIONS:
                raise ActionError("table-full", "too many connections to this table")
            self.conns.add(conn)
            self._broadcast()
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

    async def join(self, conn: Conn, seat: Any, token: Any) -> None:
        async with self.lock:
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
            await self.store.add_move(*args, **extra)
        except Exception as e:
            g.pop()
            self._forget_events()
            if isinstance(e, Fenced):
                self.lost()
            raise store_error(e, "the move could not be saved") from e
        if g.result is not None:
            self.match.add_result(g.result)
            if self.match.is_over():
                with contextlib.suppress(Exception):
                    await self.store.set_finished(self.id)
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
        async with self.lock:
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
        g = self.game
        if g is not None and not g.is_over():
            raise ActionError("deal-running", "the deal is still being played")
        if self.match.is_over():
            raise ActionError("match-over", "the match is over")
        try:
            await self._start_deal(len(self.games))
        except Exception as e:  # noqa: BLE001
            raise store_error(e, "the next deal could not be saved") from e
        self.games.append(self.match.new_deal())
        self._broadcast()

    async def _start_deal(self, deal: int) -> None:
        try:
            if self.epoch is None:
                await self.store.start_deal(self.id, deal)
            else:
                await self.store.start_deal(self.id, deal, epoch=self.epoch)
        except Fenced:
            self.lost()
            raise

    def lost(self) -> None:
        """Another process owns the table now: this copy is stale. It stops (no bot, no
        clock, no write) and tells every connection, whose page reconnects (through nginx,
        to the new owner)."""
        if self.closed:
            return
        self.closed = True
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
                self.store_failures = 0
            except ActionError as e:  # the store refused (e.g. the database is away)
                self.store_failures += 1
                if self.store_failures == 1:
                    log.warning("table %s: %s", self.id, e.message)
                if self.store_failures >= 5:  # stop; the next visitor's connection retries
                    self._error_all(e)
                    return
                await asyncio.sleep(min(30.0, 2.0 ** self.store_failures))

    def _error_all(self, e: ActionError) -> None:
        for c in list(self.conns):
            c.send({"type": "error", "code": e.code, "message": e.message})

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
            level = self.seats[seat].bot or botlib.default_level()
            if len(legal) == 1:  # forced: no bot and no view needed
                await self._apply(seat, legal[0])
                return
            view = self.seat_view(g, seat)
            if not botlib.pooled(level):  # a quick bot
                await self._apply(seat, self._checked(seat, level, legal, None, view))
                return
            stand = (self.pool or shared_pool()).stand_in(level)
            if stand is not None:  # its compiled code is still being built: no waiting on it
                self._tell_warming(level)
                move = self._stand_in_move(seat, stand, view)
                await self._apply(seat, self._checked(seat, stand, legal, move, view))
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

    async def close(self) -> None:
        self.closed = True
        await self.clock.close()
        self.forced.close()
        if self._bot_task is not None:
            self._bot_task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._bot_task


class Tables:
    """All live tables, loaded from the store on first use."""

    def __init__(self, store: Store, bot_delay: float, pool: BotPool | None = None,
                 open_tables: int = 5000,
                 idle_seconds: float = 300.0, seed_source: Callable[[], int] | None = None
                 ) -> None:
        self.store = store
        self.bot_delay = bot_delay
        self.pool = pool
        self.open_tables = open_tables
        self.idle_seconds = idle_seconds
        self.seed_source = seed_source or fair.new_seed
        self.live: dict[str, LiveTable] = {}
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

    async def get(self, table_id: str) -> LiveTable:
        t = self.live.get(table_id)
        if t is not None and await self._current(t):
            t.last_active = time.monotonic()
            return t
        if not isinstance(table_id, str) or not 8 <= len(table_id) <= 64:
            raise ActionError("no-table", "no such table")
        lock, users = self._loading.setdefault(table_id, (asyncio.Lock(), [0]))
        users[0] += 1
        try:
            async with lock:
                return await self._load(table_id)
        finally:
            users[0] -= 1
            if not users[0]:
                del self._loading[table_id]

    async def _load(self, table_id: str) -> LiveTable:
        """The table from memory or, once, from the store (the caller holds its load lock)."""
        t = self.live.get(table_id)
        if t is None or t.closed:
            self._make_room()
            epoch = None
            try:
                if self.fencing:
                    # take it over, then read it: every move its last owner stored is
                    # seen, and none it tries to store from now on is
                    epoch = await self.store.take(table_id)
                st = await self.store.load(table_id)
            except IntegrityError:  # no such table to own
                st = None
            except Exception as e:  # noqa: BLE001
                raise store_error(e, "the table could not be read") from e
            if st is None:
                raise ActionError("no-table", "no such table")
            try:
                t = LiveTable.from_stored(st, self.store, self.bot_delay)
                t.pool = self.pool
            except Exception as e:  # e.g. stored moves an older engine accepted
                raise ActionError("broken-table",
                                  f"this table cannot be restored: {e}") from e
            self._own(t, epoch)
            self.live[table_id] = t
            self._tell_live(t, False)
        return t

    @property
    def fencing(self) -> bool:
        return bool(getattr(self.store, "fencing", False))

    def _own(self, t: LiveTable, epoch: int | None) -> None:
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

    async def check_owners(self) -> int:
        """Drop every table in memory another process has taken over (the sweeper calls it
        every ``OWNER_CHECK`` seconds); returns how many left."""
        mine = {tid: t for tid, t in self.live.items() if t.epoch is not None and not t.closed}
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
        chosen = config.get("seed") is not None
        if not chosen:
            config["seed"] = self.seed_source()
        salt = fair.new_salt()
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
        self.live[table_id] = t
        try:
            self._own(t, await self.store.take(table_id) if self.fencing else None)
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
            last_sweep = last_full = last_owners = time.monotonic()
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
                if self.fencing and now - last_owners >= OWNER_CHECK:
                    last_owners = now
                    try:  # tables another process took over while this one was away
                        await self.check_owners()
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


def finished(t: LiveTable) -> list[tuple[int, Game]]:
    """The table's finished deals with their indexes."""
    return [(i, g) for i, g in enumerate(t.games) if g.is_over()]


def record_of(t: LiveTable, index: int, g: Game) -> dict[str, Any]:
    """Deal ``index`` of table ``t`` as a record, with the match seed's commitment (and, once
    the match is over, the seed and salt that open it)."""
    extra: dict[str, Any] = {"deal": index + 1}
    fairness = t.fairness()
    if fairness.get("seed_commitment"):
        extra["match_seed_commitment"] = fairness["seed_commitment"]
        extra["match_seed_chosen"] = fairness["seed_chosen"]
        if "seed_salt" in fairness:  # the match is over: the seed is revealed
            extra["match_seed"] = fairness["seed"]
            extra["match_seed_salt"] = fairness["seed_salt"]
    return record_from_game(g, preset=t.config.get("preset"), extra=extra)


_NOTES: dict[bool, list[str]] = {}


def _notes(mark: bool) -> list[str]:
    """Every card's notation by card id (with or without the second-deck mark)."""
    out = _NOTES.get(mark)
    if out is None:
        out = _NOTES[mark] = [c.notation(mark) for c in CARDS]
    return out


def public_view(g: Game, rows_cache: dict[int, Any] | None = None) -> dict[str, Any]:
    """What a spectator's ``SeatView.to_dict`` holds (``make_view(g, 0).to_dict()`` with the
    hand, legal moves and dead cards emptied, no seat, no open hands), without building the
    seat's view first: this runs on every broadcast. ``history`` is left for the caller.
    tests/test_web_fastview.py checks it against ``make_view`` key by key.

    ``rows_cache`` (one per table, for one game at a time) keeps each row's part while its
    ends stay put: a move changes one row, and a broadcast rebuilt all of them. Without
    jokers only, where a card can change under a joker without the ends moving. The parts
    are shared between views: read only."""
    rules = g.rules
    notes = _notes(rules.distinct_decks)
    table = g.table
    rows = []
    if rows_cache is not None and (rules.jokers or rows_cache.get(-1) is not g):
        rows_cache.clear()
        if not rules.jokers:
            rows_cache[-1] = g
        else:
            rows_cache = None
    for row in range(table.nrows):
        lo = table.lo[row]
        if rows_cache is not None:
            key = (lo, table.hi[row], table.minr, table.maxr)
            hit = rows_cache.get(row)
            if hit is not None and hit[0] == key:
                rows.append(hit[1])
                continue
        cards: list[str] = []
        if lo != NO:
            occ = table.occupant[row]
            cards = [notes[occ[s]] for s in range(lo, table.hi[row] + 1)]
        r: dict[str, Any] = {"row": row, "suit": row % 4, "deck": row // 4, "cards": cards,
                             "low_closed": table.is_closed(row, "low"),
                             "high_closed": table.is_closed(row, "high")}
        if table.jokers:
            jokers = [{"joker": CARDS[j].notation(), "as": notes[table.types[jr][slot]],
                       "swappable": table.joker_visible(jr, slot)}
                      for j, (jr, slot) in sorted(table.jokers.items()) if jr == row]
            if jokers:
                r["jokers"] = jokers
        elif rows_cache is not None:
            rows_cache[row] = (key, r)
        rows.append(r)
    d: dict[str, Any] = {
        "seat": None, "players": g.n, "names": list(g.names), "dealer": g.dealer,
        "hand": [], "hand_sizes": list(g.hand_sizes()), "rows": rows,
        "token_holder": g.token_holder, "chips_paid": list(g.chips_paid), "pot": g.pot,
        "to_move": g.to_move, "turn_seat": g.turn_seat, "phase": g.phase, "history": [],
        "legal_moves": [], "out_order": list(g.out_order), "stock_size": len(g.stock),
        "result": g.result.to_dict() if g.result is not None else None,
    }
    if rules.fines_per_miss:
        d["token_fines"] = list(g.token_fines)
    if rules.jokers:
        d["dead"] = []
    return d


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
    return fair.new_seed()


Chooser = Callable[[Any], Move]

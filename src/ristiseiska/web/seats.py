"""The seats of a live table: who sits where, their tokens and devices, the host, the
stand-in bots a host seats for friends who are away, and the names at the table."""

from __future__ import annotations

import hashlib
import hmac
import secrets
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .. import i18n
from .errors import ActionError, store_error
from .security import InputError, clean_text, name_key

if TYPE_CHECKING:
    import asyncio

    from ..game import Game
    from ..match import Match
    from ..store import Store
    from .connections import Conn

MAX_NAME = 24
# How long a friend must be gone before the host may seat a stand-in bot for them: long enough
# that a page reload or a short network drop never costs anyone their seat.
AWAY_GRACE = 20.0


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
    # a Bot API program's name (issue 59, web/bot_api.py): a friend seat its token joins; it
    # counts as taken from the start, and no person may claim it
    api: str | None = None


class Seating:
    """The seats' part of :class:`~ristiseiska.web.live_table.LiveTable` (a mixin)."""

    if TYPE_CHECKING:  # what it uses of the rest of the live table
        id: str
        config: dict[str, Any]
        store: Store
        seats: list[Seat]
        n: int
        match: Match
        games: list[Game]
        lock: asyncio.Lock
        conns: set[Conn]
        started: bool
        away_grace: float
        _log: dict[tuple[int, int | None, str], list[str]]
        _texts: dict[tuple[Any, ...], tuple[int, str]]

        def _broadcast(self) -> None: ...
        def kick(self) -> None: ...

    @property
    def has_friends(self) -> bool:
        return any(s.kind == "friend" for s in self.seats)

    @property
    def host(self) -> int | None:
        """The seat that decides for the table (start now, seat a stand-in): the first friend
        seat, where the lobby sits the creator."""
        return next((i for i, s in enumerate(self.seats) if s.kind == "friend" and s.api is None),
                    None)

    def _all_friends_seated(self) -> bool:
        return all(s.kind == "bot" or s.token_hash is not None or s.api is not None
                   for s in self.seats)

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
        if s.token_hash is None and s.api is None:
            return True
        if s.api is not None and s.away_since is None:  # its program never came
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
        if self.seats[seat].kind != "friend" or self.seats[seat].api is not None:
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
            if self.started and not self._reserved(seat):
                # Nobody sits down in a match whose cards someone has seen (issue 46): a host
                # who started early and looked at a hand must not call friends in only when
                # it is good. The bot keeps the seat to the end; the rematch has it free. A
                # seat a rematch keeps is its player's all the same (they were coming anyway,
                # and nobody else can take it): the stand-in leaves when they join.
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

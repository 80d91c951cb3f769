"""A player's identity across devices, without passwords (issue 58; docs/identity.md).

A player is known by the device key of the browser they first played on (issue 47): their id
is ``device:<hash of that key>`` (:func:`device_player`), and ratings, results and names are
kept under it. Other devices are *linked* to that id, by a one-time transfer code
(:func:`make_code`, :func:`redeem_code`) or by signing in with a passkey
(``identity.passkeys``). :func:`player_of` is what every caller asks to know whose a device
is. :func:`forget` deletes a player: their ratings, their names at stored tables, their linked
devices and passkeys, and whatever the hooks registered with :func:`on_forget` remove.

Every function takes device *hashes* (``web.seats.check_device``), never the keys."""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from sqlalchemy import delete, func, select, update

from ..store import SeatRow, Store
from ..store.ratings import RatingRow
from .rows import DeviceLink, Passkey, Secret

CODE_LIFETIME = 600.0  # seconds a transfer code lives
CODE_LENGTH = 8
# Capital letters and digits without the look-alikes (0/O, 1/I/L, 5/S, 2/Z, 8/B): 25 symbols,
# 25**8 ≈ 1.5e11 codes, read aloud or typed on a phone without mistakes.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY34679"
DEVICE_SEP = "|"  # as web/seats.py keeps a seat's device in its token_hash ("TOKEN|DEVICE")
FORGOTTEN_NAME = "–"  # a deleted player's name at a stored table

ForgetHook = Callable[[Store, str, list[str]], Awaitable[dict[str, int] | None]]
_hooks: list[ForgetHook] = []


class IdentityError(ValueError):
    """Refused: ``code`` is stable for programs (``wrong-code``, ``used-code``,
    ``expired-code``, ``not-yours`` …); nothing was changed."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def device_player(device_hash: str) -> str:
    """The id a device gives the player who first played on it."""
    return f"device:{device_hash}"


def _count(result: Any) -> int:
    """Rows a DELETE or UPDATE touched."""
    return int(getattr(result, "rowcount", 0) or 0)


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def on_forget(hook: ForgetHook) -> ForgetHook:
    """Register ``hook(store, player, device_hashes)``: :func:`forget` awaits it and adds the
    counts it answers (``{"daily": 3}``; the page words a kind by the catalog key
    ``identity.removed.<kind>`` when there is one) to what it says was removed. A store of its
    own (the daily deal's results) deletes its rows of the player there."""
    if hook not in _hooks:
        _hooks.append(hook)
    return hook


async def players_of(store: Store, device_hashes: Iterable[str]) -> dict[str, str]:
    """Each device's player: the one it is linked to, else its own id."""
    hashes = list(dict.fromkeys(device_hashes))
    if not hashes:
        return {}
    async with store.session() as s:
        q = select(DeviceLink.device, DeviceLink.player).where(DeviceLink.device.in_(hashes))
        linked = dict((await s.execute(q)).tuples().all())
    return {h: linked.get(h, device_player(h)) for h in hashes}


async def player_of(store: Store, device_hash: str) -> str:
    """The player whose device this is (whose ratings and results it plays for)."""
    return (await players_of(store, [device_hash]))[device_hash]


async def devices_of(store: Store, player: str) -> list[str]:
    """The player's devices: the first (unless it was linked to another player since) and
    every linked one."""
    async with store.session() as s:
        linked = list(await s.scalars(select(DeviceLink.device)
                                      .where(DeviceLink.player == player)
                                      .order_by(DeviceLink.linked)))
        first: list[str] = []
        if player.startswith("device:"):
            h = player.removeprefix("device:")
            elsewhere = await s.get(DeviceLink, h)
            if elsewhere is None:
                first = [h]
    return first + linked


async def summary(store: Store, device_hash: str) -> dict[str, Any]:
    """What the identity panel shows: the player, their devices and passkeys (counts), and
    whether this device is a linked one."""
    player = await player_of(store, device_hash)
    async with store.session() as s:
        keys = await s.scalar(select(func.count()).select_from(Passkey)
                              .where(Passkey.player == player))
    devices = await devices_of(store, player)
    return {"player": player, "devices": len(devices), "passkeys": int(keys or 0),
            "linked": player != device_player(device_hash)}


async def require_owner(store: Store, device_hash: str, player: Any) -> str:
    """``player`` when the device belongs to it; else :class:`IdentityError` ``not-yours``
    (a forged or somebody else's id)."""
    if not isinstance(player, str) or not 0 < len(player) <= 128:
        raise IdentityError("bad-player", "send the player id this device belongs to")
    if await player_of(store, device_hash) != player:
        raise IdentityError("not-yours", "this device does not belong to that player")
    return player


# -- one-time secrets ---------------------------------------------------------------------------

async def new_secret(store: Store, kind: str, player: str | None, secret: str,
                     lifetime: float, now: float | None = None) -> float:
    """Keep the hash of ``secret`` for ``lifetime`` seconds; when it expires. Secrets that
    expired an hour ago are dropped on the way."""
    now = time.time() if now is None else now
    async with store._write(), store.session() as s, s.begin():
        await s.execute(delete(Secret).where(Secret.expires < now - 3600))
        s.add(Secret(hash=_hash(secret), kind=kind, player=player, expires=now + lifetime))
    return now + lifetime


async def spend_secret(store: Store, kind: str, secret: str, now: float | None = None,
                       names: dict[str, str] | None = None) -> str | None:
    """Use the secret once: its player (``None`` for a challenge made for nobody). Refused
    (:class:`IdentityError`) when unknown (``wrong-<name>``), used (``used-<name>``) or
    expired (``expired-<name>``); ``names`` words the messages."""
    what = (names or {}).get(kind, kind)
    word = "code" if kind == "code" else "challenge"
    now = time.time() if now is None else now
    async with store._write(), store.session() as s, s.begin():
        row = await s.get(Secret, _hash(secret), with_for_update=True)
        if row is None or row.kind != kind:
            raise IdentityError(f"wrong-{word}", f"this {what} is not known: check it and try "
                                "again, or ask for a new one")
        if row.used is not None:
            raise IdentityError(f"used-{word}", f"this {what} was used already; each one "
                                "works once: ask for a new one")
        if now >= row.expires:
            raise IdentityError(f"expired-{word}", f"this {what} has expired (it lives "
                                f"{int(CODE_LIFETIME // 60)} minutes): ask for a new one")
        done = await s.execute(update(Secret).where(Secret.hash == row.hash,
                                                    Secret.used.is_(None)).values(used=now))
        if _count(done) != 1:  # another request used it in between
            raise IdentityError(f"used-{word}", f"this {what} was used already")
        return row.player


# -- transfer codes -----------------------------------------------------------------------------

def normalise_code(text: Any) -> str | None:
    """A typed code as stored (capitals, no spaces or dashes), or ``None`` when it cannot be
    one (wrong length or a symbol codes never hold)."""
    if not isinstance(text, str) or len(text) > 32:
        return None
    code = "".join(ch for ch in text.upper() if ch not in " -\t")
    if len(code) != CODE_LENGTH or any(ch not in CODE_ALPHABET for ch in code):
        return None
    return code


def shown_code(code: str) -> str:
    """``ABCD-EFGH``: two halves, easier to read out."""
    return f"{code[:4]}-{code[4:]}"


async def make_code(store: Store, device_hash: str, now: float | None = None
                    ) -> tuple[str, float]:
    """A new transfer code for the player of this device, and when it expires."""
    player = await player_of(store, device_hash)
    code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
    expires = await new_secret(store, "code", player, code, CODE_LIFETIME, now)
    return shown_code(code), expires


async def link(store: Store, device_hash: str, player: str, how: str,
               now: float | None = None) -> None:
    """Make ``device_hash`` one of ``player``'s devices (its own first id: the link goes)."""
    now = time.time() if now is None else now
    async with store._write(), store.session() as s, s.begin():
        row = await s.get(DeviceLink, device_hash, with_for_update=True)
        if player == device_player(device_hash):
            if row is not None:
                await s.delete(row)
        elif row is None:
            s.add(DeviceLink(device=device_hash, player=player, how=how, linked=now))
        else:
            row.player, row.how, row.linked = player, how, now


async def redeem_code(store: Store, device_hash: str, text: Any, now: float | None = None
                      ) -> str:
    """Link this device to the player who asked for the code; that player. Refused with a
    reason (``bad-code``, ``wrong-code``, ``used-code``, ``expired-code``, ``already-yours``),
    nothing changed."""
    code = normalise_code(text)
    if code is None:
        raise IdentityError("bad-code", f"a transfer code is {CODE_LENGTH} letters and digits, "
                            "e.g. ACDE-3467")
    async with store.session() as s:
        row = await s.get(Secret, _hash(code))
        mine = await player_of(store, device_hash)
        if row is not None and row.kind == "code" and row.player == mine and row.used is None:
            raise IdentityError("already-yours", "this device is already that player's: "
                                "enter the code on the new device")
    player = await spend_secret(store, "code", code, now, {"code": "transfer code"})
    assert player is not None
    await link(store, device_hash, player, "code", now)
    return player


# -- deletion -----------------------------------------------------------------------------------

async def forget(store: Store, player: str) -> dict[str, int]:
    """Delete the player: every rating row, their names (and device marks) at stored tables,
    their linked devices, passkeys and pending codes, and what the :func:`on_forget` hooks
    remove. Answers what was removed, by kind."""
    devices = await devices_of(store, player)
    removed: dict[str, int] = {}
    async with store._write(), store.session() as s, s.begin():
        removed["ratings"] = _count(await s.execute(
            delete(RatingRow).where(RatingRow.player == player)))
        seats = 0
        for h in devices:
            rows = await s.scalars(select(SeatRow).where(
                SeatRow.token_hash.like(f"%{DEVICE_SEP}{h}")).with_for_update())
            for seat in rows:
                seat.name = FORGOTTEN_NAME
                seat.token_hash = (seat.token_hash or "").partition(DEVICE_SEP)[0] or None
                seats += 1
        removed["names"] = seats
        await s.execute(delete(DeviceLink).where(DeviceLink.player == player))
        removed["devices"] = len(devices)
        removed["passkeys"] = _count(await s.execute(
            delete(Passkey).where(Passkey.player == player)))
        await s.execute(delete(Secret).where(Secret.player == player))
    for hook in list(_hooks):
        more = await hook(store, player, devices)
        for k, v in (more or {}).items():
            if int(v):  # a kind with nothing of this player's is not named
                removed[k] = removed.get(k, 0) + int(v)
    return removed

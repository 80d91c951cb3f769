"""The identity's HTTP routes (issue 58; the logic: ristiseiska/identity, docs/identity.md).

Every request sends the device key (``{"device": KEY}``, ui/device.js); the server knows the
device only by its hash. ``POST /api/identity/...``:

- ``mine``: ``{"player", "devices", "passkeys", "linked"}`` of this device's player;
- ``code``: a one-time transfer code ``{"code": "ACDE-3467", "expires", "lifetime"}``;
- ``link`` ``{"device", "code"}``: this device joins the code's player;
- ``passkey/register-options``, ``passkey/register`` ``{"device", "credential"}``: a passkey
  for this device's player; ``passkey/login-options``, ``passkey/login``: sign in with one
  (links this device);
- ``delete`` ``{"device", "player"}``: forget the player; ``{"removed": {KIND: COUNT}}``.

Refusals are ``{"error": CODE, "message": TEXT}``; nothing is changed by one. Per client
address, tries to link (a code or a passkey) are limited to :data:`LINK_BURST` at once, then
one every ``60 / LINK_PER_MINUTE`` seconds, so codes cannot be guessed; the secrets a client
makes the server keep (codes, passkey prompts) to :data:`SECRET_BURST`, then
:data:`SECRET_PER_MINUTE` a minute.
"""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import SQLAlchemyError

from .. import identity
from ..identity import IdentityError, passkeys
from ..store import StoreError
from .errors import ActionError
from .seats import check_device
from .security import RateLimiter, json_body

router = APIRouter()

LINK_PER_MINUTE = 10.0
LINK_BURST = 10
SECRET_PER_MINUTE = 30.0
SECRET_BURST = 30

STATUS = {"not-yours": 403, "wrong-origin": 403, "wrong-challenge": 403,
          "wrong-code": 404, "unknown-passkey": 404, "used-code": 409, "used-challenge": 409,
          "already-yours": 409, "known-passkey": 409, "expired-code": 410,
          "expired-challenge": 410, "rate-limited": 429, "store": 503}


def _now(request: Request) -> float:
    clock = getattr(request.app.state, "identity_clock", None)  # tests move time on
    return float(clock()) if clock is not None else time.time()


def _limited(request: Request, what: str) -> Response | None:
    """A refusal when this address has used up its ``what`` ("links" or "secrets")."""
    state = request.app.state
    if not state.limits.per_address:
        return None
    per_minute, burst = ((LINK_PER_MINUTE, LINK_BURST) if what == "links"
                         else (SECRET_PER_MINUTE, SECRET_BURST))
    name = f"identity_{what}"
    if getattr(state, name, None) is None:  # tests put in one with a clock of their own
        setattr(state, name, RateLimiter(per_minute / 60, burst))
    limiter: RateLimiter = getattr(state, name)
    addr = request.scope.get("client_addr", "")
    if limiter.allow(addr):
        return None
    noun = "tries to link a device" if what == "links" else "codes and passkey prompts"
    return _refuse("rate-limited", f"at most {int(per_minute)} {noun} a minute from one "
                   "address; wait a moment", **{"Retry-After": str(limiter.retry_after(addr))})


def page_origin(request: Request) -> tuple[str, str]:
    """The origin of the page that asks (the server's own, or an ``--allowed-origin``: the
    Guard let only those through) and the relying party id, its host name."""
    origin = request.headers.get("origin")
    if not origin:
        host = request.headers.get("x-forwarded-host") if request.app.state.limits.trusts(
            request.client.host if request.client else "") else None
        origin = f"{request.url.scheme}://{host or request.headers.get('host', '')}"
    origin = origin.rstrip("/").lower()
    return origin, urlsplit(origin).hostname or ""


async def _device(request: Request) -> tuple[dict[str, Any], str]:
    data = await json_body(request, request.app.state.limits)
    if not isinstance(data, dict):
        raise ActionError("bad-request", "send a JSON object with 'device'")
    device_hash = check_device(data.get("device"))
    if device_hash is None:
        raise ActionError("bad-device", "send the device key")
    return data, device_hash


def _refuse(code: str, message: str, **headers: str) -> Response:
    return JSONResponse({"error": code, "message": message}, status_code=STATUS.get(code, 400),
                        headers=headers or None)


async def _answer(request: Request, work: Any, limit: str | None = None) -> Response:
    if limit and (refused := _limited(request, limit)):
        return refused
    try:
        data, device_hash = await _device(request)
        out = await work(data, device_hash)
    except (ActionError, IdentityError) as e:
        return _refuse(e.code, e.message)
    except (SQLAlchemyError, StoreError, OSError) as e:
        return _refuse("store", f"the identity cannot be read or stored now: {e}")
    if isinstance(out, Response):
        return out
    return JSONResponse(out)


@router.post("/api/identity/mine")
async def mine(request: Request) -> Response:
    store = request.app.state.store
    return await _answer(request, lambda _d, h: identity.summary(store, h))


@router.post("/api/identity/code")
async def code(request: Request) -> Response:
    store = request.app.state.store

    async def work(_data: dict[str, Any], h: str) -> dict[str, Any]:
        text, expires = await identity.make_code(store, h, _now(request))
        return {"code": text, "expires": expires, "lifetime": identity.CODE_LIFETIME}
    return await _answer(request, work, "secrets")


@router.post("/api/identity/link")
async def link(request: Request) -> Response:
    store = request.app.state.store

    async def work(data: dict[str, Any], h: str) -> dict[str, Any]:
        await identity.redeem_code(store, h, data.get("code"), _now(request))
        return await identity.summary(store, h)
    return await _answer(request, work, "links")


@router.post("/api/identity/passkey/register-options")
async def register_options(request: Request) -> Response:
    store = request.app.state.store

    async def work(data: dict[str, Any], h: str) -> dict[str, Any]:
        name = data.get("name")
        name = name.strip()[:64] if isinstance(name, str) and name.isprintable() else ""
        player = await identity.player_of(store, h)
        return await passkeys.registration_options(store, player, page_origin(request)[1],
                                                   name, _now(request))
    return await _answer(request, work, "secrets")


@router.post("/api/identity/passkey/register")
async def register(request: Request) -> Response:
    store = request.app.state.store

    async def work(data: dict[str, Any], h: str) -> dict[str, Any]:
        origin, rp_id = page_origin(request)
        player = await identity.player_of(store, h)
        await passkeys.register(store, player, data.get("credential"), [origin], rp_id,
                                _now(request))
        return await identity.summary(store, h)
    return await _answer(request, work)


@router.post("/api/identity/passkey/login-options")
async def login_options(request: Request) -> Response:
    store = request.app.state.store
    if refused := _limited(request, "secrets"):
        return refused
    try:
        return JSONResponse(await passkeys.login_options(store, page_origin(request)[1],
                                                         _now(request)))
    except (SQLAlchemyError, StoreError, OSError) as e:
        return _refuse("store", f"the identity cannot be read or stored now: {e}")


@router.post("/api/identity/passkey/login")
async def login(request: Request) -> Response:
    store = request.app.state.store

    async def work(data: dict[str, Any], h: str) -> dict[str, Any]:
        origin, rp_id = page_origin(request)
        await passkeys.login(store, h, data.get("credential"), [origin], rp_id, _now(request))
        return await identity.summary(store, h)
    return await _answer(request, work, "links")


@router.post("/api/identity/delete")
async def delete(request: Request) -> Response:
    store = request.app.state.store

    async def work(data: dict[str, Any], h: str) -> dict[str, Any]:
        player = await identity.require_owner(store, h, data.get("player"))
        return {"player": player, "removed": await identity.forget(store, player)}
    return await _answer(request, work)

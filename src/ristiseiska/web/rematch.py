"""Rematch (issue 20): the same players and rules at a new table in one click.

``POST /api/tables/{table_id}/rematch`` with ``{"seat": S, "token": "…"}`` (a seat of the
finished match and its token). The first call makes the new table: the same rules, the same
seats (bots with their levels and names, friends with the names they played under) and a new
match seed from the server; every friend seat that was taken is kept for its player
(``reserved``: nobody else can claim it). Each call seats its caller at their own seat there
and answers ``{"id", "url", "seat", "token"}`` (201). The new table's id is derived from the
old one, so the rematch is one table however many players press the button, even after a
server restart. Errors: ``bad-token`` (400), ``match-running`` (409), ``seat-taken`` (409, with
the ``url`` of the rematch: this seat already sits there).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from .errors import ActionError
from .live_table import LiveTable
from .security import json_body
from .tables import Tables

router = APIRouter()
_locks: dict[int, asyncio.Lock] = {}


def rematch_id(table_id: str) -> str:
    """The id of ``table_id``'s rematch: as hard to guess as the old id itself."""
    digest = hashlib.sha256(f"rematch:{table_id}".encode()).digest()[:16]
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def rematch_config(old: LiveTable) -> dict[str, Any]:
    """The new table's configuration (without its seed, which the server draws)."""
    c = old.config
    seats = [{"kind": s.kind, "bot": s.bot, "name": s.name,
              **({"api": s.api} if s.api else {})}  # a Bot API program keeps its seat
             for s in old.seats]
    reserved = [i for i, s in enumerate(old.seats) if s.kind == "friend" and s.token_hash]
    out = {"preset": c.get("preset"), "base": c.get("base"), "rules": c["rules"],
           "seats": seats, "seed": None, "reserved": reserved, "rematch_of": old.id}
    devices = {str(i): old.seats[i].device_hash for i in reserved if old.seats[i].device_hash}
    if devices:  # issue 47: each kept seat is also its player's by the device they played on
        out["reserved_devices"] = devices
    # table options of issue 20 and issue 52's auto_forced, when set
    for key in ("clock", "open", "chat_text", "auto_forced", "rated"):  # and issue 58
        if key in c:
            out[key] = c[key]
    return out


async def make_rematch(tables: Tables, old: LiveTable, seat: Any, token: Any
                       ) -> tuple[LiveTable, int, str]:
    """Seat ``seat`` (proved by ``token``) of the finished ``old`` at its rematch, made if it
    is not there yet. Returns the new table, the seat and its new token."""
    seat = old.check_token(seat, token)
    if not old.match.is_over():
        raise ActionError("match-running", "a rematch starts when the match is over")
    new_id = rematch_id(old.id)
    lock = _locks.setdefault(id(tables), asyncio.Lock())
    async with lock:
        try:
            new = await tables.get(new_id)
        except ActionError as e:
            if e.code != "no-table":
                raise
            new = await tables.create(rematch_config(old), table_id=new_id)
    if old.rematch != new_id:
        old.rematch = new_id
        async with old.lock:
            old.broadcast_info()
    # the player's device goes with them (issue 47): the rematch knows them by it too
    token_new = await new.claim(seat, old.seats[seat].name, reserved_ok=True,
                                device_hash=old.seats[seat].device_hash)
    return new, seat, token_new


@router.post("/api/tables/{table_id}/rematch")
async def rematch(table_id: str, request: Request) -> Response:
    tables: Tables = request.app.state.tables
    data = await json_body(request, request.app.state.limits)
    try:
        if not isinstance(data, dict):
            raise ActionError("bad-request", "send a JSON object with 'seat' and 'token'")
        old = await tables.get(table_id)
        new, seat, token = await make_rematch(tables, old, data.get("seat"), data.get("token"))
    except ActionError as e:
        status = {"no-table": 404, "store": 503, "server-full": 429, "match-running": 409,
                  "seat-taken": 409, "started-without": 409}.get(e.code, 400)
        body: dict[str, Any] = {"error": e.code, "message": e.message}
        if e.code == "seat-taken":
            body["url"] = f"/t/{rematch_id(table_id)}"
        return JSONResponse(body, status_code=status)
    return JSONResponse({"id": new.id, "url": f"/t/{new.id}", "seat": seat, "token": token},
                        status_code=201)

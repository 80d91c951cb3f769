"""Players who are remembered (issue 47): a guest is recognised by the private key of their
browser (``ui/device.js``) without an account.

``POST /api/tables/{table_id}/seats/mine`` with ``{"device": KEY, "name": N?}``: the seat a
rematch keeps for the player who played the last match on this device (``reserved_devices``
of the table's configuration, stored with it) is claimed for them, and the answer is the seat
and its token, as from ``/seats/{n}`` (201). So a player who opens the rematch's link — sent
by a friend, or after the old table's page is gone — sits down at their own seat. Errors:
``not-recognised`` (404: no seat here is kept for this device), ``bad-device`` (400) and the
claim's own.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from .errors import ActionError
from .seats import check_device
from .security import json_body
from .tables import Tables

router = APIRouter()


@router.post("/api/tables/{table_id}/seats/mine")
async def my_seat(table_id: str, request: Request) -> Response:
    tables: Tables = request.app.state.tables
    data = await json_body(request, request.app.state.limits)
    try:
        if not isinstance(data, dict):
            raise ActionError("bad-request", "send a JSON object with 'device'")
        device_hash = check_device(data.get("device"))
        if device_hash is None:
            raise ActionError("bad-device", "send the device key")
        t = await tables.get(table_id)
        mine = [i for i in range(t.n) if t._reserved(i) and t.reserved_device(i) == device_hash]
        if not mine:
            raise ActionError("not-recognised", "no seat at this table is kept for this device")
        name: Any = data.get("name") or ""
        token = await t.claim(mine[0], name if isinstance(name, str) else "",
                              device=data.get("device"))
    except ActionError as e:
        status = {"no-table": 404, "not-recognised": 404, "seat-taken": 409, "name-taken": 409,
                  "store": 503}.get(e.code, 400)
        return JSONResponse({"error": e.code, "message": e.message}, status_code=status)
    return JSONResponse({"id": table_id, "url": f"/t/{table_id}", "seat": mine[0],
                         "token": token}, status_code=201)

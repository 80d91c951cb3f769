"""Players who are remembered (issue 47): a guest is recognised by the private key of their
browser (``ui/device.js``) without an account.

``POST /api/tables/{table_id}/seats/mine`` with ``{"device": KEY, "name": N?}`` gives the player
their own seat at this table:

- a seat this device already holds (it sat down with this key: from the lobby, an open
  table's Join, a quick game or a rematch): the seat gets a new token, answered with 200 and
  ``"returned": true`` — so a player who closed the tab, cleared the page's seat or opens the
  table from the lobby again plays on (the old token no longer seats anybody);
- else the seat a rematch keeps for the player who played the last match on this device
  (``reserved_devices`` of the table's configuration, stored with it) is claimed for them,
  answered as from ``/seats/{n}`` (201).

Errors: ``not-recognised`` (404: nothing here is this device's), ``bad-device`` (400: a key is
16–64 URL-safe characters; nothing is changed) and the claim's own. The key itself is never
stored, logged or sent to anybody: the server keeps a hash of it with the seat
(``web/tables.py`` ``check_device``).
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

STATUS = {"no-table": 404, "not-recognised": 404, "seat-taken": 409, "name-taken": 409,
          "started-without": 409, "store": 503}


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
        held = t.device_seat(device_hash)
        if held is not None:
            token = await t.renew(held, device_hash)
            return JSONResponse({"id": table_id, "url": f"/t/{table_id}", "seat": held,
                                 "token": token, "returned": True})
        mine = [i for i in range(t.n) if t._reserved(i) and t.reserved_device(i) == device_hash]
        if not mine:
            raise ActionError("not-recognised", "no seat at this table is kept for this device")
        name: Any = data.get("name") or ""
        token = await t.claim(mine[0], name if isinstance(name, str) else "",
                              device=data.get("device"))
    except ActionError as e:
        return JSONResponse({"error": e.code, "message": e.message},
                            status_code=STATUS.get(e.code, 400))
    return JSONResponse({"id": table_id, "url": f"/t/{table_id}", "seat": mine[0],
                         "token": token, "returned": False}, status_code=201)

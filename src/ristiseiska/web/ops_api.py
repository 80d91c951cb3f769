"""The operators' endpoints (issue 63): ``/metrics`` (Prometheus text, this process's own)
and ``/healthz`` (200 when the database answers, else 503); the work is in ``ops/``."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from ..ops.health import health
from ..ops.metrics import Metrics

NO_STORE = {"Cache-Control": "no-store"}


def router(store: Any, metrics: Metrics) -> APIRouter:
    r = APIRouter(include_in_schema=False)
    started = time.monotonic()

    @r.get("/metrics")
    async def metrics_page() -> Response:
        body, kind = metrics.render()
        return Response(body, media_type=kind, headers=NO_STORE)

    @r.get("/healthz")
    async def healthz() -> Response:
        status, body = await health(store, metrics.open_tables(), started)
        return JSONResponse(body, status_code=status, headers=NO_STORE)

    return r

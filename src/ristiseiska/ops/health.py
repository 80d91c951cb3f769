"""``/healthz``: whether this server process can do its work, for supervisors and balancers."""

from __future__ import annotations

import asyncio
import time
from typing import Any

# a database that takes longer than this to answer one SELECT is as good as away
PING_TIMEOUT = 3.0


async def health(store: Any, tables: int, started: float) -> tuple[int, dict[str, Any]]:
    """(HTTP status, body): 200 when the database answers, else 503 with the reason."""
    body: dict[str, Any] = {"status": "ok", "database": True, "tables": tables,
                            "uptime_s": round(time.monotonic() - started, 1)}
    try:
        await asyncio.wait_for(store.ping(), PING_TIMEOUT)
    except Exception as e:  # noqa: BLE001 - any failure means: not healthy
        reason = "timed out" if isinstance(e, TimeoutError) else type(e).__name__
        body.update(status="unavailable", database=False, error=f"database: {reason}")
        return 503, body
    return 200, body

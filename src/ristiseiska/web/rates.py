"""Per-address limits that hold for the whole server (issue 46).

With several server processes (``serve --processes``, or several machines on one PostgreSQL)
an in-memory token bucket is per process: a client whose requests nginx spreads over two
processes got twice the limit. Where the store is shared (:attr:`Store.fencing`) the bucket
lives in the database instead (``rs_rates``, one locked row per limit and address, see
:meth:`Store.take_token`); a single process keeps it in memory as before. Should the database
refuse, the process's own bucket answers, so a limit never fails open entirely.
"""

from __future__ import annotations

import logging
from typing import Any

from .security import RateLimiter

log = logging.getLogger("ristiseiska.web")


class SharedRate:
    """``per_minute`` uses a minute (bursts of as many) per client address, for ``name``."""

    def __init__(self, store: Any, name: str, per_minute: int) -> None:
        self.store = store
        self.name = name
        self.rate = per_minute / 60.0
        self.burst = float(per_minute)
        self.local = RateLimiter(self.rate, self.burst)

    @property
    def shared(self) -> bool:
        return bool(getattr(self.store, "fencing", False))

    async def retry_after(self, addr: str) -> int:
        """0 when ``addr`` may go on (a token is spent), else the whole seconds to wait."""
        if self.shared:
            try:
                wait = await self.store.take_token(f"{self.name}:{addr}", self.rate, self.burst)
            except Exception:  # noqa: BLE001 - the database away: this process's own bucket
                log.warning("the shared %s limit could not be read; this process's own "
                            "counts apply", self.name, exc_info=True)
            else:
                return 0 if wait <= 0 else max(1, int(wait + 0.999))
        if self.local.allow(addr):
            return 0
        return self.local.retry_after(addr)

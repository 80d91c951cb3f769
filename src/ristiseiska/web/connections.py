"""One WebSocket connection to a live table: its seat and its ordered outbox."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..aio import Outbox

MAX_OUTBOX = 500  # messages waiting for one slow connection
MAX_CONNECTIONS = 64  # per table: players, their reconnecting tabs and spectators


@dataclass(eq=False)
class Conn:
    """One WebSocket: its seat (``None`` for a spectator) and an ordered outbox."""

    seat: int | None = None
    queue: Outbox = field(default_factory=Outbox)
    addr: str = ""
    overflow: bool = False
    last_info: dict[str, Any] | None = None  # the table part this connection has
    api: str | None = None  # the Bot API program's name (web/bot_api.py)
    fmt: str = "json"  # "rl": an rl frame follows every state (web/bot_api.py)
    knowledge: int | None = None  # the rl frames' knowledge block (rl/encoding.py)

    def send(self, msg: dict[str, Any]) -> None:
        # A client that stops reading must not make the server hoard messages for it: past
        # the limit it is dropped (its page reconnects and gets the current state).
        if self.queue.qsize() >= MAX_OUTBOX:
            self.overflow = True
            return
        self.queue.put_nowait(msg)


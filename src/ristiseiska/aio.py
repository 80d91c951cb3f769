"""asyncio without asking for the running loop on every wait.

On Python 3.11 ``asyncio.get_running_loop()`` checks the process id with a ``getpid`` system
call each time, and ``asyncio.sleep`` and an empty ``asyncio.Queue``'s wait ask it. The web
server waits that way several times per move; at a thousand tables those system calls were
4.5% of its CPU (docs/notes/2026-12-02-server-cpu-passes.md, *Sixth pass*). These helpers take the loop once.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any


class Outbox:
    """A first-in first-out queue for one consumer (a connection's writer, the store's move
    writer): the part of ``asyncio.Queue`` the server uses, with the loop taken at the first
    wait (one loop for the queue's life, as with ``asyncio.Queue``)."""

    __slots__ = ("_queue", "_waiter", "_loop")

    def __init__(self) -> None:
        self._queue: deque[Any] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def qsize(self) -> int:
        return len(self._queue)

    def empty(self) -> bool:
        return not self._queue

    def put_nowait(self, item: Any) -> None:
        self._queue.append(item)
        w = self._waiter
        if w is not None and not w.done():
            w.set_result(None)

    def get_nowait(self) -> Any:
        if not self._queue:
            raise asyncio.QueueEmpty
        return self._queue.popleft()

    async def get(self) -> Any:
        while not self._queue:
            if self._loop is None:
                self._loop = asyncio.get_running_loop()
            self._waiter = self._loop.create_future()
            try:
                await self._waiter
            finally:
                self._waiter = None
        return self._queue.popleft()


def _wake(fut: asyncio.Future[None]) -> None:
    if not fut.done():
        fut.set_result(None)


def sleep_on(loop: asyncio.AbstractEventLoop, delay: float) -> asyncio.Future[None]:
    """``asyncio.sleep(delay)`` on a loop already at hand (``asyncio.sleep`` asks for the
    running loop: a system call on Python 3.11, see :class:`Outbox`)."""
    fut = loop.create_future()
    loop.call_later(delay, _wake, fut)
    return fut

"""Work beside the screen in daemon threads, and a quit that waits for none of it (issue 62).

Textual's thread workers and ``asyncio.to_thread`` use the event loop's default executor,
which ``asyncio.run`` joins when the app ends, and Python joins a ``ThreadPoolExecutor``'s
threads at exit: a bot's think or an analysis that loads (or compiles) the kernel would then
hold Ctrl+Q for as long as it runs. A daemon thread ends with the process instead; what it
would have delivered is not needed once the person has quit (the match is saved after every
move, on the app's thread)."""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import sys
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")


def start(fn: Callable[..., Any], *args: Any, name: str = "background") -> threading.Thread:
    """Run ``fn(*args)`` in a daemon thread; its exceptions are its own to handle."""
    th = threading.Thread(target=fn, args=args, name=name, daemon=True)
    th.start()
    return th


async def run(fn: Callable[..., T], *args: Any) -> T:
    """``await asyncio.to_thread(fn, *args)``, in a daemon thread."""
    fut: concurrent.futures.Future[T] = concurrent.futures.Future()

    def work() -> None:
        if not fut.set_running_or_notify_cancel():
            return
        try:
            fut.set_result(fn(*args))
        except BaseException as e:  # noqa: BLE001 - raised again where it is awaited
            fut.set_exception(e)

    start(work, name=getattr(fn, "__name__", "background"))
    return await asyncio.wrap_future(fut)


def end_process(status: int) -> None:
    """End the process now with ``status``: the exit handlers run (the bots' pool is closed,
    the logs flushed), but neither the wait for a daemon thread inside numba's compiler nor
    Python's teardown of every module, which with numba and numpy loaded takes a second or
    two on a busy machine. Call it only after everything the program owes the person is
    written (the saved match, the last lines)."""
    import atexit

    sys.stdout.flush()
    sys.stderr.flush()
    atexit._run_exitfuncs()  # what a normal exit runs first
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)

"""Worker processes that die with the process that started them (issue 19).

The server and the terminal game keep searching bots and analyses in ``spawn`` worker
processes of a :class:`concurrent.futures.ProcessPoolExecutor`. A clean stop shuts those pools
down, but a parent that is killed (SIGKILL, the out-of-memory killer, a crash) shuts nothing
down, and its workers (≈200 MiB each) would idle on as orphans. :func:`worker_pool` makes a pool
whose every worker watches its parent twice over:

* on Linux the kernel's parent-death signal (``prctl(PR_SET_PDEATHSIG, SIGKILL)``): the worker
  is killed the moment its parent dies, even in the middle of a compilation. The signal fires
  when the parent *thread* that started the worker ends, so it is set only for workers started
  by the parent's main thread (which lives as long as the process);
* everywhere, a daemon thread that checks twice a second whether the parent process is still
  its parent (an orphan is adopted by another process), and ends the worker if not. The check
  compares with the parent's pid recorded when the worker was started, so a parent that died
  before the worker had even finished starting is noticed too.

Workers ignore SIGINT: Ctrl-C in a terminal reaches every process of the group, and it is the
parent's to handle (it shuts its pools down cleanly). multiprocessing's resource tracker needs
no watching: it ends when the last process holding its pipe (the parent and its workers) has
ended.

    >>> with worker_pool(1) as pool:
    ...     pool.submit(abs, -3).result()
    3
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Callable
from typing import Any

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
POLL_SECONDS = 0.5


class _Parent:
    """The parent as seen by a worker; pickled (in the thread that starts the worker) with the
    parent's pid and whether that thread is the main one."""

    def __init__(self, pid: int | None = None, main_thread: bool | None = None) -> None:
        self.pid = os.getpid() if pid is None else pid
        self.main_thread = main_thread

    def __reduce__(self) -> tuple[Any, ...]:
        # Runs when the worker is started, in the starting thread: that thread is what the
        # parent-death signal watches.
        main = threading.current_thread() is threading.main_thread()
        return (_Parent, (os.getpid(), main))


def parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask Linux to send ``sig`` to this process when its parent thread ends; False where the
    system has no such thing."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(PR_SET_PDEATHSIG, int(sig), 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def watch_parent(parent_pid: int, poll: float = POLL_SECONDS) -> None:
    """End this process (exit code 0, nothing flushed) as soon as ``parent_pid`` is no longer its
    parent; returns at once, the watching runs in a daemon thread."""
    if os.getppid() != parent_pid:  # the parent died while this process was starting
        os._exit(0)

    def watch() -> None:
        while os.getppid() == parent_pid:
            time.sleep(poll)
        os._exit(0)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def _start_worker(parent: _Parent, initializer: Callable[..., object] | None,
                  initargs: tuple[Any, ...]) -> None:
    if parent.main_thread:
        parent_death_signal()
    watch_parent(parent.pid)  # after the signal is set: closes the window before it
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if initializer is not None:
        initializer(*initargs)


def worker_pool(max_workers: int, initializer: Callable[..., object] | None = None,
                initargs: tuple[Any, ...] = (),
                mp_context: Any = None) -> concurrent.futures.ProcessPoolExecutor:
    """A ``ProcessPoolExecutor`` (``spawn`` unless told otherwise) whose workers die with this
    process; ``initializer(*initargs)`` runs in each worker after the watch is set up."""
    ctx = mp_context or multiprocessing.get_context("spawn")
    return concurrent.futures.ProcessPoolExecutor(
        max_workers=max_workers, mp_context=ctx, initializer=_start_worker,
        initargs=(_Parent(), initializer, initargs))


def stop_pool(executor: concurrent.futures.ProcessPoolExecutor, grace: float = 2.0) -> None:
    """Shut ``executor`` down: idle workers at once, a busy one after ``grace`` seconds
    (terminated), so that a stop never waits for a long search; the pool's queues and
    semaphores are freed before this returns."""
    procs = list((getattr(executor, "_processes", None) or {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    deadline = time.monotonic() + grace
    for p in procs:
        p.join(max(0.0, deadline - time.monotonic()))
        if p.is_alive():
            p.terminate()
            p.join(1.0)
        if p.is_alive():
            p.kill()
            p.join(1.0)
    executor.shutdown(wait=True)  # joins the pool's own thread and frees its queues

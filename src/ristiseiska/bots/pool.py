"""Bots that think in worker processes.

The ``master`` bot searches for up to a second per move, and its first use compiles the numba
kernel (20 s or more on a small machine when the disk cache is cold). Numba's compiler is Python
code that holds the GIL, so a thread is not enough: a server or a terminal screen running in
the same process would freeze. :class:`BotPool` runs such bots in separate processes, started
with ``spawn`` (no inherited event loop or threads) and at a lower CPU priority, so the process
that talks to people always gets the processor first.

    >>> from ristiseiska import Game, Rules
    >>> g = Game(Rules(), players=4, seed=1)
    >>> with BotPool(workers=1) as pool:
    ...     move = pool.choose("expert", 5, g.view(g.to_move))
    >>> move in g.legal_moves()
    True

Nobody waits on that compilation: until the pool's warm-up is done, :meth:`BotPool.stand_in`
names the level that plays instead (:data:`STAND_IN`, the expert's rules), and the front ends
say so once.

Bots keep no state between moves (a move depends on the bot's seed and the view), so a worker
may keep one bot per (level, seed, options) or make a new one: the move is the same.

As with any ``spawn`` pool, a script of your own that uses it needs the
``if __name__ == "__main__":`` guard (the workers import the main module).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import io
import os
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

from ..lifeline import stop_pool, worker_pool
from ..moves import Move

# Levels slow enough (search, compilation) to need a worker process; the others answer in
# microseconds and run where they are asked. The network answers in milliseconds, but its
# features come from the compiled kernel, whose import and first compilation would hold up a
# server or a screen for seconds.
POOLED: frozenset[str] = frozenset({"master", "neural"})
# What such a level plays while the compiled code it needs is not ready yet (the first minute
# after installing, while a worker compiles it): the expert's rules, which need no compiler,
# so that no table ever waits on a compilation (issue 50; docs/hosting.md, *The first minute*).
STAND_IN: dict[str, str] = {"master": "expert", "neural": "expert"}
WORKER_NICE = 10  # the workers yield the CPU to the process that serves people

_worker_bots: dict[tuple[Any, ...], Any] = {}


def _init_worker(nice: int, quiet: bool) -> None:
    # The worker dies with its parent and leaves Ctrl-C to it (lifeline.worker_pool does both).
    if quiet:  # under a full-screen terminal UI: nothing may write onto its screen
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
    if nice and hasattr(os, "nice"):
        try:
            os.nice(nice)
        except OSError:  # not allowed here: run at the normal priority
            pass


def compile_kernel(neural: bool = False) -> float:
    """Compile (or load from the disk cache) the kernel, and with ``neural`` the network's
    environment too; the seconds it took."""
    start = time.perf_counter()
    try:
        from .. import kernel
    except ImportError:  # numba missing: the master bot plays with Python playouts
        return 0.0
    kernel.warm_up()
    if neural:
        from ..kernel import vecenv

        vecenv.warm_up()
    return time.perf_counter() - start


def _choose(level: str, seed: int, options: tuple[tuple[str, Any], ...], view: Any) -> Move:
    from . import get_bot

    key = (level, seed, options)
    bot = _worker_bots.get(key)
    if bot is None:
        if len(_worker_bots) > 256:
            _worker_bots.clear()
        bot = _worker_bots[key] = get_bot(level, seed=seed, **dict(options))
    move: Move = bot.choose(view)
    return move


@contextlib.contextmanager
def _real_stderr() -> Iterator[None]:
    """Textual replaces ``sys.stderr`` with an object whose ``fileno()`` is -1, and
    multiprocessing passes that number to the resource tracker it starts, which then fails
    ("bad value(s) in fds_to_keep"). Show it a usable stderr, or none, for the moment."""
    saved = sys.stderr
    try:
        fd = saved.fileno() if saved is not None else -1
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        fd = 0  # fileno() raises: multiprocessing skips it, fine
    if fd < 0:
        sys.stderr = sys.__stderr__ if _usable(sys.__stderr__) else io.StringIO()
    try:
        yield
    finally:
        sys.stderr = saved


def _usable(stream: Any) -> bool:
    try:
        return stream is not None and stream.fileno() >= 0
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return False


def default_workers() -> int:
    """One worker per core but one (the serving process keeps a core), at least one."""
    return max(1, min(4, (os.cpu_count() or 2) - 1))


class BotPool:
    """A pool of worker processes that choose bots' moves.

    Processes start on first use (or :meth:`warm_up`). ``choose``/``submit`` accept any bot
    level; :data:`POOLED` says which levels are worth the trip. If a worker dies, the pool is
    replaced on the next call, and the failed call raises so the caller can log it.
    """

    def __init__(self, workers: int | None = None, nice: int = WORKER_NICE,
                 quiet: bool = False) -> None:
        if workers is not None and workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.workers = workers or default_workers()
        self.nice = nice
        self.quiet = quiet
        self._executor: concurrent.futures.ProcessPoolExecutor | None = None
        self._lock = threading.Lock()
        self._closed = False
        self._warm: concurrent.futures.Future[float] | None = None
        self._warm_neural: concurrent.futures.Future[float] | None = None
        self._waited = False  # a wait for the warm-up (ready(wait=...)) ran out once

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` has been called (a warm-up cut short then failed for that
        reason, not by a fault)."""
        return self._closed

    def _pool(self) -> concurrent.futures.ProcessPoolExecutor:
        with self._lock:
            if self._closed:
                raise RuntimeError("the bot pool is closed")
            if self._executor is None:
                with _real_stderr():
                    # the semaphores start multiprocessing's resource tracker now
                    self._executor = worker_pool(
                        self.workers, initializer=_init_worker, initargs=(self.nice, self.quiet))
            return self._executor

    def _submit(self, fn: Callable[..., Any], *args: Any) -> concurrent.futures.Future[Any]:
        pool = self._pool()
        try:
            return pool.submit(fn, *args)
        except concurrent.futures.BrokenExecutor:
            with self._lock:  # a worker died: start afresh
                if self._executor is pool:
                    self._executor = None
            pool.shutdown(wait=False, cancel_futures=True)
            return self._pool().submit(fn, *args)

    def ensure_warm(self, neural: bool = False) -> concurrent.futures.Future[float]:
        """:meth:`warm_up`, once per pool; with ``neural``, the neural bot's part as well
        (asked for only when a neural bot plays: it would hold up the queue)."""
        with self._lock:
            fut = self._warm
        if fut is None:
            fut = self._warm = self.warm_up()
        if neural:
            with self._lock:
                fut = self._warm_neural
            if fut is None:
                fut = self._warm_neural = self._submit(compile_kernel, True)
        return fut

    def ready(self, level: str, wait: float = 0.0) -> bool:
        """Whether ``level`` can think now without compiling first: every level outside
        :data:`POOLED`, and those once the pool's warm-up (started here if need be) is done,
        waiting up to ``wait`` seconds for it (until such a wait has run out once). A warm-up
        that failed leaves the level not ready (its stand-in plays on)."""
        if level not in POOLED:
            return True
        fut = self.ensure_warm(neural=level == "neural")
        if wait > 0 and not fut.done() and not self._waited:
            # once per pool: a compilation that outlasts it is not waited for again
            concurrent.futures.wait([fut], timeout=wait)
            self._waited = not fut.done()
        return fut.done() and not fut.cancelled() and fut.exception() is None

    def stand_in(self, level: str, wait: float = 0.0) -> str | None:
        """The level that plays for ``level`` now (:data:`STAND_IN`) while it is not
        :meth:`ready` (after up to ``wait`` seconds); ``None`` when it can think itself."""
        return None if self.ready(level, wait) else STAND_IN.get(level, "expert")

    def warm_up(self) -> concurrent.futures.Future[float]:
        """Start a worker and compile the kernel in it; the future gives the seconds it took.

        With one worker the kernel is then ready for every bot; with several, the others load
        it from the disk cache the first one wrote when they start.
        """
        return self._submit(compile_kernel)

    def submit(self, level: str, seed: int, view: Any,
               **options: Any) -> concurrent.futures.Future[Move]:
        return self._submit(_choose, level, seed, tuple(sorted(options.items())), view)

    def choose(self, level: str, seed: int, view: Any, **options: Any) -> Move:
        """The bot's move, waiting for it (without holding the GIL)."""
        return self.submit(level, seed, view, **options).result()

    async def achoose(self, level: str, seed: int, view: Any, **options: Any) -> Move:
        """The bot's move, awaited on an event loop that keeps serving meanwhile."""
        return await asyncio.wrap_future(self.submit(level, seed, view, **options))

    def close(self, grace: float = 2.0) -> None:
        """Stop the workers: idle ones at once, one still compiling or thinking after
        ``grace`` seconds (so stopping a server never waits for a compilation)."""
        with self._lock:
            self._closed = True
            executor, self._executor = self._executor, None
        if executor is None:
            return
        stop_pool(executor, grace)

    def __enter__(self) -> BotPool:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class PooledBot:
    """A bot that looks local (``choose(view)``) but thinks in a :class:`BotPool`.

    Made without touching the kernel, so creating one never compiles anything in the caller's
    process. Its first move waits up to ``GRACE`` seconds for the pool's warm-up (a worker
    that loads the compiled kernel from the disk cache is ready in a second or two); past that
    (a compilation: a minute or more) the stand-in plays.
    """

    GRACE = 3.0

    def __init__(self, pool: BotPool, level: str, seed: int, **options: Any) -> None:
        self.pool, self.name, self.seed, self.options = pool, level, seed, options
        self.stood_in: str | None = None  # the level that made the last move for it, if any

    def choose(self, view: Any) -> Move:
        # While the compiled code is being built, the stand-in level answers here at once.
        self.stood_in = self.pool.stand_in(self.name, self.GRACE)
        if self.stood_in is not None:
            from . import get_bot

            move: Move = get_bot(self.stood_in, seed=self.seed).choose(view)
            return move
        return self.pool.choose(self.name, self.seed, view, **self.options)

    def __call__(self, view: Any) -> Move:
        return self.choose(view)

    def __repr__(self) -> str:
        return f"<PooledBot {self.name} seed={self.seed}>"


_shared: BotPool | None = None
_shared_lock = threading.Lock()


def shared_pool() -> BotPool:
    """One pool per process for callers that do not own one (the terminal game); its workers
    write nothing to the terminal (their errors come back with the calls)."""
    global _shared
    with _shared_lock:
        if _shared is None or _shared._closed:
            _shared = BotPool(quiet=True)
            import atexit

            atexit.register(_shared.close)
        return _shared


def release_shared_pool() -> None:
    """Stop the shared pool's workers at once (a think in progress fails); the next
    :func:`shared_pool` starts a new pool."""
    with _shared_lock:
        pool = _shared
    if pool is not None:
        pool.close(grace=0.0)

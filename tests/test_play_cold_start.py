"""The terminal game on a fresh install never freezes (issue 50): ``ristiseiska play --bots
master,master,master`` under a pseudo-terminal of 80×24 with an empty compile cache. A player
at the keyboard plays whenever it is their turn; while it is the bots' turn the screen must
change at least every 5 s (the expert's rules stand in for the master while its kernel is
compiled, the log says so once, a long think counts its seconds), until the master has taken
over and played on its own.

The compilation is real (an empty ``NUMBA_CACHE_DIR``, which numba's cache locator takes before
the module's ``__pycache__``: the test checks the compiled files land there), so this test costs
a minute or two of CPU: marked ``quiet``, it runs alone. Run with ``-s`` to see the figures.
"""

from __future__ import annotations

import fcntl
import os
import re
import select
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.quiet,
              pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pseudo-terminal")]

RUN_LIMIT = 900.0  # a low-priority compilation on two busy cores took 452 s; gaps are the test
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07]*\x07|\x1b.")
# the status line's words when it is the person's move (tui.en.json) and the end of a deal
YOUR_TURN = ("Your turn", "You have no card to play", "You played a closing card",
             "asks you for a card")
NOT_YOURS = ("is thinking",)
DEAL_OVER = ("The deal is over", "Next deal")
HOME, RIGHT, ENTER = "\x1b[H", "\x1b[C", "\r"
# a think of a second or more counts its seconds: after the note that the expert stands in,
# that is the master's own (up to 2 s a move), never the expert's, which answers at once
COUNTER = re.compile(r"is thinking\S* \d+ s")


class Screen:
    """What the terminal got: every chunk's time, and the text without escape codes."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.chunks: list[float] = []
        self.text = ""
        self.lock = threading.Lock()
        self.closed = False
        self.warming: float | None = None  # when the log said the master is warming up
        self.counting: float | None = None  # when a think first counted its seconds
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.fd], [], [], 0.5)
                if not ready:
                    continue
                data = os.read(self.fd, 65536)
            except OSError:
                break
            if not data:
                break
            with self.lock:
                now = time.perf_counter()
                self.chunks.append(now)
                clean = ANSI.sub("", data.decode("utf-8", "replace"))
                self.text = (self.text + clean)[-20000:]
                if self.warming is None and "still warming up" in self.text[-3000:]:
                    self.warming = now
                elif self.warming is not None and self.counting is None and COUNTER.search(clean):
                    self.counting = now  # after the stand-in's note: the master's own think
        self.closed = True

    def last(self, words: tuple[str, ...]) -> int:
        with self.lock:
            return max(self.text.rfind(w) for w in words)


def _cached_files(cache: Path) -> int:
    return len(list(cache.rglob("*.nbi")))


def _compiled(cache: Path, quiet_for: float = 10.0) -> bool:
    """The kernel's warm-up has compiled its last module (``kernel.worlds``) into the cache and
    nothing new has been written for ``quiet_for`` seconds: the master plays on its own now.
    (On a quiet machine most of its thinks end within a second, so the counter is no sign.)"""
    files = list(cache.rglob("*.nbi"))
    if not any("worlds" in f.name for f in files):
        return False
    return time.time() - max(f.stat().st_mtime for f in files) > quiet_for


def test_play_with_three_masters_on_a_fresh_install_never_freezes(tmp_path: Path) -> None:
    cache = tmp_path / "numba-cache"
    cache.mkdir()
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), TERM="xterm-256color",
               COLUMNS="80", LINES="24", PYTHONUNBUFFERED="1")
    master_fd, slave_fd = os.openpty()
    fcntl.ioctl(slave_fd, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    proc = subprocess.Popen(
        [sys.executable, "-m", "ristiseiska.cli", "play", "--quick", "--lang", "en",
         "--bots", "master,master,master", "--seed", "5", "--deals", "500", "--pace", "0.2",
         "--data-dir", str(tmp_path / "data")],
        stdin=slave_fd, stdout=slave_fd, stderr=slave_fd, env=env, start_new_session=True)
    os.close(slave_fd)
    screen = Screen(master_fd)
    started = time.perf_counter()
    waits: list[tuple[float, float]] = []  # (since, until) while the bots had the move
    try:
        bots_since: float | None = started
        mine_since = started
        stepped = 0
        compiled_at: float | None = None  # when the kernel was found compiled
        while time.perf_counter() - started < RUN_LIMIT and not screen.closed:
            time.sleep(0.15)
            now = time.perf_counter()
            if compiled_at is None and _compiled(cache):
                compiled_at = now
            if compiled_at is not None and now - compiled_at > 10:
                break  # the master has played on its own for a while (several of its thinks)
            mine = screen.last(YOUR_TURN)
            over = screen.last(DEAL_OVER)
            theirs = screen.last(NOT_YOURS)
            if max(mine, over) > theirs:
                if bots_since is not None:
                    waits.append((bots_since, now))
                    bots_since = None
                    mine_since = now
                # Enter plays the card under the cursor when it is legal (or the only
                # action, or the next deal); else the cursor moves on to the next card, and
                # back to the first after the last
                key = HOME if stepped % 30 == 0 else ENTER if stepped % 2 else RIGHT
                os.write(master_fd, key.encode())
                stepped += 1
                assert now - mine_since < 60, "stuck on the person's turn:\n" + screen.text[-3000:]
            elif bots_since is None:
                bots_since = now
        assert not screen.closed, "the game ended:\n" + screen.text[-2000:]
        if bots_since is not None:
            waits.append((bots_since, time.perf_counter()))
    finally:
        os.write(master_fd, b"\x11")  # Ctrl-Q
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        os.close(master_fd)
    chunks = screen.chunks
    assert chunks, "the game drew nothing"
    gaps = []
    for since, until in waits:  # from the first screen on (starting Python is no bot's wait)
        since = max(since, chunks[0])
        inside = [since] + [c for c in chunks if since <= c <= until] + [until]
        gaps += [b - a for a, b in zip(inside, inside[1:], strict=False)]
    longest = max(gaps, default=0.0)
    took_over = (compiled_at or 0) - started
    print(f"\ncold cache, play with three masters at 80x24: the first screen after "
          f"{chunks[0] - started:.1f} s, the log said the master is warming "
          f"up after {(screen.warming or 0) - started:.1f} s, the kernel was compiled and the "
          f"master on its own after {took_over:.1f} s; {len(waits)} waits for the bots, {len(chunks)} screen "
          f"updates, longest gap while the bots had the move {longest:.2f} s; run "
          f"{time.perf_counter() - started:.1f} s")
    assert _cached_files(cache), "nothing was compiled into the empty cache"
    assert screen.warming is not None, "the log never said the master is warming up"
    assert compiled_at is not None, "the kernel was never compiled: the master never played"
    assert waits, "the bots never had the move"
    assert longest < 5.0, f"the screen stood still for {longest:.1f} s while the bots thought"

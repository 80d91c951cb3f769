"""Ctrl+Q quits at once while the master's kernel compiles (issue 62): ``ristiseiska play
--quick --bots master,master,master`` with an empty ``NUMBA_CACHE_DIR``, under a
pseudo-terminal of 80×24. The process must be gone within 2 s of the key, whatever runs in
the background (the bots' worker compiling, a hint's search, a bot's think), right after the
first moves and after a whole deal played while it compiles; and the game it says it saved is
on the disk, with the moves made.

Each case starts a real compilation in a fresh cache (a minute or more of one core while the
game runs), so the module is marked ``quiet``: it runs alone."""

from __future__ import annotations

import fcntl
import json
import os
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

pytestmark = [pytest.mark.quiet,
              pytest.mark.skipif(sys.platform == "win32", reason="a POSIX pseudo-terminal")]

ROOT = Path(__file__).resolve().parents[1]
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[PX^_].*?\x1b\\|\x1b\][^\x07]*\x07|\x1b.")
QUIT_LIMIT = 2.0
HOME, RIGHT, ENTER = "\x1b[H", "\x1b[C", "\r"
# the status line on the person's turn, a refusal of a card included (tui.en.json)
YOUR_TURN = ("Your turn", "You have no card to play", "You played a closing card",
             "asks you for a card", "does not fit", "You hold a playable card", "Choose the card")
NOT_YOURS = ("is thinking", "Wait for")
DEAL_OVER = ("Next deal",)


class Term:
    """The game in a pseudo-terminal: what it drew so far (without escape codes)."""

    def __init__(self, tmp: Path, *extra: str) -> None:
        cache = tmp / "numba-cache"
        cache.mkdir()
        self.data = tmp / "data"
        env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), TERM="xterm-256color",
                   COLUMNS="80", LINES="24", PYTHONFAULTHANDLER="1")
        env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
        self.fd, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "ristiseiska.cli", "play", "--quick", "--lang", "en",
             "--bots", "master,master,master", "--seed", "7", "--data-dir", str(self.data),
             *extra],
            stdin=slave, stdout=slave, stderr=slave, env=env, start_new_session=True)
        os.close(slave)
        self.text = ""

    def read(self, seconds: float, until: tuple[str, ...] = ()) -> bool:
        """Read for up to ``seconds``; true as soon as one of ``until`` shows."""
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if select.select([self.fd], [], [], 0.1)[0]:
                try:
                    chunk = os.read(self.fd, 65536)
                except OSError:
                    return False
                if not chunk:
                    return False
                self.text = (self.text + ANSI.sub("", chunk.decode("utf-8", "replace")))[-40000:]
                tail = re.sub(r"[\s│]+", "", self.text[-4000:])  # a status line wraps
                if until and any(re.sub(r"\s+", "", w) in tail for w in until):
                    return True
            elif self.proc.poll() is not None:
                return False
        return False

    def last(self, words: tuple[str, ...]) -> int:
        return max(self.text.rfind(w) for w in words)

    def send(self, keys: str) -> None:
        os.write(self.fd, keys.encode())

    def quit_seconds(self) -> float:
        """Ctrl+Q; the seconds until the process is gone (the test's limit plus a margin at
        most: past it the process's threads are dumped into the failure)."""
        self.send("\x11")
        start = time.monotonic()
        while self.proc.poll() is None and time.monotonic() - start < QUIT_LIMIT + 3:
            self.read(0.05)
        took = time.monotonic() - start
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGABRT)  # faulthandler: every thread's stack
            self.read(3.0)
        return took

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        os.close(self.fd)


def _saved_moves(data: Path) -> int:
    state = json.loads((data / "play-resume.json").read_text(encoding="utf-8"))
    assert state["format"] == "ristiseiska-play-state"
    return sum(len(deal) for deal in state["deals"]) + len(state["current"])


def _step(term: Term, stepped: int) -> None:
    # Enter plays the card under the cursor when it is legal (or the only action); else the
    # cursor moves on, and back to the first card now and then
    term.send(HOME if stepped % 30 == 0 else ENTER if stepped % 2 else RIGHT)


def test_ctrl_q_right_after_the_first_moves_exits_within_2_s(tmp_path: Path) -> None:
    term = Term(tmp_path)
    try:
        assert term.read(120, ("Players",)), term.text[-2000:]
        # On the person's turns ask for a hint (F2) and play it (F2 puts the cursor on its
        # card), until a hint weighs several moves: its search then loads (here: compiles)
        # the kernel in the game's own process, and after a second the rule of thumb answers.
        searched = False
        for _turn in range(40):
            start = time.monotonic()
            while term.last(YOUR_TURN) <= term.last(NOT_YOURS):
                assert time.monotonic() - start < 60, term.text[-3000:]
                term.read(0.2)
            term.send("\x1bOQ")  # F2
            if term.read(4, ("did not finish within", "analysis tried")):
                searched = True
                break
            term.send(ENTER)
            term.read(0.5)
        assert searched, term.text[-3000:]
        assert "warming up" in term.text, "the kernel was already compiled: no test"
        took = term.quit_seconds()
        assert took < QUIT_LIMIT, f"quitting took {took:.1f} s:\n{term.text[-6000:]}"
        assert "saved" in term.text[-2000:], term.text[-2000:]
        assert _saved_moves(term.data) > 0
    finally:
        term.close()


def test_ctrl_q_after_a_whole_deal_played_while_compiling_exits_within_2_s(tmp_path: Path) -> None:
    term = Term(tmp_path, "--pace", "0")
    try:
        assert term.read(120, ("Players",)), term.text[-2000:]
        stepped = 0
        start = time.monotonic()
        while term.last(DEAL_OVER) < 0:
            assert time.monotonic() - start < 300, term.text[-3000:]
            assert term.proc.poll() is None, term.text[-3000:]
            if term.last(YOUR_TURN) > term.last(NOT_YOURS):
                _step(term, stepped)
                stepped += 1
            term.read(0.15)
        took = term.quit_seconds()
        assert took < QUIT_LIMIT, f"quitting took {took:.1f} s:\n{term.text[-6000:]}"
        assert "saved" in term.text[-2000:], term.text[-2000:]
        assert _saved_moves(term.data) >= 52  # the whole deal is in the saved match
    finally:
        term.close()

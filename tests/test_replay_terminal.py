"""``ristiseiska replay FILE`` as a person meets it: in a real (pseudo-)terminal it opens the
Textual viewer; with its output redirected, or with ``--text``, it prints the deal as text."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

KNOWN = Path(__file__).parent / "data" / "analysis_known.jsonl"
ROOT = Path(__file__).resolve().parents[1]
# the console script, as a person runs it (the sources of this checkout first on the path)
CLI = [sys.executable, "-c", "import sys; from ristiseiska.cli import main; sys.exit(main())"]
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["TERM"] = "xterm-256color"
    env["COLUMNS"], env["LINES"] = "100", "32"
    env.pop("TEXTUAL", None)
    return env


def _read_until(fd: int, proc: subprocess.Popen[bytes], want: list[str], timeout: float) -> str:
    """The screen output (escape codes removed) once every text of ``want`` has appeared."""
    raw = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            raw += chunk
            text = ANSI.sub("", raw.decode("utf-8", "replace"))
            if all(w in text for w in want):
                return text
        elif proc.poll() is not None:
            break
    return ANSI.sub("", raw.decode("utf-8", "replace"))


def _run_in_pty(argv: list[str], want: list[str], keys: bytes = b"q") -> tuple[str, int]:
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 32, 100, 0, 0))
    proc = subprocess.Popen([*CLI, *argv], stdin=slave,
                            stdout=slave, stderr=slave, env=_env(), close_fds=True,
                            start_new_session=True)
    os.close(slave)
    try:
        seen = _read_until(master, proc, want, timeout=60)
        os.write(master, keys)
        # keep reading: a child whose screen output is not read blocks on writing it
        end = time.monotonic() + 30
        while proc.poll() is None and time.monotonic() < end:
            if select.select([master], [], [], 0.2)[0]:
                try:
                    os.read(master, 65536)
                except OSError:
                    break
        try:
            rc = proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = proc.wait()
        return seen, rc
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


@pytest.mark.parametrize(("lang", "want"), [
    ("fi", ["Tallenne", "Siirto 0/", "Paina a"]),
    ("en", ["Record", "Move 0/", "Press a"]),
])
def test_replay_opens_the_viewer_in_a_terminal(lang: str, want: list[str]) -> None:
    seen, rc = _run_in_pty(["replay", str(KNOWN), "--lang", lang], want)
    for w in want:
        assert w in seen, (w, seen[-2000:])
    assert rc == 0
    # the viewer, not the plain listing of the deal
    assert "Jaetut kortit:" not in seen and "Dealt hands:" not in seen


def test_replay_in_a_terminal_with_text_prints_the_deal() -> None:
    seen, rc = _run_in_pty(["replay", str(KNOWN), "--text"], ["Jaetut kortit:"], keys=b"")
    assert rc == 0
    assert "Jaetut kortit:" in seen and "Tallenne" not in seen


def test_replay_with_redirected_output_prints_the_deal() -> None:
    out = subprocess.run([*CLI, "replay", str(KNOWN)],
                         env=_env(), capture_output=True, text=True, timeout=60,
                         stdin=subprocess.DEVNULL)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Jako:") and "Jaetut kortit:" in out.stdout

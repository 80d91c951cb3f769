"""Quitting the terminal game says the truth about saving (issue 45): with ``--data-dir``
pointing at a plain file nothing can be written, so Ctrl+Q says the game was *not* saved and
why; with a folder it says where the game is and how to go on. Run as a person runs it: the
``play`` command in a pseudo-terminal of 80×24."""

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

ROOT = Path(__file__).resolve().parents[1]
CLI = [sys.executable, "-c", "import sys; from ristiseiska.cli import main; sys.exit(main())"]
ANSI = re.compile(r"\x1b\[[0-9;?<>=]*[ -/]*[@-~]|\x1b[()][0-9A-Za-z]|\x1b[=>]|\x1b\][^\x07]*\x07")


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "src") + os.pathsep + env.get("PYTHONPATH", "")
    env["TERM"] = "xterm-256color"
    env["COLUMNS"], env["LINES"] = "80", "24"
    env.pop("TEXTUAL", None)
    return env


def _read(fd: int, proc: subprocess.Popen[bytes], until: str | None, timeout: float) -> str:
    raw = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if select.select([fd], [], [], 0.2)[0]:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            raw += chunk
            if until is not None and until in ANSI.sub("", raw.decode("utf-8", "replace")):
                break
        elif proc.poll() is not None:
            break
    return ANSI.sub("", raw.decode("utf-8", "replace"))


def _play_then_quit(data_dir: Path, lang: str) -> str:
    """Start a quick game, make the first moves (Enter plays the highlighted card), Ctrl+Q;
    what the terminal shows after the game's screen is gone."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    proc = subprocess.Popen([*CLI, "play", "--quick", "--seed", "3", "--pace", "0", "--lang", lang,
                             "--bots", "random,random,random", "--data-dir", str(data_dir)],
                            stdin=slave, stdout=slave, stderr=slave, env=_env(),
                            close_fds=True, start_new_session=True)
    os.close(slave)
    try:
        _read(master, proc, "Pelaajat" if lang == "fi" else "Players", 90)
        for _ in range(6):
            os.write(master, b"\r")
            _read(master, proc, None, 1.0)
        os.write(master, b"\x11")  # Ctrl+Q
        after = _read(master, proc, None, 30)
        proc.wait(timeout=10)
        return after
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        os.close(master)


@pytest.mark.parametrize("lang, not_saved, why", [
    ("fi", "Peliä ei tallennettu", "on tiedosto eikä kansio"),
    ("en", "The game was not saved", "is a file, not a folder"),
])
def test_a_plain_file_as_data_dir_is_not_called_saved(tmp_path: Path, lang: str,
                                                      not_saved: str, why: str) -> None:
    plain = tmp_path / "plain.txt"
    plain.write_text("not a folder\n")
    out = _play_then_quit(plain, lang)
    assert not_saved in out and why in out, out[-1500:]
    assert "Peli tallennettiin" not in out and "The game was saved" not in out
    assert plain.read_text() == "not a folder\n"


def test_a_folder_as_data_dir_is_saved_and_says_so(tmp_path: Path) -> None:
    out = _play_then_quit(tmp_path / "saves", "fi")
    assert "Peli tallennettiin" in out, out[-1500:]
    assert (tmp_path / "saves" / "saved-game.json").exists() or any(
        (tmp_path / "saves").glob("*.json"))

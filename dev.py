#!/usr/bin/env python3
"""Set up and run ristiseiska with nothing but Python 3.11+ and pip.

    python3 dev.py start     # make .venv, install, start the web game on SQLite (prints the URL)
    python3 dev.py play      # the same, but the terminal game
    python3 dev.py test      # make .venv, install with test tools, run lint, types and all tests
    python3 dev.py bench     # speed figures

Everything is installed into ./.venv; nothing outside the checkout is touched.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")


def say(msg: str) -> None:
    print(f"[dev] {msg}", flush=True)


def run(*cmd: str | Path, check: bool = True) -> int:
    say(" ".join(str(c) for c in cmd))
    rc = subprocess.call([str(c) for c in cmd], cwd=ROOT)
    if check and rc != 0:
        say(f"failed with exit status {rc}")
        sys.exit(rc)
    return rc


def ensure_venv(extras: str) -> None:
    if sys.version_info < (3, 11):
        sys.exit("ristiseiska needs Python 3.11 or newer")
    if not PY.exists():
        say(f"creating {VENV}")
        venv.EnvBuilder(with_pip=True).create(VENV)
    stamp = VENV / f".installed-{extras or 'base'}"
    pyproject = ROOT / "pyproject.toml"
    if stamp.exists() and stamp.stat().st_mtime >= pyproject.stat().st_mtime:
        return
    spec = f".[{extras}]" if extras else "."
    run(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(PY, "-m", "pip", "install", "--quiet", "-e", spec)
    stamp.touch()


def cmd_start(args: list[str]) -> int:
    ensure_venv("")
    return run(BIN / "ristiseiska", "serve", *args, check=False)


def cmd_play(args: list[str]) -> int:
    ensure_venv("")
    return run(BIN / "ristiseiska", "play", *args, check=False)


def cmd_bench(args: list[str]) -> int:
    ensure_venv("")
    return run(BIN / "ristiseiska", "bench", *args, check=False)


def cmd_test(args: list[str]) -> int:
    ensure_venv("dev")
    run(PY, "-m", "ruff", "check", "src", "tests")
    run(PY, "-m", "mypy")
    rc = run(PY, "-m", "pytest", "-p", "no:cacheprovider", "--ignore=tests/browser", *args,
             check=False)
    if rc != 0:
        return rc
    browser_tests = ROOT / "tests" / "browser"
    if browser_tests.is_dir() and not args:
        if shutil.which("chromium") is None and not Path("/usr/bin/chromium").exists():
            say("Chromium is not installed: the browser tests are skipped "
                "(apt-get install -y chromium chromium-driver to run them)")
            return 0
        rc = run(PY, "-m", "pytest", "-p", "no:cacheprovider", str(browser_tests), check=False)
    return rc


COMMANDS = {"start": cmd_start, "play": cmd_play, "test": cmd_test, "bench": cmd_bench}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        return 2
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())

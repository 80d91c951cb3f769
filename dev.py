#!/usr/bin/env python3
"""Set up and run ristiseiska with nothing but Python 3.11+ and pip.

    python3 dev.py start     # make .venv, install, start the web game on SQLite (prints the URL)
    python3 dev.py play      # the same, but the terminal game
    python3 dev.py test      # make .venv, install with test tools, run lint, types and all tests,
                             # then the fresh-install check (`test PATHS…`: just those tests)
    python3 dev.py fresh     # only the fresh-install check (--keep keeps its directory)
    python3 dev.py bench     # speed figures

Everything is installed into ./.venv (the fresh-install check: a temporary directory, with
downloaded wheels kept in ./.cache/wheels); nothing else outside the checkout is touched.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
WHEELS = ROOT / ".cache" / "wheels"  # every wheel the plain install needs, so re-runs are offline


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
    if sys.version_info < (3, 11):  # noqa: UP036 - dev.py itself may run on an older python3
        sys.exit("ristiseiska needs Python 3.11 or newer")
    if not PY.exists():
        say(f"creating {VENV}")
        venv.EnvBuilder(with_pip=True).create(VENV)
    stamp = VENV / f".installed-{extras or 'base'}"
    pyproject = ROOT / "pyproject.toml"
    if stamp.exists() and stamp.stat().st_mtime >= pyproject.stat().st_mtime:
        return
    spec = f".[{extras}]" if extras else "."
    say(f"installing ristiseiska{f' with {extras} tools' if extras else ''} and its dependencies "
        "into .venv (the first time takes a few minutes: numba, numpy and the web stack)")
    start = time.monotonic()
    run(PY, "-m", "pip", "install", "--quiet", "--upgrade", "pip")
    run(PY, "-m", "pip", "install", "--progress-bar", "off", "-e", spec)
    say(f"installed in {time.monotonic() - start:.0f} s")
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
    main_suite: list[str | Path] = [PY, "-m", "pytest", "-p", "no:cacheprovider", "--ignore=tests/browser"]
    if args:  # with arguments: just the tests asked for
        return run(*main_suite, *args, check=False)
    browser = _start_browser_tests()
    rc = run(*main_suite, "-m", "not quiet", check=False)
    if browser is not None:
        browser_rc = _finish_browser_tests(*browser)
        rc = rc or browser_rc
    if rc != 0:
        return rc
    # the tests that time latency or redraw gaps, with the machine to themselves
    rc = run(*main_suite, "-m", "quiet", check=False)
    if rc != 0:
        return rc
    return cmd_fresh([])


def _start_browser_tests() -> tuple[subprocess.Popen[bytes], Path] | None:
    """Start the browser suite beside the main one. Each runs on about one core, so on a
    two-core machine together they take little more than the longer of the two. The few
    tests that time latency (marked ``quiet``) run afterwards on their own. The browser
    suite's output goes to a log shown when it ends, so the two reports do not interleave."""
    browser_tests = ROOT / "tests" / "browser"
    if not browser_tests.is_dir():
        return None
    if shutil.which("chromium") is None and not Path("/usr/bin/chromium").exists():
        say("Chromium is not installed: the browser tests are skipped "
            "(apt-get install -y chromium chromium-driver to run them)")
        return None
    log = Path(tempfile.mkstemp(prefix="ristiseiska-browser-", suffix=".log")[1])
    cmd: list[str | Path] = [PY, "-m", "pytest", "-p", "no:cacheprovider", browser_tests]
    say(f"{_shown(cmd)}  (alongside the main suite; its report follows it, log in {log})")
    with log.open("wb") as out:
        proc = subprocess.Popen([str(c) for c in cmd], cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT)
    return proc, log


def _finish_browser_tests(proc: subprocess.Popen[bytes], log: Path) -> int:
    if proc.poll() is None:
        say("waiting for the browser tests")
    rc = proc.wait()
    say("the browser tests' report:")
    sys.stdout.write(log.read_text(errors="replace"))
    sys.stdout.flush()
    if rc != 0:
        say(f"the browser tests failed with exit status {rc}")
    else:
        log.unlink()
    return rc


# -- the fresh-install check -------------------------------------------------------------------
# The product is `pip install .` with no extras. The test environment has more packages (test
# tools pull in greenlet, httpx, …), so a missing dependency would go unnoticed there: this
# check builds the wheel, installs it alone into a brand-new virtual environment and uses it as
# a newcomer would.

class FreshFailure(Exception):
    pass


def _clean_env(tmp: Path) -> dict[str, str]:
    """The environment for the fresh install's commands: none of this checkout's settings."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "NUMBA_CACHE_DIR",
                        "PYTHONSTARTUP", "PYTHONUSERBASE")}
    env.update(PYTHONNOUSERSITE="1", PYTHONUNBUFFERED="1", XDG_DATA_HOME=str(tmp / "data"),
               XDG_CONFIG_HOME=str(tmp / "config"), XDG_CACHE_HOME=str(tmp / "cache"))
    return env


def _missing(output: str) -> str:
    """A clear sentence if ``output`` shows a missing module or library."""
    m = re.search(r"No module named '([^']+)'", output) or re.search(
        r"requires that the Python '([^']+)' library is installed", output)
    if m:
        return (f"the plain install lacks the Python package {m.group(1)!r}: declare it in "
                "pyproject.toml [project] dependencies")
    return ""


def _shown(cmd: list[str | Path]) -> str:
    return " ".join("'<script>'" if "\n" in str(c) else str(c) for c in cmd)


def _step(title: str, cmd: list[str | Path], env: dict[str, str], timeout: float = 600,
          cwd: Path | None = None) -> str:
    say(f"fresh install: {title}")
    start = time.monotonic()
    try:
        p = subprocess.run([str(c) for c in cmd], cwd=cwd or ROOT, env=env, timeout=timeout,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    except subprocess.TimeoutExpired as e:
        out = e.stdout if isinstance(e.stdout, str) else (e.stdout or b"").decode(errors="replace")
        raise FreshFailure(f"{title}: no answer in {timeout:.0f} s\n{out[-3000:]}") from None
    if p.returncode != 0:
        why = _missing(p.stdout)
        raise FreshFailure(f"{title} failed (exit status {p.returncode})"
                           f"{': ' + why if why else ''}\n$ {_shown(cmd)}\n"
                           f"{p.stdout[-3000:]}")
    say(f"fresh install:   ok ({time.monotonic() - start:.1f} s)")
    return p.stdout


IMPORT_ALL = r"""
import importlib, pkgutil, sys, ristiseiska
bad = []
# The environments of the optional extra "rl" need its packages; everything else (the rl
# encoding and the policy bot included) must import from the plain install.
EXTRA = {"ristiseiska.rl.": ("gymnasium", "pettingzoo", "pyspiel", "open_spiel", "rl extra")}
skipped = []
for m in pkgutil.walk_packages(ristiseiska.__path__, "ristiseiska."):
    try:
        importlib.import_module(m.name)
    except ImportError as e:
        needs = [w for prefix, words in EXTRA.items() if m.name.startswith(prefix)
                 for w in words if w in str(e)]
        if needs:
            skipped.append(m.name)
        else:
            bad.append(f"{m.name}: {e}")
if bad:
    print("modules that do not import in the plain install:", *bad, sep="\n  ")
    sys.exit(1)
print(f"every module of ristiseiska imports ({ristiseiska.__file__}); "
      f"left to the rl extra: {', '.join(skipped) or 'none'}")
"""


def _serve_and_play(rs: Path, fpy: Path, tmp: Path, env: dict[str, str]) -> None:
    say("fresh install: ristiseiska serve (a free loopback port; the master bot compiles on "
        "this first run) and one deal over the HTTP API and the WebSocket")
    log = tmp / "serve.log"
    with open(log, "w") as out:
        server = subprocess.Popen(
            [str(rs), "serve", "--host", "127.0.0.1", "--port", "0", "--bot-delay", "0.05",
             "--database-url", f"sqlite:///{tmp / 'fresh.sqlite3'}"],
            cwd=tmp, env=env, stdout=out, stderr=subprocess.STDOUT, text=True)
    try:
        url = ""
        deadline = time.monotonic() + 120
        while not url and time.monotonic() < deadline and server.poll() is None:
            m = re.search(r"(http://127\.0\.0\.1:\d+/)", log.read_text())
            url = m.group(1) if m else ""
            time.sleep(0.2)
        if not url:
            text = log.read_text()
            why = _missing(text)
            raise FreshFailure("the server did not print its address"
                               f"{': ' + why if why else ''}\n{text[-3000:]}")
        say(f"fresh install:   serving at {url}")
        try:
            _step("play the friend seat over the WebSocket until the deal ends",
                  [fpy, "-m", "ristiseiska.web.smoke", url, "--timeout", "600"], env,
                  timeout=660, cwd=tmp)
        except FreshFailure as e:
            text = log.read_text()
            why = _missing(text)
            raise FreshFailure(f"{why + '; ' if why else ''}{e}\nserver output:\n"
                               f"{text[-3000:]}") from None
        text = log.read_text()
        if "Traceback" in text or server.poll() is not None:
            why = _missing(text)
            raise FreshFailure(f"the server reported an error{': ' + why if why else ''}\n"
                               f"{text[-3000:]}")
    finally:
        server.terminate()
        try:
            server.wait(20)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
    for line in log.read_text().splitlines():
        say(f"fresh install:   server: {line}")


def _install(fpy: Path, tmp: Path, env: dict[str, str]) -> None:
    """Build the wheel and install it with no extras, from ./.cache/wheels when it has every
    wheel needed (a re-run downloads nothing) and otherwise after downloading into it."""
    WHEELS.mkdir(parents=True, exist_ok=True)
    offline = ["--no-index", "--find-links", str(WHEELS)]
    dist = tmp / "dist"
    build = [fpy, "-m", "pip", "wheel", "--no-deps", "--progress-bar", "off", "-w", dist, ROOT]
    try:
        _step("build the wheel (offline, from the wheel cache)", [*build, *offline], env)
    except FreshFailure:
        _step("download the build backend into .cache/wheels",
              [fpy, "-m", "pip", "download", "--progress-bar", "off", "-d", WHEELS, "hatchling"],
              env)
        _step("build the wheel", [*build, *offline], env)
    wheel = next(dist.glob("ristiseiska-*.whl"))
    install = [fpy, "-m", "pip", "install", "--progress-bar", "off", *offline, wheel]
    try:
        _step("install it with no extras (offline, from the wheel cache)", install, env)
    except FreshFailure:
        _step("download its dependencies into .cache/wheels (only when they change)",
              [fpy, "-m", "pip", "download", "--progress-bar", "off", "-d", WHEELS, wheel], env)
        for w in WHEELS.glob("ristiseiska-*.whl"):  # the project's own wheel is built anew
            w.unlink()
        _step("install it with no extras", install, env)
    _step("pip check (the installed dependencies agree)", [fpy, "-m", "pip", "check"], env)
    extras = [line for line in _step("list what got installed", [fpy, "-m", "pip", "freeze"],
                                     env).splitlines()
              if re.match(r"(?i)(pytest|hypothesis|ruff|mypy|playwright|httpx|ray)\b", line)]
    if extras:
        raise FreshFailure(f"test tools in the plain install: {', '.join(extras)}")


def cmd_fresh(args: list[str]) -> int:
    """Build, install with no extras into a new virtual environment, and use it."""
    keep = "--keep" in args
    tmp = Path(tempfile.mkdtemp(prefix="ristiseiska-fresh-"))
    env = _clean_env(tmp)
    fbin = tmp / "venv" / ("Scripts" if os.name == "nt" else "bin")
    fpy, rs = fbin / ("python.exe" if os.name == "nt" else "python"), fbin / "ristiseiska"
    start = time.monotonic()
    try:
        say(f"fresh install: a new virtual environment in {tmp}")
        venv.EnvBuilder(with_pip=True, clear=True).create(tmp / "venv")
        _install(fpy, tmp, env)
        _step("every module imports", [fpy, "-c", IMPORT_ALL], env, cwd=tmp)
        _serve_and_play(rs, fpy, tmp, env)
        recs = tmp / "sim.jsonl"
        for title, cmd in [
            ("ristiseiska play --help", [rs, "play", "--help"]),
            ("ristiseiska presets", [rs, "presets"]),
            ("ristiseiska rules --preset sjuan --lang en", [rs, "rules", "--preset", "sjuan",
                                                            "--lang", "en"]),
            ("ristiseiska simulate --games 200 --records FILE",
             [rs, "simulate", "--games", "200", "--seed", "1", "--records", recs]),
            ("ristiseiska replay --check FILE", [rs, "replay", "--check", recs]),
            ("ristiseiska tournament --games 20", [rs, "tournament", "--games", "20",
                                                   "--seed", "1", "--workers", "1"]),
            ("ristiseiska bench (small)", [rs, "bench", "--deals", "200",
                                           "--kernel-deals", "20000"]),
        ]:
            _step(title, cmd, env, cwd=tmp)
    except FreshFailure as e:
        say(f"FRESH-INSTALL CHECK FAILED: {e}")
        say(f"(its files are in {tmp})")
        return 1
    say(f"fresh-install check passed in {time.monotonic() - start:.0f} s")
    if not keep:
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        say(f"kept {tmp}")
    return 0


COMMANDS = {"start": cmd_start, "play": cmd_play, "test": cmd_test, "fresh": cmd_fresh,
            "bench": cmd_bench}


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in COMMANDS:
        print(__doc__)
        return 2
    return COMMANDS[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())

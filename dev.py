#!/usr/bin/env python3
"""Set up and run ristiseiska with nothing but Python 3.11+ and pip.

    python3 dev.py start     # make .venv, install, start the web game on SQLite (prints the URL)
    python3 dev.py play      # the same, but the terminal game
    python3 dev.py test      # make .venv, install with test tools, run lint, types and all tests,
                             # the fresh-install check beside them (`test PATHS…`: just those tests)
    python3 dev.py test --quick [--base REF]
                             # lint, types, the core tests and the tests that import what changed
                             # since REF (default: the uncommitted changes); no browser tests
    python3 dev.py fresh     # only the fresh-install check (--keep keeps its directory)
    python3 dev.py bench     # speed figures

Everything is installed into ./.venv (the fresh-install check: a temporary directory, with
downloaded wheels kept in ./.cache/wheels). Outside the checkout: the game keeps its database
and saved games in the user data folder (~/.local/share/ristiseiska on Linux;
RISTISEISKA_DATA_DIR moves it), and a test run writes the logs of the parts it runs side by
side and its table of test times to the system's temporary folder (each log is removed once
shown, the browser tests' only when they passed).
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


# The core of `dev.py test --quick`: fast test files that exercise the engine end to end (cards,
# rules, table, game, view, match, records, properties, catalogs, import layers). Together about
# a minute on a quiet machine; the tests that import a changed module are added to them.
QUICK_CORE = ["test_cards", "test_rules", "test_engine", "test_record", "test_view", "test_match",
              "test_import_cycles", "test_layers", "test_i18n", "test_grammar", "test_turn_variants",
              "test_variants", "test_properties", "test_docs", "test_smoke"]


QUICK_ENGINE = {"ristiseiska", *(f"ristiseiska.{m}" for m in (
    "cards", "rules", "table", "moves", "game", "dealing", "state", "legal", "refusals", "view",
    "scoring", "match", "record"))}
# Packages whose modules compile into one another (numba inlines the kernel's functions across
# its modules): a change in one module counts as a change of the whole package.
QUICK_UNITS = {"ristiseiska.kernel"}


def _module_of(path: str) -> str | None:
    """``src/ristiseiska/web/chat.py`` → ``ristiseiska.web.chat`` (None outside the package)."""
    p = Path(path)
    if p.parts[:2] != ("src", "ristiseiska"):
        return None
    parts = list(p.with_suffix("").parts[1:])
    if p.suffix != ".py":  # a catalog, a static file, weights: the package that holds it
        parts = parts[:-1]
    elif parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports_of(path: Path) -> set[str]:
    """Every module name ``path`` imports, wherever the import stands (``from a import b``
    counts as both ``a`` and ``a.b``)."""
    import ast
    names: set[str] = set()
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, UnicodeDecodeError):
        return names
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            subs = {f"{node.module}.{a.name}" for a in node.names}
            modules = {m for m in subs if _is_module(m)}
            names |= modules
            if modules != subs:  # names defined in the module itself, not only submodules
                names.add(node.module)
        elif (isinstance(node, ast.Call) and node.args
              and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
              and getattr(node.func, "attr", getattr(node.func, "id", "")) in (
                  "importorskip", "import_module")):
            names.add(node.args[0].value)
    return names


def _with_packages(mods: set[str]) -> set[str]:
    """``mods`` and every package whose ``__init__`` imports one of them (as importing the
    package runs that module)."""
    out = set(mods)
    todo = list(mods)
    while todo:
        mod = todo.pop()
        parent = mod.rpartition(".")[0]
        init = ROOT / "src" / Path(*parent.split(".")) / "__init__.py"
        if not parent or parent in out or not init.exists():
            continue
        text = init.read_text(encoding="utf-8")
        short = mod.rpartition(".")[2]
        if f"from .{short} import" in text or f"from . import {short}" in text or mod in text:
            out.add(parent)
            todo.append(parent)
    return out


def _is_module(name: str) -> bool:
    base = ROOT / "src" / Path(*name.split("."))
    return base.with_suffix(".py").exists() or (base / "__init__.py").exists()


def quick_selection(changed: list[str]) -> list[str]:
    """The test files of the quick run: the core, the changed test files and every test file
    that imports a changed module (directly, or through one of the tests' kits)."""
    tests = ROOT / "tests"
    chosen = {f"tests/{name}.py" for name in QUICK_CORE if (tests / f"{name}.py").exists()}
    # The engine's own modules are what the core tests; nearly every test imports them, so
    # their importers would be the whole suite. The package root is imported by most tests too.
    mods = {m for m in map(_module_of, changed) if m}
    mods |= {m.rpartition(".")[0] for m in mods if m.rpartition(".")[0] in QUICK_UNITS}
    mods = _with_packages(mods) - QUICK_ENGINE
    kits = {p.stem: _imports_of(p) for p in tests.glob("*_kit.py")}
    for path in sorted(tests.glob("test_*.py")):
        rel = f"tests/{path.name}"
        names = _imports_of(path)
        for kit, kit_names in kits.items():
            if kit in names:
                names |= kit_names
        hit = any(n == m or n.startswith(m + ".") for n in names for m in mods)
        if rel in changed or hit:
            chosen.add(rel)
    return sorted(chosen)


def _changed_files(base: str) -> list[str]:
    out = subprocess.run(["git", "diff", "--name-only", base], cwd=ROOT, text=True,
                         capture_output=True)
    if out.returncode != 0:
        sys.exit(f"dev.py: git cannot compare with {base!r}: {out.stderr.strip()}")
    extra = subprocess.run(["git", "ls-files", "--others", "--exclude-standard"], cwd=ROOT,
                           text=True, capture_output=True).stdout
    return sorted(set(out.stdout.split()) | set(extra.split()))


def cmd_quick(args: list[str]) -> int:
    """``test --quick``: a first check in minutes, for a change of a few lines."""
    base = "HEAD"
    if args[:1] == ["--base"]:
        if len(args) < 2:
            sys.exit("dev.py: --base needs a git revision, e.g. --base main or --base HEAD~1")
        base, args = args[1], args[2:]
    if args:
        sys.exit(f"dev.py: test --quick takes only --base REF, not {' '.join(args)!r}")
    changed = _changed_files(base)
    selected = quick_selection(changed)
    say(f"{len(changed)} changed file(s) since {base}; {len(selected)} test file(s): the core "
        f"and those importing what changed (the browser tests and the timed tests are left to "
        f"the full run: python3 dev.py test)")
    start = time.monotonic()
    run(PY, "-m", "ruff", "check", "src", "tests")
    run(PY, "-m", "mypy")
    rc = run(PY, "-m", "pytest", "-p", "no:cacheprovider", "-m", "not quiet", *selected,
             check=False)
    say(f"quick run {'passed' if rc == 0 else 'FAILED'} in {time.monotonic() - start:.0f} s")
    return rc


def cmd_test(args: list[str]) -> int:
    ensure_venv("dev")
    if args[:1] == ["--quick"]:
        return cmd_quick(args[1:])
    run(PY, "-m", "ruff", "check", "src", "tests")
    run(PY, "-m", "mypy")
    main_suite: list[str | Path] = [PY, "-m", "pytest", "-p", "no:cacheprovider", "--ignore=tests/browser"]
    if args:  # with arguments: just the tests asked for
        return run(*main_suite, *args, check=False)
    times = _Times()
    fresh: tuple[subprocess.Popen[bytes], Path] | None = None
    try:
        browser = _start_browser_tests()
        # The fresh-install check is mostly one process at a time (pip, one compile, a server):
        # beside the two suites it costs them less than the 1½–2 min it takes on its own.
        fresh = _start_fresh_check()
        moved = [f"--ignore={f}" for f in BESIDE_BROWSER] if browser is not None else []
        rc = run(*main_suite, *moved, "-m", "not quiet", check=False)
        times.mark("the main suite ended")
        if browser is not None:
            browser_rc = _finish_browser_tests(*browser)
            times.mark("the browser tests ended")
            rc = rc or browser_rc
        fresh_rc = _finish_fresh_check(*fresh)  # before the timed tests: they run alone
        fresh = None
        times.mark("the fresh-install check ended")
        if rc != 0 or fresh_rc != 0:
            return rc or fresh_rc
        # the tests that time latency or redraw gaps, with the machine to themselves: the
        # clock-bound ones in a process beside the compile-bound ones (see QUIET_BESIDE)
        beside = _start_quiet_beside()
        rc = run(*main_suite, "-m", "quiet", *[f"--ignore={f}" for f in QUIET_BESIDE],
                 check=False)
        rc = _finish_quiet_beside(*beside) or rc
        times.mark("the timed tests ended")
        return rc
    finally:
        if fresh is not None:  # an interrupted run: the check cleans up after itself
            _finish_fresh_check(*fresh)
        times.report()


class _Times:
    """Where a whole test run's time went: when each phase ended, the slowest files and tests
    (each pytest run appends its tests' times to one file, named by RS_TEST_TIMES)."""

    def __init__(self) -> None:
        self.start = time.monotonic()
        self.marks: list[tuple[float, str]] = []
        fd, name = tempfile.mkstemp(prefix="ristiseiska-times-", suffix=".tsv")
        os.close(fd)
        self.file = Path(name)
        os.environ["RS_TEST_TIMES"] = name

    def mark(self, what: str) -> None:
        self.marks.append(((time.monotonic() - self.start) / 60, what))

    def report(self) -> None:
        tests: list[tuple[float, str]] = []
        for line in self.file.read_text(encoding="utf-8").splitlines():
            seconds, _, nodeid = line.partition("\t")
            tests.append((float(seconds), nodeid))
        self.file.unlink(missing_ok=True)
        load = " ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
        say(f"where the time went (minutes from the start; load now {load}):")
        for minutes, what in sorted(self.marks):
            print(f"  {minutes:6.1f}  {what}")
        files: dict[str, float] = {}
        for seconds, nodeid in tests:
            name = nodeid.split("::")[0]
            files[name] = files.get(name, 0.0) + seconds
        total = sum(s for s, _ in tests) / 60
        print(f"  {len(tests)} tests, {total:.1f} min in all; the slowest files:")
        for name, seconds in sorted(files.items(), key=lambda x: -x[1])[:15]:
            print(f"  {seconds:8.1f} s  {name}")
        print("  the slowest tests:")
        for seconds, nodeid in sorted(tests, reverse=True)[:10]:
            print(f"  {seconds:8.1f} s  {nodeid}")
        sys.stdout.flush()


# Main-suite files run by the browser tests' pytest instead, so that the two processes end
# together (from the last quiet run, less this pass's cuts: main suite ≈ 1,020 s, browser
# suite ≈ 840 s; tests/test_tui_app.py 99 s). Retune from the phase ends and the slowest files
# that `dev.py test` prints at its end.
BESIDE_BROWSER = ["tests/test_tui_app.py"]


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
    cmd: list[str | Path] = [PY, "-m", "pytest", "-p", "no:cacheprovider", "-m", "not quiet",
                             browser_tests, *BESIDE_BROWSER]
    say(f"{_shown(cmd)}  (alongside the main suite; its report follows it, log in {log})")
    with log.open("wb") as out:
        proc = subprocess.Popen([str(c) for c in cmd], cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT)
    return proc, log


# The timed tests that mostly wait on the clock (an outage, a lease, a recovery) and use little
# CPU run in a second pytest beside the ones that compile the kernel cold (about one core, at
# low priority, each): each half has a core, and the phase takes the longer half, not the sum.
QUIET_BESIDE = ["tests/test_outage_postgres.py", "tests/test_ownership.py",
                "tests/test_failover.py", "tests/test_store_first_start.py"]


def _start_quiet_beside() -> tuple[subprocess.Popen[bytes], Path]:
    log = Path(tempfile.mkstemp(prefix="ristiseiska-quiet-", suffix=".log")[1])
    files = [f for f in QUIET_BESIDE if (ROOT / f).exists()]
    cmd: list[str | Path] = [PY, "-m", "pytest", "-p", "no:cacheprovider", "-m", "quiet", *files]
    say(f"{_shown(cmd)}  (beside the other timed tests; its report follows them, log in {log})")
    with log.open("wb") as out:
        proc = subprocess.Popen([str(c) for c in cmd], cwd=ROOT, stdout=out,
                                stderr=subprocess.STDOUT)
    return proc, log


def _finish_quiet_beside(proc: subprocess.Popen[bytes], log: Path) -> int:
    rc = proc.wait()
    say("the clock-bound timed tests' report:")
    sys.stdout.write(log.read_text(errors="replace"))
    sys.stdout.flush()
    log.unlink()
    return 0 if rc == 5 else rc  # 5: none collected (no PostgreSQL, say): nothing failed


def _start_fresh_check() -> tuple[subprocess.Popen[bytes], Path]:
    """``dev.py fresh`` in a process of its own, its report to a log shown when it ends."""
    log = Path(tempfile.mkstemp(prefix="ristiseiska-fresh-", suffix=".log")[1])
    say(f"the fresh-install check beside the suites (its report follows them, log in {log})")
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, str(ROOT / "dev.py"), "fresh"], cwd=ROOT,
                                stdout=out, stderr=subprocess.STDOUT)
    return proc, log


def _finish_fresh_check(proc: subprocess.Popen[bytes], log: Path) -> int:
    if proc.poll() is None:
        say("waiting for the fresh-install check")
    rc = proc.wait()
    say("the fresh-install check's report:")
    sys.stdout.write(log.read_text(errors="replace"))
    sys.stdout.flush()
    log.unlink()
    return rc


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
            ("ristiseiska tournament --games 4", [rs, "tournament", "--games", "4",
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

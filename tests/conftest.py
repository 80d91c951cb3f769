"""Checks over the whole test run.

The run leaves no process behind (issue 19). Every process a test starts inherits the
environment variable ``RISTISEISKA_TEST_RUN`` with a token of this run, also after its parent
has died and it was adopted by another process, so at the end of the session every living
process with the token is found through /proc. The pools this process still holds are stopped
first; processes that are still ending get 10 s. Whatever is alive then (other than this
process's own multiprocessing resource tracker, which ends with it) fails the run, is named
in the report, and is killed.
"""

from __future__ import annotations

import os
import sys
import uuid
from typing import Any

import pytest

import proc_kit

MARK = "RISTISEISKA_TEST_RUN"
GRACE = float(os.environ.get("RISTISEISKA_LEFTOVER_GRACE", "10"))
_token = uuid.uuid4().hex
os.environ[MARK] = _token  # before any test starts a process
# Forced moves are made for a person after a pause (issue 52, web/forced.py). The tests of other
# features make their people's moves themselves: a minute's pause keeps the server from moving
# first. The tests of the feature set a short pause of their own.
os.environ.setdefault("RISTISEISKA_TEST_FORCED_PAUSE", "60")


def _stop_own_pools() -> None:
    pool = sys.modules.get("ristiseiska.bots.pool")
    if pool is not None:
        pool.release_shared_pool()
    analysis = sys.modules.get("ristiseiska.web.analysis_api")
    if analysis is not None and hasattr(analysis, "close_pool"):
        analysis.close_pool()


def _own_tracker() -> int | None:
    tracker = sys.modules.get("multiprocessing.resource_tracker")
    pid = getattr(getattr(tracker, "_resource_tracker", None), "_pid", None)
    return pid if isinstance(pid, int) else None


def leftover_processes(grace: float = GRACE) -> set[proc_kit.Proc]:
    """The processes of this run still alive ``grace`` seconds after its pools stopped."""
    if not sys.platform.startswith("linux"):
        return set()
    _stop_own_pools()
    tracker = _own_tracker()
    found = {p for p in proc_kit.with_env(MARK, _token) if p[0] != tracker}
    return proc_kit.wait_gone(found, grace)


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: Any) -> None:
    left = leftover_processes()
    if not left:
        return
    text = proc_kit.describe(left)
    proc_kit.kill_all(left)
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    message = (f"the test run left {len(left)} process(es) alive {GRACE:g} s after it ended "
               f"(now killed): {text}")
    if reporter is not None:
        reporter.write_sep("=", "processes left behind", red=True)
        reporter.write_line(message)
    else:
        print(message, file=sys.stderr)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED


# -- where the time went (``python3 dev.py test`` sums it up at the end) ----------------------
_TIMES = os.environ.get("RS_TEST_TIMES")
_durations: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    if _TIMES:
        _durations[report.nodeid] = _durations.get(report.nodeid, 0.0) + report.duration


def pytest_unconfigure(config: pytest.Config) -> None:
    if _TIMES and _durations:
        with open(_TIMES, "a", encoding="utf-8") as out:
            for nodeid, seconds in _durations.items():
                out.write(f"{seconds:.3f}\t{nodeid}\n")

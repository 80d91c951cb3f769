"""Per-address limits hold for the whole server, not per process (issue 46): with ``serve
--processes 2`` behind Debian's nginx, one address gets at most the limit of new tables and of
quick games a minute, however nginx spreads its requests over the processes. Skipped where
nginx is not installed."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections import Counter
from pathlib import Path

import pytest

from test_serve_processes import HEADER, _settled_roles, _stop, needs_nginx


def _start(tmp: Path) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[1] / "src"),
                                        env.get("PYTHONPATH", "")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "ristiseiska.cli", "serve", "--processes", "2", "--port", "0",
         "--database-url", f"sqlite:///{tmp / 'games.db'}", "--bot-delay", "0.02",
         "--quick-wait", "600", "--tables-per-minute", "20", "--quick-per-minute", "20"],
        stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        pytest.fail(f"serve --processes did not start: {line!r}")
    return proc, line.split()[1].rstrip("/")


def _post(url: str, body: dict[str, object]) -> tuple[int, str]:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers.get(HEADER, "")
    except urllib.error.HTTPError as e:  # 429, and a quick game's 307 to the seat claim
        return e.code, e.headers.get(HEADER, "")


@needs_nginx
def test_per_address_limits_hold_across_two_processes(tmp_path: Path) -> None:
    proc, base = _start(tmp_path)
    try:
        roles = _settled_roles(proc.pid)
        assert len(roles.get("server", [])) == 2, roles
        seats = [{"kind": "friend"}, {"kind": "bot", "bot": "random"}]
        made = [_post(f"{base}/api/tables", {"seats": seats}) for _ in range(45)]
        quick = [_post(f"{base}/api/quick", {"name": f"Pelaaja {i}"}) for i in range(45)]
        by_process = Counter(who for status, who in made if status == 201)
        assert len(by_process) == 2, f"nginx sent every table to one process: {by_process}"
        for what, answers in (("tables", made), ("quick games", quick)):
            allowed = sum(1 for status, _who in answers if status in (201, 307))
            refused = sum(1 for status, _who in answers if status == 429)
            # 20 a minute, and the few tokens that come back during the test (one per 3 s)
            assert allowed + refused == 45, (what, answers)
            assert 20 <= allowed <= 22, f"{what}: {allowed} of 45 allowed against a limit of 20"
    finally:
        _stop(proc, signal.SIGTERM)

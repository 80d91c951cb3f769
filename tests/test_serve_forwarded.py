"""A forged ``X-Forwarded-For`` through the bundled nginx (issue 46): the configuration that
``serve --processes`` writes sets the client's address itself (``$remote_addr``) instead of
appending it to what the client sent, so a client cannot name itself anew with each request
and slip past a per-address limit. Through Debian's nginx, started and stopped by the test."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.web.processes import find_nginx, nginx_config

NGINX = find_nginx()
needs_nginx = pytest.mark.skipif(NGINX is None, reason="nginx is not installed "
                                 "(apt-get install -y nginx)")
LIMIT = 3  # --tables-per-minute


def _post(url: str, body: dict[str, Any], headers: dict[str, str]) -> int:
    req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                 headers={"content-type": "application/json", **headers})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return int(r.status)
    except urllib.error.HTTPError as e:
        return int(e.code)


def test_the_written_configuration_sets_the_client_address_itself() -> None:
    for conf in (nginx_config("127.0.0.1", 8000, [("127.0.0.1", 8001)], prefix="/tmp/x"),
                 nginx_config("0.0.0.0", 80, [("127.0.0.1", 8001)])):
        assert "proxy_set_header X-Forwarded-For $remote_addr;" in conf
        assert "$proxy_add_x_forwarded_for" not in conf  # appending keeps the client's text


@needs_nginx
def test_a_forged_forwarded_for_does_not_lift_the_table_limit(tmp_path: Path) -> None:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[1] / "src"),
                                        env.get("PYTHONPATH", "")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "ristiseiska.cli", "serve", "--processes", "2", "--port", "0",
         "--database-url", f"sqlite:///{tmp_path / 'games.db'}", "--bot-delay", "0.02",
         "--tables-per-minute", str(LIMIT), "--requests-per-second", "1000"],
        stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert "http://" in line, line
        base = line.split()[1].rstrip("/")
        seats = [{"kind": "friend", "name": "Aino"}, {"kind": "bot", "bot": "random"},
                 {"kind": "bot", "bot": "random"}]
        codes = [_post(f"{base}/api/tables", {"preset": "ristiseiska", "seats": seats},
                       {"X-Forwarded-For": f"203.0.113.{i + 1}"}) for i in range(6 * LIMIT)]
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
    made = codes.count(201)
    # each of the two processes allows LIMIT a minute from one address (at most: the whole
    # server may share one count); a new forged address per request must not get more
    assert made <= 2 * LIMIT and codes.count(429) >= len(codes) - 2 * LIMIT, codes

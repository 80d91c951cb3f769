"""``ristiseiska serve --processes 2`` end to end: Debian's nginx in front of two server
processes on one SQLite file, started and stopped by the test itself, on loopback. Tables land
on both processes, every request of a table (HTTP and its WebSocket) reaches the process that
owns it, whole deals are played through nginx, and SIGTERM or SIGINT stops every process,
nginx too. Skipped where nginx is not installed (``apt-get install -y nginx``)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import signal
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.web import loadtest
from ristiseiska.web.processes import PROCESS_HEADER, find_nginx, nginx_config

NGINX = find_nginx()
needs_nginx = pytest.mark.skipif(NGINX is None, reason="nginx is not installed "
                                 "(apt-get install -y nginx)")
HEADER = PROCESS_HEADER.decode()


def _start(tmp: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[1] / "src"),
                                        env.get("PYTHONPATH", "")])
    proc = subprocess.Popen(
        [sys.executable, "-m", "ristiseiska.cli", "serve", "--processes", "2", "--port", "0",
         "--database-url", f"sqlite:///{tmp / 'games.db'}", "--bot-delay", "0.02",
         "--no-limits", *extra], stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    if "http://" not in line:
        proc.kill()
        pytest.fail(f"serve --processes did not start: {line!r}")
    return proc, line.split()[1].rstrip("/")


def _stop(proc: subprocess.Popen[str], sig: int) -> None:
    proc.send_signal(sig)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        raise


def _request(url: str, body: dict[str, Any] | None = None) -> tuple[Any, str]:
    req = urllib.request.Request(url, data=None if body is None else json.dumps(body).encode(),
                                 method="GET" if body is None else "POST",
                                 headers={"content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        raw = r.read()
        data = json.loads(raw) if r.headers.get("content-type", "").startswith(
            "application/json") else raw
        return data, r.headers.get(HEADER, "")


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _gone(pids: list[int], timeout: float = 10.0) -> list[int]:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        left = [p for p in pids if _alive(p)]
        if not left:
            return []
        time.sleep(0.1)
    return [p for p in pids if _alive(p)]


def _roles(top: int) -> dict[str, list[int]]:
    out: dict[str, list[int]] = {}
    for pid in loadtest.process_tree(top):
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            cmd = f.read().replace(b"\0", b" ").decode()
        role = ("nginx" if cmd.startswith("nginx") else "server" if "--listen-fd" in cmd
                else "supervisor" if pid == top else "other")
        out.setdefault(role, []).append(pid)
    return out


def _settled_roles(top: int, timeout: float = 15.0) -> dict[str, list[int]]:
    """The roles once both server processes and nginx show in the tree (right after a fork,
    before its exec, a child still carries its parent's command line)."""
    end = time.monotonic() + timeout
    while True:
        roles = _roles(top)
        if (len(roles.get("server", [])) == 2 and roles.get("nginx")) or time.monotonic() > end:
            return roles
        time.sleep(0.1)


@needs_nginx
def test_two_processes_behind_nginx_own_their_tables_and_stop_together(tmp_path: Path) -> None:
    proc, base = _start(tmp_path)
    try:
        roles = _settled_roles(proc.pid)
        assert len(roles.get("server", [])) == 2 and roles.get("nginx"), roles
        servers = {str(p) for p in roles["server"]}
        _meta, who = _request(f"{base}/api/meta")
        assert who.split(":")[1] in servers  # the lobby: any process
        tables: list[tuple[str, str, str]] = []
        for i in range(16):
            seats = [{"kind": "friend", "name": f"p{i}"}, {"kind": "bot", "bot": "basic"},
                     {"kind": "bot", "bot": "random"}]
            t, _created_by = _request(f"{base}/api/tables",
                                      {"preset": "ristiseiska", "seats": seats, "seed": 100 + i})
            c, owner = _request(f"{base}/api/tables/{t['id']}/seats/0", {"name": f"p{i}"})
            assert owner.split(":")[1] in servers
            tables.append((t["id"], c["token"], owner))
        owners = {o for _t, _k, o in tables}
        assert len(owners) == 2, f"every table landed on one process: {owners}"
        # every later request of a table reaches its owner: pages, API, rules
        for tid, _tok, owner in tables:
            for path in (f"/api/tables/{tid}", f"/t/{tid}", f"/api/tables/{tid}/rules?lang=en",
                         f"/api/tables/{tid}"):
                _body, who = _request(base + path)
                assert who == owner, (path, who, owner)

        async def play() -> loadtest.Stats:
            import websockets

            stats = loadtest.Stats()
            base_ws = "ws" + base[len("http"):]
            for tid, _tok, owner in tables:  # the WebSocket handshake: the owner answers
                async with websockets.connect(f"{base_ws}/ws/{tid}") as ws:
                    assert ws.response.headers.get(HEADER) == owner
            deadline = time.monotonic() + 90
            rng = random.Random(5)
            await asyncio.gather(*(
                loadtest.play_table(base_ws, tid, tok, 1, 0.0, random.Random(rng.random()),
                                    stats, deadline, owner) for tid, tok, owner in tables[:6]))
            return stats

        stats = asyncio.run(play())
        assert stats.errors == [], stats.errors[:5]
        assert stats.tables_done == 6 and stats.latencies
        # after the deals, each table is still its owner's, with every move stored
        for tid, _tok, owner in tables[:6]:
            rec, who = _request(f"{base}/api/tables/{tid}/record")
            assert who == owner and rec.count(b"\n") == 1
        pids = [p for ps in roles.values() for p in ps]
    finally:
        _stop(proc, signal.SIGTERM)
    assert proc.returncode == 0
    assert _gone(pids) == [], "processes left running after SIGTERM"


@needs_nginx
def test_sigint_stops_every_process_and_nginx(tmp_path: Path) -> None:
    proc, base = _start(tmp_path)
    roles = _settled_roles(proc.pid)
    pids = [p for ps in roles.values() for p in ps]
    assert len(roles.get("server", [])) == 2 and roles.get("nginx")
    _stop(proc, signal.SIGINT)
    assert _gone(pids) == []
    with pytest.raises(OSError):
        _request(f"{base}/api/meta")


def test_without_nginx_the_processes_run_and_the_configuration_is_printed(
        tmp_path: Path) -> None:
    proc, first = None, ""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(Path(__file__).parents[1] / "src"),
                                        env.get("PYTHONPATH", "")])
    port = loadtest_free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ristiseiska.cli", "serve", "--processes", "2", "--port",
         str(port), "--nginx", "none", "--database-url", f"sqlite:///{tmp_path / 'g.db'}"],
        stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert "nginx is not used" in first and "2 server processes" in first
        conf = []
        for line in proc.stdout:
            conf.append(line)
            if line.startswith("    }") and any("server {" in c for c in conf) and \
                    sum(c.count("}") for c in conf) >= 5:
                break
        text = "".join(conf)
        assert "hash $rs_table consistent;" in text and f"listen 127.0.0.1:{port} " in text
        assert f"server 127.0.0.1:{port + 1} " in text and f"server 127.0.0.1:{port + 2} " in text
        _meta, who = _request(f"http://127.0.0.1:{port + 2}/api/meta")
        assert who.startswith("1:")
    finally:
        _stop(proc, signal.SIGTERM)


def loadtest_free_port() -> int:
    from ristiseiska.web.processes import port_free

    for _ in range(50):
        p = random.randint(20000, 60000)
        if all(port_free("127.0.0.1", q) for q in (p, p + 1, p + 2)):
            return p
    raise RuntimeError("no three free ports in a row")


def test_nginx_configuration_pins_table_ids() -> None:
    conf = nginx_config("127.0.0.1", 8000, [("127.0.0.1", 8001), ("127.0.0.1", 8002)],
                        prefix="/tmp/x", workers=1)
    assert "~^/(?:t|ws|api/tables)/([A-Za-z0-9_-]+) $1;" in conf
    assert "listen 127.0.0.1:8000" in conf and "pid /tmp/x/nginx.pid;" in conf
    assert "proxy_set_header Upgrade $http_upgrade;" in conf
    include = nginx_config("0.0.0.0", 80, [("127.0.0.1", 8001)])
    assert "pid " not in include and "upstream ristiseiska" in include


def test_several_processes_refuse_an_in_memory_database() -> None:
    from ristiseiska import cli

    assert cli.main(["serve", "--processes", "2", "--database-url", "sqlite://"]) == 2

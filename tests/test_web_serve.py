"""``ristiseiska serve`` as a user starts it: a real process on a fresh data directory."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest


def _env(tmp_path: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["HOME"] = str(tmp_path)
    env["XDG_DATA_HOME"] = str(tmp_path / "data")  # a fresh machine: no database yet
    return env


def test_serve_without_options_uses_sqlite_in_the_data_dir(tmp_path: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env=_env(tmp_path))
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert line.startswith("ristiseiska: http://127.0.0.1:"), line
        url = line.split()[1]
        with urllib.request.urlopen(url, timeout=20) as r:
            assert b"app.js" in r.read()
        with urllib.request.urlopen(url + "api/meta", timeout=20) as r:
            assert b"ristiseiska" in r.read()
        dbs = list((tmp_path / "data").rglob("*.sqlite3"))
        assert len(dbs) == 1
    finally:
        proc.terminate()
        proc.wait(timeout=20)


@pytest.mark.parametrize("args, message", [
    (["--port", "70000"], "--port"),
    (["--bot-delay", "-1"], "--bot-delay"),
    (["--database-url", "nosuchdb://x"], "cannot use database"),
])
def test_serve_refuses_bad_options_in_one_line(tmp_path: Path, args: list[str],
                                               message: str) -> None:
    r = subprocess.run([sys.executable, "-m", "ristiseiska.cli", "serve", *args],
                       capture_output=True, text=True, env=_env(tmp_path), timeout=60)
    assert r.returncode == 2
    assert message in r.stderr and "Traceback" not in r.stderr


def test_serve_reports_a_busy_port(tmp_path: Path) -> None:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    s.listen(1)
    try:
        port = s.getsockname()[1]
        r = subprocess.run([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", str(port)],
                           capture_output=True, text=True, env=_env(tmp_path), timeout=60)
        assert r.returncode == 2 and "cannot listen" in r.stderr
    finally:
        s.close()


def test_real_socket_survives_oversized_and_malformed_frames(tmp_path: Path) -> None:
    import asyncio
    import json

    import websockets

    proc = subprocess.Popen([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0",
                             "--bot-delay", "0"], stdout=subprocess.PIPE, text=True,
                            env=_env(tmp_path))
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split()[1]
        body = json.dumps({"seats": [{"kind": "bot"}, {"kind": "friend"}]}).encode()
        req = urllib.request.Request(url + "api/tables", data=body, method="POST",
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=20) as r:
            tid = json.loads(r.read())["id"]

        async def talk() -> list[str]:
            codes = []
            async with websockets.connect(f"ws{url[4:]}ws/{tid}") as ws:
                for frame in ("x" * 200_000, "{", json.dumps({"type": "move", "move": "C7"})):
                    await ws.send(frame)
                    while True:
                        msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
                        if msg["type"] == "error":
                            codes.append(msg["code"])
                            break
                await ws.send(json.dumps({"type": "ping"}))
                while json.loads(await asyncio.wait_for(ws.recv(), 20))["type"] != "pong":
                    pass
            return codes

        assert asyncio.run(talk()) == ["too-large", "bad-json", "not-seated"]
    finally:
        proc.terminate()
        proc.wait(timeout=20)

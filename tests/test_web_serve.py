"""``ristiseiska serve`` as a user starts it: a real process on a fresh data directory."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

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
    (["--quick-wait", "-1"], "--quick-wait"),
    (["--quick-wait", "nan"], "--quick-wait"),
    (["--database-url", "nosuchdb://x"], "cannot use database"),
    (["--tables-per-minute", "0"], "--tables-per-minute"),
    (["--trusted-proxy", "not-an-address"], "--trusted-proxy"),
    (["--allowed-origin", "evil"], "--allowed-origin"),
    (["--durability", "sometimes"], "--durability"),
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


@pytest.mark.parametrize("durability", ["power-cut", "crash"])
def test_kill_9_mid_deal_and_restart_continues_where_it_was(tmp_path: Path,
                                                            durability: str) -> None:
    """SIGKILL the server process mid-deal: every acknowledged move is there afterwards, also
    with ``--durability crash`` (the operating system still has what SQLite wrote)."""
    import asyncio
    import json
    import signal

    import websockets

    def start() -> tuple[subprocess.Popen[str], str]:
        p = subprocess.Popen([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0",
                              "--bot-delay", "0", "--durability", durability],
                             stdout=subprocess.PIPE, text=True, env=_env(tmp_path))
        assert p.stdout is not None
        line = p.stdout.readline()
        assert ("durability: crash" in line) == (durability == "crash"), line
        return p, line.split()[1]

    def post(url: str, body: dict[str, object]) -> dict[str, object]:
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=20) as r:
            return dict(json.loads(r.read()))

    async def play(url: str, tid: str, token: str, moves: int) -> dict[str, object]:
        """Join seat 0, make ``moves`` moves; return the last state after the last ack."""
        async with websockets.connect(f"ws{url[4:]}ws/{tid}") as ws:
            await ws.send(json.dumps({"type": "join", "seat": 0, "token": token}))
            last: dict[str, Any] = {}
            made = 0
            fresh = False  # ``last`` came in while waiting for an ack and is not acted on yet
            while True:
                if not fresh:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
                    if msg["type"] != "state" or msg["you"] != 0:
                        continue
                    last = msg
                fresh = False
                view = last["view"]
                if made >= moves or view["phase"] == "over":
                    return last
                if view["to_move"] == 0 and view["legal_moves"]:
                    await ws.send(json.dumps({"type": "move",
                                              "move": view["legal_moves"][0]}))
                    # the bots may answer before the ack comes (the ack waits for the
                    # commit): the newest state seen meanwhile is where play goes on
                    while (m := json.loads(await asyncio.wait_for(ws.recv(), 20)))["type"] != "ack":
                        if m["type"] == "state":
                            last, fresh = m, True
                    made += 1
                    if made >= moves:
                        return last

    proc, url = start()
    try:
        tid = str(post(url + "api/tables", {"seats": [{"kind": "friend"}, {"kind": "bot"},
                                                      {"kind": "bot"}], "seed": 5})["id"])
        token = str(post(url + f"api/tables/{tid}/seats/0", {"name": "Aino"})["token"])
        before = asyncio.run(play(url, tid, token, 4))
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=20)
        proc, url = start()
        after = asyncio.run(play(url, tid, token, 0))
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    vb, va = before["view"], after["view"]  # type: ignore[index]
    # everything acknowledged is there; the bots may have moved on after the last ack
    assert va["history"][:len(vb["history"])] == vb["history"]  # type: ignore[index]
    # only seat 0's own moves change its hand, and it made none after the last ack
    assert sorted(va["hand"]) == sorted(vb["hand"])  # type: ignore[index]
    assert len(vb["history"]) >= 4  # type: ignore[arg-type, index]


def test_without_an_explicit_port_the_next_free_one_is_taken() -> None:
    from ristiseiska.cli import CliError
    from ristiseiska.commands.serve import _listen

    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen(1)
    port = busy.getsockname()[1]
    try:
        with pytest.raises(CliError, match="cannot listen"):
            _listen("127.0.0.1", port, tries=1)
        if port < 65000:
            s = _listen("127.0.0.1", port, tries=20)
            try:
                assert port < s.getsockname()[1] <= port + 20
            finally:
                s.close()
    finally:
        busy.close()


def test_the_servers_database_follows_the_data_dir_variable(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """`RISTISEISKA_DATA_DIR` moves the server's default database as it moves the terminal
    game's saved games: one data folder for both."""
    from ristiseiska.paths import data_dir
    from ristiseiska.store.urls import default_database_url

    monkeypatch.setenv("RISTISEISKA_DATA_DIR", str(tmp_path / "here"))
    url = default_database_url()
    assert url == f"sqlite+aiosqlite:///{tmp_path / 'here' / 'ristiseiska.sqlite3'}"
    assert (tmp_path / "here").is_dir() and data_dir() == tmp_path / "here"

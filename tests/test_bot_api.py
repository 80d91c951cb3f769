"""The Bot API (issue 59): ``ristiseiska bots``, a real ``serve`` process, the example client.

One server for the module (a fresh database, loopback, a free port); its turn clock runs ten
times faster (RISTISEISKA_TEST_CLOCK_SCALE), so a 15-second clock runs out in 1.5 s while the
180-second one still leaves a program 18 s a move."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import websockets

ROOT = Path(__file__).resolve().parent.parent
CLIENT = ROOT / "examples" / "bot_api_client.py"


def cli(db: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ristiseiska.cli", "bots", *args,
                           "--database-url", db], capture_output=True, text=True, timeout=120)


def add(db: str, name: str) -> str:
    r = cli(db, "add", name)
    assert r.returncode == 0, r.stderr
    return r.stdout.splitlines()[-1]


class Server:
    def __init__(self, url: str, db: str, env: dict[str, str]) -> None:
        self.url, self.db, self.env = url, db, env
        self.ws = "ws" + url[4:].rstrip("/")

    def post(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        req = urllib.request.Request(self.url + path.lstrip("/"), data=json.dumps(body).encode(),
                                     method="POST", headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=30) as r:
                return r.status, json.loads(r.read())
        except urllib.error.HTTPError as e:
            return e.code, json.loads(e.read())

    def get(self, path: str) -> dict[str, Any]:
        with urllib.request.urlopen(self.url + path.lstrip("/"), timeout=30) as r:
            return dict(json.loads(r.read()))

    def table(self, seats: list[dict[str, Any]], **extra: Any) -> str:
        status, body = self.post("api/tables", {"seats": seats,
                                                "options": {"match_deals": 2}, **extra})
        assert status == 201, body
        return str(body["id"])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    tmp = tmp_path_factory.mktemp("botapi")
    db = f"sqlite:///{tmp / 'games.db'}"
    env = {**os.environ, "HOME": str(tmp), "XDG_DATA_HOME": str(tmp / "data"),
           "RISTISEISKA_TEST_CLOCK_SCALE": "0.1"}
    proc = subprocess.Popen([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0",
                             "--host", "127.0.0.1", "--bot-delay", "0", "--database-url", db],
                            stdout=subprocess.PIPE, text=True, env=env)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().split()[1]
        yield Server(url, db, env)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


async def frames(ws: Any, until: Any, timeout: float = 60) -> dict[str, Any]:
    """Read frames until ``until(msg)`` holds; that frame."""
    async with asyncio.timeout(timeout):
        while True:
            msg = json.loads(await ws.recv())
            if until(msg):
                return dict(msg)


def test_bots_command_refuses_duplicates_bad_and_unknown_names(server: Server) -> None:
    add(server.db, "lister")
    r = cli(server.db, "add", "lister")
    assert r.returncode == 2 and "lister" in r.stderr and "exists" in r.stderr
    r = cli(server.db, "add", "Not OK")
    assert r.returncode == 2 and "not a bot name" in r.stderr
    r = cli(server.db, "remove", "nobody")
    assert r.returncode == 2 and "no bot named nobody" in r.stderr
    assert "lister" in cli(server.db, "list").stdout
    # the database keeps no token, only its hash
    token = add(server.db, "hashed")
    assert token.encode() not in Path(server.db[len("sqlite:///"):]).read_bytes()


def test_unknown_bot_cannot_be_seated(server: Server) -> None:
    status, body = server.post("api/tables", {"seats": [{"kind": "bot-api:ghost"},
                                                        {"kind": "bot", "bot": "basic"}]})
    assert status == 400 and body["error"] == "unknown-bot"


def test_example_client_plays_a_whole_match_with_three_bots(server: Server) -> None:
    token = add(server.db, "alpha")
    tid = server.table([{"kind": "bot", "bot": "random"}, {"kind": "bot-api:alpha"},
                        {"kind": "bot", "bot": "basic"}, {"kind": "bot", "bot": "expert"}],
                       clock=180)
    r = subprocess.run([sys.executable, str(CLIENT), server.ws, tid, token],
                       capture_output=True, text=True, timeout=600, env=server.env)
    assert r.returncode == 0, r.stderr
    assert "match over" in r.stdout
    info = server.get(f"api/tables/{tid}")
    assert info["match_over"] and info["seats"][1]["api"] == "alpha"
    record = urllib.request.urlopen(server.url + f"api/tables/{tid}/record", timeout=30).read()
    assert b'"timeout": true' not in record and b'"timeout":true' not in record


def test_wrong_and_removed_tokens_are_refused(server: Server) -> None:
    token = add(server.db, "gone")
    tid = server.table([{"kind": "bot-api:gone"}, {"kind": "bot", "bot": "basic"}])
    assert cli(server.db, "remove", "gone").returncode == 0

    async def refused(tok: str, auth_message: bool = False) -> tuple[str, int | None]:
        headers = {} if auth_message else {"Authorization": f"Bearer {tok}"}
        async with websockets.connect(f"{server.ws}/ws/{tid}",
                                      additional_headers=headers) as ws:
            if auth_message:  # refused, the socket stays open (a spectator's)
                await ws.send(json.dumps({"type": "auth", "token": tok}))
                msg = await frames(ws, lambda m: m["type"] == "error")
                await ws.send(json.dumps({"type": "move", "move": "C7"}))
                again = await frames(ws, lambda m: m["type"] == "error")
                assert again["code"] == "not-seated"
                return msg["code"], None
            msg = await frames(ws, lambda m: m["type"] == "error")
            with pytest.raises(websockets.ConnectionClosed):
                await frames(ws, lambda m: False, 30)
            return msg["code"], ws.close_code

    assert asyncio.run(refused(token)) == ("bad-bot-token", 4401)
    assert asyncio.run(refused("rsb_wrong")) == ("bad-bot-token", 4401)
    assert asyncio.run(refused(token, auth_message=True)) == ("bad-bot-token", None)


def test_a_bot_sees_and_acts_only_for_its_own_seat_at_its_own_tables(server: Server) -> None:
    token = add(server.db, "beta")
    tid = server.table([{"kind": "bot", "bot": "basic"}, {"kind": "bot-api:beta"},
                        {"kind": "bot", "bot": "basic"}], clock=180)
    other = server.table([{"kind": "bot", "bot": "basic"}, {"kind": "bot", "bot": "basic"}])
    headers = {"Authorization": f"Bearer {token}"}

    async def go() -> None:
        async with websockets.connect(f"{server.ws}/ws/{other}",
                                      additional_headers=headers) as ws:
            msg = await frames(ws, lambda m: m["type"] == "error")
            assert msg["code"] == "not-seated"
        async with websockets.connect(f"{server.ws}/ws/{tid}?format=rl",
                                      additional_headers=headers) as ws:
            state = await frames(ws, lambda m: m["type"] == "state" and m["view"]
                                 and m["you"] is not None)
            assert state["you"] == 1 and state["view"]["seat"] == 1
            assert "open_hands" not in state["view"]
            rl = await frames(ws, lambda m: m["type"] == "rl")
            assert rl["seat"] == 1 and len(rl["observation"]) > 52
            # the hand block of the observation is the seat's own hand
            assert sum(rl["observation"][:52]) == len(state["view"]["hand"])
            for msg in ({"type": "move", "seat": 0, "move": "C7"},
                        {"type": "join", "seat": 0, "token": token},
                        {"type": "join", "seat": 2, "token": token}):
                await ws.send(json.dumps(msg))
                err = await frames(ws, lambda m: m["type"] == "error")
                assert err["code"] in ("not-your-seat", "bad-token"), err
            # a fresh state and rl frame (the ones above may have passed by), then a move
            await ws.send(json.dumps({"type": "lang", "lang": "en"}))
            while True:
                rl = await frames(ws, lambda m: m["type"] == "rl")
                if rl["to_move"]:
                    await ws.send(json.dumps({"type": "move", "action": rl["legal_actions"][0],
                                              "id": rl["ply"]}))
                    ack = await frames(ws, lambda m: m["type"] in ("ack", "error"))
                    assert ack["type"] == "ack", ack
                    break
            await ws.send(json.dumps({"type": "move", "action": 10_000}))
            err = await frames(ws, lambda m: m["type"] == "error")
            assert err["code"] == "bad-action"

    asyncio.run(go())


def test_a_slow_bot_gets_the_stand_in(server: Server) -> None:
    token = add(server.db, "slow")
    tid = server.table([{"kind": "bot-api:slow"}, {"kind": "bot", "bot": "basic"},
                        {"kind": "bot", "bot": "basic"}], clock=15)  # 1.5 s here

    async def go() -> dict[str, Any]:
        async with websockets.connect(f"{server.ws}/ws/{tid}",
                                      additional_headers={"Authorization": f"Bearer {token}"}
                                      ) as ws:
            return await frames(ws, lambda m: m["type"] == "state" and m["view"] and any(
                e.get("timeout") and e.get("seat") == 0 for e in m["view"]["history"]), 120)

    state = asyncio.run(go())
    assert state["you"] == 0


def test_a_bots_flood_is_limited(server: Server) -> None:
    token = add(server.db, "flood")
    tid = server.table([{"kind": "bot-api:flood"}, {"kind": "bot", "bot": "basic"}])

    async def go() -> set[str]:
        async with websockets.connect(f"{server.ws}/ws/{tid}",
                                      additional_headers={"Authorization": f"Bearer {token}"}
                                      ) as ws:
            for _ in range(150):
                await ws.send(json.dumps({"type": "ping"}))
            codes = set()
            async with asyncio.timeout(60):
                while "rate-limited" not in codes:
                    msg = json.loads(await ws.recv())
                    codes.add(msg.get("code", msg["type"]))
            return codes

    assert "rate-limited" in asyncio.run(go())


def test_bots_command_uses_serves_default_database(tmp_path: Path) -> None:
    """Without --database-url, ``bots`` writes where ``serve`` reads: the data directory."""
    env = {**os.environ, "RISTISEISKA_DATA_DIR": str(tmp_path / "data")}
    r = subprocess.run([sys.executable, "-m", "ristiseiska.cli", "bots", "add", "homebot"],
                       capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    db = tmp_path / "data" / "ristiseiska.sqlite3"
    assert b"homebot" in db.read_bytes()

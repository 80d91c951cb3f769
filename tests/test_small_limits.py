"""The small defects of issue 19: deep TOML, unbounded numeric options, blank-looking names,
the over-limit socket's answer, the Host allow-list and the per-client analysis cap."""

from __future__ import annotations

import argparse
import json
import socket
import threading
import time
import warnings
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ristiseiska.cli import build_parser, main
from ristiseiska.rules import MAX_TOML_DEPTH, RulesError, parse_toml, toml_depth
from ristiseiska.web.security import (
    InputError,
    Limits,
    check_host,
    clean_text,
    default_hosts,
    host_allowed,
)

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for, new_table, recv_until  # noqa: E402

# -- TOML nesting -------------------------------------------------------------------------------


@pytest.mark.parametrize("command", [["rules"], ["simulate", "--games", "1"],
                                     ["simulate", "--preset", "sjuan", "--games", "1"]])
def test_deeply_nested_toml_is_one_clear_error(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                               command: list[str]) -> None:
    deep = tmp_path / "deep.toml"
    deep.write_text("x = " + "[" * 5000 + "]" * 5000 + "\n")
    assert main([*command, "--rules", str(deep)]) == 2
    err = capsys.readouterr().err
    assert "nested 5000 deep" in err and f"at most {MAX_TOML_DEPTH}" in err, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_brackets_in_strings_and_comments_do_not_count() -> None:
    text = ('a = "[[[[{{{{\\"[[[["  # ]]]] [[[[\n'
            "b = '[[[['\n"
            'c = """\n[[[[\n"""\n'
            "d = '''[[[['''\n"
            "[rules]\n"
            "token_value = 5\n"
            "e = [[1, 2], [3]]\n")
    assert toml_depth(text) == 2
    assert parse_toml(text)["rules"]["e"] == [[1, 2], [3]]


def _toml_value(v: Any) -> str:
    if isinstance(v, list):
        return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{" + ", ".join(f"k{i} = {_toml_value(x)}" for i, x in enumerate(v.values())) + "}"
    return json.dumps(v)  # a string (a basic TOML string) or an integer


def _depth(v: Any) -> int:
    if isinstance(v, list):
        return 1 + max((_depth(x) for x in v), default=0)
    if isinstance(v, dict):
        return 1 + max((_depth(x) for x in v.values()), default=0)
    return 0


leaves = st.one_of(st.integers(-1000, 1000), st.text(alphabet="[]{}#'\"\\ab ", max_size=8))
values = st.recursive(leaves, lambda inner: st.one_of(
    st.lists(inner, max_size=3),
    st.lists(inner, max_size=3).map(lambda xs: {f"k{i}": x for i, x in enumerate(xs)})),
    max_leaves=40)


@settings(max_examples=200, deadline=None)
@given(values)
def test_property_depth_is_the_real_nesting(v: Any) -> None:
    text = f"x = {_toml_value(v)}\n"
    assert toml_depth(text) == _depth(v)
    assert parse_toml(text)["x"] == (
        {f"k{i}": x for i, x in enumerate(v.values())} if isinstance(v, dict) else v)


@settings(max_examples=30, deadline=None)
@given(st.integers(MAX_TOML_DEPTH + 1, 20_000))
def test_property_any_deeper_nesting_is_refused(n: int) -> None:
    with pytest.raises(RulesError, match=f"nested {n} deep"):
        parse_toml("x = " + "[" * n + "]" * n)


# -- numeric options ------------------------------------------------------------------------------


def _numeric_options() -> list[tuple[str, str, list[str]]]:
    """(command, option, the positional arguments the command needs) for every int or float
    option of every command."""
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    out = []
    for name, p in sub.choices.items():
        positional = ["x.jsonl" for a in p._actions if not a.option_strings and a.required
                      or (not a.option_strings and a.nargs in ("+", None))]
        for a in p._actions:
            if a.option_strings and a.type in (int, float):
                out.append((name, a.option_strings[0], positional))
    return out


NUMERIC = _numeric_options()


def test_the_known_numeric_options_are_all_found() -> None:
    found = {(c, o) for c, o, _ in NUMERIC}
    for c, o in [("analyze", "--worlds"), ("simulate", "--games"), ("simulate", "--players"),
                 ("bench", "--deals"), ("tournament", "--games"), ("play", "--players"),
                 ("serve", "--port"), ("replay", "--deal")]:
        assert (c, o) in found


@pytest.mark.parametrize("command, option, positional", NUMERIC,
                         ids=[f"{c}{o}" for c, o, _ in NUMERIC])
@pytest.mark.parametrize("value", ["1" + "0" * 30, "-" + "1" + "0" * 30])
def test_every_numeric_option_is_bounded(capsys: pytest.CaptureFixture[str], command: str,
                                         option: str, positional: list[str], value: str) -> None:
    try:
        code = main([command, *positional, f"{option}={value}"])
    except SystemExit as e:  # argparse: a value of the wrong kind (never for these)
        code = int(e.code or 0)
    err = capsys.readouterr().err
    assert code == 2, err
    assert option in err and "Traceback" not in err, err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize("argv, message", [
    (["analyze", "{record}", "--worlds", "10000000000"], "--worlds must be at most 100,000"),
    (["simulate", "--games", "10000000000000"], "--games must be at most 100,000,000"),
    (["simulate", "--players", "100"], "--players must be at most 8"),
    (["tournament", "--players", "1"], "--players must be at least 2"),
    (["bench", "--deals", "10000000000"], "--deals must be at most 1,000,000"),
    (["bench", "--kernel-deals", "10000000000"], "--kernel-deals must be at most 2,000,000"),
    (["play", "--deals", "5000"], "--deals must be at most 1,000"),
    (["play", "--pace", "inf"], "--pace must be a finite number"),
    (["serve", "--bot-delay", "nan"], "--bot-delay must be a finite number"),
    (["simulate", "--seed", str(2**70)], "--seed must be at most"),
])
def test_named_bounds(tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                      message: str) -> None:
    from test_record import record_of

    rec = tmp_path / "r.jsonl"
    rec.write_text(json.dumps(record_of()) + "\n")
    assert main([a.replace("{record}", str(rec)) for a in argv]) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err, err


# -- names ----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["\u0301\u0301\u0301", "\ufe0f\ufe0e", "\u0301 \u20dd", "!!!",
                                  "\U0001F600", "-- ..", "\U000E0100\u0301"])
def test_a_name_without_a_letter_or_digit_is_refused(name: str) -> None:
    with pytest.raises(InputError, match="at least one letter or digit"):
        clean_text(name, 24)


@pytest.mark.parametrize("name", ["Aino", "ä", "a\u0301", "R2", "٣", "李", "Ülle-Mai ❤", "Ⅻ"])
def test_names_with_a_letter_or_digit_pass(name: str) -> None:
    assert clean_text(name, 24)


def test_messages_other_than_names_are_not_held_to_it() -> None:
    assert clean_text("!!!", 200, "message") == "!!!"


def test_blank_looking_names_are_refused_by_the_server(tmp_path: Path) -> None:
    with TestClient(app_for(f"sqlite+aiosqlite:///{tmp_path / 'n.db'}")) as c:
        body = {"seats": [{"kind": "friend", "name": "\u0301\u0301"}, {"kind": "bot"}]}
        r = c.post("/api/tables", json=body)
        assert r.status_code == 400 and "letter or digit" in r.json()["message"], r.text
        tid = new_table(c, ["friend", "bot"])
        r = c.post(f"/api/tables/{tid}/seats/0", json={"name": "\ufe0f\ufe0f\ufe0f"})
        assert r.status_code == 400 and "letter or digit" in r.json()["message"], r.text
        r = c.post(f"/api/tables/{tid}/seats/0", json={"name": "Aino"})
        assert r.status_code == 201, r.text


# -- sockets over the limit -----------------------------------------------------------------------


def test_a_socket_over_the_limit_gets_429_not_the_origin_403(tmp_path: Path) -> None:
    from starlette.testclient import WebSocketDenialResponse

    app = app_for(f"sqlite+aiosqlite:///{tmp_path / 's.db'}",
                  limits=Limits(sockets_per_address=1))
    with TestClient(app) as c:
        tid = new_table(c, ["friend", "bot"])
        with c.websocket_connect(f"/ws/{tid}") as first:
            recv_until(first, lambda m: m["type"] == "state")
            with pytest.raises(WebSocketDenialResponse) as over:
                with c.websocket_connect(f"/ws/{tid}"):
                    pass
            assert over.value.status_code == 429
            assert over.value.json()["error"] == "too-many-sockets"
            assert int(over.value.headers["retry-after"]) > 0
        with pytest.raises(Exception) as bad:
            with c.websocket_connect(f"/ws/{tid}", headers={"origin": "https://evil.example"}):
                pass
        assert getattr(bad.value, "status_code", 403) != 429


def _free_port() -> int:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return int(port)


@pytest.fixture
def live(tmp_path: Path) -> Any:
    """A real uvicorn server in a thread with serve's default Host list for 127.0.0.1."""
    import uvicorn

    limits = Limits(sockets_per_address=1, allowed_hosts=default_hosts("127.0.0.1", []))
    app = app_for(f"sqlite+aiosqlite:///{tmp_path / 'l.db'}", limits=limits)
    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    th = threading.Thread(target=server.run, daemon=True)
    th.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline
        time.sleep(0.05)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.should_exit = True
        th.join(30)


def _http(addr: str, method: str, path: str, host: str, body: bytes = b"") -> tuple[int, bytes]:
    import http.client

    h, p = addr.split(":")
    conn = http.client.HTTPConnection(h, int(p), timeout=20)
    conn.putrequest(method, path, skip_host=True)
    conn.putheader("Host", host)
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Content-Length", str(len(body)))
    conn.endheaders(body)
    r = conn.getresponse()
    out = r.status, r.read()
    conn.close()
    return out


def _upgrade(addr: str, tid: str, host: str) -> int:
    """The status of a WebSocket handshake sent with the Host header ``host``."""
    import base64
    import os

    with socket.create_connection(tuple(addr.split(":")), timeout=20) as s:  # type: ignore[arg-type]
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall((f"GET /ws/{tid} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                   f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                   "Sec-WebSocket-Version: 13\r\n\r\n").encode())
        head = s.recv(4096).decode("latin-1")
    return int(head.split()[1])


def test_real_server_over_limit_socket_and_foreign_host(live: str) -> None:
    import asyncio

    import websockets
    from websockets.exceptions import InvalidStatus

    body = json.dumps({"seats": [{"kind": "friend"}, {"kind": "bot"}]}).encode()
    status, raw = _http(live, "POST", "/api/tables", live, body)
    assert status == 201, raw
    tid = json.loads(raw)["id"]
    # DNS rebinding: a foreign name pointing here cannot create tables or read anything
    for method, path in (("POST", "/api/tables"), ("GET", "/"), ("GET", f"/api/tables/{tid}")):
        status, raw = _http(live, method, path, "rebind.example:8000", body)
        assert status == 421 and json.loads(raw)["error"] == "bad-host", (method, path, raw)
    port = live.split(":")[1]
    for ok in (f"localhost:{port}", f"127.0.0.1:{port}", f"LOCALHOST.:{port}"):
        assert _http(live, "GET", "/api/meta", ok)[0] == 200, ok

    async def sockets() -> tuple[int, int]:
        async with websockets.connect(f"ws://{live}/ws/{tid}") as first:
            await first.recv()
            with pytest.raises(InvalidStatus) as over:
                async with websockets.connect(f"ws://{live}/ws/{tid}"):
                    pass
        return over.value.response.status_code, _upgrade(live, tid, "rebind.example")

    assert asyncio.run(sockets()) == (429, 421)
    # the same raw handshake with the server's own Host is accepted (last: until the server
    # sees this socket close, it counts against the limit of one)
    deadline = time.monotonic() + 10
    while (status := _upgrade(live, tid, live)) == 429 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert status == 101


def test_host_rules() -> None:
    lim = Limits(allowed_hosts=default_hosts("127.0.0.1", ["https://cards.example.org"])
                 + ["Other.Example"])

    def scope(host: str | None) -> dict[str, Any]:
        return {"headers": [(b"host", host.encode())] if host is not None else []}

    for ok in ("127.0.0.1:8000", "localhost", "cards.example.org", "CARDS.example.org.:443",
               "other.example", "[::1]:8000", "10.1.2.3", "[2001:db8::1]"):
        assert host_allowed(scope(ok), lim), ok
    for bad in ("evil.example", "cards.example.org.evil", "", None, "localhost.evil:8000"):
        assert not host_allowed(scope(bad), lim), bad
    assert host_allowed(scope("anything"), Limits())  # no list: the library default
    assert host_allowed(scope("anything"), Limits(allowed_hosts=["*"]))
    assert socket.gethostname() in default_hosts("0.0.0.0", [])
    assert check_host("cards.example.org") and check_host("::1") and check_host("*")
    with pytest.raises(ValueError, match="--allowed-host"):
        check_host("bad host/")


def test_serve_refuses_a_bad_allowed_host(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--allowed-host", "no such/host"]) == 2
    assert "--allowed-host" in capsys.readouterr().err


# -- analyses per client --------------------------------------------------------------------------


def test_one_client_cannot_queue_many_analyses(tmp_path: Path) -> None:
    from ristiseiska.web import analysis_api

    app = app_for(f"sqlite+aiosqlite:///{tmp_path / 'a.db'}",
                  limits=Limits(analyses_per_address=2))
    with TestClient(app) as c:
        body = {"options": {"match_deals": 2}, "seats": [{"kind": "bot", "bot": "random"}] * 4}
        tid = c.post("/api/tables", json=body).json()["id"]
        with c.websocket_connect(f"/ws/{tid}") as ws:  # watching keeps the bots playing
            recv_until(ws, lambda m: m["type"] == "state" and m["sheet"]["over"], limit=20000)
        codes = []
        for deal in (0, 1):
            for seat in range(4):
                r = c.post(f"/api/tables/{tid}/deals/{deal}/analysis", json={"seat": seat})
                codes.append(r.status_code)
                if r.status_code == 429:
                    assert r.json()["error"] == "too-many-analyses"
                    assert "at most 2 analyses at a time" in r.json()["message"]
                    assert int(r.headers["retry-after"]) > 0
        assert codes[:2] == [202, 202] and set(codes[2:]) == {429}, codes
        # asking again about a job under way is no new job: still 202
        assert c.post(f"/api/tables/{tid}/deals/0/analysis",
                      json={"seat": 0}).status_code == 202
    assert not analysis_api._jobs and not analysis_api._owners  # stopped with the app


def test_without_per_address_limits_there_is_no_cap(tmp_path: Path) -> None:
    app = app_for(f"sqlite+aiosqlite:///{tmp_path / 'b.db'}",
                  limits=Limits(analyses_per_address=1, per_address=False))
    with TestClient(app) as c:
        body = {"options": {"match_deals": 1}, "seats": [{"kind": "bot", "bot": "random"}] * 3}
        tid = c.post("/api/tables", json=body).json()["id"]
        with c.websocket_connect(f"/ws/{tid}") as ws:
            recv_until(ws, lambda m: m["type"] == "state" and m["sheet"]["over"], limit=20000)
        codes = [c.post(f"/api/tables/{tid}/deals/0/analysis", json={"seat": s}).status_code
                 for s in range(3)]
        assert codes == [202, 202, 202]

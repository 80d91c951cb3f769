"""A hostile client: generated WebSocket frames and HTTP bodies, and the named attacks of
issue 12. Nothing may answer 500 or close a socket without an error frame."""

from __future__ import annotations

import json
import socket
import threading
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ristiseiska.web.security import (
    CSP,
    Limits,
    RateLimiter,
    clean_text,
    client_address,
    json_depth,
    origin_allowed,
    parse_json,
)

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for, claim, joined, new_table, recv_until  # noqa: E402

OK_STATUSES = {200, 201, 400, 403, 404, 405, 408, 409, 413, 415, 422, 429}


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("hostile") / "h.db"
    with TestClient(app_for(f"sqlite+aiosqlite:///{db}")) as c:
        yield c


@pytest.fixture(scope="module")
def table(client: TestClient) -> tuple[str, str]:
    tid = new_table(client, ["friend", "friend", "bot"])
    return tid, claim(client, tid, 0, "Kalle")


def _still_open(ws: Any) -> None:
    ws.send_json({"type": "ping"})
    recv_until(ws, lambda m: m["type"] == "pong")


# -- generated input ----------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False)
    | st.text(max_size=20),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=8), kids,
                                                               max_size=4),
    max_leaves=20)
messages = st.one_of(
    st.text(max_size=200),
    json_values.map(json.dumps),
    st.fixed_dictionaries({"type": st.sampled_from(["join", "move", "next-deal", "hint",
                                                    "lang", "ping", "x"])},
                          optional={"seat": json_values, "token": json_values,
                                    "move": json_values, "id": json_values,
                                    "lang": json_values}).map(json.dumps),
    st.integers(1, 6000).map(lambda n: "[" * n),
    st.integers(1, 3000).map(lambda n: '{"a":' * n + "1" + "}" * n),
)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(frames=st.lists(messages, min_size=1, max_size=5))
def test_generated_frames_get_replies_and_the_socket_stays_open(
        client: TestClient, table: tuple[str, str], frames: list[str]) -> None:
    tid, token = table
    with client.websocket_connect(f"/ws/{tid}") as ws:
        recv_until(ws, lambda m: m["type"] == "state")
        for text in frames:
            ws.send_text(text)
        _still_open(ws)
        state = client.get(f"/api/tables/{tid}")
        assert state.status_code == 200


bodies = st.one_of(st.binary(max_size=300), json_values.map(lambda v: json.dumps(v).encode()),
                   st.integers(1, 20000).map(lambda n: b"[" * n))


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=bodies, where=st.sampled_from(["/api/tables", "/api/tables/{tid}/seats/1",
                                           "/api/tables/{tid}/seats/9"]))
def test_generated_http_bodies_are_never_a_500(client: TestClient, table: tuple[str, str],
                                               body: bytes, where: str) -> None:
    tid, _token = table
    r = client.post(where.format(tid=tid), content=body,
                    headers={"content-type": "application/json"})
    assert r.status_code in OK_STATUSES, (r.status_code, r.text)
    assert r.status_code == 201 or "message" in r.json() or "detail" in r.json()


# -- named attacks ------------------------------------------------------------------------------

def test_deeply_nested_json_is_an_error_reply_not_a_dead_socket(client: TestClient,
                                                                table: tuple[str, str]) -> None:
    tid, _ = table
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_text("[" * 3000)
        err = recv_until(ws, lambda m: m["type"] == "error")
        assert err["code"] == "too-deep"
        _still_open(ws)
    r = client.post("/api/tables", content=b"[" * 3000,
                    headers={"content-type": "application/json"})
    assert r.status_code == 400 and "nest" in r.json()["detail"]


@pytest.mark.parametrize("name, problem", [
    ("Al\x00ice", "U+0000"), ("Bob\ud800", "U+D800"), ("\u202eecilA", "U+202E"),
    ("Ma\u200bri", "U+200B"), ("\u2066x\u2069", "U+2066"), ("a\ufeff", "U+FEFF"),
    ("\u3164", "U+3164"),
])
def test_names_with_hidden_characters_are_refused(client: TestClient, name: str,
                                                  problem: str) -> None:
    tid = new_table(client, ["friend", "friend"])
    body = json.dumps({"name": name}).encode()  # JSON escapes carry the lone surrogate
    r = client.post(f"/api/tables/{tid}/seats/1", content=body,
                    headers={"content-type": "application/json"})
    assert r.status_code == 400 and problem in r.json()["message"], r.text
    assert client.get(f"/api/tables/{tid}").json()["seats"][1]["taken"] is False
    r = client.post("/api/tables", content=json.dumps(
        {"seats": [{"kind": "friend", "name": name}, {"kind": "bot"}]}).encode(),
        headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"] == "bad-name"


def test_names_are_tidied_and_distinct_at_a_table(client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend", "bot"])
    claim(client, tid, 0, "  Anna \t Liisa ")
    assert client.get(f"/api/tables/{tid}").json()["seats"][0]["name"] == "Anna Liisa"
    for copy in ("anna liisa", "ANNA LIISA", "Ａｎｎａ Ｌｉｉｓａ"):
        r = client.post(f"/api/tables/{tid}/seats/1", json={"name": copy})
        assert r.status_code == 409 and r.json()["error"] == "name-taken", copy
    bot_name = client.get(f"/api/tables/{tid}").json()["seats"][2]["name"]
    r = client.post(f"/api/tables/{tid}/seats/1", json={"name": bot_name})
    assert r.status_code == 201  # a person may take a bot's name: the bot is renamed
    seats = client.get(f"/api/tables/{tid}").json()["seats"]
    assert seats[1]["name"] == bot_name and seats[2]["name"] != bot_name
    r = client.post("/api/tables", json={"seats": [{"kind": "friend", "name": "Eve"},
                                                   {"kind": "friend", "name": "eve"}]})
    assert r.status_code == 400 and r.json()["error"] == "bad-name"


@pytest.mark.parametrize("options", [
    {"token_value": int("9" * 4300)}, {"token_value": 2**62}, {"match_deals": 10**18},
    {"stall_turns": 10**9}, {"hoarding_penalty": -1}, {"match_target": 10**7},
])
def test_integer_options_are_bounded(client: TestClient, options: dict[str, int]) -> None:
    body = json.dumps({"options": options, "seats": [{"kind": "bot"}] * 3})
    r = client.post("/api/tables", content=body.encode(),
                    headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text
    assert len(r.text) < 400  # the number is not echoed back


def test_the_same_bounds_hold_in_the_cli_and_the_record_checker(tmp_path: Path,
                                                               capsys: Any) -> None:
    from ristiseiska.cli import main as cli
    from ristiseiska.game import Game
    from ristiseiska.record import dumps_record, record_from_game
    from ristiseiska.rules import Rules, RulesError

    with pytest.raises(RulesError, match="token_value must be from 0 to 10000"):
        Rules.from_dict({"token_value": 2**62})
    assert cli(["simulate", "--games", "1", "--rule", "token_value=100000"]) == 2
    g = Game(Rules(), 3, seed=1)
    while not g.is_over():
        g.push(g.legal_moves()[0])
    rec = json.loads(dumps_record(record_from_game(g)))
    rec["rules"]["token_value"] = 10**6
    huge = dumps_record(dict(rec, rules=dict(rec["rules"], token_value=21))).replace(
        '"seed":1', '"seed":' + "7" * 5000)
    path = tmp_path / "r.jsonl"
    path.write_text(json.dumps(rec) + "\n" + huge + "\n")
    capsys.readouterr()
    assert cli(["replay", "--check", str(path)]) == 1
    out = capsys.readouterr().out
    assert "token_value must be from 0 to 10000" in out
    assert "5000 digits" in out and "Traceback" not in out


def test_a_match_has_a_length_limit(client: TestClient) -> None:
    r = client.post("/api/tables", json={"options": {"match_deals": 500},
                                         "seats": [{"kind": "bot"}] * 3})
    assert r.status_code == 400 and "at most 100 deals" in r.json()["message"]
    r = client.post("/api/tables", json={"preset": "sjuan", "seats": [{"kind": "bot"}] * 3})
    assert r.status_code == 201  # played to a points target: capped at the server's limit
    assert r.json()["table"]["rules"]["match_deals"] == 100


def test_cross_site_requests_are_refused(client: TestClient, table: tuple[str, str]) -> None:
    body = json.dumps({"seats": [{"kind": "bot"}] * 3})
    r = client.post("/api/tables", content=body, headers={"content-type": "text/plain"})
    assert r.status_code == 415  # what a foreign page can send without a preflight
    r = client.post("/api/tables", content=body, headers={
        "content-type": "application/json", "origin": "https://evil.example"})
    assert r.status_code == 403 and r.json()["error"] == "bad-origin"
    r = client.post("/api/tables", content=body, headers={
        "content-type": "application/json", "origin": "http://testserver"})
    assert r.status_code == 201  # our own pages
    from starlette.websockets import WebSocketDisconnect

    with pytest.raises(WebSocketDisconnect), client.websocket_connect(
            f"/ws/{table[0]}", headers={"origin": "https://evil.example"}) as ws:
        ws.receive_json()
    with client.websocket_connect(f"/ws/{table[0]}", headers={"origin": "http://testserver"}) as ws:
        assert ws.receive_json()["type"] == "state"


def test_every_page_has_the_security_headers(client: TestClient) -> None:
    for path in ("/", "/t/abcdefghij", "/static/app.js", "/api/meta", "/api/tables/nope1234"):
        r = client.get(path)
        assert r.headers["content-security-policy"] == CSP, path
        assert r.headers["x-frame-options"] == "DENY"
        assert r.headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in CSP and "script-src 'self'" in CSP


def test_a_resent_move_id_is_acked_again_not_played_twice(client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend"])
    tokens = {s: claim(client, tid, s, f"P{s}") for s in (0, 1)}
    t = client.app.state.tables.live[tid]  # type: ignore[attr-defined]
    g = t.game
    seat = g.to_move
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = joined(ws, seat, tokens[seat])
        move = st["view"]["legal_moves"][0]
        ws.send_json({"type": "move", "move": move, "id": "m-1"})
        first = recv_until(ws, lambda m: m["type"] in ("ack", "error"))
        assert first == {"type": "ack", "move": move, "id": "m-1"}
        played = len(g.moves)
        for _ in range(3):
            ws.send_json({"type": "move", "move": move, "id": "m-1"})
            again = recv_until(ws, lambda m: m["type"] in ("ack", "error"))
            assert again == first
        assert len(g.moves) == played
        ws.send_json({"type": "move", "move": "stop", "id": "m-1"})
        assert recv_until(ws, lambda m: m["type"] in ("ack", "error"))["code"] == "id-reused"
    assert len(g.moves) == played


def test_the_apps_own_files_do_not_use_up_an_addresss_requests(tmp_path: Path) -> None:
    """A family behind one address opening the lobby at once: its scripts, styles and card
    pictures are not counted, so the texts and the API still answer; API requests are."""
    app = app_for(f"sqlite+aiosqlite:///{tmp_path / 'q.db'}",
                  limits=Limits(requests_per_second=0.01, request_burst=5))
    with TestClient(app) as c:
        assert [c.get("/static/style.css").status_code for _ in range(30)] == [200] * 30
        codes = [c.get("/api/i18n/fi").status_code for _ in range(7)]
        assert codes == [200] * 5 + [429] * 2


def test_tables_per_address_per_minute(tmp_path: Path) -> None:
    app = app_for(f"sqlite+aiosqlite:///{tmp_path / 'r.db'}",
                  limits=Limits(tables_per_minute=5))
    with TestClient(app) as c:
        body = {"seats": [{"kind": "friend"}, {"kind": "bot"}]}
        codes = [c.post("/api/tables", json=body).status_code for _ in range(8)]
        assert codes == [201] * 5 + [429] * 3
        r = c.post("/api/tables", json=body)
        assert "at most 5 new tables" in r.json()["message"] and int(r.headers["retry-after"]) > 0


def test_sockets_and_messages_per_address(tmp_path: Path) -> None:
    from starlette.websockets import WebSocketDisconnect

    app = app_for(f"sqlite+aiosqlite:///{tmp_path / 's.db'}",
                  limits=Limits(sockets_per_address=2, messages_per_second=1, message_burst=3))
    with TestClient(app) as c:
        tid = new_table(c, ["friend", "friend"])
        with c.websocket_connect(f"/ws/{tid}") as a, c.websocket_connect(f"/ws/{tid}"):
            with pytest.raises(WebSocketDisconnect), c.websocket_connect(f"/ws/{tid}") as third:
                third.receive_json()
            recv_until(a, lambda m: m["type"] == "state")
            for _ in range(6):
                a.send_json({"type": "ping"})
            got = [recv_until(a, lambda m: m["type"] in ("pong", "error")) for _ in range(6)]
            assert [m["type"] for m in got].count("pong") == 3
            assert {m.get("code") for m in got if m["type"] == "error"} == {"rate-limited"}


def test_open_tables_per_server(tmp_path: Path) -> None:
    app = app_for(f"sqlite+aiosqlite:///{tmp_path / 'o.db'}", limits=Limits(
        open_tables=3, per_address=False))
    with TestClient(app) as c:
        body = {"seats": [{"kind": "friend"}, {"kind": "bot"}]}
        codes = [c.post("/api/tables", json=body).status_code for _ in range(4)]
        assert codes == [201, 201, 201, 429]


def test_forwarded_for_is_believed_only_from_a_trusted_proxy() -> None:
    lim = Limits(trusted_proxies=["10.0.0.0/8"])

    def scope(peer: str, fwd: str | None) -> dict[str, Any]:
        headers = [(b"x-forwarded-for", fwd.encode())] if fwd else []
        return {"client": (peer, 1234), "headers": headers}

    assert client_address(scope("203.0.113.9", "1.2.3.4"), lim) == "203.0.113.9"
    assert client_address(scope("10.0.0.2", "1.2.3.4"), lim) == "1.2.3.4"
    assert client_address(scope("10.0.0.2", "6.6.6.6, 1.2.3.4, 10.0.0.7"), lim) == "1.2.3.4"
    assert client_address(scope("10.0.0.2", "not-an-ip"), lim) == "10.0.0.2"
    assert client_address(scope("10.0.0.2", None), lim) == "10.0.0.2"


def test_origin_rules() -> None:
    lim = Limits(allowed_origins=["https://cards.example.org"])

    def scope(origin: str | None, host: str = "srv:8000") -> dict[str, Any]:
        headers = [(b"host", host.encode())]
        if origin is not None:
            headers.append((b"origin", origin.encode()))
        return {"client": ("1.2.3.4", 1), "headers": headers}

    assert origin_allowed(scope(None), lim)  # not a browser
    assert origin_allowed(scope("http://srv:8000"), lim)
    assert origin_allowed(scope("https://cards.example.org"), lim)
    assert not origin_allowed(scope("https://evil.example"), lim)
    assert not origin_allowed(scope("null"), lim)


def test_helpers_directly() -> None:
    assert json_depth(b'{"a":[[1]],"b":"[[[[[["}') == 3
    with pytest.raises(ValueError):
        parse_json(b"1" * 30, 100)
    with pytest.raises(ValueError):
        parse_json(b"NaN", 100)
    assert clean_text("  A\u0301ino  ", 24) == "\u00c1ino"  # NFC, trimmed
    clock = [0.0]
    r = RateLimiter(1.0, 2, clock=lambda: clock[0])
    assert [r.allow("k") for _ in range(3)] == [True, True, False]
    clock[0] = 1.0
    assert r.allow("k")


# -- slow clients -------------------------------------------------------------------------------

def test_trickled_headers_are_cut_off(tmp_path: Path) -> None:
    import uvicorn

    from ristiseiska.web.security import slow_client_protocol

    app = app_for(f"sqlite+aiosqlite:///{tmp_path / 'slow.db'}")
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning",
                                           http=slow_client_protocol(0.5)))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    try:
        for _ in range(200):
            if server.started:
                break
            time.sleep(0.05)
        slow = socket.create_connection(("127.0.0.1", port))
        slow.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # ...and never the rest
        slow.settimeout(5)
        start = time.monotonic()
        assert slow.recv(100) == b""  # closed by the server
        assert time.monotonic() - start < 4
        idle = socket.create_connection(("127.0.0.1", port))  # half-open: sends nothing
        idle.settimeout(5)
        assert idle.recv(100) == b""
        ok = socket.create_connection(("127.0.0.1", port))  # a normal request still works
        ok.sendall(b"GET /api/meta HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        ok.settimeout(5)
        assert ok.recv(20).startswith(b"HTTP/1.1 200")
        for s in (slow, idle, ok):
            s.close()
    finally:
        server.should_exit = True
        thread.join(timeout=10)


# -- tables in memory ---------------------------------------------------------------------------

def test_bots_only_table_pauses_unwatched_and_idle_tables_unload(tmp_path: Path) -> None:
    app = app_for(f"sqlite+aiosqlite:///{tmp_path / 'idle.db'}")
    with TestClient(app) as c:
        tables = c.app.state.tables  # type: ignore[attr-defined]
        r = c.post("/api/tables", json={"options": {"match_deals": 50},
                                        "seats": [{"kind": "bot", "bot": "random"}] * 3})
        tid = r.json()["id"]
        time.sleep(0.5)
        g = tables.live[tid].game
        assert len(g.moves) == 0  # nobody watches: the bots wait
        with c.websocket_connect(f"/ws/{tid}") as ws:
            recv_until(ws, lambda m: m["type"] == "state" and len(m["view"]["history"]) > 5)
        time.sleep(0.3)
        n = len(tables.live[tid].game.moves)
        time.sleep(0.5)
        assert len(tables.live[tid].game.moves) == n  # paused again
        assert tables.unload_idle(0.0) >= 1 and tid not in tables.live
        again = c.get(f"/api/tables/{tid}").json()  # loaded from the store on access
        assert again["id"] == tid and tid in tables.live
        assert len(tables.live[tid].game.moves) == n

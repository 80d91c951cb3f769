"""The turn clock (issue 20, web/clock.py): the table option, the state frame's ``clock``, the
stand-in's move at zero (``"timeout": true``), two timeouts in a row and *I'm back*, and a clock
that survives a SIGKILL of the server. Clocks run fast here through the test-only scale
(``RISTISEISKA_TEST_CLOCK_SCALE``): a "15-second" clock runs out in 0.3 s."""

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
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.record import check_record, parse_record_line
from ristiseiska.rules import preset
from ristiseiska.web import clock as clockmod
from ristiseiska.web.loadtest import MemoryStore
from ristiseiska.web.tables import Conn, LiveTable

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for, claim, joined, live, new_table, recv_until  # noqa: E402
from test_web_fairview import _check  # noqa: E402


@pytest.fixture
def fast(monkeypatch: pytest.MonkeyPatch) -> float:
    """Clocks of this test run at 1/50 of their time: 15 s is 0.3 s."""
    monkeypatch.setenv(clockmod.SCALE_ENV, "0.02")
    return 0.02


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(f"sqlite+aiosqlite:///{tmp_path / 'c.db'}")) as c:
        yield c


@pytest.fixture
def slow(tmp_path: Path) -> Iterator[TestClient]:
    """Bots that take about 0.2 s a move: a test can change the clock between two turns."""
    with TestClient(app_for(f"sqlite+aiosqlite:///{tmp_path / 's.db'}", bot_delay=0.2)) as c:
        yield c


def my_clocked_turn(ws: Any, first: dict[str, Any]) -> dict[str, Any]:
    """``first`` (the state ``joined`` returned) if seat 0 decides with the clock running,
    else the next such state."""
    def ok(m: dict[str, Any]) -> bool:
        return bool(m["view"] and m["view"]["to_move"] == 0 and m.get("clock"))
    return first if ok(first) else states(ws, ok)


def states(ws: Any, pred: Any, limit: int = 2000) -> dict[str, Any]:
    return recv_until(ws, lambda m: m["type"] == "state" and pred(m), limit)


# -- the option -------------------------------------------------------------------------------

@pytest.mark.parametrize("value", [15, 30, 60, 180, None])
def test_the_clock_option_is_kept_in_the_table(client: TestClient, value: Any) -> None:
    r = client.post("/api/tables", json={"seats": [{"kind": "friend"}, {"kind": "bot"}],
                                         "clock": value})
    assert r.status_code == 201, r.text
    assert r.json()["table"]["clock"] == value
    tid = r.json()["id"]
    assert live(client, tid).config["clock"] == value
    assert client.get(f"/api/tables/{tid}").json()["clock"] == value


def test_no_clock_by_default(client: TestClient) -> None:
    r = client.post("/api/tables", json={"seats": [{"kind": "friend"}, {"kind": "bot"}]})
    assert r.status_code == 201
    assert r.json()["table"]["clock"] is None


@pytest.mark.parametrize("value", [0, 10, 45, 61, 120, 181, 30.0, 15.5, "30", True, [], {"s": 1},
                                   -15])
def test_a_bad_clock_is_refused_naming_the_value(client: TestClient, value: Any) -> None:
    before = len(client.app.state.tables.live)  # type: ignore[attr-defined]
    r = client.post("/api/tables", json={"seats": [{"kind": "friend"}, {"kind": "bot"}],
                                         "clock": value})
    assert r.status_code == 400
    body = r.json()
    assert body["error"] == "bad-clock"
    assert repr(value) in body["message"] and "15, 30, 60 or 180" in body["message"]
    assert len(client.app.state.tables.live) == before  # type: ignore[attr-defined]


# -- the frame --------------------------------------------------------------------------------

def test_the_frame_carries_the_clock_only_while_a_friend_decides(client: TestClient) -> None:
    """Two friends and two bots, a 60-second clock (real time: nothing runs out here): every
    frame while a friend is to move names that seat and a time left within the option; while
    a bot moves, or before the start, ``clock`` is null; a table without a clock has none."""
    tid = new_table(client, ["friend", "bot", "friend", "bot"], clock=60, seed=3)
    tokens = {0: claim(client, tid, 0, "Aino"), 2: claim(client, tid, 2, "Eero")}
    t = live(client, tid)
    seen: list[dict[str, Any]] = []
    with client.websocket_connect(f"/ws/{tid}") as ws, \
            client.websocket_connect(f"/ws/{tid}") as spectator:
        joined(ws, 0, tokens[0])
        with client.websocket_connect(f"/ws/{tid}") as ws2:
            joined(ws2, 2, tokens[2])
            moves = 0
            while moves < 8:
                st = states(ws, lambda m: m["view"] is not None, 500)
                seen.append(st)
                v = st["view"]
                if v["phase"] == "over":
                    break
                who = v["to_move"]
                if who in tokens:
                    assert st["clock"] is not None and st["clock"]["seat"] == who
                    assert 0 < st["clock"]["remaining_ms"] <= 60_000
                    sock = ws if who == 0 else ws2
                    n = len(v["history"])
                    mine = st if who == 0 else states(
                        ws2, lambda m, n=n: m["you"] == 2 and m["view"] is not None
                        and len(m["view"]["history"]) == n)
                    sock.send_json({"type": "move", "move": mine["view"]["legal_moves"][0]})
                    recv_until(sock, lambda m: m["type"] == "ack")
                    moves += 1
                else:
                    assert st["clock"] is None, st["clock"]
            spec = states(spectator, lambda m: m["view"] is not None)
            assert "clock" in spec and spec["you"] is None
            assert t.clock.enabled
    assert any(s["clock"] for s in seen) and any(s["clock"] is None for s in seen)
    plain = new_table(client, ["friend", "bot"], seed=3)
    tok = claim(client, plain, 0)
    with client.websocket_connect(f"/ws/{plain}") as ws:
        assert "clock" not in joined(ws, 0, tok)


def test_no_clock_while_the_table_waits_for_its_friends(client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend", "bot"], clock=15)
    tok = claim(client, tid, 0, "Aino")
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = joined(ws, 0, tok)
        assert st["table"]["waiting"] and st["clock"] is None
        assert live(client, tid).clock.running is None


# -- the timeout ------------------------------------------------------------------------------

def _timeout_events(view: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in view["history"] if e.get("timeout")]


def test_at_zero_the_stand_in_moves_marked_timeout_and_the_log_says_so(
        slow: TestClient, fast: float) -> None:
    client = slow
    tid = new_table(client, ["friend", "bot", "bot", "bot"], clock=15, seed=5)
    tok = claim(client, tid, 0, "Aino")
    t = live(client, tid)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        joined(ws, 0, tok)
        st = states(ws, lambda m: m["view"] and _timeout_events(m["view"]))
        t.clock.scale = 1.0  # no second timeout during this test
        ev = _timeout_events(st["view"])[0]
        assert ev["seat"] == 0
        i = st["view"]["history"].index(ev)
        assert "kello" in st["log"][i].lower(), st["log"][i]
        ws.send_json({"type": "lang", "lang": "en"})
        en = states(ws, lambda m: len(m.get("log") or []) > i and "clock" in m["log"][i].lower())
        assert "clock" in en["log"][i].lower(), en["log"][i]
        assert t.clock.strikes.get(0) == 1
        assert not t.seats[0].standin  # one timeout: the seat stays the player's


def test_the_clocks_move_is_the_default_stand_in_bots(client: TestClient) -> None:
    """The stand-in plays as the default level would from the seat's own view."""
    from ristiseiska.web import bots as botlib

    tid = new_table(client, ["friend", "bot", "bot", "bot"], clock=15, seed=9)
    tok = claim(client, tid, 0, "Aino")
    t = live(client, tid)
    t.clock.scale = 0.1  # 1.5 s: time to work out what the bot would play
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = my_clocked_turn(ws, joined(ws, 0, tok))
        g = t.game
        expect = botlib.make_bot(botlib.default_level(), t._bot_seed(0)).choose(g.view(0))
        if len(g.legal_moves()) == 1:
            expect = g.legal_moves()[0]
        n = len(st["view"]["history"])
        st = states(ws, lambda m: m["view"] and len(m["view"]["history"]) > n)
        assert st["view"]["history"][n].get("timeout") is True
        assert g.moves[n] == expect


def test_two_timeouts_in_a_row_the_stand_in_keeps_the_seat_until_back(
        client: TestClient, fast: float) -> None:
    tid = new_table(client, ["friend", "bot", "bot", "bot"], clock=15, seed=5)
    tok = claim(client, tid, 0, "Aino")
    t = live(client, tid)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        joined(ws, 0, tok)
        st = states(ws, lambda m: m["table"]["seats"][0]["standin"] if m.get("table") else False)
        assert st["table"]["clock_held"] == [0]
        assert len(_timeout_events(st["view"])) == 2 and t.seats[0].standin
        # the stand-in plays on (no clock: it is a bot's move), and a rejoin does not end it
        n = len(st["view"]["history"])
        st = states(ws, lambda m: m["view"] and (len(m["view"]["history"]) > n + 4
                                                  or m["view"]["phase"] == "over"))
        assert st["clock"] is None
        ws.send_json({"type": "join", "seat": 0, "token": tok})
        states(ws, lambda m: m["you"] == 0)
        assert t.seats[0].standin
        # while the stand-in keeps the seat the player does not play it too
        moves = len(t.game.moves)
        ws.send_json({"type": "move", "move": "stop"})
        assert recv_until(ws, lambda m: m["type"] == "error")["code"] == "seat-held"
        assert t.seats[0].standin and len(t.game.moves) >= moves
    # from the store too, after a reload
    with client.websocket_connect(f"/ws/{tid}") as ws:
        joined(ws, 0, tok)
        ws.send_json({"type": "back"})
        st = states(ws, lambda m: m.get("table") and not m["table"]["seats"][0]["standin"])
        assert st["table"]["clock_held"] == []
        assert not t.seats[0].standin and t.clock.strikes.get(0, 0) == 0


def test_back_is_refused_when_there_is_nothing_to_come_back_to(client: TestClient) -> None:
    tid = new_table(client, ["friend", "bot"], clock=30, seed=2)
    tok = claim(client, tid, 0, "Aino")
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "back"})
        err = recv_until(ws, lambda m: m["type"] == "error")
        assert err["code"] == "not-seated"
        joined(ws, 0, tok)
        ws.send_json({"type": "back"})
        err = recv_until(ws, lambda m: m["type"] == "error")
        assert err["code"] == "not-standin"
        ws.send_json({"type": "back", "seat": 1})
        assert recv_until(ws, lambda m: m["type"] == "error")["code"] == "not-your-seat"
    assert not live(client, tid).seats[0].standin


def test_a_move_of_the_player_resets_the_count(slow: TestClient, fast: float) -> None:
    """timeout, own move, timeout: still the player's seat (the count started again)."""
    client = slow
    tid = new_table(client, ["friend", "bot", "bot", "bot"], clock=15, seed=5)
    tok = claim(client, tid, 0, "Aino")
    t = live(client, tid)
    t.clock.scale = 0.02
    with client.websocket_connect(f"/ws/{tid}") as ws:
        joined(ws, 0, tok)
        states(ws, lambda m: m["view"] and len(_timeout_events(m["view"])) == 1)
        assert t.clock.strikes[0] == 1
        t.clock.scale = 1.0  # the next turn has time for the player's own move
        st = states(ws, lambda m: m["you"] == 0 and m["view"]["to_move"] == 0
                    and m["clock"] is not None)
        t.clock.scale = 0.02  # (the turn after this one runs fast again)
        ws.send_json({"type": "move", "move": st["view"]["legal_moves"][0]})
        recv_until(ws, lambda m: m["type"] == "ack")
        assert t.clock.strikes.get(0, 0) == 0
        states(ws, lambda m: m["view"] and (len(_timeout_events(m["view"])) == 2
                                             or m["view"]["phase"] == "over"))
        if t.game.is_over():  # pragma: no cover - the deal ended before a second timeout
            pytest.skip("the deal ended first")
        assert t.clock.strikes[0] == 1 and not t.seats[0].standin


def test_bad_input_while_the_clock_runs_changes_nothing(client: TestClient) -> None:
    tid = new_table(client, ["friend", "bot"], clock=60, seed=4)
    tok = claim(client, tid, 0, "Aino")
    t = live(client, tid)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = my_clocked_turn(ws, joined(ws, 0, tok))
        key, deadline = t.clock.running, t.clock.deadline
        for bad in [{"type": "move", "move": "XX"}, {"type": "move", "move": 5},
                    {"type": "back"}, {"type": "move", "move": "stop" * 20}]:
            ws.send_json(bad)
            assert recv_until(ws, lambda m: m["type"] == "error")
        assert t.clock.running == key and t.clock.deadline == deadline
        assert len(t.game.moves) == len(st["view"]["history"])


def test_a_finished_deal_stops_the_clock_and_the_record_replays(
        client: TestClient, fast: float) -> None:
    """The stand-in takes over after two timeouts and plays the deal out; the record of the
    deal with its timeout moves replays, and the wait for the next deal is not timed."""
    tid = new_table(client, ["friend", "bot", "bot"], clock=15, seed=8)
    tok = claim(client, tid, 0, "Aino")
    t = live(client, tid)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        joined(ws, 0, tok)
        st = states(ws, lambda m: m["view"] and m["view"]["phase"] == "over", 5000)
        assert st["clock"] is None and t.clock.running is None
        assert _timeout_events(st["view"])
        time.sleep(0.3)
        assert t.clock.running is None and len(t.games) == 1
    lines = client.get(f"/api/tables/{tid}/record?deal=0").text.splitlines()
    rec = parse_record_line(lines[0])
    assert isinstance(rec, dict) and check_record(rec) is None


# -- stored -----------------------------------------------------------------------------------

def test_the_clock_state_and_timeouts_survive_a_reload(tmp_path: Path, fast: float) -> None:
    db = f"sqlite+aiosqlite:///{tmp_path / 'r.db'}"
    with TestClient(app_for(db)) as c:
        tid = new_table(c, ["friend", "bot", "bot", "bot"], clock=15, seed=5)
        tok = claim(c, tid, 0, "Aino")
        with c.websocket_connect(f"/ws/{tid}") as ws:
            joined(ws, 0, tok)
            st = states(ws, lambda m: m.get("table") and m["table"]["clock_held"] == [0])
            before = _timeout_events(st["view"])
    with TestClient(app_for(db)) as c:
        with c.websocket_connect(f"/ws/{tid}") as ws:
            st = joined(ws, 0, tok)
            assert st["table"]["clock_held"] == [0] and st["table"]["seats"][0]["standin"]
            assert _timeout_events(st["view"])[:len(before)] == before
            marked = [i for i, e in enumerate(st["view"]["history"]) if e.get("timeout")]
            assert all("kello" in st["log"][i].lower() for i in marked)


def test_a_paused_clock_resumes_with_what_was_left(client: TestClient) -> None:
    """Nobody connected: the clock stops and keeps its time; the next visitor resumes it."""
    tid = new_table(client, ["friend", "bot"], clock=60, seed=4)
    tok = claim(client, tid, 0, "Aino")
    t = live(client, tid)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        my_clocked_turn(ws, joined(ws, 0, tok))
        time.sleep(0.5)
    time.sleep(0.3)
    assert t.clock.running is None and t.clock.saved is not None
    left = t.clock.saved[1]
    assert 58_000 < left <= 59_600
    time.sleep(0.6)  # paused: this does not count
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = joined(ws, 0, tok)
        assert st["clock"]["seat"] == 0
        assert left - 300 <= st["clock"]["remaining_ms"] <= left


def _env(tmp_path: Path, scale: float) -> dict[str, str]:
    env = dict(os.environ)
    env["HOME"] = str(tmp_path)
    env["XDG_DATA_HOME"] = str(tmp_path / "data")
    env[clockmod.SCALE_ENV] = str(scale)
    env["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return env


def test_the_clock_survives_a_sigkill_and_never_runs_while_the_server_is_down(
        tmp_path: Path) -> None:
    """A real server process, a 60-second clock at 1/20 (3 s). Connected for 1.5 s, then
    SIGKILL, 3 s down (longer than the time left), restart on the same database: the clock
    goes on from the stored time left (checkpoints every 0.25 s here) and then runs out."""
    import websockets

    scale = 0.05
    budget = 60_000 * scale

    def start() -> tuple[subprocess.Popen[str], str]:
        p = subprocess.Popen([sys.executable, "-m", "ristiseiska.cli", "serve", "--port", "0",
                              "--bot-delay", "0"], stdout=subprocess.PIPE, text=True,
                             env=_env(tmp_path, scale))
        assert p.stdout is not None
        return p, p.stdout.readline().split()[1]

    def post(url: str, body: dict[str, object]) -> dict[str, Any]:
        req = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"content-type": "application/json"})
        with urllib.request.urlopen(req, timeout=20) as r:
            return dict(json.loads(r.read()))

    async def first_clock(url: str, tid: str, token: str, stay: float
                          ) -> tuple[dict[str, Any], dict[str, Any]]:
        """The first state with a running clock for seat 0, and the last one after ``stay``
        seconds (or the first with a timeout move when ``stay`` is 0)."""
        async with websockets.connect(f"ws{url[4:]}ws/{tid}") as ws:
            await ws.send(json.dumps({"type": "join", "seat": 0, "token": token}))
            first: dict[str, Any] | None = None
            end = time.monotonic() + (stay or 30)
            last: dict[str, Any] = {}
            while time.monotonic() < end:
                try:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), end - time.monotonic()))
                except TimeoutError:
                    break
                if msg["type"] != "state" or msg.get("you") != 0:
                    continue
                last = msg
                if first is None and msg.get("clock"):
                    first = msg
                if not stay and _timeout_events(msg["view"]):
                    break
            assert first is not None
            return first, last

    proc, url = start()
    try:
        tid = str(post(url + "api/tables", {"seats": [{"kind": "friend"}, {"kind": "bot"}],
                                            "seed": 4, "clock": 60})["id"])
        token = str(post(url + f"api/tables/{tid}/seats/0", {"name": "Aino"})["token"])
        t0 = time.monotonic()
        first, _last = asyncio.run(first_clock(url, tid, token, 1.5))
        # the page left (the clock paused); back again, and the server is killed while the
        # clock runs, so what is stored is the last checkpoint's time left
        ran = time.monotonic() - t0
        assert first["clock"]["seat"] == 0
        assert not _timeout_events(first["view"])

        async def kill_while_running() -> float:
            async with websockets.connect(f"ws{url[4:]}ws/{tid}") as ws:
                await ws.send(json.dumps({"type": "join", "seat": 0, "token": token}))
                while True:
                    msg = json.loads(await asyncio.wait_for(ws.recv(), 20))
                    if msg["type"] == "state" and msg.get("you") == 0 and msg.get("clock"):
                        left = float(msg["clock"]["remaining_ms"])
                        await asyncio.sleep(0.6)  # more checkpoints while it runs
                        proc.send_signal(signal.SIGKILL)
                        proc.wait(timeout=20)
                        return left - 600

        left_at_kill = asyncio.run(kill_while_running())
        assert 0 < left_at_kill < budget - ran * 1000 + 400
        time.sleep(3.2)  # down for longer than was left: none of it may count
        proc, url = start()
        resumed, done = asyncio.run(first_clock(url, tid, token, 0))
    finally:
        proc.terminate()
        proc.wait(timeout=20)
    got = resumed["clock"]["remaining_ms"]
    assert resumed["clock"]["seat"] == 0
    # what was stored at the last checkpoint before the kill (every 0.25 s here): never more
    # than that plus one interval, never what a clock running while down would have left (0)
    assert left_at_kill - 400 <= got <= left_at_kill + 250 * 1.0 + 300, (got, left_at_kill)
    assert got < budget - 1000
    evs = _timeout_events(done["view"])
    assert evs and evs[0]["seat"] == 0


# -- fair information with a running clock ---------------------------------------------------

async def _play_clocked(name: str, players: int, seed: int) -> int:
    """Every seat a friend with a 60-second clock that runs (the table is live, not closed):
    every frame of every viewer carries the clock of the seat to move and no hidden card;
    some moves are marked as the clock's, so the log's timeout sentences are checked too."""
    config = {"preset": name, "rules": preset(name).to_dict(), "seed": seed, "clock": 60,
              "seats": [{"kind": "friend", "bot": None, "name": f"P{i}"} for i in range(players)]}
    t = LiveTable("clockleak-001", config, MemoryStore(), 0.0)  # type: ignore[arg-type]
    t.started = True
    conns: dict[int | None, Conn] = {None: Conn()}
    for s in range(players):
        conns[s] = Conn(seat=s)
    t.conns = set(conns.values())
    await t.start_first_deal()
    rng = random.Random(seed)
    g = t.game
    assert g is not None
    async with t.lock:
        t._broadcast()
    checked = 0
    while True:
        for conn in conns.values():
            for msg in list(conn.queue._queue):  # type: ignore[attr-defined]
                assert msg is not None
                if g.is_over():
                    assert msg["clock"] is None
                else:
                    assert msg["clock"]["seat"] == g.to_move
                    assert set(msg["clock"]) == {"seat", "remaining_ms"}
        checked += _check(t, conns)
        if g.is_over():
            break
        async with t.lock:
            if rng.random() < 0.3:
                t.clock.marks.add((0, len(g.moves)))
            await t._apply(g.to_move, rng.choice(list(g.legal_moves())))
    await t.close()
    return checked


@pytest.mark.parametrize("name", ["ristiseiska", "kahdestaan-pakka", "jokerit",
                                  "kaksi-erilaista-pakkaa"])
def test_frames_with_a_running_clock_carry_no_hidden_card(name: str) -> None:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    rules = preset(name)

    @settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    @given(seed=st.integers(0, 2**62), extra=st.integers(0, 6))
    def run(seed: int, extra: int) -> None:
        players = min(rules.max_players, rules.min_players + extra % 3)
        assert asyncio.run(_play_clocked(name, players, seed)) > 0

    run()


# -- the timer itself -------------------------------------------------------------------------

class _Recording(MemoryStore):
    """Keeps nothing but the clock's writes, in order."""

    def __init__(self) -> None:
        self.clock: list[dict[str, Any]] = []

    async def set_clock(self, _tid: str, state: dict[str, Any]) -> None:
        self.clock.append(json.loads(json.dumps(state)))

    async def add_timeout(self, *_a: Any) -> None:
        return None


async def _running_table(scale: float) -> tuple[LiveTable, _Recording]:
    config = {"preset": "ristiseiska", "rules": preset("ristiseiska").to_dict(), "seed": 3,
              "clock": 60, "seats": [{"kind": "friend", "bot": None, "name": f"P{i}"}
                                     for i in range(3)]}
    store = _Recording()
    t = LiveTable("clocktimer-01", config, store, 0.0)  # type: ignore[arg-type]
    t.clock.scale = scale
    t.started = True
    t.conns = {Conn(seat=0), Conn(seat=1), Conn(seat=2)}
    await t.start_first_deal()
    async with t.lock:
        t._broadcast()
    return t, store


def test_one_timer_per_table_at_the_next_checkpoint_and_no_task_per_second() -> None:
    async def run() -> None:
        t, store = await _running_table(1.0)
        loop = asyncio.get_running_loop()
        handle = t.clock._handle
        assert handle is not None and t.clock.running is not None
        assert 4.9 < handle.when() - loop.time() <= clockmod.CHECKPOINT  # not every second
        tasks = len(asyncio.all_tasks())
        for _ in range(5):
            async with t.lock:
                t._broadcast()  # frames go out; the timer stays the same one
        await asyncio.sleep(0.3)
        assert t.clock._handle is handle and len(asyncio.all_tasks()) <= tasks
        assert [s["turn"][:3] for s in store.clock] == [list(t.clock.running)]
        g = t.game
        async with t.lock:  # a move: the old timer is cancelled, the next decision timed
            await t._apply(g.to_move, g.legal_moves()[0])
        assert handle.cancelled() and t.clock._handle is not handle
        assert t.clock.running == (0, 1, g.to_move)
        await t.close()
        assert t.clock._handle is None or t.clock._handle.cancelled()

    asyncio.run(run())


def test_checkpoints_store_the_time_left_as_it_runs_down() -> None:
    """At 1/50 a 60-second clock is 1.2 s with a checkpoint every 0.1 s: the stored time left
    goes down checkpoint by checkpoint, never above the option."""
    async def run() -> None:
        t, store = await _running_table(0.02)
        await asyncio.sleep(0.55)
        left = [s["turn"][3] for s in store.clock if s["turn"]]
        assert len(left) >= 4, left
        assert left == sorted(left, reverse=True) and left[0] <= 1200
        assert left[-1] <= 1200 - 350
        assert not t.clock.marks  # not run out yet
        await t.close()
        assert store.clock[-1]["turn"][3] <= left[-1]  # closing stores the exact time left

    asyncio.run(run())

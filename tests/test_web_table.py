"""The server side of the browser table (issue 11): friends' seats, stand-in bots, the board
layout and the end-of-deal hands sent to the page. No browser here (tests/browser has those)."""

from __future__ import annotations

import sqlite3
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.game import Game
from ristiseiska.rules import PRESETS, preset

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from ristiseiska.web.app import create_app  # noqa: E402
from ristiseiska.web.tables import board_layout  # noqa: E402
from test_web import (  # noqa: E402
    app_for,
    claim,
    current,
    joined,
    live,
    new_table,
    recv_until,
)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(f"sqlite+aiosqlite:///{tmp_path / 'w.db'}", bot_delay=0.0)) as c:
        yield c


def state(ws: Any, pred: Any = lambda m: True) -> dict[str, Any]:
    return recv_until(ws, lambda m: m["type"] == "state" and pred(m))


def test_first_deal_waits_for_every_friend_then_starts(client: TestClient) -> None:
    tid = new_table(client, ["friend", "bot", "friend", "bot"], seed=5)
    t0 = claim(client, tid, 0, "Aino")
    table = live(client, tid)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = joined(ws, 0, t0)
        assert st["table"]["waiting"] is True and st["table"]["host"] == 0
        assert st["view"] is None  # nothing of the deal shows before it starts
        time.sleep(0.2)
        assert table.game.moves == []  # the bots did not start without the second friend
        ws.send_json({"type": "move", "move": "C7"})
        assert recv_until(ws, lambda m: m["type"] == "error")["code"] == "waiting"
        claim(client, tid, 2, "Olli")
        st = state(ws, lambda m: not m["table"]["waiting"] if "table" in m else False)
        assert table.started
    # the deal goes on: a bot moves when it is its turn, a friend's turn offers moves
    deadline = time.monotonic() + 5
    while table.game.to_move in (1, 3) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert table.game.to_move in (0, 2)


def test_start_now_keeps_the_bots_seats_a_late_friend_only_watches(client: TestClient) -> None:
    """No deal shopping (issue 46): a host who starts early sees a hand; nobody may then take a
    seat a bot took, so friends cannot be called in only when the hand is good. The late
    friend is refused (409 ``started-without``) and the bot plays the seat to the end."""
    tid = new_table(client, ["friend", "friend", "bot"], seed=9)
    t0 = claim(client, tid, 0, "Aino")
    table = live(client, tid)
    with client.websocket_connect(f"/ws/{tid}") as spy:
        state(spy)
        spy.send_json({"type": "start"})  # a spectator is not the host
        assert recv_until(spy, lambda m: m["type"] == "error")["code"] == "not-host"
    with client.websocket_connect(f"/ws/{tid}") as ws:
        joined(ws, 0, t0)
        ws.send_json({"type": "start"})
        st = state(ws, lambda m: "table" in m and not m["table"]["waiting"])
        assert st["table"]["seats"][1]["standin"] is True
        ws.send_json({"type": "start"})
        assert recv_until(ws, lambda m: m["type"] == "error")["code"] == "started"
        # the stand-in plays seat 1 whenever it is due; the host plays seat 0
        for _ in range(200):
            g = table.game
            if any(e.seat == 1 for e in g.events) or g.is_over():
                break
            if g.to_move == 0:
                st = state(ws, lambda m: m["view"]["to_move"] == 0 and m["view"]["legal_moves"])
                ws.send_json({"type": "move", "move": st["view"]["legal_moves"][0]})
                recv_until(ws, lambda m: m["type"] in ("ack", "error"))
            else:
                time.sleep(0.01)
        assert any(e.seat == 1 for e in table.game.events)
        # the friend comes late: the seat stays the bot's, before and after the deal ends
        r = client.post(f"/api/tables/{tid}/seats/1", json={"name": "Olli"})
        assert r.status_code == 409 and r.json()["error"] == "started-without", r.text
        assert "rematch" in r.json()["message"]
        assert table.seats[1].standin and table.plays_bot(1)
        assert table.seats[1].token_hash is None
        info = client.get(f"/api/tables/{tid}").json()
        assert info["seats"][1]["standin"] is True and info["seats"][1]["taken"] is False


def test_host_seats_a_bot_for_an_away_friend_who_then_returns(client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend", "bot"], seed=4)
    t0, t1 = claim(client, tid, 0, "Aino"), claim(client, tid, 1, "Olli")
    table = live(client, tid)
    assert table.started
    table.away_grace = 60.0
    with client.websocket_connect(f"/ws/{tid}") as host:
        joined(host, 0, t0)
        with client.websocket_connect(f"/ws/{tid}") as friend:
            joined(friend, 1, t1)
            host.send_json({"type": "replace", "target": 1})
            assert recv_until(host, lambda m: m["type"] == "error")["code"] == "not-away"
            friend.send_json({"type": "replace", "target": 0})  # only the host decides
            assert recv_until(friend, lambda m: m["type"] == "error")["code"] == "not-host"
        # Olli has just left: not yet away
        host.send_json({"type": "replace", "target": 1})
        assert recv_until(host, lambda m: m["type"] == "error")["code"] == "not-away"
        for bad in (1.5, "1", 7, True):
            host.send_json({"type": "replace", "target": bad})
            assert recv_until(host, lambda m: m["type"] == "error")["code"] == "bad-seat"
        table.away_grace = 0.0  # the grace is over
        host.send_json({"type": "replace", "target": 1})
        st = state(host, lambda m: "table" in m and m["table"]["seats"][1]["standin"])
        assert st["table"]["seats"][1]["away"] is True and table.plays_bot(1)
        with client.websocket_connect(f"/ws/{tid}") as friend:
            st = joined(friend, 1, t1)  # back: the seat is theirs again
            assert st["table"]["seats"][1]["standin"] is False
            assert not table.plays_bot(1)


def _info(c: TestClient, tid: str) -> dict[str, Any]:
    r = c.get(f"/api/tables/{tid}")
    assert r.status_code == 200, r.text
    return dict(r.json())


def _started_early(c: TestClient, tid: str, token: str) -> None:
    """The host (seat 0) presses *Start now*."""
    with c.websocket_connect(f"/ws/{tid}") as ws:
        joined(ws, 0, token)
        ws.send_json({"type": "start"})
        st = state(ws, lambda m: "table" in m and not m["table"]["waiting"])
        assert st["table"]["seats"][1]["standin"] is True


def _seat_moves(table: Any, seat: int) -> int:
    return sum(1 for e in table.game.events if e.seat == seat)


def test_start_now_and_its_stand_in_survive_restarts_and_stay_the_bots(
        tmp_path: Path) -> None:
    db = f"sqlite+aiosqlite:///{tmp_path / 'r.db'}"
    with TestClient(app_for(db)) as c:
        tid = new_table(c, ["friend", "friend", "bot"], seed=9)
        t0 = claim(c, tid, 0, "Aino")
        _started_early(c, tid, t0)
    with TestClient(app_for(db)) as c:
        info = _info(c, tid)
        assert info["waiting"] is False and info["seats"][1]["standin"] is True
        table = live(c, tid)
        assert table.plays_bot(1)
        before = _seat_moves(table, 1)
        # the stand-in still plays seat 1 whenever it is due; the host plays seat 0
        with c.websocket_connect(f"/ws/{tid}") as ws:
            joined(ws, 0, t0)
            for _ in range(300):
                g = table.game
                if _seat_moves(table, 1) > before or g.is_over():
                    break
                if g.to_move == 0:
                    st = current(ws, lambda m: m["view"]["to_move"] == 0
                                 and bool(m["view"]["legal_moves"]))
                    ws.send_json({"type": "move", "move": st["view"]["legal_moves"][0]})
                    recv_until(ws, lambda m: m["type"] in ("ack", "error"))
                else:
                    time.sleep(0.01)
            assert _seat_moves(table, 1) > before
        # a friend who comes after the restart cannot take the bot's seat either
        r = c.post(f"/api/tables/{tid}/seats/1", json={"name": "Olli"})
        assert r.status_code == 409 and r.json()["error"] == "started-without", r.text
        assert table.plays_bot(1)
    with TestClient(app_for(db)) as c:
        info = _info(c, tid)
        assert info["waiting"] is False and info["seats"][1]["standin"] is True
        assert live(c, tid).plays_bot(1)


def test_a_table_started_early_stays_started_before_any_move(tmp_path: Path) -> None:
    db = f"sqlite+aiosqlite:///{tmp_path / 'r.db'}"
    with TestClient(app_for(db, bot_delay=60.0)) as c:  # nobody moves before the restart
        tid = new_table(c, ["friend", "friend", "bot"], seed=9)
        t0 = claim(c, tid, 0, "Aino")
        _started_early(c, tid, t0)
        assert live(c, tid).game.moves == []
    with TestClient(app_for(db)) as c:
        info = _info(c, tid)
        assert info["waiting"] is False and info["seats"][1]["standin"] is True
        table = live(c, tid)
        assert table.game.moves == [] and table.started
        with c.websocket_connect(f"/ws/{tid}") as ws:  # and the deal goes on
            joined(ws, 0, t0)
            st = current(ws, lambda m: m["view"]["to_move"] == 0
                         and bool(m["view"]["legal_moves"]))
            ws.send_json({"type": "move", "move": st["view"]["legal_moves"][0]})
            assert recv_until(ws, lambda m: m["type"] in ("ack", "error"))["type"] == "ack"


def test_a_stand_in_for_an_away_friend_survives_a_restart(tmp_path: Path) -> None:
    db = f"sqlite+aiosqlite:///{tmp_path / 'r.db'}"
    with TestClient(app_for(db)) as c:
        tid = new_table(c, ["friend", "friend", "bot"], seed=4)
        t0, t1 = claim(c, tid, 0, "Aino"), claim(c, tid, 1, "Olli")
        live(c, tid).away_grace = 0.0  # Olli never came: away at once
        with c.websocket_connect(f"/ws/{tid}") as host:
            joined(host, 0, t0)
            host.send_json({"type": "replace", "target": 1})
            state(host, lambda m: "table" in m and m["table"]["seats"][1]["standin"])
    with TestClient(app_for(db)) as c:
        assert _info(c, tid)["seats"][1]["standin"] is True
        assert live(c, tid).plays_bot(1)
        with c.websocket_connect(f"/ws/{tid}") as friend:
            assert joined(friend, 1, t1)["table"]["seats"][1]["standin"] is False
    with TestClient(app_for(db)) as c:
        assert _info(c, tid)["seats"][1]["standin"] is False


def test_a_database_from_before_stored_stand_ins_loads_and_works(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    db = f"sqlite+aiosqlite:///{path}"
    with TestClient(app_for(db, bot_delay=60.0)) as c:
        tid = new_table(c, ["friend", "friend", "bot"], seed=9)
        t0 = claim(c, tid, 0, "Aino")
        _started_early(c, tid, t0)
    with sqlite3.connect(path) as conn:  # as an older version left it
        conn.execute("DROP TABLE rs_table_state")
        conn.execute("DROP TABLE alembic_version")  # versions before migrations had none
    with TestClient(app_for(db, bot_delay=60.0)) as c:
        info = _info(c, tid)  # as before stand-ins were stored: still waiting, no stand-in
        assert info["waiting"] is True and info["seats"][1]["standin"] is False
        _started_early(c, tid, t0)  # the host starts again, and now it is stored
    with sqlite3.connect(path) as conn:
        assert conn.execute("SELECT standins FROM rs_table_state").fetchall() == [("[1]",)]
    with TestClient(app_for(db)) as c:
        info = _info(c, tid)
        assert info["waiting"] is False and info["seats"][1]["standin"] is True


def test_start_now_and_replace_change_nothing_when_the_store_fails(tmp_path: Path) -> None:
    db = f"sqlite+aiosqlite:///{tmp_path / 'f.db'}"
    with TestClient(app_for(db, bot_delay=60.0)) as c:
        early = new_table(c, ["friend", "friend", "bot"], seed=9)
        e0 = claim(c, early, 0, "Aino")
        away = new_table(c, ["friend", "friend", "bot"], seed=4)
        a0, a1 = claim(c, away, 0, "Aino"), claim(c, away, 1, "Olli")
        live(c, away).away_grace = 0.0
        store = c.app.state.store  # type: ignore[attr-defined]
        saved = store.set_table_state

        async def refuse(*_a: Any, **_k: Any) -> None:
            raise sqlite3.OperationalError("attempt to write a readonly database")

        store.set_table_state = refuse
        with c.websocket_connect(f"/ws/{early}") as ws:
            joined(ws, 0, e0)
            ws.send_json({"type": "start"})
            err = recv_until(ws, lambda m: m["type"] == "error")
            assert err["code"] == "store" and "read-only" in err["message"]
        t = live(c, early)
        assert not t.started and not t.seats[1].standin
        assert _info(c, early)["waiting"] is True
        with c.websocket_connect(f"/ws/{away}") as ws:
            joined(ws, 0, a0)
            ws.send_json({"type": "replace", "target": 1})
            err = recv_until(ws, lambda m: m["type"] == "error")
            assert err["code"] == "store" and "read-only" in err["message"]
            assert not live(c, away).plays_bot(1)
            store.set_table_state = saved
            ws.send_json({"type": "replace", "target": 1})
            state(ws, lambda m: "table" in m and m["table"]["seats"][1]["standin"])
        # a friend coming back is never locked out by the store: the seat is theirs again
        store.set_table_state = refuse
        with c.websocket_connect(f"/ws/{away}") as friend:
            friend.send_json({"type": "join", "seat": 1, "token": a1})
            seen: list[dict[str, Any]] = []
            st = recv_until(friend, lambda m: m["type"] == "state" and m["you"] == 1, seen=seen)
            assert [m for m in seen if m["type"] == "error"] == []
            assert st["table"]["seats"][1]["standin"] is False
        assert not live(c, away).plays_bot(1)


def test_the_page_gets_the_layout_and_the_final_hands(client: TestClient) -> None:
    tid = new_table(client, ["friend", "bot", "bot", "bot"], seed=99)
    token = claim(client, tid, 0)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = joined(ws, 0, token)
        for _ in range(400):
            v = st["view"]
            lay = v["layout"]
            assert lay["line"] == list(range(1, 14)) and lay["center"] == 6
            for r in v["rows"]:
                lo, hi = lay["ends"][r["row"]]
                assert len(r["cards"]) == (hi - lo + 1 if lo >= 0 else 0)
                for k, c in enumerate(r["cards"]):  # every card lies in the slot of its rank
                    rank = {"A": 1, "J": 11, "Q": 12, "K": 13}.get(c[1:]) or int(c[1:])
                    assert lay["line"][lo + k] == rank
            if v["phase"] == "over":
                break
            assert "final_hands" not in v
            if v["to_move"] == 0 and v["legal_moves"]:
                ws.send_json({"type": "move", "move": v["legal_moves"][0]})
            st = state(ws)
        assert st["view"]["phase"] == "over"
        g = live(client, tid).game
        assert st["view"]["final_hands"] == [[str(c) for c in g.hand(s)] for s in range(4)]
    one = client.get(f"/api/tables/{tid}/record?deal=0").headers["content-disposition"]
    every = client.get(f"/api/tables/{tid}/record").headers["content-disposition"]
    assert one != every and "deal1" in one and "all" in every


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_layout_puts_each_row_on_one_line_of_slots(name: str) -> None:
    """For every preset, after a few moves: each row's cards are its line's ranks between its
    ends, and the centre slot is the same for every row."""
    rules = preset(name)
    g = Game(rules, min(max(rules.min_players, 3), rules.max_players), seed=3)
    for _ in range(25):
        if g.is_over():
            break
        lay = board_layout(g.table)
        line = lay["line"]
        assert len(line) in (0, 13, 14)
        assert 0 <= lay["min"] <= lay["center"] <= lay["max"] < max(len(line), 13)
        view = g.view(0).to_dict()
        for r in view["rows"]:
            lo, hi = lay["ends"][r["row"]]
            if lo < 0:
                assert r["cards"] == []
                continue
            assert lay["min"] <= lo <= hi <= lay["max"]
            jokers = {j["joker"]: j["as"] for j in r.get("jokers", [])}
            for k, c in enumerate(r["cards"]):
                real = jokers.get(c, c).rstrip("+'")
                rank = {"A": 1, "J": 11, "Q": 12, "K": 13}.get(real[1:]) or int(real[1:])
                assert line[lo + k] == rank, (name, r, lay)
        g.push(g.legal_moves()[0])

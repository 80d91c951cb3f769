"""Rematch (issue 20): the same players and rules at a new table; each seated player is
offered their own seat there, the bots come along, and nobody else can take those seats."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ristiseiska.web.rematch import rematch_id
from test_web import app_for, claim, current, joined, recv_until  # noqa: E402

SEATS = [{"kind": "friend", "name": "Aino"}, {"kind": "bot", "bot": "basic"},
         {"kind": "friend", "name": "Bea"}, {"kind": "bot", "bot": "random"}]


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'web.db'}"


def one_deal_match(client: TestClient) -> tuple[str, dict[int, str]]:
    r = client.post("/api/tables", json={"preset": "ristiseiska", "options": {"match_deals": 1},
                                          "seats": SEATS})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    return tid, {0: claim(client, tid, 0, "Aino"), 2: claim(client, tid, 2, "Bea")}


def play_out(client: TestClient, tid: str, tokens: dict[int, str]) -> None:
    with client.websocket_connect(f"/ws/{tid}") as ws:
        for _ in range(400):
            st = current(ws, lambda m: m["view"]["phase"] == "over" or m["view"]["to_move"] in tokens)
            if st["view"]["phase"] == "over":
                break
            seat = st["view"]["to_move"]
            st = joined(ws, seat, tokens[seat])
            if st["view"]["legal_moves"] and st["view"]["to_move"] == seat:
                ws.send_json({"type": "move", "move": st["view"]["legal_moves"][0]})
                for _ in range(50):
                    m = ws.receive_json()
                    if m["type"] in ("ack", "error"):
                        break
    assert client.get(f"/api/tables/{tid}").json()["match_over"]


def ask(client: TestClient, tid: str, seat: Any, token: Any) -> Any:
    return client.post(f"/api/tables/{tid}/rematch", json={"seat": seat, "token": token})


def test_rematch_seats_the_same_players_at_a_new_table(db: str) -> None:
    with TestClient(app_for(db)) as client:
        tid, tokens = one_deal_match(client)
        r = ask(client, tid, 0, tokens[0])
        assert r.status_code == 409 and r.json()["error"] == "match-running"
        play_out(client, tid, tokens)
        # a bad token or a bot's seat is refused and makes nothing
        for seat, token in ((0, "nope"), (1, tokens[0]), ("0", tokens[0]), (None, None), (9, "x")):
            r = ask(client, tid, seat, token)
            assert r.status_code == 400, (seat, r.text)
        assert client.get(f"/api/tables/{rematch_id(tid)}").status_code == 404
        assert client.post(f"/api/tables/{tid}/rematch", content=b"[1]",
                           headers={"content-type": "application/json"}).status_code == 400
        old = client.get(f"/api/tables/{tid}").json()
        # the first player's click makes the rematch and seats them
        r = ask(client, tid, 0, tokens[0])
        assert r.status_code == 201, r.text
        new_id = r.json()["id"]
        assert new_id == rematch_id(tid) != tid and r.json()["seat"] == 0
        new = client.get(f"/api/tables/{new_id}").json()
        assert new["rules"] == old["rules"]
        assert [(s["kind"], s["bot"], s["name"]) for s in new["seats"]] == \
            [(s["kind"], s["bot"], s["name"]) for s in old["seats"]]
        assert new["seed_commitment"] != old["seed_commitment"]  # a new match seed
        assert client.get(f"/api/tables/{tid}").json()["rematch"] == new_id
        # the other friend's seat is kept for them: a stranger cannot claim it
        assert new["seats"][2]["reserved"] and not new["seats"][2]["taken"]
        r = client.post(f"/api/tables/{new_id}/seats/2", json={"name": "Eve"})
        assert r.status_code == 409 and r.json()["error"] == "seat-reserved"
        assert new["waiting"]
        # ... and they take it with their own click; the table then starts
        r = ask(client, tid, 2, tokens[2])
        assert r.status_code == 201 and r.json()["id"] == new_id and r.json()["seat"] == 2
        after = client.get(f"/api/tables/{new_id}").json()
        assert not after["waiting"] and after["seats"][2]["name"] == "Bea"
        # a second click of a seated player leads to the same table
        r = ask(client, tid, 0, tokens[0])
        assert r.status_code == 409 and r.json()["url"] == f"/t/{new_id}"
    # after a restart the same rematch is found again (its id comes from the old table's)
    with TestClient(app_for(db)) as client:
        r = ask(client, tid, 2, tokens[2])
        assert r.status_code == 409 and r.json()["url"] == f"/t/{new_id}"
        assert client.get(f"/api/tables/{new_id}").json()["seats"][0]["taken"]


def test_a_host_who_starts_the_rematch_at_once_keeps_the_friend_s_seat(db: str) -> None:
    """docs/web.md, *Rematch*: a kept seat stays its player's. The host starts at once (a bot
    stands in); the friend's own *Join the rematch* still seats them, and their join sends the
    stand-in away. Nobody else can take the seat, before or after the start."""
    with TestClient(app_for(db)) as client:
        tid, tokens = one_deal_match(client)
        play_out(client, tid, tokens)
        r = ask(client, tid, 0, tokens[0])
        assert r.status_code == 201, r.text
        new_id, host_token = r.json()["id"], r.json()["token"]
        with client.websocket_connect(f"/ws/{new_id}") as ws:
            joined(ws, 0, host_token)
            ws.send_json({"type": "start"})
            recv_until(ws, lambda m: m["type"] == "state" and bool(m.get("table"))
                       and not m["table"]["waiting"])
        info = client.get(f"/api/tables/{new_id}").json()
        assert not info["waiting"]
        stranger = client.post(f"/api/tables/{new_id}/seats/2", json={"name": "Vieras"})
        assert stranger.status_code == 409 and stranger.json()["error"] == "seat-reserved"
        r = ask(client, tid, 2, tokens[2])
        assert r.status_code == 201, r.text
        assert r.json()["id"] == new_id and r.json()["seat"] == 2
        with client.websocket_connect(f"/ws/{new_id}") as ws:
            st = joined(ws, 2, r.json()["token"])
            assert st["view"] is not None and st["view"]["hand"] is not None
            seat = st["table"]["seats"][2]
            assert not seat.get("standin"), seat

"""Issue 47, players who are remembered: the browser's private device key tells two players of
one name apart (the second "Äiti" on another device sits as "Äiti (2)", in the seats and in the
log), while the same device (or a page that sends no key) still gets one seat per name."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ristiseiska import i18n
from ristiseiska.web.security import Limits, name_key

pytest.importorskip("fastapi")
from fastapi.testclient import TestClient  # noqa: E402

from ristiseiska.web.app import create_app  # noqa: E402

PHONE_A = "a" * 32
PHONE_B = "B-b_" * 6


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db: Path = tmp_path_factory.mktemp("players") / "p.db"
    with TestClient(create_app(f"sqlite+aiosqlite:///{db}", bot_delay=0.0,
                               limits=Limits(per_address=False))) as c:
        yield c


def new_table(client: TestClient, kinds: list[str]) -> str:
    r = client.post("/api/tables", json={"seats": [{"kind": k} for k in kinds]})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def sit(client: TestClient, tid: str, seat: int, name: str, device: object = None) -> object:
    body: dict[str, object] = {"name": name}
    if device is not None:
        body["device"] = device
    return client.post(f"/api/tables/{tid}/seats/{seat}", json=body)


def names(client: TestClient, tid: str) -> list[str]:
    return [s["name"] for s in client.get(f"/api/tables/{tid}").json()["seats"]]


def test_two_players_of_one_name_on_two_devices_are_told_apart(client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend", "friend", "bot"])
    assert sit(client, tid, 0, "Äiti", PHONE_A).status_code == 201
    r = sit(client, tid, 1, "äiti", PHONE_B)
    assert r.status_code == 201, r.json()
    assert names(client, tid)[:2] == ["Äiti", "äiti (2)"]
    assert sit(client, tid, 2, "ÄITI", "c" * 20).status_code == 201
    assert names(client, tid)[2] == "ÄITI (3)"
    # the log names them as the seats do
    table = client.app.state.tables.live[tid]  # type: ignore[attr-defined]
    event = {"seat": 1, "type": "play", "card": "C7"}
    assert i18n.describe_event(event, table.match.names, "fi").startswith("äiti (2) ")


def test_the_same_device_or_no_key_gets_one_seat_per_name(client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend", "bot"])
    assert sit(client, tid, 0, "Äiti", PHONE_A).status_code == 201
    for device in (PHONE_A, None):  # a second tab, or a page that sends no key
        r = sit(client, tid, 1, "Äiti", device)
        assert r.status_code == 409 and r.json()["error"] == "name-taken"
    assert client.get(f"/api/tables/{tid}").json()["seats"][1]["taken"] is False
    # a player of that name who came without a key: nobody can tell, so no second one
    tid = new_table(client, ["friend", "friend", "bot"])
    assert sit(client, tid, 0, "Äiti").status_code == 201
    assert sit(client, tid, 1, "Äiti", PHONE_B).json()["error"] == "name-taken"


@pytest.mark.parametrize("device", ["short", "x" * 65, "ä" * 20, "a b" * 8, 12345678901234567,
                                    ["a" * 20], {"k": 1}, True])
def test_a_bad_device_key_is_refused_and_changes_nothing(client: TestClient,
                                                         device: object) -> None:
    tid = new_table(client, ["friend", "bot"])
    r = sit(client, tid, 0, "Äiti", device)
    assert r.status_code == 400 and r.json()["error"] == "bad-device"
    assert client.get(f"/api/tables/{tid}").json()["seats"][0]["taken"] is False


CLAIM = st.tuples(st.sampled_from(["Äiti", "äiti", "Isä", "Äiti (2)", "ÄITI"]),
                  st.sampled_from([None, PHONE_A, PHONE_B, "d" * 16]))


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(CLAIM, min_size=1, max_size=4))
def test_names_at_a_table_stay_distinct(client: TestClient,
                                        claims: list[tuple[str, str | None]]) -> None:
    tid = new_table(client, ["friend"] * 4)
    for seat, (name, device) in enumerate(claims):
        r = sit(client, tid, seat, name, device)
        assert r.status_code in (201, 409), r.json()  # type: ignore[attr-defined]
    shown = names(client, tid)
    assert len({name_key(n) for n in shown}) == len(shown)


def test_a_rematch_knows_its_players_by_their_device(client: TestClient) -> None:
    from test_web_rematch import SEATS, play_out

    r = client.post("/api/tables", json={"preset": "ristiseiska", "options": {"match_deals": 1},
                                          "seats": SEATS})
    tid = r.json()["id"]
    tokens = {0: sit(client, tid, 0, "Aino", PHONE_A).json()["token"],  # type: ignore[attr-defined]
              2: sit(client, tid, 2, "Bea", PHONE_B).json()["token"]}  # type: ignore[attr-defined]
    play_out(client, tid, tokens)
    new = client.post(f"/api/tables/{tid}/rematch", json={"seat": 0, "token": tokens[0]}).json()
    nid = new["id"]
    mine = f"/api/tables/{nid}/seats/mine"
    # a stranger's device is not Bea's: her seat stays kept, by either way in
    assert client.post(mine, json={"device": "c" * 20}).json()["error"] == "not-recognised"
    assert sit(client, nid, 2, "Eve", "c" * 20).json()["error"] == "seat-reserved"  # type: ignore[attr-defined]
    assert sit(client, nid, 2, "Eve").json()["error"] == "seat-reserved"  # type: ignore[attr-defined]
    for bad in ({}, {"device": "short"}, {"device": 5}):
        assert client.post(mine, json=bad).status_code == 400
    assert client.post(mine, content=b"[1]",
                       headers={"content-type": "application/json"}).status_code == 400
    seats = client.get(f"/api/tables/{nid}").json()["seats"]
    assert seats[2]["reserved"] and not seats[2]["taken"]
    # the server forgets both tables (as after a restart): the devices are stored with the
    # seats and the kept seats' devices with the rematch's configuration
    live = client.app.state.tables.live  # type: ignore[attr-defined]
    live.pop(nid, None)
    live.pop(tid, None)
    # Bea opens the rematch's link on her phone: recognised, seated at her own seat
    r = client.post(mine, json={"device": PHONE_B})
    assert r.status_code == 201 and r.json()["seat"] == 2, r.text
    assert client.get(f"/api/tables/{nid}").json()["seats"][2]["name"] == "Bea"
    # asked again (another tab, or the page forgot its seat): the same seat, a new token
    again = client.post(mine, json={"device": PHONE_B})
    assert again.status_code == 200 and again.json()["seat"] == 2 and again.json()["returned"]
    assert again.json()["token"] != r.json()["token"]
    assert live[nid].seats[2].device_hash == live[nid].config["reserved_devices"]["2"]
    client.get(f"/api/tables/{tid}")
    assert live[tid].seats[2].device_hash == live[nid].seats[2].device_hash is not None


def test_the_log_tells_them_apart_in_english_too(client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend", "bot"])
    assert sit(client, tid, 0, "Äiti", PHONE_A).status_code == 201
    assert sit(client, tid, 1, "Äiti", PHONE_B).status_code == 201
    table = client.app.state.tables.live[tid]  # type: ignore[attr-defined]
    for lang in ("fi", "en"):
        text = i18n.describe_event({"seat": 1, "type": "play", "card": "C7"}, table.match.names,
                                   lang)
        assert text.startswith("Äiti (2) "), (lang, text)
        other = i18n.describe_event({"seat": 0, "type": "play", "card": "C7"},
                                    table.match.names, lang)
        assert other.startswith("Äiti ") and "(2)" not in other


def join_state(client: TestClient, tid: str, seat: int, token: str) -> dict[str, object]:
    """What the table's socket says to a join: the seat's state, or an error."""
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "join", "seat": seat, "token": token})
        for _ in range(50):
            msg = ws.receive_json()
            if msg["type"] == "error" or (msg["type"] == "state" and msg.get("you") == seat):
                return dict(msg)
    raise AssertionError("no answer to the join")


def test_the_device_gets_its_own_seat_back_and_nothing_else(client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend", "friend", "bot"])
    first = sit(client, tid, 0, "Äiti", PHONE_A).json()  # type: ignore[attr-defined]
    assert sit(client, tid, 1, "Isä").status_code == 201  # no key: nobody can give it back
    mine = f"/api/tables/{tid}/seats/mine"
    # the tab was closed and its seat forgotten: the same device asks, under any name
    back = client.post(mine, json={"device": PHONE_A, "name": "Joku"})
    assert back.status_code == 200, back.text
    assert back.json()["seat"] == 0 and back.json()["returned"] is True
    assert names(client, tid)[0] == "Äiti"  # the seat keeps its name
    assert join_state(client, tid, 0, back.json()["token"])["you"] == 0
    # the old token seats nobody any more
    assert join_state(client, tid, 0, first["token"])["code"] == "bad-token"
    # another device, or a seat taken without a key: nothing is given
    for device in (PHONE_B, "e" * 40):
        r = client.post(mine, json={"device": device})
        assert r.status_code == 404 and r.json()["error"] == "not-recognised"
    # a malformed key: a clear 400, and the seat's token is what it was
    table = client.app.state.tables.live[tid]  # type: ignore[attr-defined]
    kept = table.seats[0].token_hash
    for bad in ("a" * 15, "a" * 65, "a;" * 10, None, 7, ["a" * 20]):
        r = client.post(mine, json={"device": bad})
        assert r.status_code == 400 and r.json()["error"] == "bad-device", (bad, r.text)
    assert table.seats[0].token_hash == kept
    assert join_state(client, tid, 0, back.json()["token"])["you"] == 0
    # the server forgets the table (a restart): the device is stored with the seat
    client.app.state.tables.live.pop(tid)  # type: ignore[attr-defined]
    again = client.post(mine, json={"device": PHONE_A})
    assert again.status_code == 200 and again.json()["seat"] == 0


def test_quick_game_gives_the_device_its_match_back(tmp_path: Path) -> None:
    db = f"sqlite+aiosqlite:///{tmp_path / 'q.db'}"
    with TestClient(create_app(db, bot_delay=0.0, limits=Limits(per_address=False))) as c:
        index = c.app.state.open_index  # type: ignore[attr-defined]
        first = c.post("/api/quick", json={"name": "Äiti", "device": PHONE_A})
        assert first.status_code == 201 and first.json()["returned"] is False, first.text
        tid, seat = first.json()["id"], first.json()["seat"]
        # the same device again (the page was closed), even under another name: its own seat
        back = c.post("/api/quick", json={"name": "Äippä", "device": PHONE_A})
        assert back.status_code == 200, back.text
        assert (back.json()["id"], back.json()["seat"], back.json()["returned"]) == (tid, seat, True)
        assert join_state(c, tid, seat, back.json()["token"])["you"] == seat
        # another Äiti on another phone sits at the same quick table, told apart
        other = c.post("/api/quick", json={"name": "Äiti", "device": PHONE_B})
        assert other.status_code == 201 and other.json()["id"] == tid, other.text
        assert names(c, tid)[other.json()["seat"]] == "Äiti (2)"
        # the match starts (the bots sit down): the device still comes back to it
        table = c.app.state.tables.live[tid]  # type: ignore[attr-defined]
        c.portal.call(table.start_now, table.host)  # type: ignore[union-attr]
        again = c.post("/api/quick", json={"name": "Äiti", "device": PHONE_B})
        assert again.status_code == 200 and again.json()["id"] == tid
        # a malformed key: refused before anything is made or given
        made = len(index.entries)
        for bad in ("short", "x" * 65, 5, "ä" * 20):
            r = c.post("/api/quick", json={"name": "Eve", "device": bad})
            assert r.status_code == 400 and r.json()["error"] == "bad-device", r.text
        assert len(index.entries) == made
        # a page that sends no key is a new player, as before
        assert c.post("/api/quick", json={"name": "Eve"}).status_code == 201


def test_a_rematch_seat_stays_the_devices(client: TestClient) -> None:
    from test_web_rematch import SEATS, play_out

    r = client.post("/api/tables", json={"preset": "ristiseiska", "options": {"match_deals": 1},
                                          "seats": SEATS})
    tid = r.json()["id"]
    tokens = {0: sit(client, tid, 0, "Aino", PHONE_A).json()["token"],  # type: ignore[attr-defined]
              2: sit(client, tid, 2, "Bea", PHONE_B).json()["token"]}  # type: ignore[attr-defined]
    play_out(client, tid, tokens)
    nid = client.post(f"/api/tables/{tid}/rematch",
                      json={"seat": 0, "token": tokens[0]}).json()["id"]
    # Aino pressed Rematch: her new seat is her device's as well, so it comes back to her
    back = client.post(f"/api/tables/{nid}/seats/mine", json={"device": PHONE_A})
    assert back.status_code == 200 and back.json()["seat"] == 0, back.text
    # the finished match's record and both tables' public state name the players, never
    # their devices (the rematch's configuration keeps the kept seats' device hashes)
    from ristiseiska.web.tables import check_device

    shown = [client.get(f"/api/tables/{tid}/record").text, client.get(f"/api/tables/{tid}").text,
             client.get(f"/api/tables/{nid}").text]
    assert '"Bea"' in shown[0]
    for secret in (PHONE_A, PHONE_B, check_device(PHONE_A), check_device(PHONE_B)):
        assert secret and not any(secret in text for text in shown)


def test_the_device_key_is_never_shown_stored_or_logged(client: TestClient,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    import logging

    from ristiseiska.web.tables import check_device

    caplog.set_level(logging.DEBUG, logger="ristiseiska")  # the server's own log, all of it
    r = client.post("/api/tables", json={"open": True, "seats": [{"kind": "friend"}] * 3})
    tid = r.json()["id"]
    tok = sit(client, tid, 0, "Äiti", PHONE_A).json()["token"]  # type: ignore[attr-defined]
    sit(client, tid, 1, "Äiti", PHONE_B)
    client.post(f"/api/tables/{tid}/seats/mine", json={"device": PHONE_A})
    seen = [client.get(f"/api/tables/{tid}").text, client.get("/api/tables?open=1").text]
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "join", "seat": 2, "token": tok})  # a wrong seat: an error
        for _ in range(20):
            seen.append(str(msg := ws.receive_json()))
            if msg["type"] == "error":
                break
    secrets_ = [PHONE_A, PHONE_B, check_device(PHONE_A), check_device(PHONE_B)]
    logged = [r.getMessage() for r in caplog.records if r.name.startswith("ristiseiska")]
    for text in [*seen, *logged]:
        for secret in secrets_:
            assert secret and secret not in text
    # the database keeps only the hash, never the key
    table = client.app.state.tables.live[tid]  # type: ignore[attr-defined]
    stored = client.portal.call(table.store.load, tid)  # type: ignore[union-attr]
    assert PHONE_A not in str(stored) and check_device(PHONE_A) in str(stored.token_hashes)

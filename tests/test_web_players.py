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
    assert client.post(mine, json={"device": PHONE_B}).json()["error"] == "not-recognised"
    assert live[nid].seats[2].device_hash == live[nid].config["reserved_devices"]["2"]
    client.get(f"/api/tables/{tid}")
    assert live[tid].seats[2].device_hash == live[nid].seats[2].device_hash is not None

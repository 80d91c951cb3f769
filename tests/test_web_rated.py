"""Rated play in the web game (issue 58, web/rated.py): an open table's finished match counts
for the ratings of the players recognised by their device, once; a friends' table does not
unless asked; the option is checked; ``POST /api/ratings/mine`` answers a player's ratings."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for  # noqa: E402

DEVICE = "aino-device-key-0123456789"


def _play_match(client: TestClient, **extra: Any) -> str:
    """A one-deal match of Aino (seat 0, on DEVICE) against three expert bots, played to its
    end (Aino always plays her first legal move). Returns the table id."""
    body = {"preset": "ristiseiska", "seed": 5, "options": {"match_deals": 1},
            "seats": [{"kind": "friend", "name": "Aino"}] + [{"kind": "bot", "bot": "expert"}] * 3,
            **extra}
    if body.get("open"):
        del body["seed"]  # an open table's deals are the server's alone (a chosen seed is refused)
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    r = client.post(f"/api/tables/{tid}/seats/0", json={"name": "Aino", "device": DEVICE})
    assert r.status_code == 201, r.text
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "join", "seat": 0, "token": r.json()["token"]})
        for _ in range(5000):
            msg = ws.receive_json()
            if msg["type"] != "state" or msg["you"] != 0:
                continue
            view = msg["view"]
            if view["phase"] == "over":
                break
            if view["to_move"] == 0 and view["legal_moves"]:
                ws.send_json({"type": "move", "move": view["legal_moves"][0]})
        else:
            raise AssertionError("the deal did not end")
    return str(tid)


def _mine(client: TestClient) -> dict[str, Any]:
    r = client.post("/api/ratings/mine", json={"device": DEVICE})
    assert r.status_code == 200, r.text
    return dict(r.json()["ratings"])


def test_an_open_tables_match_is_rated_and_a_friends_table_is_not(tmp_path: Path) -> None:
    with TestClient(app_for(f"sqlite+aiosqlite:///{tmp_path / 'web.db'}")) as client:
        before = _mine(client)
        assert before["other"] == {"rating": 1500, "provisional": True, "matches": 0,
                                   "like": before["other"]["like"]}
        from ristiseiska.players import LEVELS_SHOWN

        assert before["other"]["like"] in LEVELS_SHOWN  # the bot level nearest 1500
        _play_match(client)  # a friends' table: not rated by default
        assert _mine(client) == before
        tid = _play_match(client, open=True)
        after = _mine(client)
        # a preset with an option changed (one deal) is played in the family "other"
        assert after["other"]["matches"] == 1
        assert after["other"]["rating"] != 1500 and after["other"]["provisional"]
        assert after["ristiseiska"] == before["ristiseiska"]  # another family is untouched
        # the end reported again (another process, a restart) counts nothing more
        from ristiseiska.web import rated

        tables = client.app.state.tables  # type: ignore[attr-defined]
        table = client.portal.call(tables.get, tid)  # type: ignore[union-attr]  # rebuilt
        assert table.match.is_over()
        client.portal.call(rated.rate_finished, table)  # type: ignore[union-attr]
        assert _mine(client) == after
        _play_match(client, rated=True)  # a friends' table whose host asked for a rating
        assert _mine(client)["other"]["matches"] == 2


@pytest.mark.parametrize("body, code", [({"device": "short"}, "bad-device"),
                                        ({}, "bad-device"), ([1], "bad-request")])
def test_ratings_mine_refuses_bad_input(tmp_path: Path, body: Any, code: str) -> None:
    with TestClient(app_for(f"sqlite+aiosqlite:///{tmp_path / 'web.db'}")) as client:
        r = client.post("/api/ratings/mine", json=body)
        assert r.status_code == 400 and r.json()["error"] == code


def test_the_rated_option_is_true_or_false(tmp_path: Path) -> None:
    with TestClient(app_for(f"sqlite+aiosqlite:///{tmp_path / 'web.db'}")) as client:
        r = client.post("/api/tables", json={"preset": "ristiseiska", "rated": "yes",
                                             "seats": [{"kind": "friend"}, {"kind": "bot"}]})
        assert r.status_code == 400 and r.json()["error"] == "bad-rated"


def test_a_person_who_left_is_ranked_last_and_fillers_are_fixed(tmp_path: Path) -> None:
    """Aino had the best total but a stand-in finished for her: she is placed last. A seat
    nobody took that a stand-in filled, and a bot, are fixed opponents."""
    import asyncio
    from types import SimpleNamespace

    from ristiseiska.ratings import standings
    from ristiseiska.store import Store
    from ristiseiska.store import ratings as stored
    from ristiseiska.web import rated
    from ristiseiska.web.seats import Seat

    seats = [Seat("friend", None, "Aino", token_hash="t0", standin=True, device_hash="a" * 32),
             Seat("friend", None, "Olli", token_hash="t1", device_hash="b" * 32),
             Seat("friend", None, "P3", standin=True), Seat("bot", "expert", "Kalle")]
    match = SimpleNamespace(totals=[1, 20, 30, 40], is_over=lambda: True,
                            results=[SimpleNamespace(winner=0)])

    async def go() -> dict[str, Any]:
        store = Store(f"sqlite+aiosqlite:///{tmp_path / 'web.db'}")
        await store.init()
        try:
            t = SimpleNamespace(id="t1", config={"rated": True, "preset": "sjuan"},
                                seats=seats, match=match, store=store)
            await rated.rate_finished(t)
            return await stored.ratings(store, "sjuan", ["device:" + "a" * 32,
                                                         "device:" + "b" * 32])
        finally:
            await store.close()

    got = asyncio.run(go())
    aino, olli = got["device:" + "a" * 32], got["device:" + "b" * 32]
    assert standings([1, 20, 30, 40], {0}) == [4, 1, 2, 3]
    assert aino.matches == olli.matches == 1
    assert aino.shown < 1500 < olli.shown  # Olli won once Aino left


def test_a_table_is_rated_in_its_presets_family_whatever_length_the_server_gave_it() -> None:
    """Sjuan plays to 100 points: the server gives such a match its longest deal count, which
    made the table's preset "changed" — it is still Sjuan. A house rule is "other"."""
    from ristiseiska.web.app import build_config
    from ristiseiska.web.rated import table_family

    def config(preset: str, **options: Any) -> dict[str, Any]:
        return build_config({"preset": preset, "options": options,
                             "seats": [{"kind": "friend", "name": "A"}] + [{"kind": "bot"}] * 3},
                            40)

    assert config("sjuan")["preset"] is None  # what the server stores
    assert table_family(config("sjuan")) == "sjuan"
    assert table_family(config("ristiseiska")) == "ristiseiska"
    assert table_family(config("ristiseiska-pyynto")) == "ristiseiska-pyynto"
    assert table_family(config("sjuan", match_target=50)) == "other"
    assert table_family(config("ristiseiska", match_deals=1)) == "other"
    assert table_family(config("ristiseiska-pantti25")) == "other"
    assert table_family({"preset": None, "base": "sjuan", "rules": "garbage"}) == "other"

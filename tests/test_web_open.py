"""Open tables and quick game (issue 20, point 5): the ``open`` option, ``GET
/api/tables?open=1`` (open tables with a free seat, nothing secret, rebuilt after a restart),
``POST /api/quick`` (an open table waiting for players, else a new one whose empty seats bots
take after the wait, also across a restart), concurrency, bad input and the rate limit."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ristiseiska.web.security import Limits
from ristiseiska.web.tables import hash_token
from test_web import CARD_TEXTS, app_for, claim, joined, recv_until  # noqa: E402
from test_web_rematch import play_out  # noqa: E402


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'web.db'}"


def make(client: TestClient, seats: list[dict[str, Any]], **extra: Any) -> str:
    r = client.post("/api/tables", json={"seats": seats, **extra})
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def listed(client: TestClient, lang: str = "fi") -> list[dict[str, Any]]:
    r = client.get(f"/api/tables?open=1&lang={lang}")
    assert r.status_code == 200, r.text
    return list(r.json()["tables"])


def ids(client: TestClient) -> list[str]:
    return [t["id"] for t in listed(client)]


FRIENDS = [{"kind": "friend", "name": "Aino"}, {"kind": "friend"}, {"kind": "bot", "bot": "basic"}]


def test_open_option_is_validated_and_stored(db: str) -> None:
    with TestClient(app_for(db)) as client:
        for bad in ("yes", 1, None, [], {"x": 1}):
            r = client.post("/api/tables", json={"seats": FRIENDS, "open": bad})
            assert r.status_code == 400 and r.json()["error"] == "bad-open", (bad, r.text)
        assert listed(client) == [] and client.app.state.tables.live == {}  # nothing made
        private = make(client, FRIENDS)
        closed = make(client, FRIENDS, open=False)
        opened = make(client, FRIENDS, open=True)
        live = client.app.state.tables.live
        assert live[private].config["open"] is False and live[closed].config["open"] is False
        assert live[opened].config["open"] is True
        assert ids(client) == [opened]


def test_a_table_with_a_chosen_seed_is_never_listed(db: str) -> None:
    """Strangers would sit down to deals whose seed the creator chose: refused, nothing made;
    the page shows the reason from the catalogs."""
    from ristiseiska import i18n

    practice = [{"kind": "friend", "name": "Aino"}, {"kind": "bot", "bot": "basic"}]
    with TestClient(app_for(db)) as client:
        r = client.post("/api/tables", json={"seats": practice, "seed": 5, "open": True})
        assert r.status_code == 400 and r.json()["error"] == "seed-open", r.text
        assert "seed" in r.json()["message"]
        assert client.app.state.tables.live == {} and listed(client) == []
        make(client, practice, seed=5)  # the seed alone, or the listing alone, is fine
        opened = make(client, practice, open=True)
        assert ids(client) == [opened]
    fi, en = (i18n.t("web.err.seed-open", lang) for lang in ("fi", "en"))
    assert "siemen" in fi and "seed" in en and fi != en


def test_listing_shows_open_tables_with_free_seats_and_never_a_secret(db: str) -> None:
    with TestClient(app_for(db)) as client:
        tokens: list[str] = []
        private = make(client, FRIENDS)
        tokens.append(claim(client, private, 0, "Aino"))
        full = make(client, [{"kind": "friend", "name": "Aino"}, {"kind": "bot"}], open=True)
        tokens.append(claim(client, full, 0, "Aino"))  # its one friend seat is taken
        waiting = make(client, FRIENDS, open=True, options={"match_deals": 1})
        tokens.append(claim(client, waiting, 0, "Aino"))
        house = make(client, FRIENDS, open=True, options={"token_value": 30})
        # an open table played to its end is not listed any more
        done = make(client, FRIENDS, open=True, options={"match_deals": 1})
        tok = claim(client, done, 0, "Aino")
        tokens.append(tok)
        with client.websocket_connect(f"/ws/{done}") as ws:
            joined(ws, 0, tok)
            ws.send_json({"type": "start"})
            recv_until(ws, lambda m: m["type"] == "state" and m["view"] is not None)
        # started, with a stand-in on the free seat: not listed (nobody joins a started match)
        assert done not in ids(client)
        play_out(client, done, {0: tok})
        got = listed(client, "en")
        assert [t["id"] for t in got] == [house, waiting]  # newest first
        text = json.dumps(got)
        for secret in tokens:
            assert secret not in text and hash_token(secret) not in text
        for key in ("token", "token_hash", "seed", "seed_salt", "hand", "hands"):
            assert f'"{key}"' not in text
        w = next(t for t in got if t["id"] == waiting)
        assert w["state"] == "waiting" and w["free"] == [1] and w["free_count"] == 1
        assert [(p["name"], p["kind"], p["free"]) for p in w["players"]] == [
            ("Aino", "friend", False), (None, "friend", True),
            (client.app.state.tables.live[waiting].seats[2].name, "bot", False)]
        assert w["players"][2]["bot"] == "basic" and w["clock"] is None
        assert w["title"] == "Ristiseiska" and "token" in w["rules"]
        h = next(t for t in got if t["id"] == house)
        assert h["changes"] and "30" in h["changes"][0]
        fi = {t["id"]: t for t in listed(client, "fi")}
        assert fi[house]["rules"] != h["rules"] and "pantti" in fi[house]["rules"]
        # only open tables are ever listed
        for q in ("", "?open=0", "?open=yes"):
            r = client.get(f"/api/tables{q}")
            assert r.status_code == 400 and r.json()["error"] == "bad-request"
        assert len(listed(client)) == 2
        assert len(client.get("/api/tables?open=1&limit=1").json()["tables"]) == 1
        assert client.get("/api/tables?open=1&limit=51").status_code == 422


def test_the_index_is_rebuilt_from_storage_at_start_up(db: str) -> None:
    with TestClient(app_for(db)) as client:
        make(client, FRIENDS)
        opened = make(client, FRIENDS, open=True)
        claim(client, opened, 0, "Aino")
        claim(client, opened, 1, "Bea")  # now full
        other = make(client, FRIENDS, open=True)
        claim(client, other, 0, "Cid")
    with TestClient(app_for(db)) as client:
        assert client.app.state.tables.live == {}  # nothing replayed for the listing
        got = listed(client)
        assert [t["id"] for t in got] == [other]
        assert got[0]["players"][0]["name"] == "Cid" and got[0]["free"] == [1]


def test_quick_game_joins_an_open_table_waiting_for_players(db: str) -> None:
    with TestClient(app_for(db)) as client:
        tid = make(client, FRIENDS, open=True)
        host = claim(client, tid, 0, "Aino")
        # a host's own table counts while its host is at it
        with client.websocket_connect(f"/ws/{tid}") as ws:
            joined(ws, 0, host)
            r = client.post("/api/quick", json={"name": "Bea", "lang": "en"})
            assert r.status_code == 201, r.text
            body = r.json()
            assert body["id"] == tid and body["seat"] == 1 and body["url"] == f"/t/{tid}"
            t = client.app.state.tables.live[tid]
            assert t.check_token(1, body["token"]) == 1 and t.seats[1].name == "Bea"
            assert t.started  # every friend seat taken: the deal starts
        assert tid not in ids(client)


def test_quick_game_makes_a_table_the_bots_fill_after_the_wait(db: str) -> None:
    with TestClient(app_for(db, quick_wait=0.6)) as client:
        r = client.post("/api/quick", json={"name": "Aino"})
        assert r.status_code == 201, r.text
        first = r.json()
        tid = first["id"]
        t = client.app.state.tables.live[tid]
        assert first["seat"] == 0 and t.config["quick"] and t.config["open"]
        assert [s.kind for s in t.seats] == ["friend"] * 4 and not t.started
        q = client.get(f"/api/tables/{tid}/quick").json()
        assert q["quick"] and q["waiting"] and 0 < q["fill_in_ms"] <= 600
        # the next quick player sits at the same table, at another seat
        r = client.post("/api/quick", json={"name": "Bea"})
        assert r.json()["id"] == tid and r.json()["seat"] == 1
        listing = listed(client)
        assert listing[0]["id"] == tid and listing[0]["quick"] and listing[0]["state"] == "waiting"
        with client.websocket_connect(f"/ws/{tid}") as ws:
            st = joined(ws, 0, first["token"])
            assert st["view"] is None  # nothing of the deal while it waits
            st = recv_until(ws, lambda m: m["type"] == "state" and m["view"] is not None,
                            limit=200)
            seats = client.get(f"/api/tables/{tid}").json()["seats"]
            assert [s["standin"] for s in seats] == [False, False, True, True]
            assert not client.get(f"/api/tables/{tid}").json()["waiting"]
            assert st["view"]["hand"]  # the deal started: the player has their cards
        assert client.get(f"/api/tables/{tid}/quick").json()["fill_in_ms"] is None
        # the bots keep their seats to the end: no longer listed, no longer a quick target
        assert tid not in ids(client)
        r = client.post("/api/quick", json={"name": "Cid"})
        assert r.json()["id"] != tid and r.json()["seat"] == 0


def _filled(client: TestClient, tid: str) -> dict[str, Any]:
    for _ in range(200):
        info = client.get(f"/api/tables/{tid}").json()
        if not info["waiting"]:
            return dict(info)
        time.sleep(0.02)
    raise AssertionError("the bots never sat down")


def test_stand_ins_at_a_quick_table_have_first_names_not_placeholders(db: str) -> None:
    """Issue 45: the bots that fill a quick table's empty seats were called "P3" and "P4"."""
    from ristiseiska.i18n import PLAYER_NAMES

    with TestClient(app_for(db, quick_wait=0.3)) as client:
        first = client.post("/api/quick", json={"name": "Aino"}).json()
        tid = first["id"]
        names = [s["name"] for s in _filled(client, tid)["seats"]]
        assert names[0] == "Aino"
        assert len(set(names)) == 4 and all(n in PLAYER_NAMES for n in names[1:]), names
        with client.websocket_connect(f"/ws/{tid}") as ws:
            st = joined(ws, 0, first["token"])
            assert st["table"]["seats"][1]["name"] == names[1]
    with TestClient(app_for(db)) as client:  # the same names after a restart
        assert [s["name"] for s in client.get(f"/api/tables/{tid}").json()["seats"]] == names
        # the deal has started: a stand-in keeps its seat to the match's end (issue 46), even
        # for a newcomer who has its name, and nothing is renamed
        r = client.post(f"/api/tables/{tid}/seats/1", json={"name": names[2]})
        assert r.status_code == 409 and r.json()["error"] == "started-without", r.text
        assert [s["name"] for s in client.get(f"/api/tables/{tid}").json()["seats"]] == names


def test_a_quick_table_runs_the_turn_clock_and_the_listing_says_so(db: str) -> None:
    """Strangers at a quick table get the 30 s turn clock (so one who wanders off cannot hold
    the table up), and the open listing shows it."""
    with TestClient(app_for(db)) as client:
        tid = client.post("/api/quick", json={"name": "Aino"}).json()["id"]
        assert client.get(f"/api/tables/{tid}").json()["clock"] == 30
        entry = next(e for e in listed(client) if e["id"] == tid)
        assert entry["clock"] == 30


def test_the_wait_survives_a_restart_and_fills_at_once_past_its_deadline(db: str) -> None:
    with TestClient(app_for(db, quick_wait=30.0)) as client:
        first = client.post("/api/quick", json={"name": "Aino"}).json()
        assert client.app.state.tables.live[first["id"]].config["fill_at"] > time.time() + 20
    with TestClient(app_for(db, quick_wait=30.0)) as client:
        # the stored deadline is still ahead: its timer runs on, nothing is filled yet
        index = client.app.state.open_index
        t = client.app.state.tables.live[first["id"]]
        assert not t.started and first["id"] in index.timers
        assert 20 < index.timers[first["id"]].when() - _loop_time(client) <= 30
    with TestClient(app_for(db, quick_wait=0.3)) as client:
        second = client.post("/api/quick", json={"name": "Bea", "preset": "sjuan"}).json()
        assert second["id"] != first["id"]
    time.sleep(0.5)  # the server is down while the wait runs out
    with TestClient(app_for(db)) as client:
        # the bots sit down as it comes back (the wait does not start again)
        for _ in range(100):
            info = client.get(f"/api/tables/{second['id']}").json()
            if not info["waiting"]:
                break
            time.sleep(0.02)
        assert not info["waiting"]
        assert [s["standin"] for s in info["seats"]] == [False, True, True, True]
        assert client.get(f"/api/tables/{first['id']}").json()["waiting"]
        with client.websocket_connect(f"/ws/{second['id']}") as ws:
            st = joined(ws, 0, second["token"])  # the player's token still holds
            assert st["view"] is not None and st["view"]["hand"]


def _loop_time(client: TestClient) -> float:
    import asyncio

    async def now() -> float:
        return asyncio.get_running_loop().time()

    return float(client.portal.call(now))


def test_concurrent_quick_games_never_share_a_seat(db: str) -> None:
    with TestClient(app_for(db, quick_wait=30.0)) as client:
        results: list[dict[str, Any]] = []
        barrier = threading.Barrier(6)

        def go(i: int) -> None:
            barrier.wait()
            r = client.post("/api/quick", json={"name": f"Player {i}"})
            assert r.status_code == 201, r.text
            results.append(r.json())

        threads = [threading.Thread(target=go, args=(i,)) for i in range(6)]
        for th in threads:
            th.start()
        for th in threads:
            th.join(30)
        assert len(results) == 6
        places = {(r["id"], r["seat"]) for r in results}
        assert len(places) == 6  # six players, six different seats
        assert len({r["token"] for r in results}) == 6
        # four filled the first quick table, two sit at a second one
        assert sorted(sum(1 for r in results if r["id"] == tid) for tid in
                      {r["id"] for r in results}) == [2, 4]


@pytest.mark.parametrize("body, code", [
    ({}, "bad-name"),
    ({"name": ""}, "bad-name"),
    ({"name": "   "}, "bad-name"),
    ({"name": "A\u202eB"}, "bad-name"),
    ({"name": "x" * 25}, "bad-name"),
    ({"name": 7}, "bad-name"),
    ({"name": "Aino", "preset": "nope"}, "bad-preset"),
    ({"name": "Aino", "preset": 3}, "bad-preset"),
    ({"name": "Aino", "lang": "de"}, "bad-lang"),
    ({"name": "Aino", "lang": 1}, "bad-lang"),
    ([1], "bad-request"),
])
def test_bad_quick_requests_are_refused_and_change_nothing(db: str, body: Any,
                                                           code: str) -> None:
    with TestClient(app_for(db)) as client:
        tid = make(client, FRIENDS, open=True)
        before = listed(client)
        r = client.post("/api/quick", json=body)
        assert r.status_code == 400 and r.json()["error"] == code, r.text
        assert r.json()["message"]
        assert listed(client) == before
        assert list(client.app.state.tables.live) == [tid]
    with TestClient(app_for(db)) as client:  # nothing was stored either
        assert [t["id"] for t in listed(client)] == [tid]


def test_a_name_already_at_the_table_goes_to_another_table(db: str) -> None:
    with TestClient(app_for(db, quick_wait=30.0)) as client:
        a = client.post("/api/quick", json={"name": "Aino"}).json()
        b = client.post("/api/quick", json={"name": "aino"}).json()  # the same name
        assert b["id"] != a["id"] and b["seat"] == 0


def test_quick_games_are_rate_limited_per_address(db: str) -> None:
    limits = Limits(quick_per_minute=2)
    with TestClient(app_for(db, limits=limits, quick_wait=30.0)) as client:
        for name in ("A1", "A2"):
            assert client.post("/api/quick", json={"name": name}).status_code == 201
        r = client.post("/api/quick", json={"name": "A3"})
        assert r.status_code == 429 and r.json()["error"] == "rate-limited"
        assert int(r.headers["retry-after"]) >= 1
        assert len(client.app.state.tables.live) == 1  # the refused one made nothing


def test_with_several_processes_quick_redirects_to_the_seat_claim(db: str) -> None:
    """``serve --processes``: the listing is read from the database (every process sees
    every open table) and a quick game's seat is claimed by the table's own process (a 307 to
    its claim URL, which nginx pins; the test client follows it to the same app)."""
    with TestClient(app_for(db, shared_database=True, quick_wait=30.0)) as client:
        r = client.post("/api/quick", json={"name": "Aino"}, follow_redirects=False)
        assert r.status_code == 307
        assert r.headers["location"].endswith("/seats/0")
        r = client.post(r.headers["location"], json={"name": "Aino"})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        assert r.json()["url"] == f"/t/{tid}" and r.json()["seat"] == 0
        index = client.app.state.open_index
        index._refreshed = float("-inf")
        got = listed(client)
        assert got[0]["id"] == tid and got[0]["free"] == [1, 2, 3]
        r = client.post("/api/quick", json={"name": "Bea"})  # followed: the claim's answer
        assert r.status_code == 201 and r.json()["id"] == tid and r.json()["seat"] == 1
        # a table another process made is listed from the database
        index.entries.clear()
        index._refreshed = float("-inf")
        assert [t["id"] for t in listed(client)] == [tid]
        assert listed(client)[0]["free"] == [2, 3]


# -- invariants over any sequence of lobby actions ---------------------------------------------

OPS = st.lists(st.one_of(
    st.tuples(st.just("table"), st.booleans(), st.integers(1, 4)),  # open?, friend seats
    st.tuples(st.just("claim"), st.integers(0, 20), st.integers(0, 4)),
    st.tuples(st.just("quick"), st.integers(0, 5), st.just(0)),
    st.tuples(st.just("start"), st.integers(0, 20), st.just(0)),
), min_size=1, max_size=12)


@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(ops=OPS)
def test_the_listing_shows_exactly_the_open_tables_with_free_seats(tmp_path: Path,
                                                                   ops: list[Any]) -> None:
    """Whatever happens in the lobby, the listing holds every open, unfinished table with a
    free friend seat whose match has not started (issue 46) and nothing else, its free seats are exactly the unclaimed friend seats,
    and no token, token hash or card is ever in it."""
    db = f"sqlite+aiosqlite:///{tmp_path / f'p{time.monotonic_ns()}.db'}"
    with TestClient(app_for(db, quick_wait=30.0)) as client:
        made: list[str] = []
        tokens: list[str] = []
        for kind, a, b in ops:
            if kind == "table":
                seats = [{"kind": "friend"}] * b + [{"kind": "bot"}] * (4 - b)
                made.append(make(client, seats, open=a))
            elif kind == "claim" and made:
                r = client.post(f"/api/tables/{made[a % len(made)]}/seats/{b}",
                                json={"name": f"Cat {len(tokens)}"})
                if r.status_code == 201:
                    tokens.append(r.json()["token"])
            elif kind == "quick":
                r = client.post("/api/quick", json={"name": f"Quin {a}"})
                assert r.status_code in (201, 409), r.text
                if r.status_code == 201:
                    tokens.append(r.json()["token"])
                    if r.json()["id"] not in made:
                        made.append(r.json()["id"])
            elif kind == "start" and made:
                t = client.app.state.tables.live[made[a % len(made)]]
                if t.host is not None and not t.started and t.seats[t.host].token_hash:
                    client.portal.call(t.start_now, t.host)
            got = client.get("/api/tables?open=1").json()["tables"]
            text = json.dumps(got)
            for secret in tokens:
                assert secret not in text and hash_token(secret) not in text
            strings = {s for s in _strings(got)}
            assert not strings & CARD_TEXTS
            want = set()
            for tid in made:
                t = client.app.state.tables.live[tid]
                free = [i for i, s in enumerate(t.seats)
                        if s.kind == "friend" and s.token_hash is None]
                if t.config["open"] and free and not t.match.is_over() and not t.started:
                    want.add(tid)
                    entry = next(e for e in got if e["id"] == tid)
                    assert entry["free"] == free
                    assert entry["state"] == ("started" if t.started else "waiting")
            assert {e["id"] for e in got} == want


def _strings(obj: Any) -> Any:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)

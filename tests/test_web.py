"""The web server over HTTP and WebSockets (Starlette's TestClient, no browser)."""

from __future__ import annotations

import asyncio
import json
import time
import warnings
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.cards import CARDS
from ristiseiska.store import Store

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from ristiseiska.web.app import MAX_MESSAGE, create_app  # noqa: E402

CARD_TEXTS = {str(c) for c in CARDS}


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite+aiosqlite:///{tmp_path / 'web.db'}"


def seeds(first: int = 7) -> Callable[[], int]:
    """A reproducible seed source for test servers (a real server draws secure seeds)."""
    import random

    rng = random.Random(first)
    return lambda: rng.getrandbits(62)


def app_for(db: str, **kw: Any) -> Any:
    from ristiseiska.web.security import Limits

    kw.setdefault("limits", Limits(per_address=False))
    kw.setdefault("seed_source", seeds())
    return create_app(db, bot_delay=kw.pop("bot_delay", 0.0), **kw)


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with TestClient(app_for(db)) as c:
        yield c


def new_table(client: TestClient, seats: list[str], preset: str = "ristiseiska",
              seed: int = 7, **extra: Any) -> str:
    """A table; the seed is chosen only where the server allows it (one person and bots),
    elsewhere the test server's reproducible seed source draws it."""
    body = {"preset": preset, "seed": seed,
            "seats": [{"kind": k, "name": f"Name{i}"} for i, k in enumerate(seats)], **extra}
    if seats.count("friend") > 1:  # the test server's seed source gives this seed instead
        del body["seed"]
        client.app.state.tables.seed_source = lambda: seed  # type: ignore[attr-defined]
    r = client.post("/api/tables", json=body)
    assert r.status_code == 201, r.text
    return str(r.json()["id"])


def claim(client: TestClient, tid: str, seat: int, name: str = "") -> str:
    r = client.post(f"/api/tables/{tid}/seats/{seat}", json={"name": name or f"N{seat}"})
    assert r.status_code == 201, r.text
    return str(r.json()["token"])


def recv_until(ws: Any, pred: Callable[[dict[str, Any]], bool], limit: int = 500,
               seen: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    for _ in range(limit):
        msg = ws.receive_json()
        if msg["type"] == "state":
            ws.last_state = msg
        if seen is not None:
            seen.append(msg)
        if pred(msg):
            return msg
    raise AssertionError("expected message never came")


def current(ws: Any, pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """The newest state if it already fits ``pred`` (nothing changes while only a friend may
    move), else the next state that does."""
    last = getattr(ws, "last_state", None)
    if last is not None and pred(last):
        return last
    return recv_until(ws, lambda m: m["type"] == "state" and pred(m))


def live(client: TestClient, tid: str) -> Any:
    return client.app.state.tables.live[tid]  # type: ignore[attr-defined]


def joined(ws: Any, seat: int, token: str) -> dict[str, Any]:
    ws.send_json({"type": "join", "seat": seat, "token": token})
    return recv_until(ws, lambda m: m["type"] == "state" and m["you"] == seat)


def play_first_moves(ws: Any, tokens: dict[int, str], moves: int) -> None:
    """The seats in ``tokens`` make ``moves`` moves between them, each its first legal one."""
    for _ in range(moves):
        st = current(ws, lambda m: m["view"]["to_move"] in tokens)
        seat = st["view"]["to_move"]
        st = joined(ws, seat, tokens[seat])
        ws.send_json({"type": "move", "move": st["view"]["legal_moves"][0]})
        recv_until(ws, lambda m: m["type"] == "ack")


def my_move_state(ws: Any, seat: int, seen: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return recv_until(ws, lambda m: m["type"] == "state" and m["view"]["phase"] == "over"
                      or m["type"] == "state" and m["view"]["to_move"] == seat
                      and bool(m["view"]["legal_moves"]), seen=seen)


# -- lobby -----------------------------------------------------------------------------------

def test_meta_lists_presets_options_and_bots(client: TestClient) -> None:
    meta = client.get("/api/meta").json()
    names = [p["name"] for p in meta["presets"]]
    assert "ristiseiska" in names and "sjuan" in names
    assert meta["options"]["failure"]["choices"] == ["token", "ask", "pass", "chip"]
    assert meta["bots"]


@pytest.mark.parametrize("body, code", [
    ({"preset": "nope", "seats": [{"kind": "bot"}] * 3}, "bad-preset"),
    ({"seats": [{"kind": "bot"}]}, "bad-seats"),
    ({"seats": [{"kind": "bot"}] * 9}, "bad-seats"),
    ({"seats": [{"kind": "alien"}] * 3}, "bad-seats"),
    ({"seats": [{"kind": "bot"}] * 3, "options": {"failure": "dance"}}, "bad-rules"),
    ({"seats": [{"kind": "bot"}] * 3, "options": {"no_such": 1}}, "bad-rules"),
    ({"preset": "sjuan", "seats": [{"kind": "bot"}] * 2}, "bad-rules"),
    ({"seats": [{"kind": "bot"}] * 3, "seed": "x"}, "bad-seed"),
    ([1, 2], "bad-request"),
])
def test_create_table_refuses_bad_requests(client: TestClient, body: Any, code: str) -> None:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400
    assert r.json()["error"] == code
    assert r.json()["message"]


def test_create_table_refuses_huge_and_non_json_bodies(client: TestClient) -> None:
    assert client.post("/api/tables", content=b"{" + b" " * 20000 + b"}").status_code == 413
    assert client.post("/api/tables", content=b"not json").status_code == 400


def test_house_rules_and_unguessable_ids(client: TestClient) -> None:
    ids = {new_table(client, ["friend", "bot", "bot"], options={"token_value": 25},
                     seed=i) for i in range(5)}
    assert len(ids) == 5 and all(len(i) >= 20 for i in ids)
    info = client.get(f"/api/tables/{ids.pop()}").json()
    assert info["rules"]["token_value"] == 25 and info["preset"] is None
    assert client.get("/api/tables/doesnotexist123").status_code == 404


def test_claiming_seats(client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend", "bot"])
    token = claim(client, tid, 0, "Aino")
    assert len(token) >= 30
    again = client.post(f"/api/tables/{tid}/seats/0", json={"name": "Olli"})
    assert again.status_code == 409
    assert client.post(f"/api/tables/{tid}/seats/2", json={}).status_code == 400  # a bot
    assert client.post(f"/api/tables/{tid}/seats/7", json={}).status_code == 400
    seats = client.get(f"/api/tables/{tid}").json()["seats"]
    assert seats[0]["name"] == "Aino" and seats[0]["taken"] and not seats[1]["taken"]


# -- the WebSocket protocol ------------------------------------------------------------------

def test_spectator_sees_no_hand_and_cannot_play(client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend", "friend"])
    for seat in range(3):  # the deal has started (before that nobody sees any of it)
        claim(client, tid, seat)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = recv_until(ws, lambda m: m["type"] == "state")
        assert st["you"] is None
        assert st["view"]["hand"] == [] and st["view"]["legal_moves"] == []
        assert "open_hands" not in st["view"]
        ws.send_json({"type": "move", "move": "C7"})
        err = recv_until(ws, lambda m: m["type"] == "error")
        assert err["code"] == "not-seated"


def test_bad_messages_get_an_error_and_change_nothing(client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend", "friend"], seed=3)
    tokens = [claim(client, tid, s) for s in range(3)]
    table = live(client, tid)
    first = table.game.to_move
    other = (first + 1) % 3
    with client.websocket_connect(f"/ws/{tid}") as ws:
        joined(ws, other, tokens[other])
        before = list(table.game.moves)
        bad: list[tuple[Any, str]] = [
            ("not json", "bad-json"),
            ("[1,2]", "bad-message"),
            (json.dumps({"type": 5}), "bad-message"),
            (json.dumps({"type": "dance"}), "bad-type"),
            (json.dumps({"type": "move", "move": "x" * (MAX_MESSAGE + 10)}), "too-large"),
            (json.dumps({"type": "move", "move": "C7"}), "not-your-turn"),
            (json.dumps({"type": "move", "move": "C7", "seat": first}), "not-your-seat"),
            (json.dumps({"type": "move", "move": ["C7"]}), "bad-move"),
            (json.dumps({"type": "join", "seat": first, "token": "forged" * 5}), "bad-token"),
            (json.dumps({"type": "join", "seat": first, "token": tokens[other]}), "bad-token"),
            (json.dumps({"type": "join", "seat": 99, "token": "x"}), "bad-seat"),
            (json.dumps({"type": "next-deal"}), "deal-running"),
            (json.dumps({"type": "hint"}), "no-hint"),
        ]
        for text, code in bad:
            ws.send_text(text)
            err = recv_until(ws, lambda m: m["type"] == "error")
            assert err["code"] == code, (text[:40], err)
            ws.send_json({"type": "ping"})
            recv_until(ws, lambda m: m["type"] == "pong")  # still usable
        ws.send_bytes(b"\x00\x01")
        assert recv_until(ws, lambda m: m["type"] == "error")["code"] == "bad-message"
        assert list(table.game.moves) == before
        # after the forged join attempts the socket still acts for its own seat only
        ws.send_json({"type": "move", "move": "C7"})
        assert recv_until(ws, lambda m: m["type"] == "error")["code"] == "not-your-turn"
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = joined(ws, first, tokens[first])
        ws.send_json({"type": "move", "move": "SQ" if "SQ" not in st["view"]["legal_moves"]
                      else "HQ"})
        assert recv_until(ws, lambda m: m["type"] == "error")["code"] in ("illegal", "bad-move")
        assert list(table.game.moves) == before


def test_illegal_move_has_a_reason(client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend"], seed=11)
    tokens = [claim(client, tid, s) for s in range(2)]
    table = live(client, tid)
    seat = table.game.to_move
    hand = [str(c) for c in table.game.hand(seat)]
    wrong = next(c for c in hand if c not in {str(m) for m in table.game.legal_moves()})
    with client.websocket_connect(f"/ws/{tid}") as ws:
        joined(ws, seat, tokens[seat])
        ws.send_json({"type": "move", "move": wrong})
        err = recv_until(ws, lambda m: m["type"] == "error")
        assert err["code"] == "illegal" and len(err["message"]) > 10


def test_moves_are_stored_before_the_ack(client: TestClient, db: str) -> None:
    tid = new_table(client, ["friend", "friend", "friend"], seed=5)
    tokens = [claim(client, tid, s) for s in range(3)]
    table = live(client, tid)
    seat = table.game.to_move
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = joined(ws, seat, tokens[seat])
        move = st["view"]["legal_moves"][0]
        ws.send_json({"type": "move", "move": move, "id": 42})
        ack = recv_until(ws, lambda m: m["type"] == "ack")
        assert ack == {"type": "ack", "move": move, "id": 42}
        stored = client.portal.call(_load, db, tid)  # type: ignore[union-attr]
        assert stored.moves[0] == [move]


async def _load(db: str, tid: str) -> Any:
    store = Store(db)
    try:
        return await store.load(tid)
    finally:
        await store.close()


def _strings(obj: Any) -> Iterator[str]:
    if isinstance(obj, str):
        yield obj
    elif isinstance(obj, dict):
        for k, v in obj.items():
            yield k
            yield from _strings(v)
    elif isinstance(obj, list):
        for v in obj:
            yield from _strings(v)


@pytest.mark.parametrize("preset", ["ristiseiska", "ristiseiska-pyynto"])
def test_no_payload_holds_another_seats_hand(client: TestClient, preset: str) -> None:
    """Play a whole deal as two friends (and two bots); every message each friend receives is
    checked against the hands of the other seats at that moment."""
    tid = new_table(client, ["friend", "bot", "friend", "bot"], preset=preset, seed=21)
    tokens = {s: claim(client, tid, s) for s in (0, 2)}
    table = live(client, tid)
    game = table.game
    given: dict[int, set[str]] = {0: set(), 2: set()}  # cards a seat itself gave away
    with client.websocket_connect(f"/ws/{tid}") as a, client.websocket_connect(f"/ws/{tid}") as b:
        socks = {0: a, 2: b}
        for s, ws in socks.items():
            joined(ws, s, tokens[s])
        checked = 0
        done: set[int] = set()

        def catch_up(s: int) -> dict[str, Any]:
            """Read seat ``s``'s messages up to the current position, checking each."""
            nonlocal checked
            while True:
                msg = socks[s].receive_json()
                _check_leak(msg, s, game, given)
                checked += 1
                if msg["type"] == "state" and len(msg["view"]["history"]) == len(game.events):
                    if msg["view"]["phase"] == "over":
                        done.add(s)
                    return msg

        for _ in range(2000):
            if game.is_over():
                break
            seat = game.to_move
            if seat not in socks:
                time.sleep(0.002)  # a bot is about to move
                continue
            st = catch_up(seat)
            if st["view"]["phase"] == "over" or st["view"]["to_move"] != seat:
                continue
            move = st["view"]["legal_moves"][-1]
            if move.startswith("give:"):
                given[seat].add(move[5:])
            socks[seat].send_json({"type": "move", "move": move})
        for s in socks:
            if s not in done:
                catch_up(s)
        assert game.is_over()
        assert checked > 20


def _check_leak(msg: dict[str, Any], seat: int, game: Any, given: dict[int, set[str]]) -> None:
    if msg["type"] != "state":
        return
    view = msg["view"]
    assert view["seat"] == seat
    assert "open_hands" not in view
    others = {str(c) for s in range(game.n) if s != seat for c in game.hand(s)}
    others -= given[seat]
    if game.rules.decks > 1:
        others -= {str(c) for c in game.hand(seat)}
    public = {k: v for k, v in msg.items() if k != "table"}  # rules name the opening card
    if view["phase"] == "over":
        # a finished deal shows every hand left face up (and only then)
        assert view["final_hands"] == [[str(c) for c in game.hand(s)] for s in range(game.n)]
        public["view"] = {k: v for k, v in view.items() if k != "final_hands"}
    else:
        assert "final_hands" not in view
    leaked = others & set(_strings(public))
    assert not leaked, f"seat {seat} was sent cards of other hands: {leaked}"


def test_whole_deal_with_bots_then_sheet_next_deal_record_and_replay(client: TestClient) -> None:
    tid = new_table(client, ["friend", "bot", "bot", "bot"], seed=99)
    token = claim(client, tid, 0, "Aino")
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = joined(ws, 0, token)
        hinted = False
        # before the deal ends, no record (it would show hands) and no replay
        assert client.get(f"/api/tables/{tid}/record").text == ""
        assert client.get(f"/api/tables/{tid}/deals/0/replay").status_code == 404
        for _ in range(200):
            if st["view"]["to_move"] != 0 or st["view"]["phase"] == "over":
                st = my_move_state(ws, 0)
            if st["view"]["phase"] == "over":
                break
            assert st["labels"] and set(st["labels"]) == set(st["view"]["legal_moves"])
            if not hinted:
                ws.send_json({"type": "hint", "lang": "en"})
                h = recv_until(ws, lambda m: m["type"] in ("hint", "error"))
                assert h["type"] == "hint" and h["move"] in st["view"]["legal_moves"]
                assert len(h["reason"]) > 10
                # the analysis's best move, or a rule of thumb that says so (issue 21)
                assert ("The analysis tried" in h["reason"] or "rule of thumb" in h["reason"]
                        or len(st["view"]["legal_moves"]) == 1)
                hinted = True
            ws.send_json({"type": "move", "move": st["view"]["legal_moves"][0]})
            seen: list[dict[str, Any]] = []
            recv_until(ws, lambda m: m["type"] == "ack", seen=seen)
            st = [m for m in seen if m["type"] == "state"][-1]  # the state after the move
        assert st["view"]["phase"] == "over"
        row = st["sheet"]["rows"][0]
        assert st["sheet"]["totals"] == row["points"]
        assert st["log"] and all(isinstance(x, str) for x in st["log"])
        ws.send_json({"type": "next-deal"})
        st = recv_until(ws, lambda m: m["type"] == "state" and m["deal"] == 2)
        assert st["view"]["phase"] != "over"
    rec = client.get(f"/api/tables/{tid}/record")
    lines = [json.loads(x) for x in rec.text.splitlines()]
    assert len(lines) == 1 and lines[0]["format"] == "ristiseiska-record"
    assert lines[0]["result"]["points"] == row["points"]
    from ristiseiska.record import replay_record

    assert replay_record(lines[0]).result.points == tuple(row["points"])
    rp = client.get(f"/api/tables/{tid}/deals/0/replay?lang=en").json()
    assert len(rp["frames"]) == len(lines[0]["events"]) + 1
    assert rp["frames"][-1]["text"]


def test_rules_page_and_catalogs(client: TestClient) -> None:
    tid = new_table(client, ["friend", "bot"])
    fi = client.get(f"/api/tables/{tid}/rules?lang=fi").json()["text"]
    en = client.get(f"/api/tables/{tid}/rules?lang=en").json()["text"]
    assert fi and en and fi != en
    cat_fi = client.get("/api/i18n/fi").json()
    cat_en = client.get("/api/i18n/en").json()
    web_fi = {k for k in cat_fi["texts"] if k.startswith("web.")}
    assert web_fi and web_fi == {k for k in cat_en["texts"] if k.startswith("web.")}
    assert cat_fi["cards"]["H6"] == "herttakuutonen"
    # Swedish (issue 61): the table's rules and the catalog, with the same keys
    sv = client.get(f"/api/tables/{tid}/rules?lang=sv").json()["text"]
    assert sv not in (fi, en) and "Klöver sju öppnar" in sv
    cat_sv = client.get("/api/i18n/sv").json()
    assert {k for k in cat_sv["texts"] if k.startswith("web.")} == web_fi
    assert cat_sv["cards"]["H6"] == "hjärter sex" and cat_sv["lang"] == "sv"


def test_pages_and_static_files(client: TestClient) -> None:
    assert "app.js" in client.get("/").text
    assert client.get("/t/abcdefghijkl").status_code == 200
    assert "export" in client.get("/static/vendor/htm-preact-standalone.mjs").text


def test_restart_continues_every_table_exactly(db: str) -> None:
    with TestClient(app_for(db)) as c:
        tid = new_table(c, ["friend", "bot", "friend"], seed=8)
        tokens = {s: claim(c, tid, s) for s in (0, 2)}
        with c.websocket_connect(f"/ws/{tid}") as ws:
            play_first_moves(ws, tokens, 6)  # a few moves by the friends (the bot answers at once)

        async def settled(table: Any) -> Any:
            """The game once the bot has answered: a friend to move, read under the table's
            lock (a bot's move is pushed, then stored, both under it: a read between the two
            saw a move that the stop cut off before it was saved or sent to anyone)."""
            for _ in range(500):
                async with table.lock:
                    g = table.game
                    if g.to_move in tokens:
                        return (list(map(str, g.moves)), g.to_move,
                                [list(map(str, g.hand(s))) for s in range(3)], g.token_holder)
                await asyncio.sleep(0.01)
            raise AssertionError("the bot did not answer")

        before = c.portal.call(settled, live(c, tid))  # type: ignore[union-attr]
        assert len(before[0]) >= 6
    with TestClient(app_for(db)) as c:
        assert tid not in c.app.state.tables.live  # type: ignore[attr-defined]  # nothing replayed at start-up
        assert c.get(f"/api/tables/{tid}").status_code == 200  # loaded on first visit
        g = live(c, tid).game
        after = (list(map(str, g.moves)), g.to_move, [list(map(str, g.hand(s))) for s in range(3)],
                 g.token_holder)
        assert after == before
        seat = g.to_move
        with c.websocket_connect(f"/ws/{tid}") as ws:
            st = joined(ws, seat, tokens[seat])  # old seat tokens still work
            assert sorted(st["view"]["hand"]) == sorted(before[2][seat])
            ws.send_json({"type": "move", "move": st["view"]["legal_moves"][0]})
            recv_until(ws, lambda m: m["type"] == "ack")


def test_bot_only_table_plays_by_itself(client: TestClient) -> None:
    tid = new_table(client, ["bot", "bot", "bot"], seed=4)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = recv_until(ws, lambda m: m["type"] == "state" and len(m["sheet"]["rows"]) >= 1,
                        limit=5000)
        assert st["view"]["hand"] == []


@pytest.mark.parametrize("preset_name", sorted(__import__("ristiseiska.rules").rules.PRESETS))
def test_every_preset_plays_a_deal_over_the_socket(client: TestClient, preset_name: str) -> None:
    from ristiseiska.rules import preset

    rules = preset(preset_name)
    n = max(rules.min_players, min(3, rules.max_players))
    kinds = ["friend"] + ["bot"] * (n - 1)
    tid = new_table(client, kinds, preset=preset_name, seed=17)
    token = claim(client, tid, 0)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = joined(ws, 0, token)
        for _ in range(600):
            if st["view"]["phase"] == "over":
                break
            if st["view"]["to_move"] != 0 or not st["view"]["legal_moves"]:
                st = current(ws, lambda m: m["view"]["phase"] == "over"
                             or m["view"]["to_move"] == 0 and bool(m["view"]["legal_moves"]))
                continue
            ws.send_json({"type": "move", "move": st["view"]["legal_moves"][-1]})
            seen: list[dict[str, Any]] = []
            recv_until(ws, lambda m: m["type"] in ("ack", "error"), seen=seen)
            assert seen[-1]["type"] == "ack", seen[-1]
            st = [m for m in seen if m["type"] == "state"][-1]
        assert st["view"]["phase"] == "over", preset_name
        assert st["sheet"]["rows"]
    rec = client.get(f"/api/tables/{tid}/record").text.splitlines()
    assert len(rec) == 1
    assert client.get(f"/api/tables/{tid}/deals/0/replay").status_code == 200


def test_every_card_has_a_face_and_the_licences_are_recorded(client: TestClient) -> None:
    names = {f"{s}{r}" for s in "CDHS" for r in ["A", *map(str, range(2, 11)), "J", "Q", "K"]}
    names |= {"J1", "J2", "B1", "B2"}
    for name in names:
        r = client.get(f"/static/cards/{name}.svg")
        assert r.status_code == 200 and r.text.startswith("<svg"), name
    assert "CC0" in client.get("/static/cards/README.md").text
    assert "Apache" in client.get("/static/vendor/LICENSE-htm.txt").text


def test_a_connection_that_stops_reading_is_cut_off_not_hoarded() -> None:
    from ristiseiska.web.tables import MAX_OUTBOX, Conn

    async def fill() -> Conn:
        conn = Conn()
        for i in range(MAX_OUTBOX + 50):
            conn.send({"type": "pong", "i": i})
        return conn

    import asyncio

    conn = asyncio.run(fill())
    assert conn.queue.qsize() == MAX_OUTBOX and conn.overflow


def test_a_table_whose_stored_moves_no_longer_replay_is_refused_cleanly(db: str) -> None:
    import asyncio

    async def corrupt(tid: str) -> None:
        store = Store(db)
        try:
            await store.add_move(tid, 0, 999, 0, "SK")  # a move out of thin air
        finally:
            await store.close()

    with TestClient(app_for(db)) as c:
        tid = new_table(c, ["friend", "friend"], seed=2)
    asyncio.run(corrupt(tid))
    with TestClient(app_for(db)) as c:
        r = c.get(f"/api/tables/{tid}")
        assert r.status_code == 400 and r.json()["error"] == "broken-table"
        with c.websocket_connect(f"/ws/{tid}") as ws:
            assert ws.receive_json()["code"] == "broken-table"
        ok = new_table(c, ["friend", "bot"], seed=3)  # the server itself carries on
        assert c.get(f"/api/tables/{ok}").status_code == 200

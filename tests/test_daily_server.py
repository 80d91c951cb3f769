"""The daily deal on the server (issue 57; daily/service.py, web/daily_api.py): the same deal
for everyone, a future day's cards out of reach, the published seed checking yesterday's
records, forged results refused and not counted, one counted try, the field, and a try at a
server table counted when its deal ends. One server for the module; the reference is the
``expert`` bot (no compiled kernel); each test has devices of its own."""

from __future__ import annotations

import json
import warnings
from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.daily import SEAT, DailyDeal, parse_day, play
from ristiseiska.game import Game
from ristiseiska.record import dumps_record, record_from_game

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for  # noqa: E402

NOON = datetime(2026, 12, 7, 10, 0, tzinfo=UTC)  # 12:00 in Helsinki
TODAY, YESTERDAY, TOMORROW = "2026-12-07", "2026-12-06", "2026-12-08"
CLOCK: list[datetime] = [NOON]


def dev(name: str) -> str:
    return f"{name}-device-key-0123456789"


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = f"sqlite+aiosqlite:///{tmp_path_factory.mktemp('daily') / 'web.db'}"
    app = app_for(db, daily={"reference": "expert", "clock": lambda: CLOCK[0],
                             "secret": b"test-secret-0123456789abcdef"})
    with TestClient(app) as c:
        yield c


@pytest.fixture(autouse=True)
def noon() -> Iterator[None]:
    CLOCK[0] = NOON
    yield
    CLOCK[0] = NOON


def package(c: TestClient, device: str, day: str = TODAY, preset: str = "ristiseiska"
            ) -> dict[str, Any]:
    r = c.post(f"/api/daily/{day}/{preset}/package", json={"device": device})
    assert r.status_code == 200, r.text
    return dict(r.json())


def deal_of(p: dict[str, Any]) -> DailyDeal:
    return DailyDeal(parse_day(p["day"]), p["preset"], p["seed"], p["salt"])


def first(v: Any) -> Any:
    return v.legal_moves[0]


def last(v: Any) -> Any:
    return v.legal_moves[-1]


def offline(p: dict[str, Any], chooser: Callable[[Any], Any] = first) -> dict[str, Any]:
    """The record a client writes after playing the package's deal on its own."""
    game = play(deal_of(p), chooser)
    return record_from_game(game, preset=p["preset"], extra=p["record_extra"])


def submit(c: TestClient, device: str, rec: Any, day: str = TODAY,
           preset: str = "ristiseiska") -> Any:
    text = rec if isinstance(rec, str) else dumps_record(rec)
    return c.post(f"/api/daily/{day}/{preset}/submit", json={"device": device, "record": text})


def result(c: TestClient, device: str, day: str = TODAY, preset: str = "ristiseiska") -> Any:
    return c.get(f"/api/daily/{day}/{preset}/result", params={"device": device})


def test_the_same_deal_for_everyone_and_another_each_day(client: TestClient) -> None:
    a, b = package(client, dev("same-a")), package(client, dev("same-b"))
    assert a["counted"] and b["counted"]
    assert a["seed"] == b["seed"] and a["bot_seeds"] == b["bot_seeds"]
    hands = deal_of(a).new_game().initial_hands
    assert hands == deal_of(b).new_game().initial_hands
    old = package(client, dev("same-a"), YESTERDAY)
    assert not old["counted"]  # a past day is practice
    assert old["seed"] != a["seed"] and deal_of(old).new_game().initial_hands != hands
    other = package(client, dev("same-a"), TODAY, "sjuan")
    assert other["seed"] != a["seed"]


@pytest.mark.parametrize("method, path", [
    ("post", "table"), ("post", "package"), ("post", "submit"), ("get", "result"),
    ("get", "record")])
def test_a_day_that_has_not_begun_is_refused_naming_why(client: TestClient, method: str,
                                                        path: str) -> None:
    CLOCK[0] = datetime(2026, 12, 7, 21, 59, tzinfo=UTC)  # 23:59 in Helsinki
    url = f"/api/daily/{TOMORROW}/ristiseiska/{path}"
    body = {"device": dev("future"), "record": "{}"}
    r = client.post(url, json=body) if method == "post" else client.get(url, params=body)
    assert r.status_code == 403
    assert r.json()["error"] == "not-begun"
    assert "not out yet" in r.json()["message"] and TOMORROW in r.json()["message"]
    lobby = client.get("/api/daily", params={"device": dev("future")}).json()
    assert lobby["day"] == TODAY
    assert {p["day"] for p in lobby["published"]} == {f"2026-12-0{d}" for d in range(0, 7)} - {
        "2026-12-00"} | {"2026-11-30"}  # the seven days before today, never today or later
    CLOCK[0] = datetime(2026, 12, 7, 22, 0, tzinfo=UTC)  # midnight in Helsinki: the new day
    assert client.post(f"/api/daily/{TOMORROW}/ristiseiska/package",
                       json={"device": dev("future")}).status_code == 200


def test_the_published_seed_verifies_yesterdays_record(client: TestClient, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    from ristiseiska.cli import main

    me = dev("verify")
    p = package(client, me)
    assert submit(client, me, offline(p)).status_code == 201
    today_record = client.get(f"/api/daily/{TODAY}/ristiseiska/record",
                              params={"device": me}).text
    assert "match_seed\"" not in today_record  # not while the day lasts
    before = client.get("/api/daily", params={"device": me}).json()
    assert all(x["day"] != TODAY for x in before["published"])
    CLOCK[0] = datetime(2026, 12, 8, 10, 0, tzinfo=UTC)
    lobby = client.get("/api/daily", params={"device": me}).json()
    pub = next(x for x in lobby["published"] if x["day"] == TODAY
               and x["preset"] == "ristiseiska")
    assert pub["seed"] == p["seed"] and pub["commitment"] == p["commitment"]
    assert {"preset": "ristiseiska", "commitment": p["commitment"]} in before["commitments"]
    assert lobby["yesterday"]["counted"] and lobby["streak"] == {"current": 1, "best": 1}
    text = client.get(f"/api/daily/{TODAY}/ristiseiska/record", params={"device": me}).text
    rec = json.loads(text)
    assert rec["match_seed"] == pub["seed"] and rec["match_seed_salt"] == pub["salt"]
    path = tmp_path / "yesterday.jsonl"
    path.write_text(text)
    assert main(["replay", "--check", "--verify-seed", str(path)]) == 0
    rec["match_seed"] += 1  # another seed does not open the commitment
    path.write_text(dumps_record(rec) + "\n")
    assert main(["replay", "--check", "--verify-seed", str(path)]) != 0
    capsys.readouterr()


def _bot_forged(p: dict[str, Any]) -> dict[str, Any]:
    """A record in which a bot made another move than its real answer."""
    deal = deal_of(p)
    game: Game = deal.new_game()
    bots = deal.bots()
    changed = False
    while not game.is_over():
        seat, legal = game.to_move, game.legal_moves()
        if seat == SEAT:
            game.push(legal[0])
            continue
        real = bots[seat].choose(game.view(seat))
        if not changed and len(legal) > 1:
            real, changed = next(m for m in legal if m != real), True
        game.push(real)
    assert changed
    return record_from_game(game, preset=p["preset"], extra=p["record_extra"])


def _illegal(rec: dict[str, Any]) -> dict[str, Any]:
    hand = set(rec["hands"][SEAT])
    ev = next(e for e in rec["events"] if e["seat"] == SEAT and e.get("card"))
    ev["card"] = next(c for h in rec["hands"][1:] for c in h if c not in hand)
    return rec


def _score(rec: dict[str, Any]) -> dict[str, Any]:
    rec["result"]["points"][SEAT] = max(0, rec["result"]["points"][SEAT] - 5)
    return rec


def _seat(rec: dict[str, Any]) -> dict[str, Any]:
    rec["you"] = 2
    return rec


def _unfinished(rec: dict[str, Any]) -> dict[str, Any]:
    rec["events"] = rec["events"][:10]
    rec["result"] = None
    return rec


@pytest.mark.parametrize("kind, code", [
    ("score", "score-mismatch"), ("other-day", "wrong-deal"), ("illegal", "illegal-move"),
    ("seat", "wrong-seat"), ("bot", "bot-mismatch"), ("unfinished", "unfinished"),
    ("garbage", "bad-record"), ("future", "not-begun")])
def test_a_forged_result_is_refused_with_its_reason_and_not_counted(
        client: TestClient, kind: str, code: str) -> None:
    me = dev(f"forge-{kind}")
    p = package(client, me)
    rec: Any = offline(p, last)
    day = TODAY
    if kind == "score":
        rec = _score(rec)
    elif kind == "other-day":
        rec = offline(package(client, me, YESTERDAY), last)
    elif kind == "illegal":
        rec = _illegal(rec)
    elif kind == "seat":
        rec = _seat(rec)
    elif kind == "bot":
        rec = _bot_forged(p)
    elif kind == "unfinished":
        rec = _unfinished(rec)
    elif kind == "garbage":
        rec = '{"format": "ristiseiska-record", '
    else:
        day = TOMORROW
    r = submit(client, me, rec, day)
    assert r.status_code in (403, 400, 422), r.text
    assert r.json()["error"] == code, r.text
    assert r.json()["message"]
    assert result(client, me).status_code == 404  # nothing stored
    lobby = client.get("/api/daily", params={"device": me}).json()
    assert lobby["offers"][0]["counted"] is None and lobby["streak"]["current"] == 0
    # the honest record of the same try still counts afterwards
    assert submit(client, me, offline(p, last)).status_code == 201


def test_one_counted_try_a_day(client: TestClient) -> None:
    me = dev("once")
    p = package(client, me)
    assert p["counted"] and package(client, me)["counted"]  # the same try fetched again
    r = client.post(f"/api/daily/{TODAY}/ristiseiska/table", json={"device": me, "name": "Aino"})
    assert r.status_code == 201 and r.json()["counted"] is False  # practice
    first_try = offline(p, first)
    r = submit(client, me, first_try)
    assert r.status_code == 201 and r.json()["counted"] is True
    again = submit(client, me, offline(p, last))
    assert again.status_code == 409 and again.json()["error"] == "second-try"
    assert result(client, me).json()["points"] == first_try["result"]["points"][SEAT]
    # a try begun at a table is the counted one: no offline copy, no submitted record
    other = dev("once-table")
    r = client.post(f"/api/daily/{TODAY}/ristiseiska/table", json={"device": other})
    assert r.status_code == 201 and r.json()["counted"] is True
    r = client.post(f"/api/daily/{TODAY}/ristiseiska/package", json={"device": other})
    assert r.status_code == 409 and r.json()["error"] == "no-package"
    r = submit(client, other, first_try)
    assert r.status_code == 409 and r.json()["error"] == "second-try"
    # no package fetched: nothing to count
    r = submit(client, dev("once-none"), first_try)
    assert r.status_code == 409 and r.json()["error"] == "no-try"


def test_the_field_of_three_players(client: TestClient) -> None:
    players = [dev(f"field-{k}") for k in range(3)]
    choosers = [first, last, lambda v: v.legal_moves[len(v.legal_moves) // 2]]
    points = []
    for me, choose in zip(players, choosers, strict=True):
        rec = offline(package(client, me, preset="sjuan"), choose)
        assert submit(client, me, rec, preset="sjuan").status_code == 201
        points.append(rec["result"]["points"][SEAT])
    for me, mine in zip(players, points, strict=True):
        res = result(client, me, preset="sjuan").json()
        f = res["field"]
        assert res["points"] == mine and f["players"] == 3
        assert sum(b["count"] for b in f["histogram"]) == 3
        assert f["rank"] == 1 + sum(1 for p in points if p < mine)
        assert res["master"]["level"] == "expert" and isinstance(res["master"]["points"], int)
        assert f"{f['rank']}./3" in res["share"]
        # the share text names no card
        from ristiseiska.cards import CARDS
        from ristiseiska.i18n import card_name

        assert not any(card_name(c, "fi") in res["share"] for c in CARDS)


def test_a_try_at_a_server_table_counts_when_the_deal_ends(client: TestClient) -> None:
    me = dev("table")
    r = client.post(f"/api/daily/{TODAY}/ristiseiska-pyynto/table",
                    json={"device": me, "name": "Aino"})
    assert r.status_code == 201, r.text
    tid, token = r.json()["id"], r.json()["token"]
    assert r.json()["counted"] is True and r.json()["seat"] == SEAT
    mine = []
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "join", "seat": SEAT, "token": token})
        for _ in range(5000):
            msg = ws.receive_json()
            if msg["type"] != "state" or msg["you"] != SEAT:
                continue
            view = msg["view"]
            if view["phase"] == "over":
                break
            if view["to_move"] == SEAT and view["legal_moves"]:
                move = view["legal_moves"][-1]
                mine.append(move)
                ws.send_json({"type": "move", "move": move})
        else:
            raise AssertionError("the deal did not end")
    res = result(client, me, preset="ristiseiska-pyynto").json()
    assert res["counted"] is True and res["table_id"] == tid
    # the bots at the table answered as the library's bots do: the same moves, the same end
    rec = json.loads(client.get(f"/api/daily/{TODAY}/ristiseiska-pyynto/record",
                                params={"device": me}).text)
    assert "match_seed" not in rec  # the seed waits for the day's end
    p = package(client, dev("table-check"), preset="ristiseiska-pyynto")
    from ristiseiska.daily import play_moves
    from ristiseiska.record import replay_record

    played = replay_record(rec)
    mine_moves = [m for m, e in zip(played.moves, played.events, strict=False)
                  if e.seat == SEAT]
    again = play_moves(deal_of(p), mine_moves)
    assert again.moves == played.moves and list(again.result.points)[SEAT] == res["points"]
    table_rec = client.get(f"/api/tables/{tid}/record").text
    assert "match_seed\"" not in table_rec
    assert json.loads(table_rec)["match_seed_commitment"] == p["commitment"]


def test_the_reference_is_played_once_and_kept_for_every_process(client: TestClient) -> None:
    from ristiseiska.daily.service import DailyService

    me = dev("reference")
    p = package(client, me, preset="sjuan")
    assert submit(client, me, offline(p), preset="sjuan").status_code == 201
    before = result(client, me, preset="sjuan").json()["master"]
    state = client.app.state  # type: ignore[attr-defined]
    mine = state.daily_service

    async def never(level: str, seed: int, view: Any) -> Any:
        raise AssertionError("the reference was played again")

    # another process: its own cache, a bot that must not be asked (the store has the play)
    state.daily_service = DailyService(state.store, secret=b"test-secret-0123456789abcdef",
                                       reference="expert", clock=lambda: CLOCK[0],
                                       choose=never)
    try:
        assert result(client, me, preset="sjuan").json()["master"] == before
    finally:
        state.daily_service = mine


def test_a_pooled_reference_plays_as_the_library_bot(client: TestClient) -> None:
    from ristiseiska.bots import get_bot
    from ristiseiska.daily import bot_seed, reference_game
    from ristiseiska.daily.service import DailyService

    state = client.app.state  # type: ignore[attr-defined]
    mine = state.daily_service
    asked = []

    async def expert(level: str, seed: int, view: Any) -> Any:  # as the bot pool answers
        asked.append(level)
        return get_bot(level, seed=seed).choose(view)

    state.daily_service = DailyService(state.store, secret=b"test-secret-0123456789abcdef",
                                       reference="expert", clock=lambda: CLOCK[0],
                                       choose=expert)
    try:
        me = dev("pooled")
        p = package(client, me, "2026-12-01", "ristiseiska-pyynto")
        r = submit(client, me, offline(p), "2026-12-01", "ristiseiska-pyynto")
        assert r.status_code == 409  # a past day never counts …
        r = client.post("/api/daily/2026-12-01/ristiseiska-pyynto/submit",
                        json={"device": me, "record": dumps_record(offline(p)),
                              "practice": True})
        assert r.status_code == 201 and r.json()["counted"] is False  # … it is practice
        deal = deal_of(p)
        want = reference_game(deal, get_bot("expert", seed=bot_seed(deal.seed, SEAT)))
        assert asked and r.json()["master"]["points"] == want.result.points[SEAT]
        assert r.json()["field"]["players"] == 1  # practice is not in the field
    finally:
        state.daily_service = mine


def test_a_linked_device_plays_for_its_player_and_deleting_the_player_deletes_its_results(
        client: TestClient) -> None:
    """Issue 58 meets 57: a device carried over by a transfer code has its player's counted
    try (a second one is refused), and deleting the identity deletes the daily results."""
    first_device, second_device = dev("moving-a"), dev("moving-b")
    p = package(client, first_device)
    assert submit(client, first_device, offline(p)).status_code == 201
    code = client.post("/api/identity/code", json={"device": first_device})
    assert code.status_code == 200, code.text
    r = client.post("/api/identity/link", json={"device": second_device, "code": code.json()["code"]})
    assert r.status_code == 200, r.text
    lobby = client.get("/api/daily", params={"device": second_device}).json()
    assert lobby["offers"][0]["counted"] is not None  # the first device's result
    again = client.post(f"/api/daily/{TODAY}/ristiseiska/package", json={"device": second_device})
    assert again.status_code == 200 and again.json()["counted"] is False  # practice only
    player = client.post("/api/identity/mine", json={"device": second_device}).json()["player"]
    # the player's page (issue 58) shows the counted result and the streak
    from ristiseiska import players

    shown = client.portal.call(players.daily_of, client.app.state.store, player)
    assert shown is not None and shown["results"][0]["day"] == TODAY, shown
    gone = client.post("/api/identity/delete", json={"device": second_device, "player": player})
    assert gone.status_code == 200, gone.text
    assert gone.json()["removed"].get("daily") == 1
    assert result(client, first_device).status_code == 404


@pytest.mark.parametrize("url, body, status, code", [
    ("/api/daily", {}, 400, "bad-device"),
    ("/api/daily", {"device": "short"}, 400, "bad-device"),
    (f"/api/daily/{TODAY}/hearts/package", {"device": dev("bad")}, 404, "bad-preset"),
    ("/api/daily/2026-13-01/ristiseiska/package", {"device": dev("bad")}, 400, "bad-day"),
    ("/api/daily/today/ristiseiska/table", {"device": dev("bad")}, 400, "bad-day"),
    (f"/api/daily/{TODAY}/ristiseiska/submit", {"device": dev("bad"), "record": 7}, 400,
     "bad-record"),
    (f"/api/daily/{TODAY}/ristiseiska/package", [1, 2], 400, "bad-request")])
def test_bad_input_is_a_clear_error_and_changes_nothing(client: TestClient, url: str,
                                                        body: Any, status: int,
                                                        code: str) -> None:
    r = client.post(url, json=body)
    assert r.status_code == status, r.text
    assert r.json()["error"] == code and r.json()["message"]
    lobby = client.get("/api/daily", params={"device": dev("bad")}).json()
    assert all(o["counted"] is None for o in lobby["offers"])
    # nothing was claimed: the first package is still the counted try
    assert package(client, dev("bad"), TODAY, "sjuan")["counted"] is True


def test_a_table_that_cannot_be_made_gives_the_counted_try_back(client: TestClient,
                                                               monkeypatch: pytest.MonkeyPatch
                                                               ) -> None:
    from ristiseiska.web.errors import ActionError

    tables = client.app.state.tables  # type: ignore[attr-defined]

    async def full(config: Any, table_id: Any = None) -> Any:
        raise ActionError("server-full", "the server has as many open tables as it can hold")

    me = dev("full")
    with monkeypatch.context() as m:
        m.setattr(tables, "create", full)
        r = client.post(f"/api/daily/{TODAY}/ristiseiska/table", json={"device": me})
        assert r.status_code == 429 and r.json()["error"] == "server-full"
    r = client.post(f"/api/daily/{TODAY}/ristiseiska/table", json={"device": me})
    assert r.status_code == 201 and r.json()["counted"] is True

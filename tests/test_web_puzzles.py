"""The puzzle trainer's JSON API: fair information (no answer, no hidden hand before the
choice), the verdict after it, and bad requests answered in words."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from ristiseiska.cards import parse_card
from ristiseiska.puzzles import position_of, shipped
from ristiseiska.web.app import create_app


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestClient]:
    db = tmp_path_factory.mktemp("pz") / "web.db"
    from ristiseiska.web.security import Limits

    # the module's hundreds of requests come from one test address: no per-address limits
    # (they are tested in test_web_hostile.py), else a fast machine meets 429 mid-module
    with TestClient(create_app(f"sqlite+aiosqlite:///{db}",
                               limits=Limits(per_address=False))) as c:
        yield c


def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for k, v in value.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v)


def _sample() -> list[dict[str, Any]]:
    return shipped()[::3]  # a third of the shipped set, every preset among them


def test_the_page_and_the_list(client: TestClient) -> None:
    r = client.get("/puzzles")
    assert r.status_code == 200 and "puzzles.js" in r.text
    items = client.get("/api/puzzles").json()["puzzles"]
    assert len(items) == len(shipped())
    for it in items:
        assert set(it) == {"id", "preset", "players", "grade", "rating"}


@pytest.mark.parametrize("lang", ["fi", "en"])
def test_the_position_never_leaks_the_answer_or_a_hidden_hand(client: TestClient, lang: str) -> None:
    for p in _sample():
        body = client.get(f"/api/puzzles/{p['id']}", params={"lang": lang}).json()
        for key in ("answer", "alternatives", "why", "difficulty", "record", "loss", "correct"):
            assert key not in body
        texts = list(_strings(body))
        assert p["why"][lang] not in texts
        # the legal moves come in the game's order, not best first
        game = position_of(p)
        assert [m["move"] for m in body["moves"]] == [str(m) for m in game.legal_moves()]
        # no card still hidden in another seat's hand (or in the stock) is named anywhere
        hidden = {str(c) for s in range(game.n) if s != p["seat"] for c in game.view(s).hand}
        hidden |= {str(c) for c in game._stock}
        codes = set()
        for s in texts:
            try:
                codes.add(str(parse_card(s)))
            except Exception:  # noqa: BLE001 - most strings are not cards
                pass
        assert not codes & hidden, (p["id"], codes & hidden)
        mine = sorted(str(c) for c in game.view(p["seat"]).hand)
        assert sorted(body["hand"]) == mine
        assert body["hand_sizes"] == [len(game.view(s).hand) for s in range(game.n)]
        assert len(body["history"]) == len(p["record"]["events"])


def test_a_choice_gets_the_verdict(client: TestClient) -> None:
    p = shipped()[0]
    r = client.post(f"/api/puzzles/{p['id']}/answer", json={"move": p["answer"], "lang": "fi"})
    assert r.status_code == 200
    v = r.json()
    assert v["correct"] is True and v["loss"] == 0 and v["why"] == p["why"]["fi"]
    assert v["verdict"].startswith("Paras siirto")
    assert [m["move"] for m in v["moves"]][0] == p["answer"]
    assert {m["move"] for m in v["moves"]} == {p["answer"]} | {a["move"] for a in p["alternatives"]}
    worst = max(p["alternatives"], key=lambda a: a["loss"])
    v = client.post(f"/api/puzzles/{p['id']}/answer", json={"move": worst["move"], "lang": "en"}).json()
    assert v["correct"] is False and v["loss"] == pytest.approx(worst["loss"])
    assert f"{worst['loss']:.1f} points" in v["verdict"] and v["why"] == p["why"]["en"]
    chosen = [m for m in v["moves"] if m["chosen"]]
    assert len(chosen) == 1 and chosen[0]["move"] == worst["move"] and chosen[0]["cost"]


@pytest.mark.parametrize("body, status, message", [
    ({"move": "ZZ"}, 400, "is not one of this position's moves"),
    ({"move": 3}, 400, "send {\"move\""),
    ([1, 2], 400, "send {\"move\""),
])
def test_bad_choices_are_answered_in_words(client: TestClient, body: Any, status: int, message: str) -> None:
    p = shipped()[0]
    r = client.post(f"/api/puzzles/{p['id']}/answer", json=body)
    assert r.status_code == status and message in r.json()["message"]


def test_unknown_puzzles_and_bad_bodies(client: TestClient) -> None:
    assert client.get("/api/puzzles/nope").status_code == 404
    assert client.post("/api/puzzles/nope/answer", json={"move": "C8"}).status_code == 404
    assert client.get("/api/puzzles/" + "x" * 500).status_code == 404
    p = shipped()[0]
    r = client.post(f"/api/puzzles/{p['id']}/answer", content=b"{not json",
                    headers={"Content-Type": "application/json"})
    assert r.status_code == 400


def test_the_static_files_are_there() -> None:
    static = Path(__file__).resolve().parents[1] / "src" / "ristiseiska" / "web" / "static"
    for name in ("puzzles.html", "puzzles.js", "puzzles.css"):
        assert (static / name).is_file()

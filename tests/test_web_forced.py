"""Forced moves made for a person (issue 52, web/forced.py): the table option ``auto_forced``,
the state frame's ``forced`` while the server waits, the move made after the pause with
``"auto": true`` in the history and a log sentence saying so (both languages), and nothing of
it when the option is off or when the player moves first."""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ristiseiska.web import forced as forcedmod

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for, claim, joined, live, new_table, recv_until  # noqa: E402

PAUSE = 0.3


@pytest.fixture
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    monkeypatch.setenv(forcedmod.PAUSE_ENV, str(PAUSE))
    with TestClient(app_for(f"sqlite+aiosqlite:///{tmp_path / 'f.db'}")) as c:
        c.db_url = f"sqlite+aiosqlite:///{tmp_path / 'f.db'}"  # type: ignore[attr-defined]
        yield c


def states(ws: Any, pred: Any, limit: int = 3000) -> dict[str, Any]:
    return recv_until(ws, lambda m: m["type"] == "state" and pred(m), limit)


def forced_turn(m: dict[str, Any]) -> bool:
    v = m["view"]
    return bool(v and v["to_move"] == 0 and v["phase"] != "over"
                and v["legal_moves"] == ["token"])


@pytest.mark.parametrize("value", [True, False])
def test_the_option_is_kept_and_shown_to_the_table(client: TestClient, value: bool) -> None:
    r = client.post("/api/tables", json={"seats": [{"kind": "friend"}, {"kind": "bot"}],
                                         "auto_forced": value})
    assert r.status_code == 201, r.text
    tid = r.json()["id"]
    assert r.json()["table"]["auto_forced"] is value
    assert live(client, tid).config["auto_forced"] is value
    assert client.get(f"/api/tables/{tid}").json()["auto_forced"] is value


def test_the_option_is_on_by_default_and_refuses_other_values(client: TestClient) -> None:
    r = client.post("/api/tables", json={"seats": [{"kind": "friend"}, {"kind": "bot"}]})
    assert r.json()["table"]["auto_forced"] is True
    before = len(client.app.state.tables.live)  # type: ignore[attr-defined]
    for bad in ("yes", 1, None, [True]):
        r = client.post("/api/tables", json={"seats": [{"kind": "friend"}, {"kind": "bot"}],
                                             "auto_forced": bad})
        assert r.status_code == 400 and r.json()["error"] == "bad-auto-forced", bad
        assert "true" in r.json()["message"]
    assert len(client.app.state.tables.live) == before  # type: ignore[attr-defined]


@pytest.mark.parametrize("lang", ["fi", "en"])
def test_the_token_is_taken_for_the_person_after_the_pause(client: TestClient,
                                                           lang: str) -> None:
    tid = new_table(client, ["friend", "bot", "bot", "bot"], seed=11)
    token = claim(client, tid, 0)
    with client.websocket_connect(f"/ws/{tid}") as ws:
        ws.send_json({"type": "lang", "lang": lang})
        st = joined(ws, 0, token)
        for _ in range(60):  # play the first card each turn until only the token is left
            if forced_turn(st):
                break
            v = st["view"]
            if v and v["to_move"] == 0 and v["legal_moves"]:
                ws.send_json({"type": "move", "move": v["legal_moves"][0]})
            st = states(ws, lambda m: forced_turn(m) or bool(
                m["view"] and m["view"]["to_move"] == 0 and m["view"]["legal_moves"]))
        assert forced_turn(st), "no forced token in 60 turns"
        assert st["forced"]["seat"] == 0 and st["forced"]["move"] == "token"
        assert 0 < st["forced"]["remaining_ms"] <= PAUSE * 1000
        shown = time.monotonic()
        ply = len(st["view"]["history"])
        after = states(ws, lambda m: m["view"] is not None
                       and len(m["view"]["history"]) > ply)
        assert time.monotonic() - shown >= PAUSE * 0.5, "made without the pause"
        ev = after["view"]["history"][ply]
        assert ev == {"seat": 0, "type": "token", "auto": True}
        want = {"fi": "(Ei pelattavaa korttia: siirto tehtiin pelaajan puolesta.)",
                "en": "(No card to play: the move was made for the player.)"}[lang]
        assert after["log"][ply].endswith(want), after["log"][ply]
        assert after.get("forced") is None or after["forced"]["seat"] != 0 or len(
            after["view"]["history"]) > ply
    t = live(client, tid)
    assert (0, ply) in t.forced.marks
    # the mark is stored: a server started afresh on the same database says the same
    with TestClient(app_for(client.db_url)) as again, \
            again.websocket_connect(f"/ws/{tid}") as ws:  # type: ignore[attr-defined]
        ws.send_json({"type": "lang", "lang": lang})
        st = joined(ws, 0, token)
        assert st["view"]["history"][ply] == {"seat": 0, "type": "token", "auto": True}
        assert st["log"][ply].endswith(want)


def test_a_player_who_moves_first_is_not_marked_and_the_option_off_waits(
        client: TestClient) -> None:
    for auto in (True, False):
        tid = new_table(client, ["friend", "bot", "bot", "bot"], seed=11, auto_forced=auto)
        token = claim(client, tid, 0)
        with client.websocket_connect(f"/ws/{tid}") as ws:
            st = joined(ws, 0, token)
            for _ in range(60):
                if forced_turn(st):
                    break
                v = st["view"]
                if v and v["to_move"] == 0 and v["legal_moves"]:
                    ws.send_json({"type": "move", "move": v["legal_moves"][0]})
                st = states(ws, lambda m: forced_turn(m) or bool(
                    m["view"] and m["view"]["to_move"] == 0 and m["view"]["legal_moves"]))
            assert forced_turn(st)
            ply = len(st["view"]["history"])
            if auto:
                assert st["forced"]["move"] == "token"
                ws.send_json({"type": "move", "move": "token"})  # at once, by hand
                after = states(ws, lambda m, ply=ply: len(m["view"]["history"]) > ply)
                assert after["view"]["history"][ply] == {"seat": 0, "type": "token"}
                assert (0, ply) not in live(client, tid).forced.marks
            else:
                assert "forced" not in st
                time.sleep(PAUSE * 3)
                g = live(client, tid).game
                assert len(g.moves) == ply and g.to_move == 0, "made with the option off"

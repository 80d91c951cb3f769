"""No hand before the deal starts (issue 19): while a table waits for friends, nobody — the
host included — gets any card of the deal, over HTTP or the WebSocket; once it starts, the
hands are the ones the match seed committed at creation fixes."""

from __future__ import annotations

import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ristiseiska import fair
from ristiseiska.cards import CARDS
from ristiseiska.match import Match

warnings.filterwarnings("ignore", message=".*httpx2.*")
from fastapi.testclient import TestClient  # noqa: E402

from test_web import app_for, claim, joined, live, new_table, recv_until  # noqa: E402

# every card's text, with and without the second deck's mark
CARD_TEXTS = {c.notation(m) for c in CARDS for m in (False, True)}


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(app_for(f"sqlite+aiosqlite:///{tmp_path / 'w.db'}")) as c:
        yield c


def cards_in(value: Any, path: str = "") -> list[str]:
    """Where a frame names a card (the rules' own settings, such as the opening card, are
    rules and not part of the deal, so the ``rules`` object is left out)."""
    found: list[str] = []
    if isinstance(value, dict):
        for k, v in value.items():
            if k == "rules":
                continue
            if k in ("hand", "final_hands", "open_hands", "dead") and v:
                found.append(f"{path}.{k}")
            found += cards_in(v, f"{path}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            found += cards_in(v, f"{path}[{i}]")
    elif isinstance(value, str) and (value in CARD_TEXTS
                                     or any(w in CARD_TEXTS for w in value.split())):
        found.append(f"{path}={value!r}")
    return found


def drain(ws: Any, seconds: float = 0.3) -> list[dict[str, Any]]:
    """Every frame the socket gets until it has been quiet a moment (a ping ends the wait)."""
    ws.send_json({"type": "ping"})
    frames = [ws.receive_json()]
    while frames[-1]["type"] != "pong":
        frames.append(ws.receive_json())
    time.sleep(seconds)
    ws.send_json({"type": "ping"})
    frames.append(ws.receive_json())
    while frames[-1]["type"] != "pong":
        frames.append(ws.receive_json())
    return frames


@pytest.mark.parametrize("preset, seats", [
    ("ristiseiska", ["friend", "bot", "friend", "bot"]),
    ("kaksi-erilaista-pakkaa", ["friend", "friend", "bot"]),
    ("domino-fan-tan", ["friend", "friend"]),
    ("jokerit", ["friend", "friend", "bot"]),
    ("kahdestaan-pakka", ["friend", "friend"]),
])
def test_the_hosts_frames_carry_no_card_before_the_start(client: TestClient, preset: str,
                                                         seats: list[str]) -> None:
    tid = new_table(client, seats, preset=preset, seed=11)
    t0 = claim(client, tid, 0, "Aino")
    frames: list[Any] = [client.get(f"/api/tables/{tid}").json()]
    with client.websocket_connect(f"/ws/{tid}") as ws, \
            client.websocket_connect(f"/ws/{tid}") as spy:
        st = joined(ws, 0, t0)
        assert st["table"]["waiting"] is True and st["view"] is None
        ws.send_json({"type": "hint"})
        ws.send_json({"type": "lang", "lang": "en"})
        frames += [st, *drain(ws), *drain(spy)]
        frames.append(client.get(f"/api/tables/{tid}").json())
        found = [f"frame {i}: {w}" for i, f in enumerate(frames) for w in cards_in(f)]
        assert found == [], found
        # the host starts: now the host's hand comes, the one the committed seed deals
        ws.send_json({"type": "start"})
        st = recv_until(ws, lambda m: m["type"] == "state" and m["view"] is not None)
        table = live(client, tid)
        seed = int(table.config["seed"])
        assert table.config["seed_commitment"] == fair.commitment(seed,
                                                                   table.config["seed_salt"])
        deal = Match(table.rules, table.n, seed=seed).new_deal()
        mark = table.rules.distinct_decks
        assert st["view"]["hand"] == [c.notation(mark) for c in deal.hand(0)]
        assert st["view"]["hand"]


def test_a_guest_who_sits_down_last_starts_the_deal_and_both_get_their_hands(
        client: TestClient) -> None:
    tid = new_table(client, ["friend", "friend", "bot"], seed=3)
    t0 = claim(client, tid, 0, "Aino")
    with client.websocket_connect(f"/ws/{tid}") as ws:
        st = joined(ws, 0, t0)
        assert st["view"] is None
        t1 = claim(client, tid, 1, "Olli")
        st = recv_until(ws, lambda m: m["type"] == "state" and m["view"] is not None)
        assert len(st["view"]["hand"]) > 0 and "table" in st
        assert st["table"]["waiting"] is False
        with client.websocket_connect(f"/ws/{tid}") as ws1:
            assert len(joined(ws1, 1, t1)["view"]["hand"]) > 0


def test_a_waiting_table_rebuilt_from_storage_still_shows_no_hand(tmp_path: Path) -> None:
    db = f"sqlite+aiosqlite:///{tmp_path / 'w.db'}"
    with TestClient(app_for(db)) as c:
        tid = new_table(c, ["friend", "friend"], preset="kahdestaan-pakka", seed=4)
        t0 = claim(c, tid, 0, "Aino")
    with TestClient(app_for(db)) as c, c.websocket_connect(f"/ws/{tid}") as ws:
        st = joined(ws, 0, t0)
        assert st["table"]["waiting"] is True and st["view"] is None
        assert cards_in(drain(ws)) == []

"""The Bot API's ``rl`` frames (issue 59) are the environments' own encoding: the same
observation and action mask as ``AgentBot`` (and so the Gymnasium environment) makes of the
seat's view, and an action id plays the move the environments mean by it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import numpy as np
from fastapi.testclient import TestClient

from ristiseiska.rl.agent import AgentBot
from ristiseiska.store import Store, bot_tokens
from ristiseiska.web.app import create_app
from ristiseiska.web.security import Limits


async def _add(db: str, name: str) -> str:
    store = Store(db)
    try:
        await store.migrate()
        return await bot_tokens.add_bot(store, name)
    finally:
        await store.engine.dispose()


def _frame(ws: Any, kind: str) -> dict[str, Any]:
    for _ in range(200):
        msg = ws.receive_json()
        if msg["type"] == kind:
            return dict(msg)
    raise AssertionError(f"no {kind} frame")


def test_rl_frames_are_the_environments_encoding(tmp_path: Path) -> None:
    db = f"sqlite+aiosqlite:///{tmp_path / 'rl.db'}"
    token = asyncio.run(_add(db, "rlbot"))
    # while the program is to move nothing changes (its clock is 30 s): frame and game compare
    app = create_app(db, bot_delay=0.0, limits=Limits(per_address=False))
    with TestClient(app) as client:
        r = client.post("/api/tables", json={"seed": 11, "seats": [
            {"kind": "bot-api", "bot": "rlbot"}, {"kind": "bot", "bot": "basic"},
            {"kind": "bot", "bot": "basic"}]})
        assert r.status_code == 201, r.text
        tid = r.json()["id"]
        t = client.app.state.tables.live[tid]  # type: ignore[attr-defined]
        agent = AgentBot(policy=lambda obs: int(np.flatnonzero(obs["action_mask"])[0]))
        with client.websocket_connect(f"/ws/{tid}", headers={"Authorization": "Bearer x"}) as ws:
            assert ws.receive_json()["code"] == "bad-bot-token"  # a bearer token of no bot
        # another scheme (a site behind HTTP Basic auth) is not a program: a spectator until
        # it sends "auth"
        with client.websocket_connect(f"/ws/{tid}", headers={"Authorization": "Basic x"}) as ws:
            assert ws.receive_json()["you"] is None
            ws.send_json({"type": "auth", "token": token, "format": "rl"})
            for _ in range(3):  # a few of its moves (the stand-in never comes: 30 s clock)
                rl = _frame(ws, "rl")
                while not rl["to_move"]:
                    rl = _frame(ws, "rl")
                view = t.game.view(rl["seat"])
                want = agent.observe(view)
                assert rl["observation"] == want["observation"].tolist()
                assert rl["action_mask"] == want["action_mask"].tolist()
                assert rl["legal_actions"] == np.flatnonzero(want["action_mask"]).tolist()
                action = int(agent.act(want))
                move = agent.encoding(view).action_to_move(action, view.legal_moves)
                ws.send_json({"type": "move", "action": action, "id": rl["ply"]})
                ack = _frame(ws, "ack")
                assert ack["move"] == move.text(view.rules.distinct_decks)
            ws.send_json({"type": "auth", "token": token, "format": "xml"})
            assert _frame(ws, "error")["code"] == "bad-format"


def test_a_rematch_keeps_the_programs_seat(tmp_path: Path) -> None:
    from ristiseiska.web.rematch import rematch_config

    db = f"sqlite+aiosqlite:///{tmp_path / 're.db'}"
    asyncio.run(_add(db, "again"))
    with TestClient(create_app(db, bot_delay=0.0, limits=Limits(per_address=False))) as client:
        r = client.post("/api/tables", json={"seats": [
            {"kind": "friend"}, {"kind": "bot-api:again", "name": "Robo"},
            {"kind": "bot", "bot": "basic"}]})
        assert r.status_code == 201, r.text
        info = r.json()["table"]
        assert info["clock"] == 30 and info["seats"][1]["taken"] and info["host"] == 0
        claimed = client.post(f"/api/tables/{r.json()['id']}/seats/1", json={"name": "X"})
        assert claimed.status_code == 400 and claimed.json()["error"] == "bot-seat"
        t = client.app.state.tables.live[r.json()["id"]]  # type: ignore[attr-defined]
        assert rematch_config(t)["seats"][1] == {"kind": "friend", "bot": None, "name": "Robo",
                                                 "api": "again"}

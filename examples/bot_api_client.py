"""A Bot API client: plays its seat at a ristiseiska server's table to the match's end.

    ristiseiska bots add mybot            # prints the token once
    python examples/bot_api_client.py ws://127.0.0.1:8000 TABLE_ID TOKEN

The table's creator seated the bot with ``{"kind": "bot-api:mybot"}`` (docs/web-api.md, *The
Bot API*). Its rule: play the lowest legal card, else whatever is legal (stop, pass, …).
Needs only the ``websockets`` library (13 or newer).
"""

from __future__ import annotations

import argparse
import asyncio
import json

from websockets.asyncio.client import connect

RANKS = "A23456789TJQK"


def choose(legal: list[str]) -> str:
    """The lowest card in ``legal`` (moves such as "H6"), else its first move."""
    cards = [m for m in legal if len(m) >= 2 and m[1] in RANKS and m[0] in "CDHS"]
    return min(cards, key=lambda m: RANKS.index(m[1])) if cards else legal[0]


async def play(url: str, table: str, token: str, delay: float = 0.0) -> dict:
    headers = {"Authorization": f"Bearer {token}"}
    async with connect(f"{url}/ws/{table}", additional_headers=headers) as ws:
        sent = None  # (deal, ply) answered already: one move per position
        async for raw in ws:
            msg = json.loads(raw)
            if msg["type"] == "error":
                if msg["code"] in ("bad-bot-token", "not-seated"):
                    raise SystemExit(f"refused: {msg['message']}")
                if msg["code"] == "seat-held":  # too slow twice: take the seat back
                    await ws.send(json.dumps({"type": "back"}))
                    sent = None
                continue
            if msg["type"] != "state":
                continue
            if msg["sheet"]["over"]:
                return msg["sheet"]
            view = msg["view"]
            if view is None:
                continue  # the table waits for its players
            if view["result"] is not None:  # the deal is over: the next one
                await ws.send(json.dumps({"type": "next-deal"}))
                continue
            where = (msg["deal"], len(view["history"]))
            if view["legal_moves"] and where != sent:
                sent = where
                await asyncio.sleep(delay)
                move = choose(view["legal_moves"])
                await ws.send(json.dumps({"type": "move", "move": move}))
    raise SystemExit("the server closed the connection before the match ended")


if __name__ == "__main__":
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("url", help="the server, e.g. ws://127.0.0.1:8000")
    p.add_argument("table", help="the table's id (from /t/ID)")
    p.add_argument("token", help="the bot's token from `ristiseiska bots add`")
    p.add_argument("--delay", type=float, default=0.0, help="seconds to think per move")
    a = p.parse_args()
    sheet = asyncio.run(play(a.url, a.table, a.token, a.delay))
    print("match over; totals:", sheet["totals"])

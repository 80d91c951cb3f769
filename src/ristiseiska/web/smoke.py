"""Check a running server end to end, the way a first visitor uses it.

    python -m ristiseiska.web.smoke http://127.0.0.1:8000/

Fetches the lobby page and its metadata, creates a table of one friend seat and three bots
(``master``, ``expert``, ``basic``) over the HTTP API, claims the friend seat, plays it over the
WebSocket (a seeded random legal move each turn) and waits until the deal is over. Uses only
the standard library, ``websockets`` (a dependency of the server) and nothing else, so it runs in
a plain install; ``python3 dev.py test`` runs it against a freshly installed copy. Exit status 0
when everything worked, 1 with a one-line reason otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import time
import urllib.error
import urllib.request
from typing import Any

SEATS = [{"kind": "friend", "name": "Smoke"}, {"kind": "bot", "bot": "master"},
         {"kind": "bot", "bot": "expert"}, {"kind": "bot", "bot": "basic"}]


class SmokeError(Exception):
    """What went wrong, in one line."""


def _request(url: str, body: dict[str, Any] | None = None, timeout: float = 30) -> Any:
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(url, data=data, method="POST" if body is not None else "GET",
                                 headers={"content-type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
            kind = r.headers.get("content-type", "")
    except urllib.error.HTTPError as e:
        raise SmokeError(f"{url}: HTTP {e.code}: {e.read()[:300]!r}") from None
    except (urllib.error.URLError, OSError) as e:
        raise SmokeError(f"{url}: cannot connect: {getattr(e, 'reason', e)}") from None
    return json.loads(raw) if "json" in kind else raw.decode("utf-8", "replace")


async def _play(ws_url: str, token: str, seed: int, deadline: float) -> dict[str, Any]:
    import websockets

    rng = random.Random(seed)
    moved_at: tuple[int, int] = (-1, -1)
    async with websockets.connect(ws_url, open_timeout=30, max_size=2**22) as ws:
        await ws.send(json.dumps({"type": "join", "seat": 0, "token": token}))
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SmokeError("the deal did not finish in time")
            try:
                msg = json.loads(await asyncio.wait_for(ws.recv(), left))
            except TimeoutError:
                raise SmokeError("the deal did not finish in time") from None
            kind = msg.get("type")
            if kind == "error":
                raise SmokeError(f"the server refused: {msg.get('code')}: {msg.get('message')}")
            if kind != "state" or msg.get("you") != 0 or msg.get("view") is None:
                continue
            view = msg["view"]
            if view["phase"] == "over":
                return dict(msg)
            if view["to_move"] != 0 or not view["legal_moves"]:
                continue
            here = (int(msg.get("deal", 0)), len(view["history"]))
            if here == moved_at:  # one move per position; the next state answers it
                continue
            moved_at = here
            await ws.send(json.dumps({"type": "move", "move": rng.choice(view["legal_moves"])}))


def check(base: str, timeout: float = 600.0, seed: int = 1,
          say: Any = print) -> dict[str, Any]:
    """Run the check against the server at ``base``; a summary, or :class:`SmokeError`."""
    base = base.rstrip("/")
    start = time.monotonic()
    page = _request(base + "/")
    if not isinstance(page, str) or "<html" not in page.lower():
        raise SmokeError(f"{base}/ did not return the lobby page")
    meta = _request(base + "/api/meta?lang=en")
    missing = [s["bot"] for s in SEATS if s.get("bot") and s["bot"] not in meta.get("bots", [])]
    if missing:
        raise SmokeError(f"the server does not offer the bots {missing}")
    say("smoke: lobby page and metadata OK")
    table = _request(base + "/api/tables", {"preset": "ristiseiska", "seed": seed, "seats": SEATS})
    tid = table["id"]
    token = _request(f"{base}/api/tables/{tid}/seats/0", {"name": "Smoke"})["token"]
    say(f"smoke: table {tid} created (friend + master, expert, basic); playing seat 0")
    ws_url = base.replace("http://", "ws://", 1).replace("https://", "wss://", 1) + f"/ws/{tid}"
    final = asyncio.run(_play(ws_url, token, seed, start + timeout))
    view = final["view"]
    points = view.get("result", {}).get("points") if isinstance(view.get("result"), dict) else None
    summary = {"table": tid, "moves": len(view["history"]), "points": points,
               "seconds": round(time.monotonic() - start, 1)}
    say(f"smoke: the deal finished after {summary['moves']} moves in {summary['seconds']} s "
        f"(points {points})")
    return summary


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m ristiseiska.web.smoke", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("url", help="the server's address, e.g. http://127.0.0.1:8000/")
    p.add_argument("--timeout", type=float, default=600.0,
                   help="seconds for the whole check (default 600)")
    p.add_argument("--seed", type=int, default=1, help="the table's seed and our moves' seed")
    args = p.parse_args(argv)
    try:
        check(args.url, timeout=args.timeout, seed=args.seed)
    except SmokeError as e:
        print(f"smoke: FAILED: {e}", file=sys.stderr)
        return 1
    print("smoke: passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())

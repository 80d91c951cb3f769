"""The Bot API (issue 59; docs/web-api.md, *The Bot API*): outside programs at the tables.

A host makes an identity with ``ristiseiska bots add NAME`` (store/bot_tokens.py: only the
token's hash is kept). A table's creator seats it with the seat ``{"kind": "bot-api:NAME"}``
(or ``{"kind": "bot-api", "bot": NAME}``): a friend seat that counts as taken, that no person
may claim, and that only that program's token joins. The program connects to ``/ws/{table}``
with ``Authorization: Bearer TOKEN`` (or sends ``{"type": "auth", "token": T}`` first, for
clients that cannot set headers) and is seated at once (refused: an error frame; after the
header the socket is closed, 4401 or 4403); from then on it speaks the table
protocol of web/app.py for its own seat only. A table with such a seat always has a turn
clock (:data:`DEFAULT_CLOCK` unless the creator chose one): a program that does not answer
in time gets the clock's stand-in, as any player (web/clock.py).

``"format": "rl"`` (in the auth message, or ``?format=rl`` on the socket's URL) adds an
``{"type": "rl", ...}`` frame after every state: the observation and the legal action ids
exactly as the ``ristiseiska.rl`` environments encode them (rl/encoding.py), and the program
may answer ``{"type": "move", "action": ID}``.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Any

from ..store import Store, bot_tokens
from .connections import Conn
from .errors import ActionError

DEFAULT_CLOCK = 30  # seconds per decision at a table with a Bot API seat and no clock chosen
KIND = "bot-api"
FORMATS = ("json", "rl")
MAX_KNOWLEDGE = 64


def seat_name(seat: Any) -> str | None:
    """The bot's name if ``seat`` (a create-table request's seat) is a Bot API seat."""
    if not isinstance(seat, dict) or not isinstance(seat.get("kind"), str):
        return None
    kind = seat["kind"]
    if kind == KIND:
        name = seat.get("bot")
    elif kind.startswith(KIND + ":"):
        name = kind[len(KIND) + 1:]
    else:
        return None
    try:
        return bot_tokens.check_name(name)
    except bot_tokens.BotTokenError as e:
        raise ActionError("bad-seats", f"Bot API seat: {e}") from None


def normalise(data: Any) -> tuple[Any, dict[int, str]]:
    """The request with each Bot API seat as a named friend seat, and those seats' bots."""
    if not isinstance(data, dict) or not isinstance(data.get("seats"), list):
        return data, {}
    seats, api = [], {}
    for i, s in enumerate(data["seats"]):
        name = seat_name(s)
        if name is None:
            seats.append(s)
            continue
        api[i] = name
        shown = s.get("name") if isinstance(s.get("name"), str) and s.get("name") else name
        seats.append({"kind": "friend", "name": shown})
    if not api:
        return data, {}
    out = {**data, "seats": seats}
    if out.get("clock") is None:  # a program that never answers must not stop the table
        out["clock"] = DEFAULT_CLOCK
    return out, api


async def check_bots(store: Store, config: dict[str, Any], api: dict[int, str]) -> None:
    """Mark the configuration's Bot API seats; every bot must exist (``unknown-bot``)."""
    for i, name in api.items():
        if not await bot_tokens.exists(store, name):
            raise ActionError("unknown-bot", f"seat {i + 1}: no Bot API bot named {name!r} on "
                              "this server (its host adds one with: ristiseiska bots add NAME)")
        config["seats"][i]["api"] = name


async def build(store: Store, data: Any, build_config: Callable[..., dict[str, Any]],
                max_deals: int) -> dict[str, Any]:
    """A create-table request's configuration (web/app.py's ``build_config``), its Bot API
    seats checked against the store and marked."""
    data, api = normalise(data)
    config = build_config(data, max_deals)
    await check_bots(store, config, api)
    return config


async def admit(websocket: Any, t: Any, conn: Conn, token: str) -> bool:
    """Seat a program that connected with ``Authorization: Bearer``; a refusal is told to it
    alone and the socket closed (4401 for a token of no bot, else 4403): ``False``."""
    try:
        await seat_bot(t, conn, token, websocket.query_params.get("format"))
        return True
    except ActionError as e:
        with contextlib.suppress(Exception):
            await websocket.send_json({"type": "error", "code": e.code, "message": e.message})
            await websocket.close(code=4401 if e.code == "bad-bot-token" else 4403)
        return False


def bearer(headers: Any) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header, if there is one. Any other
    scheme is not ours (e.g. a site behind HTTP Basic auth: every page's socket carries it)."""
    value = headers.get("authorization")
    if not isinstance(value, str):
        return None
    scheme, _, token = value.strip().partition(" ")
    return token.strip() if scheme.lower() == "bearer" else None


def check_format(fmt: Any, knowledge: Any = None) -> tuple[str, int | None]:
    if fmt is None:
        fmt = "json"
    if fmt not in FORMATS:
        raise ActionError("bad-format", f"format is 'json' or 'rl', not {str(fmt)[:20]!r}")
    if knowledge is not None and (not isinstance(knowledge, int) or isinstance(knowledge, bool)
                                  or not 0 <= knowledge <= MAX_KNOWLEDGE):
        raise ActionError("bad-format", f"knowledge is a number of last plays from 0 to "
                          f"{MAX_KNOWLEDGE}, as the environments' knowledge=")
    return fmt, knowledge


async def seat_bot(t: Any, conn: Conn, token: Any, fmt: Any = None,
                   knowledge: Any = None) -> int:
    """Join ``conn`` to the seat its bot holds at ``t``. Raises ``bad-bot-token`` (a token of
    no bot: wrong or removed) or ``not-seated`` (this table did not seat that bot)."""
    fmt, knowledge = check_format(fmt, knowledge)
    if conn.seat is not None:
        raise ActionError("seated", "this connection has a seat already")
    name = await bot_tokens.bot_of(t.store, token)
    if name is None:
        raise ActionError("bad-bot-token", "that is not the token of any bot on this server "
                          "(a wrong token, or its bot was removed)")
    seat = next((i for i, s in enumerate(t.seats) if s.api == name), None)
    if seat is None:
        raise ActionError("not-seated", f"this table has no seat for the bot {name!r}")
    if t.follower and t.on_claim is not None:  # this process takes the table, as a join does
        await t.on_claim(t)
    await t.join(conn, seat, None, api=name)
    conn.api = name
    conn.fmt = fmt
    conn.knowledge = knowledge
    return seat


async def send_rl(websocket: Any, t: Any, conn: Conn) -> None:
    """The rl frame that follows a state sent to an ``rl`` connection."""
    from .table_views import _dumps

    frame = rl_frame(t, conn)
    if frame is not None:
        await websocket.send_text(_dumps(frame))


def move_of(t: Any, conn: Conn, msg: dict[str, Any]) -> Any:
    """A move message's move: its ``move`` text, or the one its rl ``action`` id means."""
    return action_move(t, conn, msg["action"]) if "action" in msg else msg.get("move")


def rl_frame(t: Any, conn: Conn) -> dict[str, Any] | None:
    """The environments' observation of the connection's seat now (``None`` before a deal)."""
    from ..rl.encoding import Encoding

    g = t.game
    if conn.seat is None or g is None or not t.started:
        return None
    view = g.view(conn.seat)
    enc = Encoding(g.rules, g.n, conn.knowledge)
    mask = enc.legal_mask(view.legal_moves)
    return {"type": "rl", "deal": len(t.games), "ply": len(g.moves), "seat": conn.seat,
            "to_move": bool(view.legal_moves), "num_actions": enc.num_actions,
            "observation": [float(x) for x in enc.observe(view)],
            "action_mask": [int(x) for x in mask],
            "legal_actions": [int(i) for i in mask.nonzero()[0]]}


def action_move(t: Any, conn: Conn, action: Any) -> str:
    """The move text an ``rl`` action id means now (``bad-action`` if it is not legal)."""
    from ..rl.encoding import ActionError as BadAction
    from ..rl.encoding import Encoding

    g = t.game
    if conn.seat is None or g is None:
        raise ActionError("not-seated", "spectators cannot play; take a seat first")
    if not isinstance(action, int) or isinstance(action, bool):
        raise ActionError("bad-action", "an action is a whole number (an environment's id)")
    view = g.view(conn.seat)
    try:
        move = Encoding(g.rules, g.n, conn.knowledge).action_to_move(action, view.legal_moves)
    except (BadAction, ValueError) as e:
        raise ActionError("bad-action", str(e)[:200]) from None
    return str(move.text(g.rules.distinct_decks))

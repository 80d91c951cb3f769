"""Rated play in the web game (issue 58; the model: ristiseiska/ratings, docs/ratings.md).

The table option ``"rated"`` (true or false) says whether a finished match counts for the
players' ratings; its default is the ``open`` option's (open tables and quick games are rated,
friends' tables are not). A player is recognised by the device they sat down with (issue 47),
as ``identity.player_of`` names its player (a device linked to another's identity counts for it);
a person without one, a bot and a stand-in that filled an empty seat are opponents of fixed
strength (a new player's, the level's rating in ``ratings/bots.json``). A person whose seat a
stand-in plays at the end has left: ranked last. The match is rated once, when it ends (by
whichever process stores its last move).

``POST /api/ratings/mine`` ``{"device": KEY}`` answers the player's rating in each family:
``{"ratings": {FAMILY: {"rating": 1500, "provisional": true, "matches": 0, "like": LEVEL}},
"handle": HANDLE | null}`` (``like``: the bot level nearest in rating; ``handle``: the
player's public page ``/p/{handle}``, web/player_pages.py, once they have a rated match).
"""

from __future__ import annotations

import logging
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ..identity import player_of, players_of
from ..players import nearest_level
from ..ratings import FAMILIES, Rating, bot_rating, family, standings
from ..rules import PRESETS, Rules, preset
from ..store import history
from ..store import ratings as stored
from ..store.history import SeatFacts
from . import bots as botlib
from .errors import ActionError
from .seats import check_device
from .security import json_body

log = logging.getLogger("ristiseiska.web")
router = APIRouter()


def option(data: dict[str, Any]) -> dict[str, Any]:
    """The ``rated`` table option for :func:`web.app.build_config` (default: ``open``'s)."""
    value = data.get("rated", data.get("open", False) is True)
    if not isinstance(value, bool):
        raise ActionError("bad-rated", "'rated' is true (the match counts for ratings) or false")
    return {"rated": value}


def player_id(device_hash: str) -> str:
    """The id of the player who first played on this device; whose a device is now (it may
    be linked to another player): ``await identity.player_of(store, device_hash)``."""
    return f"device:{device_hash}"


async def rate_finished(t: Any) -> None:
    """Count the finished match of the live table ``t`` (web/live_table.py, which imports
    this module) for its players' ratings, once; a table that is not rated, or has nobody
    recognised, changes nothing. Never raises: a rating that cannot be stored is logged, and
    the match stays as played."""
    if not t.config.get("rated") or not t.match.is_over():
        return
    try:
        await _rate(t)
    except Exception as e:  # noqa: BLE001 - the match itself is stored already
        log.warning("table %s: the match's ratings could not be stored: %s", t.id, e)


def table_family(config: dict[str, Any]) -> str:
    """The rule family a table is rated in: its preset's, or "other" when an option was
    changed. A match length the server set (a preset that plays to a points target has no
    deal limit; web/app.py ``build_config`` gives it the server's longest) is no option of
    the players': Sjuan to 100 points stays Sjuan."""
    name = config.get("preset")
    base = config.get("base")
    if name is None and isinstance(base, str) and base in PRESETS:
        try:
            rules = Rules.from_dict(config["rules"])
        except (KeyError, TypeError, ValueError):
            return family(None)
        plain = preset(base)
        if plain.match_deals == 0 and rules == plain.replace(match_deals=rules.match_deals):
            name = base
    return family(name)


async def _rate(t: Any) -> None:
    fam = table_family(t.config)
    players: list[str | Rating] = []
    left = set()
    whose = await players_of(t.store, [s.device_hash for s in t.seats
                                       if s.kind != "bot" and s.device_hash])
    for i, seat in enumerate(t.seats):
        if seat.kind == "bot":
            players.append(bot_rating(seat.bot or botlib.default_level(), fam))
        elif seat.token_hash is not None and seat.device_hash:
            players.append(whose[seat.device_hash])
            if seat.standin:  # the person left; a stand-in finished for them
                left.add(i)
        elif seat.standin and seat.token_hash is None:  # nobody came: a bot filled the seat
            players.append(bot_rating(botlib.default_level(), fam))
        else:
            players.append(Rating())
    ids = [p for p in players if isinstance(p, str)]
    if ids and len(set(ids)) == len(ids):  # one device in two seats: not a fair count
        results = t.match.results
        facts = [SeatFacts(seat.name or "", t.match.totals[i], len(results),
                           sum(1 for r in results if r.winner == i))
                 for i, seat in enumerate(t.seats)]
        await stored.rate_match(t.store, t.id, fam, players, standings(t.match.totals, left),
                                facts=facts)


@router.post("/api/ratings/mine")
async def my_ratings(request: Request) -> Response:
    data = await json_body(request, request.app.state.limits)
    try:
        if not isinstance(data, dict):
            raise ActionError("bad-request", "send a JSON object with 'device'")
        device = check_device(data.get("device"))
        if device is None:
            raise ActionError("bad-device", "send the device key")
    except ActionError as e:
        return JSONResponse({"error": e.code, "message": e.message}, status_code=400)
    store = request.app.state.store
    out = {}
    try:
        player = await player_of(store, device)
        for fam in FAMILIES:
            r = (await stored.ratings(store, fam, [player]))[player]
            out[fam] = {"rating": r.shown, "provisional": r.provisional, "matches": r.matches,
                        "like": nearest_level(r, fam)}
        page = await history.count(store, player) > 0
    except Exception as e:  # noqa: BLE001 - a database that fails is a clear answer
        return JSONResponse({"error": "store", "message": f"the ratings cannot be read: {e}"},
                            status_code=503)
    # the public page's handle (a hash of the player's id, never the device's): null before
    # the player's first rated match
    return JSONResponse({"ratings": out,
                         "handle": history.handle(player) if page else None})

"""The daily deal's HTTP API (issue 57; the logic: ``daily/service.py``; docs/daily.md,
*On a server*). A player is ``identity.player_of`` their device key's hash (issues 47, 58).

    GET  /api/daily?device=KEY&lang=fi            the lobby: today's offers, streak, yesterday,
    POST /api/daily {"device": KEY, "lang": "fi"}   the seeds of the days that are over
    POST /api/daily/{day}/{preset}/table {"device", "name"}   a try at a server table
    GET  /api/daily/{day}/{preset}/result?device=KEY&lang=fi  (or POST with a JSON body)
    GET  /api/daily/{day}/{preset}/record?device=KEY          the player's record of the deal
    POST /api/daily/{day}/{preset}/package {"device"}         the deal to play offline
    POST /api/daily/{day}/{preset}/submit {"device", "record", "practice"?} count an offline
                                                  try (``"practice": true``: never counted)

An error is ``{"error": CODE, "message": …}``: ``not-begun`` (403) for a day that has not
begun, ``bad-device``, ``bad-day``, ``bad-preset``; a refused record ``bad-record``,
``wrong-deal``, ``wrong-seat``, ``illegal-move``, ``bot-mismatch``, ``unfinished``,
``score-mismatch`` (422) or ``no-try``, ``second-try`` (409). Nothing is stored then.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, PlainTextResponse, Response

from .. import i18n, identity, players
from ..daily import SEAT
from ..daily.deal import PLAYERS
from ..daily.service import DailyService, Refused, bot_seeds
from . import bots as botlib
from . import chat, open_tables
from .clock import option as clock_option
from .errors import ActionError
from .forced import option as forced_option
from .rates import SharedRate
from .seats import check_device
from .security import json_body

router = APIRouter()


def service(app: Any) -> DailyService:
    """The app's daily service, made on first use from ``app.state.daily_options``
    (``secret``, ``reference``, ``clock``: :class:`DailyService`)."""
    svc = getattr(app.state, "daily_service", None)
    if svc is None:
        options = dict(getattr(app.state, "daily_options", {}) or {})
        pool = getattr(app.state, "bot_pool", None)
        if pool is not None and botlib.pooled(options.get("reference", "master")):
            # the master thinks in the bot pool's processes, never on the event loop
            async def choose(level: str, seed: int, view: Any) -> Any:
                return await botlib.choose_pooled(pool, level, seed, view)

            options.setdefault("choose", choose)
        svc = DailyService(app.state.store, **options)
        app.state.daily_service = svc
    return svc


_STATUS = {"store": 503, "storage-fault": 503, "server-full": 429}  # as web/app.py's


def _refused(e: Refused | ActionError) -> JSONResponse:
    status = e.status if isinstance(e, Refused) else _STATUS.get(e.code, 400)
    return JSONResponse({"error": e.code, "message": e.message}, status_code=status)


async def _params(request: Request) -> dict[str, Any]:
    """The request's fields: the JSON body of a POST, else the query string."""
    if request.method == "POST":
        data = await json_body(request, request.app.state.limits)
        if not isinstance(data, dict):
            raise Refused("bad-request", "send a JSON object with 'device'")
        return data
    return dict(request.query_params)


async def _player(request: Request, data: dict[str, Any]) -> str:
    """The player of the device key: its own id, or the identity it is linked to (issue 58)."""
    try:
        device = check_device(data.get("device"))
    except ActionError as e:
        raise Refused(e.code, e.message) from None
    if device is None:
        raise Refused("bad-device", "send the device key ('device')")
    try:
        return await identity.player_of(request.app.state.store, device)
    except Exception as e:  # noqa: BLE001 - a database that fails is a clear answer
        raise Refused("store", f"the player cannot be looked up: {e}", 503) from None


@identity.on_forget
async def _forget_daily(store: Any, player: str, devices: Any) -> dict[str, int]:
    """Deleting an identity (issue 58) deletes its daily tries and results too."""
    from ..store import daily as stored

    return {"daily": await stored.forget(store, player)}


@players.register_daily
async def _daily_of(store: Any, player: str) -> dict[str, Any] | None:
    """A player's page (issue 58) shows their counted daily results and streak."""
    from ..daily import day_of, parse_day, streaks
    from ..store import daily as stored

    got = await stored.counted_results(store, player)
    if not got:
        return None
    today = day_of(datetime.now(UTC))
    s = streaks([d for d in {parse_day(r.day) for r in got} if d <= today], today)
    return {"streak": {"current": s.current, "best": s.best},
            "results": [{"day": r.day, "preset": r.preset, "points": r.points, "place": r.place}
                        for r in got]}


def _lang(data: dict[str, Any]) -> str:
    return i18n.norm_lang(str(data.get("lang") or "fi")[:8])


@router.api_route("/api/daily", methods=["GET", "POST"])
async def lobby(request: Request) -> Response:
    try:
        data = await _params(request)
        body = await service(request.app).lobby(await _player(request, data), _lang(data))
    except (Refused, ActionError) as e:
        return _refused(e)
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


@router.api_route("/api/daily/{day}/{preset}/result", methods=["GET", "POST"])
async def result(day: str, preset: str, request: Request) -> Response:
    svc = service(request.app)
    try:
        data = await _params(request)
        body = await svc.result(await _player(request, data), svc.day(day), preset[:40], _lang(data))
    except (Refused, ActionError) as e:
        return _refused(e)
    if body is None:
        return JSONResponse({"error": "no-result", "message": "you have not finished this "
                             "deal yet"}, status_code=404)
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


@router.get("/api/daily/{day}/{preset}/record")
async def record(day: str, preset: str, request: Request) -> Response:
    svc = service(request.app)
    try:
        data = await _params(request)
        text = await svc.record(await _player(request, data), svc.day(day), preset[:40])
    except (Refused, ActionError) as e:
        return _refused(e)
    if text is None:
        return JSONResponse({"error": "no-result", "message": "you have not finished this "
                             "deal yet"}, status_code=404)
    return PlainTextResponse(text + "\n", media_type="application/x-ndjson",
                             headers={"Cache-Control": "no-store"})


@router.post("/api/daily/{day}/{preset}/package")
async def package(day: str, preset: str, request: Request) -> Response:
    svc = service(request.app)
    try:
        data = await _params(request)
        body = await svc.package(await _player(request, data), svc.day(day), preset[:40])
    except (Refused, ActionError) as e:
        return _refused(e)
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


@router.post("/api/daily/{day}/{preset}/submit")
async def submit(day: str, preset: str, request: Request) -> Response:
    svc = service(request.app)
    try:
        data = await _params(request)
        body = await svc.submit(await _player(request, data), svc.day(day), preset[:40], data.get("record"),
                                _lang(data), data.get("practice") is True)
    except (Refused, ActionError) as e:
        return _refused(e)
    return JSONResponse(body, status_code=201)


def _rate(app: Any) -> SharedRate:
    rate = getattr(app.state, "daily_tables_rate", None)
    if rate is None:  # the same per-address limit as POST /api/tables
        lim = app.state.limits
        rate = SharedRate(app.state.store, "tables", lim.tables_per_minute)
        app.state.daily_tables_rate = rate
    return rate


@router.post("/api/daily/{day}/{preset}/table")
async def table(day: str, preset: str, request: Request) -> Response:
    """A try at a server table: the player at seat 1, the day's three bots; the server
    counts it when the deal ends (``daily.service.count_finished``)."""
    svc = service(request.app)
    lim = request.app.state.limits
    addr = request.scope.get("client_addr", "")
    if lim.per_address and (wait := await _rate(request.app).retry_after(addr)):
        return JSONResponse({"error": "rate-limited", "message":
                             f"at most {lim.tables_per_minute} new tables a minute from one "
                             "address; wait a moment"}, status_code=429,
                            headers={"Retry-After": str(wait)})
    try:
        data = await _params(request)
        player = await _player(request, data)
        name = data.get("name") if isinstance(data.get("name"), str) else ""
        begun = await svc.begin(player, svc.day(day), preset[:40], "table")
        deal = begun.deal
        names = i18n.PLAYER_NAMES[:PLAYERS - 1]
        seats: list[dict[str, Any]] = [{"kind": "friend", "bot": None, "name": "P1"}]
        seats += [{"kind": "bot", "bot": "expert", "name": n} for n in names]
        config = {"preset": deal.preset, "base": deal.preset, "rules": deal.rules.to_dict(),
                  "seats": seats, "seed": deal.seed, "seed_salt": deal.salt,
                  **open_tables.option({}), **chat.option({}),
                  **clock_option({}, ActionError), **forced_option({}, ActionError),
                  "rated": False, "bot_seeds": bot_seeds(deal),
                  "daily": {"day": deal.day.isoformat(), "preset": deal.preset,
                            "player": player, "counted": begun.counted}}
        tables = request.app.state.tables
        from ..store import daily as stored

        try:
            t = await tables.create(config)
        except ActionError:
            if begun.counted:  # no table, no try: the counted one is still to come
                await stored.release_try(svc.store, player, deal.day.isoformat(), deal.preset)
            raise
        if begun.counted:
            await stored.set_try_table(svc.store, player, deal.day.isoformat(), deal.preset,
                                       t.id)
        token = await t.claim(SEAT, name or "", device=data.get("device"))
    except (Refused, ActionError) as e:
        return _refused(e)
    return JSONResponse({"id": t.id, "url": f"/t/{t.id}", "seat": SEAT, "token": token,
                         "counted": begun.counted, "day": deal.day.isoformat(),
                         "preset": deal.preset}, status_code=201)

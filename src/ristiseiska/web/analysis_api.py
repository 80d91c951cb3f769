"""The browser's analysis of finished deals (issue 15): ``POST
/api/tables/{table_id}/deals/{deal}/analysis`` with ``{"seat": S, "token": "…"}``.

The answer is ``{"status": "done", "analysis": {…}}`` when the analysis is stored, else
``{"status": "running"}`` (202) and the work is started if it is not under way; the client asks
again. Analyses run in a worker process (never on the server's event loop: a search holds the
CPU and the GIL for seconds), one at a time, and are stored (:mod:`ristiseiska.store.analysis`),
so each deal and seat is analysed once.

Fair information: until the match is over a player sees only the analysis of their own seat
(the seat token proves it); afterwards every seat's analysis is open to everyone at the table,
as the replays are.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse, Response

from ..analysis import DEFAULT_LOOKAHEAD, DEFAULT_ROLLOUTS, DEFAULT_WORLDS
from ..lifeline import stop_pool, worker_pool
from ..store.analysis import load_analysis, save_analysis
from .errors import ActionError
from .records import finished, record_of
from .security import json_body

router = APIRouter()
ANALYSIS_SEED = 0  # fixed: the same deal always gets the same numbers
# Stored with each analysis: how it was computed (rows from before the playouts searched the
# seat's own choices say "worlds=2000;seed=0" and are kept as they were made).
BUDGET = (f"worlds={DEFAULT_WORLDS};rollouts={DEFAULT_ROLLOUTS};lookahead={DEFAULT_LOOKAHEAD};"
          f"seed={ANALYSIS_SEED}")

_pool: concurrent.futures.ProcessPoolExecutor | None = None
_jobs: dict[tuple[int, str, int, int], asyncio.Future[dict[str, Any]]] = {}
_owners: dict[tuple[int, str, int, int], str] = {}  # job → the client address that asked first
_failed: dict[tuple[int, str, int, int], str] = {}


def _executor() -> concurrent.futures.ProcessPoolExecutor:
    global _pool
    if _pool is None:
        # spawn: a fork of a server with threads and an event loop is unsafe; the worker dies
        # with the server however the server ends (lifeline)
        _pool = worker_pool(1)
    return _pool


def _queued(addr: str) -> int:
    """Analyses asked for by ``addr`` and not yet finished."""
    return sum(1 for key, owner in _owners.items()
               if owner == addr and key in _jobs and not _jobs[key].done())


def close_pool() -> None:
    """Stop the analysis worker (an analysis under way is dropped: it was not stored, and the
    next request starts it again). The server calls this when it stops."""
    global _pool
    pool, _pool = _pool, None
    _jobs.clear()  # their results would have nowhere to go: the next request starts afresh
    _owners.clear()
    if pool is not None:
        stop_pool(pool, grace=1.0)  # an idle worker ends at once, a busy one is stopped


atexit.register(close_pool)


def compute(rec: dict[str, Any], seat: int) -> dict[str, Any]:
    """The analysis of ``seat`` in the record, as stored and sent (runs in the worker)."""
    from ..analysis import analyze_record, expected_curve

    a = analyze_record(rec, seat, seed=ANALYSIS_SEED)
    from ..i18n import LANGS

    deal = int(rec.get("deal", 1))
    out = a.to_dict(deal, lang=LANGS[0])
    others = {lang: a.to_dict(deal, lang=lang) for lang in LANGS}
    for i, d in enumerate(out["decisions"]):
        # every language: the page switches without asking again
        words = {lang: o["decisions"][i] for lang, o in others.items()}
        for key in ("reason", "move_words", "best_words"):
            d[key] = {lang: w[key] for lang, w in words.items()}
        for j, m in enumerate(d["moves"]):
            m["words"] = {lang: w["moves"][j]["words"] for lang, w in words.items()}
    out["counts"] = a.counts()
    out["costly"] = [d.index for d in a.costly(3)]
    out["points"] = a.points
    out["curve"] = expected_curve(a)
    out["worlds"] = a.worlds
    return out


def _error(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


@router.post("/api/tables/{table_id}/deals/{deal}/analysis")
async def analysis(table_id: str, deal: int, request: Request) -> Response:
    data = await json_body(request, request.app.state.limits)
    if not isinstance(data, dict):
        return _error("bad-request", "send a JSON object with the seat", 400)
    try:
        t = await request.app.state.tables.get(table_id, own=False)
    except ActionError as e:
        return _error(e.code, e.message, 404 if e.code == "no-table" else 400)
    games = dict(finished(t))
    if deal not in games:
        return _error("no-deal", "only finished deals can be analysed", 404)
    seat = data.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < t.n:
        return _error("bad-seat", f"seat must be a seat number from 0 to {t.n - 1}", 400)
    if not t.match.is_over():
        try:
            t.check_token(seat, data.get("token"))
        except ActionError:
            return _error("not-yours", "until the match is over you see only your own seat's "
                          "analysis (send your seat token)", 403)
    store = request.app.state.store
    stored = await load_analysis(store, table_id, deal, seat)
    if stored is not None:
        return JSONResponse({"status": "done", "analysis": stored})
    key = (id(store), table_id, deal, seat)
    if key in _failed:  # reported once; the next press tries again
        return _error("failed", _failed.pop(key), 503)
    job = _jobs.get(key)
    if job is None:
        lim = request.app.state.limits
        addr = request.scope.get("client_addr", "")
        if lim.per_address and _queued(addr) >= lim.analyses_per_address:
            # one client cannot fill the single worker's queue for everybody (issue 19)
            return JSONResponse(
                {"error": "too-many-analyses", "message":
                 f"at most {lim.analyses_per_address} analyses at a time from one address; "
                 "ask again when one of yours is done"}, status_code=429,
                headers={"Retry-After": "10"})
        rec = record_of(t, deal, games[deal])
        loop = asyncio.get_running_loop()
        job = loop.run_in_executor(_executor(), compute, rec, seat)
        _jobs[key] = job
        _owners[key] = addr
        job.add_done_callback(lambda f: loop.create_task(_finish(key, f, store)))
    return JSONResponse({"status": "running"}, status_code=202)


async def _finish(key: tuple[int, str, int, int], job: asyncio.Future[dict[str, Any]],
                  store: Any) -> None:
    _sid, table_id, deal, seat = key
    try:
        result = job.result()
        await save_analysis(store, table_id, deal, seat, BUDGET, result)
    except Exception as e:  # noqa: BLE001 - reported to the asking client, not raised
        if isinstance(e, concurrent.futures.process.BrokenProcessPool):
            global _pool
            _pool = None  # the worker died: the next analysis starts a fresh one
        _failed[key] = f"{type(e).__name__}: {e}"
    finally:
        _jobs.pop(key, None)
        _owners.pop(key, None)

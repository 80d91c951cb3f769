"""The puzzle trainer in the browser (issue 21): the page ``/puzzles`` and a small JSON API.

    GET  /puzzles                         the trainer (static/puzzles.html)
    GET  /api/puzzles                     the shipped set: id, preset, grade, rating (no answers)
    GET  /api/puzzles/{id}?lang=fi        the position as the puzzle's seat saw it
    POST /api/puzzles/{id}/answer         {"move": "C8", "lang": "fi"} -> the verdict

Fair information: the position holds only that seat's view (its own hand, the table, card
counts, the public history) and never the answer; the answer, the explanation and the
alternatives' costs are sent only in the reply to a choice.
"""

from __future__ import annotations

import asyncio
from functools import lru_cache
from importlib import resources
from typing import Any

from fastapi import APIRouter, Query, Request
from fastapi.responses import FileResponse, JSONResponse, Response

from .. import i18n
from ..puzzles import PuzzleError, shipped
from ..puzzles.present import position, summary, verdict
from .security import json_body

router = APIRouter()
STATIC = resources.files("ristiseiska.web").joinpath("static")
MAX_ID = 120


@lru_cache(maxsize=1)
def _by_id() -> dict[str, dict[str, Any]]:
    return {str(p["id"]): p for p in shipped()}


async def _all() -> dict[str, dict[str, Any]]:
    # the first call reads and checks the whole set (about a second): off the event loop
    return await asyncio.to_thread(_by_id)


async def _find(puzzle_id: str) -> dict[str, Any] | None:
    if len(puzzle_id) > MAX_ID:
        return None
    return (await _all()).get(puzzle_id)


def _missing(puzzle_id: str) -> JSONResponse:
    return JSONResponse({"error": "not-found", "message": f"there is no puzzle {puzzle_id[:MAX_ID]!r}"},
                        status_code=404)


@router.get("/puzzles", include_in_schema=False)
async def puzzles_page() -> FileResponse:
    return FileResponse(str(STATIC.joinpath("puzzles.html")))


@router.get("/api/puzzles")
async def puzzle_list() -> Response:
    items = [summary(p) for p in (await _all()).values()]
    return JSONResponse({"puzzles": items}, headers={"Cache-Control": "max-age=300"})


@router.get("/api/puzzles/{puzzle_id}")
async def puzzle_position(puzzle_id: str, lang: str = Query("fi", max_length=8)) -> Response:
    p = await _find(puzzle_id)
    if p is None:
        return _missing(puzzle_id)
    return JSONResponse(position(p, i18n.norm_lang(lang)))


@router.post("/api/puzzles/{puzzle_id}/answer")
async def puzzle_answer(puzzle_id: str, request: Request) -> Response:
    p = await _find(puzzle_id)
    if p is None:
        return _missing(puzzle_id)
    data = await json_body(request, request.app.state.limits)
    if not isinstance(data, dict) or not isinstance(data.get("move"), str):
        return JSONResponse({"error": "bad-request",
                             "message": "send {\"move\": \"…\"}: one of the position's moves"},
                            status_code=400)
    lang = i18n.norm_lang(str(data.get("lang", "fi"))[:8])
    try:
        return JSONResponse(verdict(p, data["move"][:40], lang))
    except PuzzleError as e:
        return JSONResponse({"error": "bad-move", "message": str(e)}, status_code=400)

"""The daily deal's result page (issue 57): ``GET /daily/{day}/{preset}`` is the app's page,
which asks the API (web/daily_api.py) for this device's result of that deal (``ui/daily.js``)."""

from __future__ import annotations

import re

from fastapi import APIRouter
from fastapi.responses import FileResponse, JSONResponse, Response

from .pwa import STATIC

router = APIRouter()
DAY = re.compile(r"\d{4}-\d{2}-\d{2}")
PRESET = re.compile(r"[a-z0-9-]{1,40}")


@router.get("/daily/{day}/{preset}", include_in_schema=False)
async def daily_page(day: str, preset: str) -> Response:
    if not DAY.fullmatch(day) or not PRESET.fullmatch(preset):
        return JSONResponse({"error": "not-found", "message": "a daily deal's page is "
                             "/daily/YYYY-MM-DD/PRESET"}, status_code=404)
    return FileResponse(str(STATIC.joinpath("index.html")))

"""``serve --ladder FILE``: a ladder's leaderboard at ``/ladder`` (``?lang=en``; Finnish by
default) and its JSON at ``/api/ladder`` (docs/simulation.md, *The ladder*).

The file is read again on every request, so a later ``ristiseiska ladder --out`` run shows at
once; while it cannot be read (being rewritten, say) the last good copy is served.
"""

from __future__ import annotations

import html
import os
from typing import Any

from fastapi import APIRouter
from fastapi.responses import HTMLResponse, JSONResponse

from ..ladder import Ladder, LadderError, read_ladder


def ladder_router(path: str) -> APIRouter:
    """The two routes for the ladder file ``path``; :class:`LadderError` now if it is not
    one."""
    path = os.path.abspath(path)
    last: dict[str, Ladder] = {"good": read_ladder(path)}
    router = APIRouter()

    def current() -> Ladder:
        try:
            last["good"] = read_ladder(path)
        except LadderError:
            pass  # mid-rewrite or removed: keep showing the last good one
        return last["good"]

    @router.get("/api/ladder")
    def ladder_json() -> Any:
        return JSONResponse(current().to_dict())

    @router.get("/ladder", response_class=HTMLResponse)
    def ladder_page(lang: str = "fi") -> Any:
        from markdown_it import MarkdownIt

        from ..i18n import norm_lang, t

        lang = norm_lang(lang)
        lad = current()
        cols = [t(f"ladder.col.{c}", lang) for c in
                ("rank", "bot", "rating", "interval", "deals", "wins", "mean_rank", "faults")]
        title = t("ladder.title", lang, rules=lad.rules.name or t("ladder.custom", lang),
                  players=lad.players, deals=lad.deals, seed=lad.seed)
        def faults(f: dict[str, int]) -> str:
            return ", ".join(f"{t('ladder.fault.' + k, lang)} {v}" for k, v in f.items()) or "0"

        # no raw HTML: bot names come from whoever wrote the file
        body = MarkdownIt("commonmark", {"html": False}).enable("table").render(
            lad.markdown(title, cols, t("ladder.note", lang), faults))
        page = (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
                f'<meta name="viewport" content="width=device-width, initial-scale=1">'
                f"<title>{html.escape(title)}</title></head><body>{body}</body></html>")
        return HTMLResponse(page)

    return router

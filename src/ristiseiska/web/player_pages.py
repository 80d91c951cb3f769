"""Player pages and leaderboards (issue 58; the data: ristiseiska/players, store/history.py).

    GET /p/{handle}?lang=fi              a player's page: ratings, chart, matches (HTML)
    GET /api/players/{handle}            the same as JSON
    GET /leaderboard/{family}?lang=fi    a rule family's top 100 and provisional players (HTML)
    GET /api/leaderboard/{family}        the same as JSON

A handle is public (a hash of the player's id, store/history.py ``handle``); nothing here
shows a player's id or anything of their device. The pages are drawn on the server: no script,
the chart is an inline SVG.
"""

from __future__ import annotations

import html
import time
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, Response

from .. import i18n, identity
from ..i18n import t
from ..players import chart_svg, daily_of, nearest_level, series, summary
from ..ratings import FAMILIES, Rating, bot_ratings
from ..store import history
from ..store import ratings as stored

router = APIRouter()


@identity.on_forget
async def _forget_history(store: Any, player: str, devices: Any) -> dict[str, int]:
    """Deleting an identity deletes its public page: the match history and the handle."""
    return {"history": await history.forget(store, player)}
NUM = ' class="num"'  # a column of numbers: right-aligned, its heading too
NUMERIC = {"place", "points", "deals_won", "rating", "rank", "matches"}


def _rating(r: Rating, fam: str) -> dict[str, Any]:
    return {"rating": r.shown, "provisional": r.provisional, "matches": r.matches,
            "like": nearest_level(r, fam)}


def _fail(code: str, message: str, status: int) -> JSONResponse:
    return JSONResponse({"error": code, "message": message}, status_code=status)


async def player_data(store: Any, handle: str) -> dict[str, Any] | None:
    """A player's page as data, or ``None`` (no such handle)."""
    who = await history.player_of(store, handle)
    if who is None:
        return None
    player, name = who
    rows = await history.history(store, player)
    ratings = {}
    for fam in FAMILIES:
        r = (await stored.ratings(store, fam, [player]))[player]
        if r.matches:
            ratings[fam] = _rating(r, fam)
    matches = []
    last: dict[str, int] = {}
    for row in rows:
        r = row["rating"]
        before = last.get(row["family"], Rating().shown)
        last[row["family"]] = r.shown
        matches.append({"date": time.strftime("%Y-%m-%d", time.gmtime(row["at"])),
                        "at": row["at"], "family": row["family"], "place": row["place"],
                        "players": row["players"], "points": row["points"],
                        "deals": row["deals"], "deals_won": row["deals_won"],
                        "rating": r.shown, "change": r.shown - before,
                        "provisional": r.provisional})
    matches.reverse()  # newest first
    return {"handle": handle, "name": name, "ratings": ratings, "summary": summary(rows),
            "series": series(rows), "matches": matches,
            "daily": await daily_of(store, player)}


async def board_data(store: Any, fam: str) -> dict[str, Any]:
    got = await history.leaderboard(store, fam)

    def rows(part: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return [{"rank": i, "handle": x["handle"], "name": x["name"],
                 "rating": x["rating"].shown, "matches": x["rating"].matches}
                for i, x in enumerate(part, 1)]

    bots = sorted(((lv, r.shown) for lv, r in bot_ratings().get(fam, {}).items()),
                  key=lambda x: -x[1])
    return {"family": fam, "established": rows(got["established"]),
            "provisional": rows(got["provisional"]),
            "bots": [{"level": lv, "rating": s} for lv, s in bots]}


@router.get("/api/players/{handle}")
async def player_json(handle: str, request: Request) -> Response:
    try:
        data = await player_data(request.app.state.store, handle)
    except Exception as e:  # noqa: BLE001 - a database that fails is a clear answer
        return _fail("store", f"the player cannot be read: {e}", 503)
    if data is None:
        return _fail("no-player", "no rated player has this handle", 404)
    return JSONResponse(data)


@router.get("/api/leaderboard/{family}")
async def board_json(family: str, request: Request) -> Response:
    if family not in FAMILIES:
        return _fail("bad-family", f"unknown family; families: {', '.join(FAMILIES)}", 404)
    try:
        return JSONResponse(await board_data(request.app.state.store, family))
    except Exception as e:  # noqa: BLE001 - a database that fails is a clear answer
        return _fail("store", f"the leaderboard cannot be read: {e}", 503)


# --- HTML --------------------------------------------------------------------------------------

def _e(x: Any) -> str:
    return html.escape(str(x))


def _date(iso: str, lang: str) -> str:
    y, m, d = iso.split("-")
    return f"{int(d)}.{int(m)}.{y}" if lang == "fi" else iso


def _page(lang: str, title: str, body: str, here: str) -> str:
    current = ' aria-current="page"'
    langs = " ".join(
        f'<a href="{here}?lang={x["code"]}" lang="{x["code"]}"'
        f'{current if x["code"] == lang else ""}>{_e(x["name"])}</a>'
        for x in i18n.LANGUAGES)
    boards = " ".join(f'<a href="/leaderboard/{f}?lang={lang}" data-family="{f}">'
                      f'{_e(t("players.family." + f, lang))}</a>' for f in FAMILIES)
    return (f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f'<title>{_e(title)}</title><link rel="stylesheet" href="/static/players.css">'
            f'<link rel="icon" href="/static/icons/icon-192.png" type="image/png"></head>'
            f'<body class="players-page"><header><nav class="top">'
            f'<a href="/" data-testid="back">{_e(t("players.back", lang))}</a>'
            f'<span class="langs">{langs}</span></nav>'
            f'<nav class="boards" aria-label="{_e(t("players.boards", lang))}">'
            f'<span>{_e(t("players.boards", lang))}:</span> {boards}</nav></header>'
            f"<main>{body}</main></body></html>")


def _mark(lang: str) -> str:
    return (f' <abbr class="prov" title="{_e(t("players.provisional_help", lang))}">'
            f'{_e(t("players.provisional", lang))}</abbr>')


def player_html(d: dict[str, Any], lang: str) -> str:
    fam_name = {f: t("players.family." + f, lang) for f in FAMILIES}
    cards = []
    for fam, r in d["ratings"].items():
        cards.append(
            f'<li class="rating-card" data-family="{fam}"><span class="fam">{_e(fam_name[fam])}'
            f'</span> <strong class="num" data-testid="rating-{fam}">{r["rating"]}</strong>'
            f'{_mark(lang) if r["provisional"] else ""}'
            f'<span class="sub">{_e(i18n.tn("players.matches_n", r["matches"], lang))} · '
            f'{_e(t("players.like_bot", lang, level=t("tui.level." + r["like"], lang)))}'
            f"</span></li>")
    s = d["summary"]
    share = ("–" if s["won_share"] is None else
             t("players.percent", lang, n=i18n.number(100 * s["won_share"], lang, 0)))
    ppd = "–" if s["points_per_deal"] is None else i18n.number(s["points_per_deal"], lang, 1)
    legend = "".join(f'<li class="fam-{FAMILIES.index(f)}">{_e(fam_name[f])}</li>'
                     for f in d["series"])
    chart = (chart_svg(d["series"], fam_name, t("players.chart_title", lang))
             if d["series"] else "")
    rows = []
    for m in d["matches"]:
        change = f"{m['change']:+d}".replace("-", "−")
        rows.append(f'<tr><td>{_e(_date(m["date"], lang))}</td><td>{_e(fam_name[m["family"]])}'
                    f'</td><td class="num">{m["place"]}/{m["players"]}</td>'
                    f'<td class="num">{m["points"]}</td>'
                    f'<td class="num">{m["deals_won"]}/{m["deals"]}</td>'
                    f'<td class="num">{m["rating"]} <small>({change})</small></td></tr>')
    cols = "".join(f'<th scope="col"{NUM if c in NUMERIC else ""}>'
                   f'{_e(t("players.col." + c, lang))}</th>'
                   for c in ("date", "family", "place", "points", "deals_won", "rating"))
    daily = ""
    if d.get("daily"):  # issue 57's results, when its store is there (players.register_daily)
        dd = d["daily"]
        st = dd.get("streak") or {}
        items = "".join(f'<li>{_e(_date(str(x.get("day", "")), lang))}: '
                        f'{_e(t("players.family." + str(x.get("preset")), lang))} '
                        f'{_e(x.get("points", ""))} · {_e(x.get("place", ""))}</li>'
                        for x in (dd.get("results") or [])[:14])
        daily = (f'<section class="panel" data-testid="daily"><h2>{_e(t("players.daily", lang))}'
                 f'</h2><p>{_e(t("players.streak", lang, current=st.get("current", 0), best=st.get("best", 0)))}'
                 f"</p><ul>{items}</ul></section>")
    name = d["name"] or t("players.nameless", lang)
    body = (f'<h1 data-testid="player-name">{_e(name)}</h1>'
            f'<section class="panel"><h2>{_e(t("players.ratings", lang))}</h2>'
            + (f'<ul class="cards">{"".join(cards)}</ul>' if cards else
               f'<p>{_e(t("players.no_matches", lang))}</p>')
            + f'<dl class="stats"><dt>{_e(t("players.won_share", lang))}</dt>'
            f'<dd data-testid="won-share">{_e(share)}</dd>'
            f'<dt>{_e(t("players.points_per_deal", lang))}</dt>'
            f'<dd data-testid="points-per-deal">{_e(ppd)}</dd></dl></section>'
            + (f'<section class="panel"><h2>{_e(t("players.chart_title", lang))}</h2>{chart}'
               f'<ul class="legend">{legend}</ul></section>' if chart else "")
            + daily
            + f'<section class="panel"><h2>{_e(t("players.history", lang))}</h2>'
            f'<div class="scroll"><table data-testid="matches"><thead><tr>{cols}</tr></thead>'
            f'<tbody>{"".join(rows)}</tbody></table></div></section>')
    return _page(lang, t("players.title", lang, name=name), body, f"/p/{d['handle']}")


def board_html(d: dict[str, Any], lang: str) -> str:
    fam = d["family"]

    def table(rows: list[dict[str, Any]], testid: str) -> str:
        if not rows:
            return f'<p data-testid="{testid}">{_e(t("players.board_empty", lang))}</p>'
        head = "".join(f'<th scope="col"{NUM if c in NUMERIC else ""}>'
                       f'{_e(t("players.col." + c, lang))}</th>'
                       for c in ("rank", "name", "rating", "matches"))
        body = "".join(f'<tr><td class="num">{r["rank"]}</td><td><a href="/p/{r["handle"]}'
                       f'?lang={lang}">{_e(r["name"] or t("players.nameless", lang))}</a></td>'
                       f'<td class="num">{r["rating"]}</td><td class="num">{r["matches"]}</td></tr>'
                       for r in rows)
        return (f'<div class="scroll"><table data-testid="{testid}"><thead><tr>{head}</tr>'
                f"</thead><tbody>{body}</tbody></table></div>")

    bots = "".join(f'<tr><td>{_e(t("tui.level." + b["level"], lang))}</td>'
                   f'<td class="num">{b["rating"]}</td></tr>' for b in d["bots"])
    title = t("players.board_title", lang, family=t("players.family." + fam, lang))
    body = (f'<h1>{_e(title)}</h1>'
            f'<section class="panel"><h2>{_e(t("players.established", lang))}</h2>'
            f'{table(d["established"], "established")}</section>'
            f'<section class="panel"><h2>{_e(t("players.provisional_players", lang))}</h2>'
            f'<p class="note">{_e(t("players.provisional_help", lang))}</p>'
            f'{table(d["provisional"], "provisional")}</section>'
            f'<section class="panel"><h2>{_e(t("players.bots", lang))}</h2>'
            f'<p class="note">{_e(t("players.bots_help", lang))}</p>'
            f'<div class="scroll"><table data-testid="bots"><thead><tr><th scope="col">'
            f'{_e(t("players.col.level", lang))}</th><th scope="col"{NUM}>'
            f'{_e(t("players.col.rating", lang))}</th></tr></thead><tbody>{bots}</tbody>'
            f"</table></div></section>")
    return _page(lang, title, body, f"/leaderboard/{fam}")


def _not_found(lang: str, key: str, status: int = 404) -> HTMLResponse:
    body = f'<h1>{_e(t(key, lang))}</h1>'
    return HTMLResponse(_page(lang, t(key, lang), body, "/"), status_code=status)


@router.get("/p/{handle}", response_class=HTMLResponse)
async def player_page(handle: str, request: Request, lang: str | None = None) -> Response:
    lang = i18n.norm_lang(lang)
    try:
        data = await player_data(request.app.state.store, handle)
    except Exception:  # noqa: BLE001
        return _not_found(lang, "players.store_down", 503)
    if data is None:
        return _not_found(lang, "players.no_player")
    return HTMLResponse(player_html(data, lang))


@router.get("/leaderboard/{family}", response_class=HTMLResponse)
async def board_page(family: str, request: Request, lang: str | None = None) -> Response:
    lang = i18n.norm_lang(lang)
    if family not in FAMILIES:
        return _not_found(lang, "players.no_family")
    try:
        data = await board_data(request.app.state.store, family)
    except Exception:  # noqa: BLE001
        return _not_found(lang, "players.store_down", 503)
    return HTMLResponse(board_html(data, lang))

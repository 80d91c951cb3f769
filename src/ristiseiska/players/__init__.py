"""Player pages and leaderboards (issue 58): what a player's public page shows, from the rating
history the store keeps (store/history.py); no web here (the routes: web/player_pages.py).

    >>> from ristiseiska.ratings import Rating
    >>> nearest_level(Rating(), "ristiseiska") in LEVELS_SHOWN
    True
    >>> summary([{"points": 12, "deals": 3, "deals_won": 1}, {"points": 0, "deals": 1, "deals_won": 1}])
    {'matches': 2, 'deals': 4, 'deals_won': 2, 'won_share': 0.5, 'points_per_deal': 3.0}
"""

from __future__ import annotations

import html
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from ..ratings import FAMILIES, Rating, bot_ratings

log = logging.getLogger("ristiseiska.players")

# The levels a player is compared with ("you play like the expert"): every rated level.
LEVELS_SHOWN: tuple[str, ...] = ("random", "basic", "expert", "neural", "master")

# Daily deal results (issue 57) live in another store module. Whoever has them registers a
# reader here: ``async (store, player_id) -> {"streak": {"current", "best"}, "results":
# [{"day", "preset", "points", "place"}, …]}`` or ``None``; the page shows the first answer.
DailyReader = Callable[[Any, str], Awaitable[Mapping[str, Any] | None]]
DAILY_READERS: list[DailyReader] = []


def register_daily(reader: DailyReader) -> DailyReader:
    """Show a player's daily deal results and streak on their page (issue 57's store)."""
    if reader not in DAILY_READERS:
        DAILY_READERS.append(reader)
    return reader


async def daily_of(store: Any, player: str) -> Mapping[str, Any] | None:
    """The first registered reader's answer; a reader that fails is logged and skipped (the
    page shows without the daily section rather than not at all)."""
    for reader in DAILY_READERS:
        try:
            got = await reader(store, player)
        except Exception as e:  # noqa: BLE001
            log.warning("daily results of a player could not be read: %s", e)
            continue
        if got is not None:
            return got
    return None


def nearest_level(r: Rating, fam: str) -> str:
    """The bot level whose fixed rating in ``fam`` is nearest ``r``'s (ties: the weaker)."""
    levels = bot_ratings().get(fam, {})
    choices = [(abs(levels[lv].shown - r.shown), i, lv)
               for i, lv in enumerate(LEVELS_SHOWN) if lv in levels]
    return min(choices)[2] if choices else "expert"


def summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Matches, deals, deals won, the share of deals won and the average points a deal
    (``None`` before any deal)."""
    deals = sum(int(r["deals"]) for r in rows)
    won = sum(int(r["deals_won"]) for r in rows)
    points = sum(int(r["points"]) for r in rows)
    return {"matches": len(rows), "deals": deals, "deals_won": won,
            "won_share": round(won / deals, 4) if deals else None,
            "points_per_deal": round(points / deals, 4) if deals else None}


def series(rows: Sequence[Mapping[str, Any]]) -> dict[str, list[int]]:
    """Each family's shown rating after each of its matches, oldest first, starting from a new
    player's 1500."""
    out: dict[str, list[int]] = {}
    for r in rows:
        out.setdefault(r["family"], [Rating().shown]).append(r["rating"].shown)
    return {f: out[f] for f in FAMILIES if f in out}


def chart_svg(lines: Mapping[str, Sequence[int]], names: Mapping[str, str], title: str,
              width: int = 420, height: int = 210) -> str:
    """The ratings over time as an inline SVG (no script, no inline style: the page's CSP):
    one line per family, x = that family's matches, y = the rating; the new player's 1500
    dashed. Colours come from classes ``fam-<i>`` in players.css."""
    pad_l, pad_r, pad_t, pad_b = 44, 10, 10, 26
    values = [v for vs in lines.values() for v in vs] or [1500]
    lo, hi = min(values + [1500]) - 20, max(values + [1500]) + 20
    longest = max((len(vs) for vs in lines.values()), default=1)
    span_x = max(longest - 1, 1)
    iw, ih = width - pad_l - pad_r, height - pad_t - pad_b

    def xy(i: int, v: float) -> tuple[float, float]:
        return (round(pad_l + iw * i / span_x, 1), round(pad_t + ih * (hi - v) / (hi - lo), 1))

    parts = [f'<svg class="rating-chart" data-testid="rating-chart" viewBox="0 0 {width} '
             f'{height}" role="img" aria-labelledby="chart-title" '
             f'xmlns="http://www.w3.org/2000/svg"><title id="chart-title">'
             f"{html.escape(title)}</title>"]
    for v in (hi - 20, 1500, lo + 20):
        x0, y = xy(0, v)
        parts.append(f'<line class="grid{" base" if v == 1500 else ""}" x1="{pad_l}" '
                     f'y1="{y}" x2="{width - pad_r}" y2="{y}"/>'
                     f'<text class="axis" x="{pad_l - 6}" y="{y + 4}" '
                     f'text-anchor="end">{v}</text>')
    parts.append(f'<text class="axis" x="{pad_l}" y="{height - 8}">0</text>'
                 f'<text class="axis" x="{width - pad_r}" y="{height - 8}" '
                 f'text-anchor="end">{longest - 1}</text>')
    for fam, vs in lines.items():
        k = FAMILIES.index(fam) if fam in FAMILIES else 0
        pts = " ".join(f"{x},{y}" for x, y in (xy(i, v) for i, v in enumerate(vs)))
        parts.append(f'<polyline class="line fam-{k}" data-family="{html.escape(fam)}" '
                     f'points="{pts}"><title>{html.escape(names.get(fam, fam))}</title>'
                     f"</polyline>")
        x, y = xy(len(vs) - 1, vs[-1])
        parts.append(f'<circle class="dot fam-{k}" cx="{x}" cy="{y}" r="3.5"/>')
    parts.append("</svg>")
    return "".join(parts)

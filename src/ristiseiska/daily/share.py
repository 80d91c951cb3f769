"""The text a player shares after the daily deal, Wordle-style: the day, the points, the rank
among everyone and the master's points, and no card (it must not spoil the deal for those
still to play it).

    >>> from datetime import date
    >>> share_text(date(2026, 12, 7), "ristiseiska", 3, "master", 1, rank=2, count=14)
    'Ristiseiska päivän jako 2026-12-07 · 3 pistettä · 2./14 · mestari 1'
    >>> share_text(date(2026, 12, 7), "sjuan", 1, "master", 0, lang="en")
    'Sjuan daily deal 2026-12-07 · 1 point · master 0'
"""

from __future__ import annotations

from datetime import date

from ..i18n import norm_lang, t, tn
from .compare import Comparison
from .streak import Streak

SEP = " · "


def game_name(preset: str, lang: str) -> str:
    text = t(f"daily.game.{preset}", lang)
    return preset if text.startswith("daily.") else text


def level_name(level: str, lang: str) -> str:
    text = t(f"tui.level.{level}", lang)  # the names the games give the bot levels
    return level if text.startswith("tui.") else text


def share_text(day: date, preset: str, points: int, reference: str, reference_points: int,
               rank: int | None = None, count: int | None = None, lang: str = "fi") -> str:
    """One line: ``rank``/``count`` only when the field is known (a server's players)."""
    lang = norm_lang(lang)
    parts = [t("daily.share.title", lang, game=game_name(preset, lang), date=day.isoformat()),
             tn("daily.share.points", points, lang)]
    if rank is not None and count is not None:
        parts.append(t("daily.share.rank", lang, rank=rank, count=count))
    parts.append(t("daily.share.reference", lang, level=level_name(reference, lang),
                   points=reference_points))
    return SEP.join(parts)


def capital(text: str) -> str:
    return text[:1].upper() + text[1:]


def result_lines(day: date, preset: str, comparison: Comparison, reference: str,
                 lang: str = "fi") -> list[str]:
    """The comparison in words: the player's points and place, the reference bot's, and the
    first move where the two parted (these lines name cards: they are for the player)."""
    from ..i18n import move_words

    lang = norm_lang(lang)
    c = comparison
    n = len(c.table)
    level = level_name(reference, lang)
    lines = [t("daily.result.heading", lang, game=game_name(preset, lang), date=day.isoformat()),
             t("daily.result.you", lang, points=c.points, place=c.place, n=n),
             capital(t("daily.result.reference", lang, level=level, points=c.reference_points,
                        place=c.reference_place, n=n))]
    d = c.difference
    if d is None:
        lines.append(t("daily.result.same", lang, level=level))
    else:
        lines.append(t("daily.result.differ", lang, index=d.index, turn=d.turn, level=level,
                       player=move_words(d.player, lang), reference=move_words(d.reference, lang)))
    return lines


def streak_line(streak: Streak, lang: str = "fi") -> str:
    return tn("daily.streak", streak.current, lang, best=streak.best)

"""The day of the daily deal: it begins at midnight Finnish time (Europe/Helsinki), so a player
in Helsinki gets a new deal as the clock strikes twelve, summer and winter alike.

    >>> from datetime import datetime, timezone
    >>> day_of(datetime(2026, 12, 6, 22, 30, tzinfo=timezone.utc))  # 00:30 in Helsinki (UTC+2)
    datetime.date(2026, 12, 7)
    >>> day_of(datetime(2026, 7, 6, 21, 30, tzinfo=timezone.utc))   # 00:30 in summer (UTC+3)
    datetime.date(2026, 7, 7)
"""

from __future__ import annotations

from datetime import date, datetime, time
from zoneinfo import ZoneInfo

HELSINKI = ZoneInfo("Europe/Helsinki")


class DailyError(ValueError):
    """Bad input to the daily deal (a naive time, a future day, an unknown rule set …)."""


def day_of(instant: datetime) -> date:
    """The daily deal's day at ``instant`` (an aware datetime: a naive one is ambiguous and
    refused)."""
    if not isinstance(instant, datetime):
        raise DailyError(f"the instant must be a datetime, not {type(instant).__name__}")
    if instant.tzinfo is None or instant.utcoffset() is None:
        raise DailyError("the instant needs a time zone (a naive time could be any day)")
    return instant.astimezone(HELSINKI).date()


def day_start(day: date) -> datetime:
    """The instant ``day`` begins (midnight in Helsinki, as an aware datetime)."""
    return datetime.combine(day, time(0), tzinfo=HELSINKI)


def parse_day(text: str) -> date:
    """A day from ``YYYY-MM-DD``."""
    try:
        if len(text) != 10:
            raise ValueError
        return date.fromisoformat(text)
    except (ValueError, TypeError):
        raise DailyError(f"a day is written YYYY-MM-DD, not {text[:40]!r}") from None


def check_played(day: date, now: datetime) -> date:
    """``day`` if its deal may be dealt at ``now``; a day that has not begun is refused (its
    cards are nobody's business yet)."""
    today = day_of(now)
    if day > today:
        raise DailyError(f"the deal of {day.isoformat()} is not out yet: today is "
                         f"{today.isoformat()} in Finland")
    return day

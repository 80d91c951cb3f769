"""Streaks: days in a row with a daily deal played.

    >>> from datetime import date
    >>> d = date.fromisoformat
    >>> streaks([d("2026-12-01"), d("2026-12-02"), d("2026-12-05"), d("2026-12-06")], d("2026-12-07"))
    Streak(current=2, best=2)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import date, timedelta

from .day import DailyError


@dataclass(frozen=True)
class Streak:
    current: int  # days in a row ending today, or yesterday while today is still to play
    best: int


def streaks(days: Iterable[date], today: date) -> Streak:
    """The current and the best streak of the days played (repeats and order do not matter;
    a day after ``today`` is refused)."""
    played = set()
    for d in days:
        if not isinstance(d, date):
            raise DailyError(f"a day played must be a date, not {d!r}")
        if d > today:
            raise DailyError(f"{d.isoformat()} is after today ({today.isoformat()})")
        played.add(d)
    best = 0
    for d in played:
        if d - timedelta(days=1) in played:
            continue  # not the start of a run
        run = 1
        while d + timedelta(days=run) in played:
            run += 1
        best = max(best, run)
    end = today if today in played else today - timedelta(days=1)
    current = 0
    while end - timedelta(days=current) in played:
        current += 1
    return Streak(current, best)

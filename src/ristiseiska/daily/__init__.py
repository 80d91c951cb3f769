"""The daily deal (issue 57): one deal a day, the same for everyone, against the same bots.

Pure: no clock, no files, no network; the caller passes the time, the secret and the results.

* :mod:`.day`: the day begins at midnight Finnish time (:func:`day_of`); a day that has not
  begun is refused (:func:`check_played`).
* :mod:`.deal`: the day's seed from a secret, the date and the rule set (:func:`day_seed`,
  :func:`daily_deal`), the player's seat and the bots' seeds, and playing the deal.
* :mod:`.compare`: points and place; the master bot on the same seat and cards; the first move
  where the player and the master parted; rank, percentile and histogram among all players.
* :mod:`.share`: the text to share (no card in it) and the comparison in words.
* :mod:`.streak`: days in a row.
"""

from .compare import (
    Bin,
    Comparison,
    Difference,
    FieldStats,
    compare,
    field_stats,
    place_of,
    reference_game,
)
from .day import HELSINKI, DailyError, check_played, day_of, day_start, parse_day
from .deal import (
    BOT_LEVEL,
    DEFAULT_PRESET,
    OFFERED,
    PLAYERS,
    SEAT,
    DailyDeal,
    bot_seed,
    daily_deal,
    day_seed,
    play,
    play_moves,
    seats_of,
)
from .share import result_lines, share_text, streak_line
from .streak import Streak, streaks

__all__ = [
    "BOT_LEVEL", "Bin", "Comparison", "DEFAULT_PRESET", "DailyDeal", "DailyError", "Difference",
    "FieldStats", "HELSINKI", "OFFERED", "PLAYERS", "SEAT", "Streak", "bot_seed", "check_played",
    "compare", "daily_deal", "day_of", "day_seed", "day_start", "field_stats", "parse_day", "place_of",
    "play", "play_moves", "reference_game", "result_lines", "seats_of", "share_text",
    "streak_line", "streaks",
]

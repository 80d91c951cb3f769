"""How a player's daily deal went: against the table, against the master bot playing the same
seat on the same cards against the same bots, and against everyone else who played it.

Points are the score sheet's: fewer is better. A place counts the seats (or players) with
fewer points, so a shared score shares the better place: points 3, 0, 3, 12 give places
2, 1, 2, 4.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..game import Game
from ..moves import Move
from .day import DailyError
from .deal import SEAT, DailyDeal, play, seats_of


def place_of(points: int, others: Sequence[int]) -> int:
    """1 + how many of ``others`` have fewer points."""
    return 1 + sum(1 for p in others if p < points)


@dataclass(frozen=True)
class Difference:
    """The first move where the player's deal and the reference's part ways."""

    index: int  # the move's number in the deal, from 1
    turn: int  # the player's own move number, from 1
    player: Move
    reference: Move


@dataclass(frozen=True)
class Comparison:
    points: int
    place: int
    table: tuple[int, ...]  # every seat's points
    reference_points: int
    reference_place: int
    reference_moves: tuple[Move, ...]  # the reference's moves at the player's seat
    difference: Difference | None  # None: the player made the reference's every move


def _check_finished(deal: DailyDeal, game: Any, what: str) -> Game:
    if not isinstance(game, Game):
        raise DailyError(f"{what} must be a Game, not {type(game).__name__}")
    if game.seed != deal.shuffle_seed or game.dealer != 0 or game.n != deal.players:
        raise DailyError(f"{what} is not the deal of {deal.day.isoformat()} ({deal.preset})")
    if game.result is None:
        raise DailyError(f"{what} is not finished")
    return game


def reference_game(deal: DailyDeal, bot: Any) -> Game:
    """The deal played to its end with ``bot`` (e.g. ``get_bot("master", seed=…)``) at the
    player's seat against the day's bots."""
    return play(deal, bot.choose)


def compare(deal: DailyDeal, played: Game, reference: Game) -> Comparison:
    """The comparison of the player's finished deal ``played`` with ``reference``, the same
    deal played by the reference bot (:func:`reference_game`)."""
    played = _check_finished(deal, played, "the played deal")
    reference = _check_finished(deal, reference, "the reference deal")
    assert played.result is not None and reference.result is not None
    pts = tuple(played.result.points)
    ref_pts = tuple(reference.result.points)
    mine, ref = pts[SEAT], ref_pts[SEAT]
    seats = seats_of(deal, reference.moves)
    ref_moves = tuple(m for m, s in zip(reference.moves, seats, strict=True) if s == SEAT)
    difference = None
    turn = 0
    for i, (a, b) in enumerate(zip(played.moves, reference.moves, strict=False)):
        if seats[i] == SEAT:
            turn += 1
        if a != b:
            # the bots answer the same moves alike, so the first difference is the player's
            difference = Difference(i + 1, turn, a, b)
            break
    else:
        if len(played.moves) != len(reference.moves):  # pragma: no cover - one deal, same moves
            raise DailyError("the two deals made the same moves but did not end together")
    return Comparison(
        points=mine,
        place=place_of(mine, [p for s, p in enumerate(pts) if s != SEAT]),
        table=pts,
        reference_points=ref,
        reference_place=place_of(ref, [p for s, p in enumerate(ref_pts) if s != SEAT]),
        reference_moves=ref_moves,
        difference=difference,
    )


@dataclass(frozen=True)
class Bin:
    low: int  # points, inclusive
    high: int  # points, inclusive
    count: int


@dataclass(frozen=True)
class FieldStats:
    """The player among everyone who played the deal (the player included in ``count``)."""

    count: int
    rank: int  # 1 + how many others had fewer points
    percentile: float | None  # share of the others the player beat, a tie counting half; None alone
    bins: tuple[Bin, ...]
    your_bin: int  # index into bins


def _whole(x: Any, what: str) -> int:
    if isinstance(x, bool) or not isinstance(x, int):
        raise DailyError(f"{what} must be a whole number, not {x!r}")
    return x


def field_stats(points: int, others: Sequence[int], bins: int = 10) -> FieldStats:
    """Rank, percentile and a histogram of at most ``bins`` equal bins of whole points."""
    mine = _whole(points, "the player's points")
    rest = [_whole(p, "a player's points") for p in others]
    if _whole(bins, "the number of bins") < 1 or bins > 100:
        raise DailyError(f"the number of bins must be from 1 to 100, not {bins}")
    better = sum(1 for p in rest if p > mine)
    ties = sum(1 for p in rest if p == mine)
    percentile = 100.0 * (better + 0.5 * ties) / len(rest) if rest else None
    everyone = [*rest, mine]
    low, high = min(everyone), max(everyone)
    width = max(1, math.ceil((high - low + 1) / bins))
    n = math.ceil((high - low + 1) / width)
    counts = [0] * n
    for p in everyone:
        counts[(p - low) // width] += 1
    return FieldStats(
        count=len(everyone),
        rank=place_of(mine, rest),
        percentile=percentile,
        bins=tuple(Bin(low + k * width, low + (k + 1) * width - 1, c) for k, c in enumerate(counts)),
        your_bin=(mine - low) // width,
    )

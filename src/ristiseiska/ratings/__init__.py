"""Players' ratings (issue 58): openskill's Weng-Lin Plackett-Luce model, one rating per player
and rule family, shown as one number on a scale around 1500 (docs/ratings.md).

A match is ranked by its final standings (the lowest total first, equal totals share a place);
a player who left a rated match is ranked below everybody who stayed. Bot levels have fixed
ratings (``bots.json`` beside this file, made by ``ristiseiska rate-bots``): they take part in
a match's update as opponents of known strength, and are never changed by it.

    >>> new = [Rating(), Rating(), Rating()]
    >>> after = rate(new, standings([10, 3, 25]))
    >>> [r.shown for r in after], [r.provisional for r in after]
    ([1534, 1638, 1328], [True, True, True])
"""

from __future__ import annotations

import json
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

# The rule families a player has a rating in: the default rules, the Swedish game, the asking
# game, and every other preset and house rule together.
FAMILIES: tuple[str, ...] = ("ristiseiska", "sjuan", "ristiseiska-pyynto", "other")
MU, SIGMA = 25.0, 25.0 / 3  # openskill's defaults: a new player
BASE, SCALE = 1500, 48.0  # shown = BASE + SCALE * (mu - MU): one beta (25/6) is 200 points
PROVISIONAL = 10  # matches before a rating is no longer provisional


class RatingError(ValueError):
    """Arguments that do not make a rated match."""


def family(preset_name: str | None) -> str:
    """The rule family of a table played with the preset ``preset_name`` (``None``: its own
    house rules, counted with the rest)."""
    return preset_name if preset_name in FAMILIES[:3] else "other"


@dataclass(frozen=True)
class Rating:
    """A player's skill in one family: openskill's ``mu`` and ``sigma``, and how many rated
    matches it has counted."""

    mu: float = MU
    sigma: float = SIGMA
    matches: int = 0

    @property
    def shown(self) -> int:
        """The one number a player sees: 1500 for a new player, 48 for each point of mu (one
        beta, 25/6, is 200 points: as in Elo, 200 points apart the better wins three times in
        four). The ladder uses the same scale."""
        return round(BASE + SCALE * (self.mu - MU))

    @property
    def provisional(self) -> bool:
        """Fewer than :data:`PROVISIONAL` rated matches: the number may still move a lot."""
        return self.matches < PROVISIONAL


def standings(totals: Sequence[float], left: Collection[int] = ()) -> list[int]:
    """Each seat's place (1 = best) from a match's final totals (lower is better); seats in
    ``left`` (who left the match) share the place below everybody who stayed."""
    if not totals:
        raise RatingError("a match needs at least one player")
    bad = [s for s in left if not 0 <= s < len(totals)]
    if bad:
        raise RatingError(f"seat {bad[0]} left, but the match has seats 0 to {len(totals) - 1}")
    stayed = [t for s, t in enumerate(totals) if s not in left]
    last = len(stayed) + 1
    return [last if s in left else 1 + sum(1 for o in stayed if o < t)
            for s, t in enumerate(totals)]


def rate(ratings: Sequence[Rating], places: Sequence[int],
         fixed: Collection[int] = ()) -> list[Rating]:
    """The ratings after one match: ``places`` from :func:`standings`; the seats in ``fixed``
    (bots) are opponents of known strength and keep their ratings."""
    if len(ratings) != len(places):
        raise RatingError(f"{len(ratings)} ratings for {len(places)} places")
    if len(ratings) < 2:
        raise RatingError("a rated match needs at least two players")
    if any(not isinstance(p, int) or p < 1 for p in places):
        raise RatingError(f"places are whole numbers from 1: {list(places)}")
    model = _model()
    teams = [[model.rating(mu=r.mu, sigma=r.sigma)] for r in ratings]
    new = model.rate(teams, ranks=[float(p) for p in places])
    return [r if s in fixed else Rating(float(t[0].mu), float(t[0].sigma), r.matches + 1)
            for s, (r, t) in enumerate(zip(ratings, new, strict=True))]


@cache
def _model() -> Any:
    from openskill.models import PlackettLuce

    return PlackettLuce(mu=MU, sigma=SIGMA)


@cache
def bot_ratings() -> dict[str, dict[str, Rating]]:
    """The fixed rating of each bot level in each family (``bots.json``)."""
    data = json.loads(resources.files(__package__).joinpath("bots.json").read_text("utf-8"))
    return {fam: {level: Rating(float(r["mu"]), float(r["sigma"]), int(r["deals"]))
                  for level, r in levels.items()}
            for fam, levels in data["families"].items()}


def bot_rating(level: str, fam: str) -> Rating:
    """A bot level's fixed rating in family ``fam`` (a level not rated: a new player's)."""
    return bot_ratings().get(fam, {}).get(level, Rating())

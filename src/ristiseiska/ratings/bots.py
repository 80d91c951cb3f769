"""The bot levels' fixed ratings (``bots.json``), from duplicate tournaments among the levels:
``ristiseiska rate-bots`` reproduces the shipped file.

For each family (played with :data:`FAMILY_PRESETS`) every group of ``players`` levels plays a
duplicate tournament of ``deals`` deals (each deal once from every seat, so the cards' luck
cancels). Every play, in the order (group, deal, rotation), updates the levels' openskill
ratings by its places (the tournament's ranks: the deal's winner first, then by points), all
levels starting as new players; so the levels' mean sits near 1500, a new player's number."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

from ..rules import preset
from ..tournament import run_tournament
from . import FAMILIES, Rating, RatingError, _model

# the preset a family's bots are rated with ("other": the most played of the rest)
FAMILY_PRESETS: dict[str, str] = {"ristiseiska": "ristiseiska", "sjuan": "sjuan",
                                  "ristiseiska-pyynto": "ristiseiska-pyynto",
                                  "other": "fan-tan"}
LEVELS: tuple[str, ...] = ("random", "basic", "expert", "neural", "master")


def rate_levels(family: str, levels: Sequence[str] = LEVELS, deals: int = 2, seed: int = 1,
                players: int = 4, workers: int | None = 1,
                progress: Callable[[str], None] | None = None) -> dict[str, dict[str, Any]]:
    """Each level's rating in ``family``: ``{level: {"mu", "sigma", "rating", "deals"}}``."""
    if family not in FAMILY_PRESETS:
        raise RatingError(f"unknown family {family!r}; families: {', '.join(FAMILIES)}")
    if len(set(levels)) != len(levels) or len(levels) < players:
        raise RatingError(f"give at least {players} different levels, not {list(levels)}")
    rules = preset(FAMILY_PRESETS[family])
    model = _model()
    now = {level: model.rating() for level in levels}
    seen = dict.fromkeys(levels, 0)
    for group in itertools.combinations(levels, players):
        if progress is not None:
            progress(f"{family}: {', '.join(group)}")
        t = run_tournament(rules, list(group), games=deals, seed=seed, duplicate=True,
                           workers=workers)
        for play in t.plays:
            teams = [[now[label]] for label in play.labels]
            new = model.rate(teams, ranks=list(play.rank))
            for label, team in zip(play.labels, new, strict=True):
                now[label] = team[0]
                seen[label] += 1
    out = {}
    for level in levels:
        r = Rating(float(now[level].mu), float(now[level].sigma))
        out[level] = {"mu": round(r.mu, 4), "sigma": round(r.sigma, 4), "rating": r.shown,
                      "deals": seen[level]}
    return out


def rate_bots(families: Sequence[str] = FAMILIES, levels: Sequence[str] = LEVELS,
              deals: int = 2, seed: int = 1, players: int = 4, workers: int | None = 1,
              progress: Callable[[str], None] | None = None) -> dict[str, Any]:
    """The whole file: every family's levels, with the arguments that made it."""
    return {"format": "ristiseiska-bot-ratings", "version": 1,
            "made_with": {"levels": list(levels), "deals": deals, "seed": seed,
                          "players": players, "presets": {f: FAMILY_PRESETS[f] for f in families}},
            "families": {f: rate_levels(f, levels, deals, seed, players, workers, progress)
                         for f in families}}

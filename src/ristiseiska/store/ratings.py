"""Players' ratings in the database (issue 58; the model: ristiseiska/ratings): ``rs_ratings``
holds each player's rating in each rule family, ``rs_rated`` each match rated, so that a match
is counted once however often its end is reported (a restart, another process)."""

from __future__ import annotations

import time
from collections.abc import Collection, Sequence

from sqlalchemy import Integer, String, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from ..ratings import FAMILIES, Rating, RatingError, rate
from . import Store
from . import history as _history
from .schema import Base


class RatingRow(Base):
    __tablename__ = "rs_ratings"
    player: Mapped[str] = mapped_column(String(128), primary_key=True)  # e.g. a device's hash
    family: Mapped[str] = mapped_column(String(32), primary_key=True)  # ratings.FAMILIES
    mu: Mapped[float] = mapped_column()
    sigma: Mapped[float] = mapped_column()
    matches: Mapped[int] = mapped_column(Integer)
    updated: Mapped[float] = mapped_column()  # Unix time


class RatedRow(Base):
    __tablename__ = "rs_rated"
    match: Mapped[str] = mapped_column(String(128), primary_key=True)  # e.g. a table's id
    family: Mapped[str] = mapped_column(String(32))
    rated: Mapped[float] = mapped_column()  # Unix time


def _check(family: str, players: Sequence[str]) -> None:
    if family not in FAMILIES:
        raise RatingError(f"unknown family {family!r}; families: {', '.join(FAMILIES)}")
    bad = [p for p in players if not isinstance(p, str) or not 0 < len(p) <= 128]
    if bad:
        raise RatingError(f"a player is named by 1 to 128 characters, not {bad[0]!r}")


async def ratings(store: Store, family: str, players: Sequence[str]) -> dict[str, Rating]:
    """The ratings of ``players`` in ``family`` (a player never rated: a new player's)."""
    _check(family, players)
    async with store.session() as s:
        q = select(RatingRow).where(RatingRow.family == family,
                                    RatingRow.player.in_(list(players)))
        got = {r.player: Rating(r.mu, r.sigma, r.matches) for r in await s.scalars(q)}
    return {p: got.get(p, Rating()) for p in players}


async def rate_match(store: Store, match: str, family: str, players: Sequence[str | Rating],
                     places: Sequence[int], fixed: Collection[int] = (),
                     facts: Sequence[_history.SeatFacts] | None = None
                     ) -> list[Rating] | None:
    """Count a finished match once: ``players`` per seat (a player's id, or a bot level's fixed
    :class:`Rating`), ``places`` from :func:`ristiseiska.ratings.standings`. Every rating
    after it, per seat; ``None`` when ``match`` was rated already (nothing changes). One
    transaction: the players' rows are locked (PostgreSQL) or the database is (SQLite).
    With ``facts`` (per seat) the players' history rows are written in it too
    (store/history.py, the player pages)."""
    ids = [p for p in players if isinstance(p, str)]
    _check(family, ids)
    if len(set(ids)) != len(ids):
        raise RatingError("a player holds two seats of one rated match")
    if not 0 < len(match) <= 128:
        raise RatingError("a match is named by 1 to 128 characters")
    now = time.time()
    try:
        async with store._write(), store.session() as s, s.begin():
            s.add(RatedRow(match=match, family=family, rated=now))
            await s.flush()  # a second report of the match stops here
            q = (select(RatingRow).where(RatingRow.family == family,
                                         RatingRow.player.in_(ids))
                 .order_by(RatingRow.player).with_for_update())
            rows = {r.player: r for r in await s.scalars(q)}
            before = [p if isinstance(p, Rating) else
                      Rating(rows[p].mu, rows[p].sigma, rows[p].matches) if p in rows else
                      Rating() for p in players]
            bots = {i for i, p in enumerate(players) if isinstance(p, Rating)}
            after = rate(before, places, set(fixed) | bots)
            for p, r in zip(players, after, strict=True):
                if isinstance(p, Rating):
                    continue
                row = rows.get(p)
                if row is None:
                    s.add(RatingRow(player=p, family=family, mu=r.mu, sigma=r.sigma,
                                    matches=r.matches, updated=now))
                else:
                    row.mu, row.sigma, row.matches, row.updated = r.mu, r.sigma, r.matches, now
            if facts is not None:
                await _history.add(s, match, family, now, list(players), list(places), after,
                                   list(facts))
            return after
    except IntegrityError:
        return None

"""Players' rating history in the database (issue 58, the player pages): ``rs_history`` holds
one row per player and rated match (place, points, deals won, the rating after it), written in
the same transaction as the rating itself (store/ratings.py ``rate_match``); ``rs_players``
maps a player's public handle (:func:`handle`) to their id and last name.

The handle is a hash of the player's id, never the id: an id holds a device key's hash, and
the page of a player is public."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Index, Integer, String, delete, func, select
from sqlalchemy.ext.asyncio import AsyncSession
from sqlalchemy.orm import Mapped, mapped_column

from ..ratings import FAMILIES, PROVISIONAL, Rating, RatingError
from . import Store
from .schema import Base

HANDLE_LEN = 12  # hex digits of sha256: 48 bits, plenty for a game's players
TOP = 100  # a leaderboard's length


def handle(player: str) -> str:
    """A player's public handle (``/p/{handle}``): the first 12 hex digits of the sha256 of
    their id. One way: the id (and the device hash in it) cannot be read back from it."""
    return hashlib.sha256(f"ristiseiska-player:{player}".encode()).hexdigest()[:HANDLE_LEN]


def is_handle(text: str) -> bool:
    return len(text) == HANDLE_LEN and all(c in "0123456789abcdef" for c in text)


class HistoryRow(Base):
    __tablename__ = "rs_history"
    match: Mapped[str] = mapped_column(String(128), primary_key=True)  # rs_rated's id
    player: Mapped[str] = mapped_column(String(128), primary_key=True)
    family: Mapped[str] = mapped_column(String(32))
    at: Mapped[float] = mapped_column()  # Unix time the match was rated
    seat: Mapped[int] = mapped_column(Integer)
    place: Mapped[int] = mapped_column(Integer)  # 1 = best (ratings.standings)
    players: Mapped[int] = mapped_column(Integer)  # seats at the table
    points: Mapped[int] = mapped_column(Integer)  # the match's total (lower is better)
    deals: Mapped[int] = mapped_column(Integer)
    deals_won: Mapped[int] = mapped_column(Integer)
    mu: Mapped[float] = mapped_column()  # the rating after the match
    sigma: Mapped[float] = mapped_column()
    matches: Mapped[int] = mapped_column(Integer)

    __table_args__ = (Index("ix_rs_history_player", "player", "at"),)


class PlayerRow(Base):
    __tablename__ = "rs_players"
    player: Mapped[str] = mapped_column(String(128), primary_key=True)
    handle: Mapped[str] = mapped_column(String(16), unique=True)
    name: Mapped[str] = mapped_column(String(64))  # the name at their last rated match
    updated: Mapped[float] = mapped_column()


@dataclass(frozen=True)
class SeatFacts:
    """What the history keeps of one seat of a rated match, besides the rating."""

    name: str
    points: int
    deals: int
    deals_won: int


async def add(s: AsyncSession, match: str, family: str, at: float,
              players: list[str | Rating], places: list[int], after: list[Rating],
              facts: list[SeatFacts]) -> None:
    """Inside ``rate_match``'s transaction: a history row for every player (not the bots)."""
    if len(facts) != len(players):
        raise RatingError(f"{len(facts)} seats' facts for {len(players)} seats")
    for seat, (p, place, r, f) in enumerate(zip(players, places, after, facts, strict=True)):
        if isinstance(p, Rating):
            continue
        s.add(HistoryRow(match=match, player=p, family=family, at=at, seat=seat, place=place,
                         players=len(players), points=int(f.points), deals=int(f.deals),
                         deals_won=int(f.deals_won), mu=r.mu, sigma=r.sigma,
                         matches=r.matches))
        name = (f.name or "")[:64]
        row = await s.get(PlayerRow, p)
        if row is None:
            s.add(PlayerRow(player=p, handle=handle(p), name=name, updated=at))
        else:
            row.name, row.updated = name, at


async def player_of(store: Store, handle_: str) -> tuple[str, str] | None:
    """The player id and name of a handle, or ``None`` (not a handle, or nobody rated)."""
    if not is_handle(handle_):
        return None
    async with store.session() as s:
        row = (await s.scalars(select(PlayerRow).where(PlayerRow.handle == handle_))).first()
        return None if row is None else (row.player, row.name)


async def history(store: Store, player: str) -> list[dict[str, Any]]:
    """A player's rated matches, oldest first."""
    async with store.session() as s:
        q = (select(HistoryRow).where(HistoryRow.player == player)
             .order_by(HistoryRow.at, HistoryRow.match))
        return [{"match": r.match, "family": r.family, "at": r.at, "place": r.place,
                 "players": r.players, "points": r.points, "deals": r.deals,
                 "deals_won": r.deals_won, "rating": Rating(r.mu, r.sigma, r.matches)}
                for r in await s.scalars(q)]


async def leaderboard(store: Store, family: str, limit: int = TOP
                      ) -> dict[str, list[dict[str, Any]]]:
    """A family's players by rating (μ), best first: ``established`` (ten matches or more)
    and ``provisional`` apart, each at most ``limit`` long. Only players with a name row
    (rated since the history was kept) are listed: the others have no page to link to."""
    # rs_ratings by its table (store/ratings.py imports this module: no import back)
    r_ = Base.metadata.tables["rs_ratings"].c
    if family not in FAMILIES:
        raise RatingError(f"unknown family {family!r}; families: {', '.join(FAMILIES)}")
    out: dict[str, list[dict[str, Any]]] = {}
    async with store.session() as s:
        for part, cond in (("established", r_.matches >= PROVISIONAL),
                           ("provisional", r_.matches < PROVISIONAL)):
            q = (select(r_.mu, r_.sigma, r_.matches, PlayerRow.handle, PlayerRow.name)
                 .join(PlayerRow, PlayerRow.player == r_.player)
                 .where(r_.family == family, cond)
                 .order_by(r_.mu.desc(), PlayerRow.handle).limit(limit))
            out[part] = [{"handle": h, "name": n, "rating": Rating(mu, sigma, matches)}
                         for mu, sigma, matches, h, n in (await s.execute(q)).all()]
    return out


async def count(store: Store, player: str) -> int:
    async with store.session() as s:
        q = select(func.count()).select_from(HistoryRow).where(HistoryRow.player == player)
        return int((await s.execute(q)).scalar_one())


async def forget(store: Store, player: str) -> int:
    """Delete a player's history and handle (the identity's deletion calls this); the rows
    removed."""
    async with store._write(), store.session() as s, s.begin():
        n = await s.execute(delete(HistoryRow).where(HistoryRow.player == player))
        m = await s.execute(delete(PlayerRow).where(PlayerRow.player == player))
    return int(getattr(n, "rowcount", 0) or 0) + int(getattr(m, "rowcount", 0) or 0)

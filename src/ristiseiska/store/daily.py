"""The daily deal on the server (issue 57): the secret the deals are made from, each player's
counted try (claimed when it starts, so a second try is practice) and the results.

``rs_daily_secret`` holds one row, made on first use; ``rs_daily_tries`` one row per player,
day and rule set whose counted try has begun (at a table or as an offline package);
``rs_daily_results`` the finished tries: the counted one and the player's last practice, each
with the record the server replayed. :func:`forget` deletes a player's tries and results.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass

from sqlalchemy import Boolean, Integer, String, Text, delete, func, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from . import Store
from .schema import Base


class DailySecretRow(Base):
    __tablename__ = "rs_daily_secret"
    id: Mapped[int] = mapped_column(Integer, primary_key=True)  # always 1
    secret: Mapped[str] = mapped_column(String(128))  # hex
    created: Mapped[float] = mapped_column()


class DailyTryRow(Base):
    __tablename__ = "rs_daily_tries"
    player: Mapped[str] = mapped_column(String(128), primary_key=True)
    day: Mapped[str] = mapped_column(String(10), primary_key=True)  # YYYY-MM-DD
    preset: Mapped[str] = mapped_column(String(32), primary_key=True)
    kind: Mapped[str] = mapped_column(String(16))  # "table" or "package"
    table_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    started: Mapped[float] = mapped_column()


class DailyResultRow(Base):
    __tablename__ = "rs_daily_results"
    player: Mapped[str] = mapped_column(String(128), primary_key=True)
    day: Mapped[str] = mapped_column(String(10), primary_key=True)
    preset: Mapped[str] = mapped_column(String(32), primary_key=True)
    counted: Mapped[bool] = mapped_column(Boolean, primary_key=True)
    points: Mapped[int] = mapped_column(Integer)
    place: Mapped[int] = mapped_column(Integer)
    record: Mapped[str] = mapped_column(Text)  # one JSON line, without the day's seed
    table_id: Mapped[str | None] = mapped_column(String(64), nullable=True)
    created: Mapped[float] = mapped_column()


# The reference bot's play of a deal is kept as a practice result of the player
# "reference:LEVEL" (never in the field), stored once: every process compares with the same.
REFERENCE = "reference:"


@dataclass(frozen=True)
class Try:
    kind: str
    table_id: str | None


@dataclass(frozen=True)
class Result:
    player: str
    day: str
    preset: str
    counted: bool
    points: int
    place: int
    record: str
    table_id: str | None
    created: float


def _result(r: DailyResultRow) -> Result:
    return Result(r.player, r.day, r.preset, bool(r.counted), r.points, r.place, r.record,
                  r.table_id, r.created)


async def secret(store: Store, given: bytes | None = None) -> bytes:
    """The server's secret: ``given`` if any, else the stored one (made once, by whichever
    process comes first)."""
    if given is not None:
        return given
    async with store.session() as s:
        row = await s.get(DailySecretRow, 1)
        if row is not None:
            return bytes.fromhex(row.secret)
    try:
        async with store._write(), store.session() as s, s.begin():
            s.add(DailySecretRow(id=1, secret=secrets.token_hex(32), created=time.time()))
    except IntegrityError:
        pass  # another process made it first: theirs is read below
    async with store.session() as s:
        row = await s.get(DailySecretRow, 1)
        assert row is not None
        return bytes.fromhex(row.secret)


async def counted_try(store: Store, player: str, day: str, preset: str) -> Try | None:
    async with store.session() as s:
        row = await s.get(DailyTryRow, (player, day, preset))
        return None if row is None else Try(row.kind, row.table_id)


async def claim_try(store: Store, player: str, day: str, preset: str, kind: str,
                    table_id: str | None = None) -> bool:
    """Claim the player's counted try of the deal; False when it was claimed before."""
    try:
        async with store._write(), store.session() as s, s.begin():
            s.add(DailyTryRow(player=player, day=day, preset=preset, kind=kind,
                              table_id=table_id, started=time.time()))
    except IntegrityError:
        return False
    return True


async def set_try_table(store: Store, player: str, day: str, preset: str, table_id: str) -> None:
    async with store._write(), store.session() as s, s.begin():
        row = await s.get(DailyTryRow, (player, day, preset))
        if row is not None:
            row.table_id = table_id


async def release_try(store: Store, player: str, day: str, preset: str) -> None:
    """Give back a counted try claimed for a table that could not be made."""
    async with store._write(), store.session() as s, s.begin():
        await s.execute(delete(DailyTryRow).where(
            DailyTryRow.player == player, DailyTryRow.day == day, DailyTryRow.preset == preset,
            DailyTryRow.kind == "table", DailyTryRow.table_id.is_(None)))


async def add_result(store: Store, player: str, day: str, preset: str, counted: bool,
                     points: int, place: int, record: str, table_id: str | None = None) -> bool:
    """Store a finished try. The counted one once (False if it is stored already); a practice
    try replaces the player's last practice of the deal."""
    row = DailyResultRow(player=player, day=day, preset=preset, counted=counted, points=points,
                         place=place, record=record, table_id=table_id, created=time.time())
    try:
        async with store._write(), store.session() as s, s.begin():
            if not counted and not player.startswith(REFERENCE):
                await s.execute(delete(DailyResultRow).where(
                    DailyResultRow.player == player, DailyResultRow.day == day,
                    DailyResultRow.preset == preset, DailyResultRow.counted.is_(False)))
            s.add(row)
    except IntegrityError:
        return False
    return True


async def results(store: Store, player: str, day: str, preset: str) -> list[Result]:
    """The player's results of the deal, the newest first."""
    async with store.session() as s:
        q = (select(DailyResultRow)
             .where(DailyResultRow.player == player, DailyResultRow.day == day,
                    DailyResultRow.preset == preset)
             .order_by(DailyResultRow.created.desc()))
        return [_result(r) for r in await s.scalars(q)]


async def field_points(store: Store, day: str, preset: str) -> dict[str, int]:
    """Every counted result's points of the deal, by player."""
    async with store.session() as s:
        q = select(DailyResultRow.player, DailyResultRow.points).where(
            DailyResultRow.day == day, DailyResultRow.preset == preset,
            DailyResultRow.counted.is_(True))
        return {p: pts for p, pts in (await s.execute(q)).all()}


async def counted_days(store: Store, player: str) -> list[str]:
    """The days on which the player has a counted result (any rule set)."""
    async with store.session() as s:
        q = select(DailyResultRow.day).where(DailyResultRow.player == player,
                                             DailyResultRow.counted.is_(True)).distinct()
        return [d for (d,) in (await s.execute(q)).all()]


async def counted_results(store: Store, player: str, limit: int = 60) -> list[Result]:
    """The player's counted results of every day and rule set, the newest day first."""
    async with store.session() as s:
        q = (select(DailyResultRow)
             .where(DailyResultRow.player == player, DailyResultRow.counted.is_(True))
             .order_by(DailyResultRow.day.desc(), DailyResultRow.preset).limit(limit))
        return [_result(r) for r in await s.scalars(q)]


async def forget(store: Store, player: str) -> int:
    """Delete the player's daily tries and results; how many results went."""
    async with store._write(), store.session() as s, s.begin():
        q = select(func.count()).select_from(DailyResultRow).where(
            DailyResultRow.player == player)
        gone = int((await s.execute(q)).scalar_one())
        await s.execute(delete(DailyResultRow).where(DailyResultRow.player == player))
        await s.execute(delete(DailyTryRow).where(DailyTryRow.player == player))
        return gone

"""The database's tables (SQLAlchemy rows) and :class:`StoredTable`, what a load returns.

The tables are made and changed by the migrations (store/migrations/versions/), never by
``create_all``: a change here needs a new revision there (tests/test_store_migrations.py
checks that the two agree)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column


class Base(DeclarativeBase):
    pass


class TableRow(Base):
    __tablename__ = "rs_tables"
    id: Mapped[str] = mapped_column(String(64), primary_key=True)
    created: Mapped[float] = mapped_column()
    config: Mapped[str] = mapped_column(Text)  # JSON: rules, preset, seats, seed
    finished: Mapped[bool] = mapped_column(default=False)


class SeatRow(Base):
    __tablename__ = "rs_seats"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    name: Mapped[str] = mapped_column(String(64))
    token_hash: Mapped[str | None] = mapped_column(String(128), nullable=True)


class DealRow(Base):
    __tablename__ = "rs_deals"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    started: Mapped[float] = mapped_column()


class MoveRow(Base):
    __tablename__ = "rs_moves"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer)
    move: Mapped[str] = mapped_column(String(32))
    # the fencing number of the owner that wrote it (rs_owner); NULL where nobody holds
    # tables (one process on SQLite) and in rows from before ownership was kept
    epoch: Mapped[int | None] = mapped_column(Integer, nullable=True)
    # the player's move id (JSON), so that a move sent again after a failover is not played
    # twice (the new owner knows what the old one acknowledged)
    move_id: Mapped[str | None] = mapped_column(Text, nullable=True)


class TableStateRow(Base):
    """What the host decided that no move shows: the table was started before every friend
    came, and which friend seats a stand-in bot plays. A table without a row is as it always
    was."""

    __tablename__ = "rs_table_state"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    started: Mapped[bool] = mapped_column(default=False)
    standins: Mapped[str] = mapped_column(Text, default="[]")  # JSON: seat numbers


class OpenRow(Base):
    """A table its host listed in the lobby (issue 20: ``"open": true``), with its creation
    time, so that the lobby's index is rebuilt at start-up without reading every table's
    configuration."""

    __tablename__ = "rs_open"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    created: Mapped[float] = mapped_column(index=True)
class OwnerRow(Base):
    """Which server process owns a table now (docs/hosting.md, *Several machines*): a
    compare-and-set row whose ``epoch`` (a fencing number) grows by one at every takeover. A
    move or a deal is stored only in a transaction that finds the row still at the writer's
    epoch (PostgreSQL: under a share lock on the row, so a takeover waits for a write in
    flight and a write after a takeover is refused)."""

    __tablename__ = "rs_owner"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    owner: Mapped[str] = mapped_column(String(128))
    epoch: Mapped[int] = mapped_column(Integer)
    taken: Mapped[float] = mapped_column()  # Unix time of the takeover


class ProcessRow(Base):
    """A server process's heartbeat (docs/hosting.md, *Who owns a table*): ``owner`` as in
    :class:`OwnerRow`, ``beat`` the Unix time it last said it was alive. A table whose owner
    has not beaten for the lease may be taken over at once."""

    __tablename__ = "rs_process"
    owner: Mapped[str] = mapped_column(String(128), primary_key=True)
    beat: Mapped[float] = mapped_column()


class RateRow(Base):
    """A per-address token bucket every server process shares (``serve --processes``, several
    machines): ``key`` is the limit and the client address."""

    __tablename__ = "rs_rates"
    key: Mapped[str] = mapped_column(String(160), primary_key=True)
    tokens: Mapped[float] = mapped_column()
    at: Mapped[float] = mapped_column(index=True)  # Unix time of ``tokens``


class ClockRow(Base):
    """The turn clock of a table (web/clock.py, issue 20): the turn it last timed, the time
    left on it then, each seat's timeouts in a row and the seats its stand-in keeps. No row: no
    clock has run."""

    __tablename__ = "rs_clock"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    state: Mapped[str] = mapped_column(Text, default="{}")  # JSON, see web/clock.py


class TimeoutRow(Base):
    """A move the clock's stand-in made when a player's time ran out (its history event is
    marked ``"timeout": true``)."""

    __tablename__ = "rs_clock_timeouts"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)


class ForcedRow(Base):
    """A forced move the server made for a person after the pause (web/forced.py, issue 52;
    its history event is marked ``"auto": true``)."""

    __tablename__ = "rs_forced_moves"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    ply: Mapped[int] = mapped_column(Integer, primary_key=True)


@dataclass
class StoredTable:
    """Everything stored about one table, enough to rebuild it."""

    id: str
    config: dict[str, Any]
    finished: bool
    seat_names: dict[int, str] = field(default_factory=dict)
    token_hashes: dict[int, str | None] = field(default_factory=dict)
    deals: int = 0
    moves: dict[int, list[str]] = field(default_factory=dict)  # deal -> move texts in order
    move_ids: list[tuple[int, str, str]] = field(default_factory=list)  # (seat, id JSON, move)
    started: bool = False  # the host started it early (rs_table_state)
    standins: list[int] = field(default_factory=list)  # seats a stand-in bot plays
    clock: dict[str, Any] | None = None  # the turn clock's state (rs_clock)
    timeouts: list[tuple[int, int]] = field(default_factory=list)  # (deal, ply) by the clock
    forced: list[tuple[int, int]] = field(default_factory=list)  # (deal, ply) made for a person

"""Stored analyses of finished deals (issue 15): one row per table, deal and seat, so that a
deal is analysed once and never recomputed. Its own table, created on first use, so that the
rest of the store does not need to know about it."""

from __future__ import annotations

import json
import time
import weakref
from typing import Any

from sqlalchemy import ForeignKey, Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from . import Store
from .schema import Base


class AnalysisRow(Base):
    __tablename__ = "rs_analyses"
    table_id: Mapped[str] = mapped_column(ForeignKey("rs_tables.id"), primary_key=True)
    deal: Mapped[int] = mapped_column(Integer, primary_key=True)
    seat: Mapped[int] = mapped_column(Integer, primary_key=True)
    budget: Mapped[str] = mapped_column(String(64))  # how it was computed (worlds, seed)
    created: Mapped[float] = mapped_column()
    data: Mapped[str] = mapped_column(Text)  # JSON


_READY: weakref.WeakSet[Store] = weakref.WeakSet()  # stores whose table exists


async def _ensure(store: Store) -> None:
    if store in _READY:
        return
    async with store.engine.begin() as conn:
        await conn.run_sync(lambda c: AnalysisRow.__table__.create(c, checkfirst=True))  # type: ignore[attr-defined]
    _READY.add(store)


async def load_analysis(store: Store, table_id: str, deal: int, seat: int) -> dict[str, Any] | None:
    await _ensure(store)
    async with store.session() as s:
        row = await s.get(AnalysisRow, (table_id, deal, seat))
        return None if row is None else dict(json.loads(row.data))


async def save_analysis(store: Store, table_id: str, deal: int, seat: int, budget: str,
                        data: dict[str, Any]) -> None:
    """Store an analysis (a second save of the same deal and seat keeps the first)."""
    await _ensure(store)
    async with store.session() as s, s.begin():
        if await s.get(AnalysisRow, (table_id, deal, seat)) is not None:
            return
        s.add(AnalysisRow(table_id=table_id, deal=deal, seat=seat, budget=budget,
                          created=time.time(), data=json.dumps(data, ensure_ascii=False)))

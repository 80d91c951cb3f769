"""Stored analyses of finished deals (issue 15): one row per table, deal and seat, so that a
deal is analysed once and never recomputed. Its own table (made by the store's migrations), so
that the rest of the store does not need to know about it."""

from __future__ import annotations

import json
import time
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


async def load_analysis(store: Store, table_id: str, deal: int, seat: int) -> dict[str, Any] | None:
    async with store.session() as s:
        row = await s.get(AnalysisRow, (table_id, deal, seat))
        return None if row is None else dict(json.loads(row.data))


async def save_analysis(store: Store, table_id: str, deal: int, seat: int, budget: str,
                        data: dict[str, Any]) -> None:
    """Store an analysis (a second save of the same deal and seat keeps the first)."""
    async with store.session() as s, s.begin():
        if await s.get(AnalysisRow, (table_id, deal, seat)) is not None:
            return
        s.add(AnalysisRow(table_id=table_id, deal=deal, seat=seat, budget=budget,
                          created=time.time(), data=json.dumps(data, ensure_ascii=False)))

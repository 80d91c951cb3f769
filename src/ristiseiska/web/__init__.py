"""The browser game: ``ristiseiska serve`` (FastAPI + WebSockets, SQLite or PostgreSQL)."""

from __future__ import annotations

from typing import Any


def create_app(*args: Any, **kwargs: Any) -> Any:
    from .app import create_app as make

    return make(*args, **kwargs)

"""Database URLs: the default one, the plain forms accepted, the one that may be printed,
the file of a SQLite URL, and a driver's error told in one sentence."""

from __future__ import annotations

from pathlib import Path


def sqlite_path(url: str) -> Path | None:
    """The file of a SQLite URL (``None`` for other databases and in-memory SQLite)."""
    if not url.startswith("sqlite"):
        return None
    rest = url.split(":///", 1)[1] if ":///" in url else ""
    rest = rest.split("?", 1)[0]
    if rest.startswith("file:"):
        rest = rest[5:]
    return Path(rest) if rest and rest != ":memory:" else None


def describe_error(e: BaseException, url: str) -> str:
    """A driver's exception as one sentence (no traceback, no password)."""
    text = " ".join(str(getattr(e, "orig", None) or e).split())
    low = text.lower()
    where = sqlite_path(url) or "the database"
    if "file is not a database" in low or "malformed" in low or "corrupt" in low:
        return (f"{where} is damaged or not a SQLite database ({text[:100]}); restore it from "
                "a backup or start with another --database-url")
    if "readonly" in low or "read-only" in low:
        return f"{where} is read-only: the server must be able to write its games"
    if "unable to open" in low:
        return f"cannot open {where}: check that its directory exists and is writable"
    return f"cannot use {where}: {type(e).__name__}: {text[:200]}"


def default_database_url() -> str:
    from ..paths import data_dir

    path = data_dir()
    path.mkdir(parents=True, exist_ok=True)
    return f"sqlite+aiosqlite:///{path / 'ristiseiska.sqlite3'}"


def normalise_url(url: str) -> str:
    """Accept the plain forms too (``sqlite:///x``, ``postgresql://``) and pick async drivers."""
    if url.startswith("sqlite:///") or url == "sqlite://":
        return "sqlite+aiosqlite" + url[len("sqlite"):]
    if url.startswith("postgresql://") or url.startswith("postgres://"):
        return "postgresql+psycopg://" + url.split("://", 1)[1]
    return url


def shown_url(url: str) -> str:
    """The URL as it may be printed: the user name kept, a password masked.

    >>> shown_url("postgresql+psycopg://anna:secret@db.example/rs")
    'postgresql+psycopg://anna:***@db.example/rs'
    """
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        cred, host = rest.rsplit("@", 1)
        return f"{scheme}://{cred.split(':', 1)[0]}:***@{host}" if ":" in cred else url
    return url

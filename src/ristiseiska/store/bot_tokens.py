"""Bot API identities (issue 59): a host names an outside program (``ristiseiska bots add
NAME``) and gets its token once; ``rs_bot_tokens`` keeps only the token's SHA-256, so a copy
of the database seats nobody. The web server looks a connecting program up by that hash
(web/bot_api.py)."""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import time

from sqlalchemy import String, delete, select
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import Mapped, mapped_column

from . import Store
from .schema import Base

# a bot's name is its seat kind's value (``bot-api:NAME``): short, ASCII, no spaces
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,31}$")
TOKEN_PREFIX = "rsb_"  # tells a bot token from a seat token at a glance


class BotTokenError(ValueError):
    """A bad or unknown name, or a name already taken (``code`` says which)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code


class BotTokenRow(Base):
    __tablename__ = "rs_bot_tokens"
    name: Mapped[str] = mapped_column(String(32), primary_key=True)
    token_hash: Mapped[str] = mapped_column(String(64), unique=True)  # sha256 hex
    created: Mapped[float] = mapped_column()  # Unix time


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8", "replace")).hexdigest()


def check_name(name: object) -> str:
    if not isinstance(name, str) or not NAME_RE.match(name):
        shown = repr(name[:40]) if isinstance(name, str) else repr(name)
        raise BotTokenError("bad-name", f"a bot's name is 1 to 32 lower-case letters a-z, "
                            f"digits, - or _, starting with a letter or digit, not {shown}")
    return name


async def add_bot(store: Store, name: str) -> str:
    """Make the bot ``name`` and return its token (never stored, never shown again)."""
    check_name(name)
    token = TOKEN_PREFIX + secrets.token_urlsafe(32)
    try:
        async with store._write(), store.session() as s, s.begin():
            if await s.get(BotTokenRow, name) is not None:
                raise BotTokenError("name-taken", f"a bot named {name!r} exists already "
                                    "(remove it first to give it a new token)")
            s.add(BotTokenRow(name=name, token_hash=token_hash(token), created=time.time()))
    except IntegrityError:  # another process added it at the same moment
        raise BotTokenError("name-taken", f"a bot named {name!r} exists already") from None
    return token


async def list_bots(store: Store) -> list[tuple[str, float]]:
    """Every bot's name and creation time, by name."""
    async with store.session() as s:
        rows = await s.scalars(select(BotTokenRow).order_by(BotTokenRow.name))
        return [(r.name, r.created) for r in rows]


async def remove_bot(store: Store, name: str) -> None:
    """Remove ``name``: its token seats it nowhere any more."""
    check_name(name)
    async with store._write(), store.session() as s, s.begin():
        gone = await s.execute(delete(BotTokenRow).where(BotTokenRow.name == name))
        if not getattr(gone, "rowcount", 0):
            raise BotTokenError("no-bot", f"no bot named {name!r}")


async def bot_of(store: Store, token: object) -> str | None:
    """The name of the bot whose token this is, ``None`` for any other text."""
    if not isinstance(token, str) or not 0 < len(token) <= 200:
        return None
    h = token_hash(token)
    async with store.session() as s:
        row = await s.scalar(select(BotTokenRow).where(BotTokenRow.token_hash == h))
    if row is None or not hmac.compare_digest(row.token_hash, h):
        return None
    return row.name


async def exists(store: Store, name: str) -> bool:
    async with store.session() as s:
        return await s.get(BotTokenRow, name) is not None

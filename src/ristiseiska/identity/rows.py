"""The identity's tables (issue 58; made by revision 0006 of the migrations): the devices
linked to a player, the player's passkeys, and the one-time secrets (transfer codes and
WebAuthn challenges), kept only as hashes."""

from __future__ import annotations

from sqlalchemy import Integer, String, Text
from sqlalchemy.orm import Mapped, mapped_column

from ..store.schema import Base


class DeviceLink(Base):
    """A device that is not its player's first: ``player`` is ``device:<first device hash>``."""

    __tablename__ = "rs_identity_devices"
    device: Mapped[str] = mapped_column(String(64), primary_key=True)  # the device key's hash
    player: Mapped[str] = mapped_column(String(128), index=True)
    how: Mapped[str] = mapped_column(String(16))  # "code" or "passkey"
    linked: Mapped[float] = mapped_column()  # Unix time


class Passkey(Base):
    __tablename__ = "rs_identity_passkeys"
    credential: Mapped[str] = mapped_column(String(1024), primary_key=True)  # base64url id
    player: Mapped[str] = mapped_column(String(128), index=True)
    public_key: Mapped[str] = mapped_column(Text)  # base64url COSE key
    sign_count: Mapped[int] = mapped_column(Integer)
    created: Mapped[float] = mapped_column()


class Secret(Base):
    """A transfer code or a WebAuthn challenge: single use, short-lived, stored hashed."""

    __tablename__ = "rs_identity_secrets"
    hash: Mapped[str] = mapped_column(String(64), primary_key=True)  # sha256 hex
    kind: Mapped[str] = mapped_column(String(16))  # "code", "register", "login"
    player: Mapped[str | None] = mapped_column(String(128), nullable=True)
    expires: Mapped[float] = mapped_column(index=True)
    used: Mapped[float | None] = mapped_column(nullable=True)

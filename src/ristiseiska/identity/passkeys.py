"""Passkeys (WebAuthn, by the ``webauthn`` library): a player registers one for their identity
on a device they play on, and signing in with it on another device links that device
(docs/identity.md). The relying party is the server's own address: ``rp_id`` its host name,
``origins`` the page origins accepted (from the request; ``serve --allowed-origin`` adds)."""

from __future__ import annotations

import base64
import hashlib
import json
import secrets
import time
from typing import Any

import webauthn
from sqlalchemy import select
from webauthn.helpers.exceptions import WebAuthnException
from webauthn.helpers.structs import (
    AuthenticatorSelectionCriteria,
    PublicKeyCredentialDescriptor,
    ResidentKeyRequirement,
    UserVerificationRequirement,
)

from ..store import Store
from . import IdentityError, link, new_secret, spend_secret
from .rows import Passkey

CHALLENGE_LIFETIME = 300.0  # seconds to answer a passkey prompt
RP_NAME = "Ristiseiska"


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: Any) -> bytes:
    if not isinstance(text, str) or len(text) > 8192:
        raise IdentityError("bad-passkey", "the passkey's answer is not a WebAuthn credential")
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    except ValueError:
        raise IdentityError("bad-passkey", "the passkey's answer is not base64url") from None


def client_data(credential: Any) -> tuple[str, str]:
    """The challenge (base64url) and origin the browser signed in ``credential``."""
    if not isinstance(credential, dict) or not isinstance(credential.get("response"), dict):
        raise IdentityError("bad-passkey", "send the passkey's credential as a JSON object")
    try:
        data = json.loads(_unb64(credential["response"].get("clientDataJSON")))
    except ValueError:
        raise IdentityError("bad-passkey", "the credential's client data is not JSON") from None
    if not isinstance(data, dict) or not isinstance(data.get("challenge"), str):
        raise IdentityError("bad-passkey", "the credential's client data has no challenge")
    return data["challenge"], str(data.get("origin", ""))


def _check_origin(origin: str, origins: list[str]) -> None:
    if origin.rstrip("/").lower() not in {o.rstrip("/").lower() for o in origins}:
        raise IdentityError("wrong-origin", f"the passkey was made for {origin or 'no origin'}"
                            f", not this server ({', '.join(origins)})")


async def registration_options(store: Store, player: str, rp_id: str, name: str = "",
                               now: float | None = None) -> dict[str, Any]:
    """Options for ``navigator.credentials.create`` (JSON, binary fields base64url)."""
    async with store.session() as s:
        have = list(await s.scalars(select(Passkey.credential).where(Passkey.player == player)))
    challenge = secrets.token_bytes(32)
    opts = webauthn.generate_registration_options(
        rp_id=rp_id, rp_name=RP_NAME, challenge=challenge,
        user_id=hashlib.sha256(player.encode()).digest()[:16],
        user_name=name or RP_NAME, user_display_name=name or RP_NAME,
        authenticator_selection=AuthenticatorSelectionCriteria(
            resident_key=ResidentKeyRequirement.REQUIRED,
            user_verification=UserVerificationRequirement.PREFERRED),
        exclude_credentials=[PublicKeyCredentialDescriptor(id=_unb64(c)) for c in have])
    await new_secret(store, "register", player, _b64(challenge), CHALLENGE_LIFETIME, now)
    out: dict[str, Any] = json.loads(webauthn.options_to_json(opts))
    return out


async def register(store: Store, player: str, credential: Any, origins: list[str], rp_id: str,
                   now: float | None = None) -> str:
    """Keep the passkey the browser made for ``player``; its id. Refused: a credential from
    another origin (``wrong-origin``), for a challenge not given to this player, or that does
    not verify (``bad-passkey``)."""
    challenge, origin = client_data(credential)
    _check_origin(origin, origins)
    owner = await spend_secret(store, "register", challenge, now,
                               {"register": "passkey prompt"})
    if owner != player:
        raise IdentityError("wrong-challenge", "this passkey prompt was not made for this player")
    try:
        done = webauthn.verify_registration_response(
            credential=credential, expected_challenge=_unb64(challenge), expected_rp_id=rp_id,
            expected_origin=origins)
    except (WebAuthnException, ValueError, KeyError, TypeError) as e:
        raise IdentityError("bad-passkey", f"the passkey does not verify: {e}") from None
    cred = _b64(done.credential_id)
    async with store._write(), store.session() as s, s.begin():
        if await s.get(Passkey, cred) is not None:
            raise IdentityError("known-passkey", "this passkey is registered already")
        s.add(Passkey(credential=cred, player=player, public_key=_b64(done.credential_public_key),
                      sign_count=done.sign_count,
                      created=time.time() if now is None else now))
    return cred


async def login_options(store: Store, rp_id: str, now: float | None = None) -> dict[str, Any]:
    """Options for ``navigator.credentials.get`` (any passkey of this site: discoverable)."""
    challenge = secrets.token_bytes(32)
    opts = webauthn.generate_authentication_options(
        rp_id=rp_id, challenge=challenge, user_verification=UserVerificationRequirement.PREFERRED)
    await new_secret(store, "login", None, _b64(challenge), CHALLENGE_LIFETIME, now)
    out: dict[str, Any] = json.loads(webauthn.options_to_json(opts))
    return out


async def login(store: Store, device_hash: str, credential: Any, origins: list[str],
                rp_id: str, now: float | None = None) -> str:
    """Verify the passkey's signature and link this device to its player; that player."""
    challenge, origin = client_data(credential)
    _check_origin(origin, origins)
    cred = credential.get("rawId") or credential.get("id")
    _unb64(cred)
    async with store.session() as s:
        key = await s.get(Passkey, cred)
    if key is None:
        raise IdentityError("unknown-passkey", "this passkey belongs to no player here (it was "
                            "deleted, or made for another server)")
    await spend_secret(store, "login", challenge, now, {"login": "passkey prompt"})
    try:
        done = webauthn.verify_authentication_response(
            credential=credential, expected_challenge=_unb64(challenge), expected_rp_id=rp_id,
            expected_origin=origins, credential_public_key=_unb64(key.public_key),
            credential_current_sign_count=key.sign_count)
    except (WebAuthnException, ValueError, KeyError, TypeError) as e:
        raise IdentityError("bad-passkey", f"the passkey does not verify: {e}") from None
    async with store._write(), store.session() as s, s.begin():
        row = await s.get(Passkey, cred, with_for_update=True)
        if row is None:
            raise IdentityError("unknown-passkey", "this passkey was deleted meanwhile")
        row.sign_count = done.new_sign_count
    await link(store, device_hash, key.player, "passkey", now)
    return key.player

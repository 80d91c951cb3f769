"""A software passkey for tests (issue 58): makes the WebAuthn answers a browser's
authenticator gives (``none`` attestation, an ES256 key), so the server's passkey routes are
tested without a browser."""

from __future__ import annotations

import base64
import hashlib
import json
import os
from typing import Any

import cbor2
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


class SoftPasskey:
    def __init__(self, rp_id: str = "testserver", origin: str = "http://testserver") -> None:
        self.rp_id, self.origin = rp_id, origin
        self.key = ec.generate_private_key(ec.SECP256R1())
        self.id = os.urandom(16)
        self.count = 0

    def _client(self, kind: str, challenge: str, origin: str | None) -> bytes:
        return json.dumps({"type": kind, "challenge": challenge,
                           "origin": origin or self.origin, "crossOrigin": False}).encode()

    def create(self, options: dict[str, Any], origin: str | None = None) -> dict[str, Any]:
        nums = self.key.public_key().public_numbers()
        cose = {1: 2, 3: -7, -1: 1, -2: nums.x.to_bytes(32, "big"), -3: nums.y.to_bytes(32, "big")}
        auth = (hashlib.sha256(self.rp_id.encode()).digest() + bytes([0x45])
                + self.count.to_bytes(4, "big") + bytes(16) + len(self.id).to_bytes(2, "big")
                + self.id + cbor2.dumps(cose))
        att = cbor2.dumps({"fmt": "none", "attStmt": {}, "authData": auth})
        client = self._client("webauthn.create", options["challenge"], origin)
        return {"id": b64(self.id), "rawId": b64(self.id), "type": "public-key",
                "clientExtensionResults": {},
                "response": {"clientDataJSON": b64(client), "attestationObject": b64(att)}}

    def get(self, options: dict[str, Any], origin: str | None = None) -> dict[str, Any]:
        self.count += 1
        auth = (hashlib.sha256(self.rp_id.encode()).digest() + bytes([0x05])
                + self.count.to_bytes(4, "big"))
        client = self._client("webauthn.get", options["challenge"], origin)
        sig = self.key.sign(auth + hashlib.sha256(client).digest(), ec.ECDSA(hashes.SHA256()))
        return {"id": b64(self.id), "rawId": b64(self.id), "type": "public-key",
                "clientExtensionResults": {},
                "response": {"clientDataJSON": b64(client), "authenticatorData": b64(auth),
                             "signature": b64(sig)}}

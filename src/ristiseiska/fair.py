"""Provably fair deals: a server commits to a match seed before play and reveals it after.

When a table is created the server draws the match seed from the operating system's secure
random source and publishes only ``commitment(seed, salt)``, a SHA-256 hash of the seed with a
random salt. Nobody (players, the table's creator) can compute a hand from the commitment, and
the server cannot change the seed later without the hash changing. When the match ends the
seed and salt are revealed in every record of the table, so anyone can check with
``ristiseiska replay --check`` that (1) the seed hashes to the commitment shown at the start,
(2) each deal's shuffle seed is :func:`ristiseiska.match.deal_seed` of it and (3) the dealt
hands are that shuffle.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

SEED_BITS = 62
MAX_SEED = 2**64  # seeds in records are checked below this (they fit any engine)


def new_seed() -> int:
    """A match seed nobody can predict."""
    return secrets.randbits(SEED_BITS)


def new_salt() -> str:
    """32 hex digits: makes the commitment impossible to invert by trying every seed."""
    return secrets.token_hex(16)


def commitment(seed: int, salt: str) -> str:
    """The published hash: ``sha256("ristiseiska-seed:<salt>:<seed>")`` in hex."""
    return hashlib.sha256(f"ristiseiska-seed:{salt}:{seed}".encode()).hexdigest()


def verify(seed: int, salt: str, published: str) -> bool:
    """True when ``seed`` and ``salt`` give the ``published`` commitment."""
    return hmac.compare_digest(commitment(seed, salt), published.lower())

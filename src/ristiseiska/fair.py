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

# 256 bits: a finished deal's record shows its shuffle seed (63 bits, a SHA-256 of the match
# seed and the deal's number), and nobody may find the match seed from it by trying every seed,
# which would open the deals still to come. Matches of older servers have 62-bit seeds; their
# records stay checkable (every seed below MAX_MATCH_SEED is).
SEED_BITS = 256
MAX_SEED = 2**64  # a deal's shuffle seed in a record is checked below this (it fits any engine)
MAX_MATCH_SEED = 2**SEED_BITS  # a record's match_seed is checked below this


def new_seed() -> int:
    """A match seed nobody can predict (256 bits from the operating system's secure source)."""
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

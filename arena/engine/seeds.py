"""Secret deals: per-match seeds derived from a secret with HMAC-SHA-256 over public ids, and
the commitment (a hash of the secret) published before play and checked after the reveal."""

from __future__ import annotations

import hashlib
import hmac

SECRET_BITS = 256  # a fresh secret's size (arena/host/secret.py draws it)


def derive_secret(secret: int | str, *ids: int | str) -> int:
    """A 256-bit seed for the public ``ids`` (e.g. ``"deal-set", "r1-t2"``): revealing it
    reveals neither ``secret`` nor the seed of any other ids."""
    message = "/".join(str(i) for i in ids).encode()
    digest = hmac.digest(str(secret).encode(), message, "sha256")
    return int.from_bytes(digest, "big")


def commitment(secret: int | str) -> str:
    """What is published before play: ``sha256:<hex>`` of the secret."""
    return "sha256:" + hashlib.sha256(b"arena-secret/" + str(secret).encode()).hexdigest()


def matches_commitment(secret: int | str, published: str) -> bool:
    return hmac.compare_digest(commitment(secret), published)

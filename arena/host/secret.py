"""Fresh deal secrets from the operating system's cryptographic source (the engine derives
seeds from a secret it is given: arena/engine/seeds.py)."""

from __future__ import annotations

import secrets

from arena.engine.seeds import SECRET_BITS


def new_secret() -> int:
    """A fresh secret of :data:`~arena.engine.seeds.SECRET_BITS` random bits."""
    return secrets.randbits(SECRET_BITS)

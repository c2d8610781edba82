"""Bot tokens: stored only as salted scrypt hashes, checked in constant time."""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac
import secrets

# scrypt: tokens may be chosen by people, so a slow salted hash; checked once per connection.
_SCRYPT_N, _SCRYPT_R, _SCRYPT_P = 2**14, 8, 1


def hash_token(token: str, *, salt: bytes | None = None) -> str:
    """``scrypt$n$r$p$salt$hash`` (base64): what the store keeps instead of a bot's token."""
    salt = secrets.token_bytes(16) if salt is None else salt
    digest = hashlib.scrypt(token.encode(), salt=salt, n=_SCRYPT_N, r=_SCRYPT_R, p=_SCRYPT_P, dklen=32)
    b64 = base64.b64encode
    return f"scrypt${_SCRYPT_N}${_SCRYPT_R}${_SCRYPT_P}${b64(salt).decode()}${b64(digest).decode()}"


def verify_token(token: str, token_hash: str) -> bool:
    try:
        scheme, n, r, p, salt_b64, digest_b64 = token_hash.split("$")
        if scheme != "scrypt":
            return False
        salt, expected = base64.b64decode(salt_b64), base64.b64decode(digest_b64)
        digest = hashlib.scrypt(token.encode(), salt=salt, n=int(n), r=int(r), p=int(p), dklen=len(expected))
    except ValueError:
        return False
    return hmac.compare_digest(digest, expected)


@functools.cache
def dummy_hash() -> str:
    """A hash to verify against for unknown names: the same work, so no timing oracle."""
    return hash_token("", salt=bytes(16))

"""The messages between the dealer's process and its writer process (`arena.league.procwriter`,
`arena.storage.writer_child`): a 4-byte little-endian length, then a ``marshal`` tuple whose
first item names it. Kept apart so that the child starts without the dealer's imports."""

from __future__ import annotations

import marshal
import struct

from arena.storage.errors import StoreError

_HEADER = struct.Struct("<I")
_MAX_MESSAGE_BYTES = 64 << 20


class WriterProcessError(StoreError):
    """The writer process failed, ended, or answered something that cannot be read."""


def frame(message: tuple[object, ...]) -> bytes:
    """One message as sent on either pipe; a `ValueError` for one of other values than plain
    ones (`marshal`'s) or of more bytes than a reader takes (nothing to send then)."""
    data = marshal.dumps(message)  # type: ignore[arg-type]  # plain values only (checked by marshal)
    if len(data) > _MAX_MESSAGE_BYTES:
        raise ValueError(f"a message of {len(data)} bytes: more than {_MAX_MESSAGE_BYTES}")
    return _HEADER.pack(len(data)) + data


def unframe(buffer: bytearray) -> list[tuple[object, ...]]:
    """The whole messages at the start of ``buffer`` (removed from it); a part stays."""
    out: list[tuple[object, ...]] = []
    at = 0
    with memoryview(buffer) as view:  # each message read in place (no copy of its bytes)
        while len(view) - at >= _HEADER.size:
            (size,) = _HEADER.unpack_from(view, at)
            if size > _MAX_MESSAGE_BYTES:
                raise WriterProcessError(f"a message of {size} bytes announced: not a writer's message")
            if len(view) - at - _HEADER.size < size:
                break
            try:
                with view[at + _HEADER.size:at + _HEADER.size + size] as data:
                    message = marshal.loads(data)
            except (EOFError, ValueError, TypeError) as exc:
                raise WriterProcessError(f"a message that cannot be read: {exc}") from None
            at += _HEADER.size + size
            if not isinstance(message, tuple) or not message or not isinstance(message[0], str):
                raise WriterProcessError(f"a message of unexpected form: {message!r:.200}")
            out.append(message)
    del buffer[:at]
    return out

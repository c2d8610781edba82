"""Protobuf's wire format written directly, for the splicer (:mod:`arena.server.wire`) and the
event log's records (:mod:`arena.server.eventrecord`).

Every tag is derived from the generated descriptors (:func:`tag`, :func:`number`), once at
import: no field number or wire type is written by hand outside the ``.proto``
(tests/server/test_wire_tags.py checks it).
"""

from __future__ import annotations

import struct
from typing import Any, Final

from google.protobuf import timestamp_pb2
from google.protobuf.descriptor import FieldDescriptor

# Every varint below 2**14 (one or two bytes: chip amounts, lengths, seats), built once.
_VARINTS: Final = tuple(bytes((v,)) if v < 0x80 else bytes((v & 0x7F | 0x80, v >> 7))
                        for v in range(0x4000))
# 14 bits followed by more (both bytes with the continuation bit): a larger varint is spliced
# from these and a last part from ``_VARINTS``, without building a tuple and bytes per call.
_VARINTS_MORE: Final = tuple(bytes((v & 0x7F | 0x80, v >> 7 | 0x80)) for v in range(0x4000))

# The wire type of each field type that is not a varint (protobuf's encoding guide).
_WIRE_TYPES: Final = {
    FieldDescriptor.TYPE_DOUBLE: 1, FieldDescriptor.TYPE_FIXED64: 1,
    FieldDescriptor.TYPE_SFIXED64: 1, FieldDescriptor.TYPE_FLOAT: 5,
    FieldDescriptor.TYPE_FIXED32: 5, FieldDescriptor.TYPE_SFIXED32: 5,
    FieldDescriptor.TYPE_STRING: 2, FieldDescriptor.TYPE_BYTES: 2, FieldDescriptor.TYPE_MESSAGE: 2}
_LENGTH_DELIMITED: Final = 2


def varint(value: int) -> bytes:
    """A non-negative integer as a base-128 varint."""
    if value < 0x4000:
        return _VARINTS[value]
    if value < 0x10000000:  # up to four bytes
        return _VARINTS_MORE[value & 0x3FFF] + _VARINTS[value >> 14]
    if value < 0x40000000000:  # up to six bytes (Unix seconds, nanoseconds)
        return (_VARINTS_MORE[value & 0x3FFF] + _VARINTS_MORE[value >> 14 & 0x3FFF]
                + _VARINTS[value >> 28])
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def signed(value: int) -> bytes:
    """An int32/int64 varint: a negative value as its 64-bit two's complement."""
    if 0 <= value < 0x4000:
        return _VARINTS[value]
    return varint(value if value >= 0 else value + (1 << 64))


def number(message: Any, name: str) -> int:
    """The field number of ``message``'s field ``name``, from its descriptor."""
    return int(message.DESCRIPTOR.fields_by_name[name].number)


def tag(message: Any, name: str) -> bytes:
    """The tag of ``message``'s field ``name`` (of one entry, for a repeated field that is not
    packed), number and wire type from its descriptor."""
    found = message.DESCRIPTOR.fields_by_name[name]
    wire_type = _LENGTH_DELIMITED if found.is_packed else _WIRE_TYPES.get(found.type, 0)
    return varint(found.number << 3 | wire_type)


def field(number: int, data: bytes) -> bytes:
    """A length-delimited field (message, bytes, string, packed) of field ``number``, framed."""
    return varint(number << 3 | _LENGTH_DELIMITED) + varint(len(data)) + data


def text(tag: bytes, value: str) -> bytes:
    """A string field: tag, length, UTF-8."""
    data = value.encode()
    return tag + varint(len(data)) + data


double: Final = struct.Struct("<d").pack  # a double's eight bytes (after its tag)
TRUE: Final = varint(1)  # a bool field's value when set

_SECONDS_TAG: Final = tag(timestamp_pb2.Timestamp, "seconds")
_NANOS_TAG: Final = tag(timestamp_pb2.Timestamp, "nanos")
_SECONDS_FIELDS: Final[dict[int, bytes]] = {}  # a few recent seconds


def _seconds_field(seconds: int) -> bytes:
    """A timestamp's seconds part, absent when zero; it changes once a second."""
    found = _SECONDS_FIELDS.get(seconds)
    if found is None:
        if len(_SECONDS_FIELDS) >= 4:
            _SECONDS_FIELDS.clear()
        found = _SECONDS_FIELDS[seconds] = _SECONDS_TAG + signed(seconds) if seconds else b""
    return found


def timestamp(tag: bytes, unix_seconds: float) -> bytes:
    """A ``google.protobuf.Timestamp`` field as ``convert._set_time`` fills one: always present,
    zero parts left out."""
    seconds = int(unix_seconds)
    nanos = int((unix_seconds - seconds) * 1e9)
    head = _seconds_field(seconds)
    body = head + _NANOS_TAG + signed(nanos) if nanos else head
    return tag + _VARINTS[len(body)] + body


"""The JSONL event log of a match: every event as sent to each seat, with timestamps.

Events are written from the dealer's own event values (the ones the transport encodes for the
wire), with cards in PHH notation; converting each through protobuf JSON would cost the dealer
a fifth of its throughput. The text is encoded by orjson (4x faster than the standard library's
encoder), byte for byte what ``json.dumps`` writes: where the two could differ the standard
library writes it. Each event type's payload goes to orjson as a dict made by a converter
built once for its type (orjson's own walk of a dataclass is 2-3 times slower), a whole line
by one call.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Mapping, Sequence
from enum import Enum
from typing import Any

import orjson

from arena.engine.cards import format_card
from arena.match.messages import ActionAnnounced, BoardAnnounced, Notice, ShowdownAnnounced


def _plain(value: Any, *, cards: bool = False) -> Any:
    if value is None or isinstance(value, str | bool | float):
        return value
    if isinstance(value, int):
        return format_card(value) if cards and 0 <= value < 52 else value
    if isinstance(value, tuple | list):
        return [_plain(v, cards=cards) for v in value]
    if isinstance(value, Mapping):  # the rules of MatchStarted: each value is a JSON text
        return {str(k): _json_text(v) for k, v in value.items()}
    fields = _FIELDS.get(type(value))
    if fields is None:
        slots = getattr(type(value), "__slots__", None)
        if slots is None:
            return str(value)
        fields = _FIELDS[type(value)] = tuple((name, name.endswith("cards")) for name in slots
                                              if not name.startswith("_"))
    return {name: _plain(getattr(value, name), cards=is_cards) for name, is_cards in fields}


_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}
# The event's type as the wire contract names it, where the match layer's name differs.
_WIRE_NAMES: dict[type, str] = {ActionAnnounced: "ActionTaken", BoardAnnounced: "BoardDealt",
                                ShowdownAnnounced: "Showdown"}


def _json_text(value: Any) -> Any:
    """A mapping's value as data: JSON texts (``"20"``, ``'["FT"]'``) decoded, others as they are."""
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return _plain(value)


def notice_json(notice: Notice) -> str:
    """One event as JSON: ids, sequence, server time, the event type and its fields."""
    data = _event_bytes(notice)
    return reference_notice_json(notice) if data is None else data.decode()


def _event_bytes(notice: Notice) -> bytes | None:
    """:func:`notice_json` as bytes by orjson; None where it might differ from the plain walk."""
    try:
        data = orjson.dumps(_event(notice))
    except (_Unusual, orjson.JSONEncodeError, TypeError):  # e.g. an int beyond 64 bits
        return None
    return data if _as_json_dumps_writes(data) else None


def _as_json_dumps_writes(data: bytes | bytearray) -> bool:
    """Whether orjson's text holds nothing ``json.dumps`` escapes (non-ASCII, DEL)."""
    return data.isascii() and b"\x7f" not in data


def _event(notice: Notice) -> dict[str, Any]:
    """The event as the data orjson writes as the plain walk's text; raises `_Unusual` where
    it could differ (a float orjson spells otherwise, a value the converters leave alone)."""
    payload = notice.payload
    kind = type(payload)
    plan: Any = _PLANS.get(kind)
    if plan is None:
        plan = _plan(kind)
    seconds = notice.unix_seconds
    if type(seconds) is not float or not (seconds == 0.0 or 1e-4 <= abs(seconds) < 1e16):
        raise _Unusual  # see _same_spelling
    return {"match_id": notice.match_id, "hand_id": notice.hand_id, "sequence": notice.sequence,
            "server_unix_seconds": seconds, "type": _TYPE_NAMES[kind], "payload": plan(payload)}


def event_lines(held: Sequence[tuple[Notice, Sequence[int], float]]) -> bytes:
    """The JSONL lines of events as the event log holds them (each with the seats that received
    it and the time it was sent): byte for byte :func:`event_line` of each, each line by one
    call of orjson (the time it was sent spelled by ``%.6f``, as a fragment).

    Each line is copied into one buffer at once: orjson's bytes (1 KiB allocated, then shrunk)
    kept alive until a join would cost a fresh heap page now and then, ~2 us a line. Whether
    orjson wrote anything that ``json.dumps`` escapes is asked once of the whole buffer (two
    calls a line less); only then are the lines made again one by one."""
    out = bytearray()
    dumps = orjson.dumps
    fragment = orjson.Fragment
    newline = orjson.OPT_APPEND_NEWLINE
    for notice, seats, sent in held:
        try:
            out += dumps({"seats": seats, "logged_at": fragment(b"%.6f" % sent),
                          "event": _event(notice)}, option=newline)
        except (_Unusual, orjson.JSONEncodeError, TypeError):  # e.g. an int beyond 64 bits
            out += event_line(notice, seats, sent).encode()
    if _as_json_dumps_writes(out):
        return bytes(out)
    return _lines_one_by_one(held)


def _lines_one_by_one(held: Sequence[tuple[Notice, Sequence[int], float]]) -> bytes:
    """:func:`event_lines` where some line holds what ``json.dumps`` escapes (a name beyond
    ASCII, a DEL): each such line by :func:`event_line`, the others by orjson."""
    out = bytearray()
    for notice, seats, sent in held:
        data = _line_bytes(notice, seats, sent)
        out += data if data is not None else event_line(notice, seats, sent).encode()
    return bytes(out)


def _line_bytes(notice: Notice, seats: Sequence[int], sent: float) -> bytes | None:
    """One line by orjson; None where it might differ from :func:`event_line`."""
    try:
        data = orjson.dumps({"seats": seats, "logged_at": orjson.Fragment(b"%.6f" % sent),
                             "event": _event(notice)}, option=orjson.OPT_APPEND_NEWLINE)
    except (_Unusual, orjson.JSONEncodeError, TypeError):
        return None
    return data if _as_json_dumps_writes(data) else None


def event_line(notice: Notice, seats: Sequence[int], sent: float, *,
               encode: typing.Callable[[Notice], str] | None = None) -> str:
    """One line of the JSONL event log: the seats that received the event, when it was sent, and
    the event (by ``encode``, default :func:`reference_notice_json`)."""
    text = (encode or reference_notice_json)(notice)
    return f'{{"seats":[{",".join(map(str, seats))}],"logged_at":{sent:.6f},"event":{text}}}\n'


def reference_notice_json(notice: Notice) -> str:
    """:func:`notice_json` by the plain recursive walk (what the compiled converters must equal)."""
    payload = notice.payload
    return json.dumps({
        "match_id": notice.match_id, "hand_id": notice.hand_id, "sequence": notice.sequence,
        "server_unix_seconds": notice.unix_seconds,
        "type": _WIRE_NAMES.get(type(payload), type(payload).__name__),
        "payload": _plain(payload),
    }, separators=(",", ":"))


class _Unusual(Exception):
    """A value the fast conversion leaves to the plain walk (see `_value`)."""


def _same_spelling(value: float) -> bool:
    """Whether orjson spells this float as json.dumps does (they differ below 1e-4 and from
    1e16 on: 1e-05 is "0.00001" there, 1e+16 "1e16"; NaN is null)."""
    return value == 0.0 or 1e-4 <= abs(value) < 1e16


_EXACT = frozenset({int, str, bool, type(None)})  # written alike by orjson and json.dumps
_CARD_NAMES = tuple(format_card(c) for c in range(52))


def _value(value: Any) -> Any:
    """``_plain(value)`` with plain values and slotted objects taken the short way; raises
    `_Unusual` for a float orjson spells otherwise and for anything but tuples and slotted
    dataclasses (the rules mapping of MatchStarted, once a match): the plain walk takes those."""
    kind = type(value)
    convert = _CONVERTERS.get(kind)
    if convert is not None:
        return convert(value)
    if kind in _EXACT:
        return value
    if kind is float:
        if _same_spelling(value):
            return value
        raise _Unusual
    if kind is tuple:
        return [_value(v) for v in value]
    convert = _CONVERTERS[kind] = (
        _converter(kind) if hasattr(kind, "__dataclass_fields__")
        else _itself if issubclass(kind, Enum) and issubclass(kind, str | int) else _unusual)
    return convert(value)


def _itself(value: Any) -> Any:
    """A str or int enum member: both encoders write its value."""
    return value


def _unusual(value: Any) -> Any:
    raise _Unusual


def _cards(value: Any) -> Any:
    """``_plain(value, cards=True)``: card numbers as their names."""
    if type(value) is tuple:
        names = _CARD_NAMES
        return [names[v] if type(v) is int and 0 <= v < 52 else _card_other(v) for v in value]
    return _card_other(value)


def _card_other(value: Any) -> Any:
    """What a cards field holds besides card numbers: nested tuples, None, other ints."""
    if type(value) is tuple:
        return _cards(value)
    if value is None or type(value) is int:
        return value
    raise _Unusual


_CONVERTERS: dict[type, Any] = {}  # value type -> its converter (slotted dataclasses, enums)
_PLANS: dict[type, Any] = {}  # event type -> the converter of its payload
_TYPE_NAMES: dict[type, str] = {}  # event type -> its name on the wire


def _plan(kind: type) -> Any:
    """The converter of an event type's payload (made once per type)."""
    _TYPE_NAMES[kind] = _WIRE_NAMES.get(kind, kind.__name__)
    plan = _PLANS[kind] = _converter(kind)
    return plan


def _plain_hint(hint: Any) -> bool:
    """Whether a field of this type hint holds only values orjson writes as the plain walk
    does, taken as they are: ints, strings, flags, None, str or int enums and tuples of those
    (no cards: written by name; no floats: orjson spells some otherwise; no objects: orjson's
    walk of a dataclass is slower than the converters)."""
    if hint in (int, str, bool, type(None)):
        return True
    if isinstance(hint, type):
        return issubclass(hint, Enum) and issubclass(hint, str | int)
    if typing.get_origin(hint) in (tuple, typing.Union, types.UnionType):
        return all(arg is Ellipsis or _plain_hint(arg) for arg in typing.get_args(hint))
    return False


def _converter(kind: type) -> Any:
    """A function turning a value of ``kind`` into the data ``_plain`` makes of it (dicts, lists
    and plain values), built once per type from its own slots (as ``_plain`` walks it; fields
    ending in ``cards`` hold cards)."""
    slots = getattr(kind, "__slots__", None)
    if slots is None or not isinstance(slots, tuple):
        return _unusual
    fields = [name for name in slots if not name.startswith("_")]
    if not all(name.isidentifier() for name in fields):
        return _unusual
    try:
        hints = typing.get_type_hints(kind)
    except (NameError, TypeError):
        hints = {}
    # Fields of plain values by their type hints are taken as they are; other plain values
    # without a call; objects and tuples by `_value`.
    items = ", ".join(f"{name!r}: _cards(v.{name})" if name.endswith("cards") else
                      f"{name!r}: v.{name}" if name in hints and _plain_hint(hints[name]) else
                      f"{name!r}: (x if type(x := v.{name}) in _EXACT else _value(x))"
                      for name in fields)
    namespace: dict[str, Any] = {"_cards": _cards, "_value": _value, "_EXACT": _EXACT}
    exec(f"def convert(v):\n    return {{{items}}}\n", namespace)
    return namespace["convert"]

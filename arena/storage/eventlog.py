"""The JSONL event log of a match: every event as sent to each seat, with timestamps.

Events are written from the dealer's own event values (the ones the transport encodes for the
wire), with cards in PHH notation; converting each through protobuf JSON would cost the dealer
a fifth of its throughput. The text is encoded by orjson (4x faster than the standard library's
encoder), byte for byte what ``json.dumps`` writes: where the two could differ the standard
library writes it. Event types whose fields hold only whole numbers, strings, flags, enums and
such values (no cards, no floats) go to orjson as they are, without a conversion in Python.
"""

from __future__ import annotations

import dataclasses
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
    payload = notice.payload
    kind = type(payload)
    plan: Any = _PLANS.get(kind)
    if plan is None:
        plan = _PLANS[kind] = _NATIVE if _is_native(kind) else _converter(kind)
    seconds = notice.unix_seconds
    if type(seconds) is not float or not _same_spelling(seconds):
        return None
    try:
        data = orjson.dumps({
            "match_id": notice.match_id, "hand_id": notice.hand_id, "sequence": notice.sequence,
            "server_unix_seconds": seconds, "type": _WIRE_NAMES.get(kind, kind.__name__),
            "payload": payload if plan is _NATIVE else plan(payload),
        })
    except (_Unusual, orjson.JSONEncodeError, TypeError):  # e.g. an int beyond 64 bits
        return None
    if not data.isascii() or b"\x7f" in data:  # json.dumps escapes these characters
        return None
    return data


def event_lines(held: Sequence[tuple[Notice, Sequence[int], float]]) -> bytes:
    """The JSONL lines of events as the event log holds them (each with the seats that received
    it and the time it was sent): byte for byte :func:`event_line` of each."""
    lines = []
    for notice, seats, sent in held:
        data = _event_bytes(notice)
        lines.append(event_line(notice, seats, sent).encode() if data is None else
                     b'{"seats":%b,"logged_at":%.6f,"event":%b}\n' % (_seat_list(seats), sent, data))
    return b"".join(lines)


def _seat_list(seats: Sequence[int]) -> bytes:
    """``[0,2]``: seat numbers (ints, as the event log keeps them) as the plain line writes them."""
    return orjson.dumps(seats if type(seats) is list else list(seats))


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
    if kind in _EXACT:
        return value
    if kind is float:
        if _same_spelling(value):
            return value
        raise _Unusual
    if kind is tuple:
        return [_value(v) for v in value]
    convert = _CONVERTERS.get(kind)
    if convert is None:
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


_CONVERTERS: dict[type, Any] = {}
_NATIVE = object()  # the plan of an event type orjson writes as it is
_PLANS: dict[type, Any] = {}  # event type -> _NATIVE or its converter


def _is_native(kind: type) -> bool:
    """Whether orjson writes a value of ``kind`` as ``_plain`` converts it: a slotted dataclass
    (no dataclass among its bases: the converters take a class's own slots) whose fields, by
    their type hints, hold only ints, strings, flags, None, str or int enums, tuples of those and
    such dataclasses; no cards (written by name), no floats (orjson spells some otherwise)."""
    known = _NATIVE_KINDS.get(kind)
    if known is None:
        _NATIVE_KINDS[kind] = False  # a type that holds itself is not native
        known = _NATIVE_KINDS[kind] = _native_fields(kind)
    return known


_NATIVE_KINDS: dict[type, bool] = {}


def _native_fields(kind: type) -> bool:
    if not dataclasses.is_dataclass(kind) or any(dataclasses.is_dataclass(base)
                                                 for base in kind.__mro__[1:]):
        return False
    names = [f.name for f in dataclasses.fields(kind)]
    if tuple(names) != kind.__dict__.get("__slots__") or any(
            name.endswith("cards") or name.startswith("_") for name in names):
        return False
    try:
        hints = typing.get_type_hints(kind)
    except (NameError, TypeError):
        return False
    return all(_native_hint(hints[name]) for name in names)


def _native_hint(hint: Any) -> bool:
    if hint in (int, str, bool, type(None)):
        return True
    if isinstance(hint, type):
        if issubclass(hint, Enum):
            return issubclass(hint, str | int)
        return _is_native(hint)
    if typing.get_origin(hint) in (tuple, typing.Union, types.UnionType):
        return all(arg is Ellipsis or _native_hint(arg) for arg in typing.get_args(hint))
    return False


def _converter(kind: type) -> Any:
    """A function turning an event value of ``kind`` into the data ``_plain`` makes of it, built
    once per type from its slots (fields ending in ``cards`` hold cards)."""
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
    # Fields orjson writes as they are (see _is_native) are left to it; plain values (most
    # other fields) are taken as they are without a call.
    items = ", ".join(f"{name!r}: _cards(v.{name})" if name.endswith("cards") else
                      f"{name!r}: v.{name}" if name in hints and _native_hint(hints[name]) else
                      f"{name!r}: (x if type(x := v.{name}) in _EXACT else _value(x))"
                      for name in fields)
    namespace: dict[str, Any] = {"_cards": _cards, "_value": _value, "_EXACT": _EXACT}
    exec(f"def convert(v):\n    return {{{items}}}\n", namespace)
    return namespace["convert"]

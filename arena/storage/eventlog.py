"""The JSONL event log of a match: every event as sent to each seat, with timestamps.

Events are written from the dealer's own event values (the ones the transport encodes for the
wire), with cards in PHH notation; converting each through protobuf JSON would cost the dealer
a fifth of its throughput. The text is encoded by orjson (4x faster than the standard library's
encoder), byte for byte what ``json.dumps`` writes: where the two could differ the standard
library writes it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
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
    payload = notice.payload
    kind = type(payload)
    convert = _CONVERTERS.get(kind)
    if convert is None:
        convert = _CONVERTERS[kind] = _converter(kind)
    try:
        converted = convert(payload)
    except _Unusual:  # a value orjson might write otherwise than json.dumps: the plain walk
        return reference_notice_json(notice)
    seconds = notice.unix_seconds
    value = {
        "match_id": notice.match_id, "hand_id": notice.hand_id, "sequence": notice.sequence,
        "server_unix_seconds": seconds,
        "type": _WIRE_NAMES.get(kind, kind.__name__),
        "payload": converted,
    }
    if type(seconds) is not float or not _same_spelling(seconds):
        return _std_dumps(value)
    return _dumps(value)


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


_std_dumps = json.JSONEncoder(separators=(",", ":")).encode


def _same_spelling(value: float) -> bool:
    """Whether orjson spells this float as json.dumps does (they differ below 1e-4 and from
    1e16 on: 1e-05 is "0.00001" there, 1e+16 "1e16"; NaN is null)."""
    return value == 0.0 or 1e-4 <= abs(value) < 1e16


def _dumps(value: Any) -> str:
    """``json.dumps(value, separators=(",", ":"))`` of converted event data (every float in it
    checked by `_same_spelling`), by orjson where it writes the same bytes: 4x faster."""
    try:
        data = orjson.dumps(value)
    except (orjson.JSONEncodeError, TypeError):  # e.g. an int beyond 64 bits
        return _std_dumps(value)
    if not data.isascii() or b"\x7f" in data:  # json.dumps escapes these characters
        return _std_dumps(value)
    return data.decode()


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


def _converter(kind: type) -> Any:
    """A function turning an event value of ``kind`` into the data ``_plain`` makes of it, built
    once per type from its slots (fields ending in ``cards`` hold cards)."""
    slots = getattr(kind, "__slots__", None)
    if slots is None or not isinstance(slots, tuple):
        return _unusual
    fields = [name for name in slots if not name.startswith("_")]
    if not all(name.isidentifier() for name in fields):
        return _unusual
    # Plain values (most fields) are taken as they are without a call.
    items = ", ".join(f"{name!r}: _cards(v.{name})" if name.endswith("cards") else
                      f"{name!r}: (x if type(x := v.{name}) in _EXACT else _value(x))"
                      for name in fields)
    namespace: dict[str, Any] = {"_cards": _cards, "_value": _value, "_EXACT": _EXACT}
    exec(f"def convert(v):\n    return {{{items}}}\n", namespace)
    return namespace["convert"]

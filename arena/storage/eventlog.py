"""The JSONL event log of a match: every event as sent to each seat, with timestamps.

Events are written from the dealer's own event values (the ones the transport encodes for the
wire), with cards in PHH notation; converting each through protobuf JSON would cost the dealer
a fifth of its throughput.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

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
    return _dumps({
        "match_id": notice.match_id, "hand_id": notice.hand_id, "sequence": notice.sequence,
        "server_unix_seconds": notice.unix_seconds,
        "type": _WIRE_NAMES.get(kind, kind.__name__),
        "payload": convert(payload),
    })


def reference_notice_json(notice: Notice) -> str:
    """:func:`notice_json` by the plain recursive walk (what the compiled converters must equal)."""
    payload = notice.payload
    return json.dumps({
        "match_id": notice.match_id, "hand_id": notice.hand_id, "sequence": notice.sequence,
        "server_unix_seconds": notice.unix_seconds,
        "type": _WIRE_NAMES.get(type(payload), type(payload).__name__),
        "payload": _plain(payload),
    }, separators=(",", ":"))


_dumps = json.JSONEncoder(separators=(",", ":")).encode
_SCALARS = frozenset({int, str, float, bool, type(None)})
_CARD_NAMES = tuple(format_card(c) for c in range(52))


def _value(value: Any) -> Any:
    """``_plain(value)`` with plain values and slotted objects taken the short way."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is tuple:
        return [_value(v) for v in value]
    convert = _CONVERTERS.get(kind)
    if convert is None:
        convert = _CONVERTERS[kind] = (_converter(kind) if hasattr(kind, "__dataclass_fields__")
                                       else _plain)
    return convert(value)


def _cards(value: Any) -> Any:
    """``_plain(value, cards=True)``: card numbers as their names."""
    if type(value) is tuple:
        names = _CARD_NAMES
        return [names[v] if type(v) is int and 0 <= v < 52 else _plain(v, cards=True) for v in value]
    return _plain(value, cards=True)


_CONVERTERS: dict[type, Any] = {}


def _converter(kind: type) -> Any:
    """A function turning an event value of ``kind`` into the data ``_plain`` makes of it, built
    once per type from its slots (fields ending in ``cards`` hold cards)."""
    slots = getattr(kind, "__slots__", None)
    if slots is None or not isinstance(slots, tuple):
        return _plain
    fields = [name for name in slots if not name.startswith("_")]
    if not all(name.isidentifier() for name in fields):
        return _plain
    # Plain values (most fields) are taken as they are without a call.
    items = ", ".join(f"{name!r}: _cards(v.{name})" if name.endswith("cards") else
                      f"{name!r}: (x if type(x := v.{name}) in _SCALARS else _value(x))"
                      for name in fields)
    namespace: dict[str, Any] = {"_cards": _cards, "_value": _value, "_SCALARS": _SCALARS}
    exec(f"def convert(v):\n    return {{{items}}}\n", namespace)
    return namespace["convert"]

"""The gateway's JSON: the proto3 JSON mapping of ``arena.v1``, by protobuf's own ``json_format``.

Nothing here names a field: the ``.proto`` is the schema. Field names are the ``.proto`` names
(``decision_id``, ``raise_to_chips``), enums their names (``"ACTION_KIND_RAISE"``), 64-bit
integers strings (``"40"``, as the mapping says; numbers are accepted too), and every field is
present even at its default, since 0 is a valid seat. Parsing refuses unknown fields, wrong
types, NaN and Infinity, a key given twice, and more than one payload.
"""

from __future__ import annotations

import json
import math
from typing import Any

from google.protobuf import json_format

from arena.v1 import arena_pb2 as pb


class JsonRefused(ValueError):
    """A frame from an agent that is not a valid ``BotMessage``; ``code`` is the gRPC-style code
    of the ``error`` frame the gateway answers with."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def dealer_message_dict(message: pb.DealerMessage) -> dict[str, Any]:
    """One dealer message as the agent receives it."""
    return json_format.MessageToDict(message, preserving_proto_field_name=True,
                                     always_print_fields_with_no_presence=True)


def _no_constant(name: str) -> float:
    raise JsonRefused("INVALID_ARGUMENT", f"{name} is not a number JSON allows")


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise JsonRefused("INVALID_ARGUMENT", f"key {key[:40]!r} appears twice in one object")
        out[key] = value
    return out


def load_object(text: str | bytes) -> dict[str, Any]:
    """A frame's JSON object; anything else (bad syntax, NaN/Infinity, a key given twice, not
    an object) refused."""
    try:
        data = json.loads(text, parse_constant=_no_constant, object_pairs_hook=_no_duplicates)
    except JsonRefused:
        raise
    except (ValueError, RecursionError) as exc:  # UnicodeDecodeError is a ValueError
        raise JsonRefused("INVALID_ARGUMENT", f"not JSON: {exc}") from None
    if not isinstance(data, dict):
        raise JsonRefused("INVALID_ARGUMENT",
                          f"a frame must be a JSON object, got {type(data).__name__}")
    return data


def parse_bot_message(data: dict[str, Any]) -> pb.BotMessage:
    """A ``BotMessage`` from its JSON object, exactly one payload set."""
    message = pb.BotMessage()
    try:
        json_format.ParseDict(data, message)
    except json_format.ParseError as exc:
        raise JsonRefused("INVALID_ARGUMENT", f"not a BotMessage: {exc}") from None
    if message.WhichOneof("payload") is None:
        raise JsonRefused("INVALID_ARGUMENT",
                          "a BotMessage needs one of 'hello', 'action_reply', 'ping'")
    reply = message.action_reply
    if message.WhichOneof("payload") == "action_reply" and not math.isfinite(reply.think_seconds):
        raise JsonRefused("INVALID_ARGUMENT", "think_seconds must be a finite number")
    return message

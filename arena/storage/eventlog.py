"""The JSONL event log of a match: every event as sent to each seat, with timestamps.

Events are written from the dealer's own event values (the ones the transport encodes for the
wire), with cards in PHH notation; converting each through protobuf JSON would cost the dealer
a fifth of its throughput. The lines are written as text by typed writers, one per message
type (``arena/storage/eventtext.py``), byte for byte
what ``json.dumps`` writes of the plain walk (:func:`reference_notice_json`); a line holding
anything those writers do not expect is the plain walk's.
"""

from __future__ import annotations

import json
import typing
from collections.abc import Sequence

from arena.match.messages import (
    ActionAnnounced,
    BoardAnnounced,
    HandSummary,
    Notice,
    ShowdownAnnounced,
)
from arena.storage.eventleaves import Unusual, plain
from arena.storage.eventtext import lines_text, notice_text

# The event's type as the wire contract names it, where the match layer's name differs.
_WIRE_NAMES: dict[type, str] = {ActionAnnounced: "ActionTaken", BoardAnnounced: "BoardDealt",
                                ShowdownAnnounced: "Showdown", HandSummary: "HandEnded"}


def notice_json(notice: Notice) -> str:
    """One event as JSON: ids, sequence, server time, the event type and its fields."""
    try:
        return notice_text(notice)
    except Unusual:
        return reference_notice_json(notice)


def event_lines(held: Sequence[tuple[Notice, Sequence[int], float]]) -> bytes:
    """The JSONL lines of events as the event log holds them (each with the seats that received
    it and the time it was sent): byte for byte :func:`event_line` of each."""
    return lines_text(held, event_line).encode()


def event_line(notice: Notice, seats: Sequence[int], sent: float, *,
               encode: typing.Callable[[Notice], str] | None = None) -> str:
    """One line of the JSONL event log: the seats that received the event, when it was sent, and
    the event (by ``encode``, default :func:`reference_notice_json`)."""
    text = (encode or reference_notice_json)(notice)
    return f'{{"seats":[{",".join(map(str, seats))}],"logged_at":{sent:.6f},"event":{text}}}\n'


def reference_notice_json(notice: Notice) -> str:
    """:func:`notice_json` by the plain recursive walk (what the typed writers must equal)."""
    payload = notice.payload
    return json.dumps({
        "match_id": notice.match_id, "hand_id": notice.hand_id, "sequence": notice.sequence,
        "server_unix_seconds": notice.unix_seconds,
        "type": _WIRE_NAMES.get(type(payload), type(payload).__name__),
        "payload": plain(payload),
    }, separators=(",", ":"))

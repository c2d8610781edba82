"""The event log's records (``LoggedEvent``, protos/arena/v1/eventlog.proto): made from the bytes
the wire sends, and read back as JSON.

:class:`LogRecords` encodes each event as the dealer's :class:`~arena.server.wire.Encoder`
does for the seats; :func:`read_events` is the one reader of a log, giving each record as a
dict by protobuf's own JSON mapping (proto field names). The file's framing is
``arena/storage/eventlog.py``'s.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, Final, TextIO

from google.protobuf import json_format
from google.protobuf.message import DecodeError

from arena.engine.errors import MalformedInput
from arena.match.messages import ActionTaken
from arena.server.wire import Encoder
from arena.server.wirebytes import double, field, number, signed, tag
from arena.storage.eventhold import Held
from arena.storage.eventlog import TornTail, read_frames
from arena.v1 import eventlog_pb2 as lpb

_SEATS_FIELD: Final = number(lpb.LoggedEvent, "seats")
_LOGGED_TAG: Final = tag(lpb.LoggedEvent, "logged_unix_seconds")
_EVENT_FIELD: Final = number(lpb.LoggedEvent, "event")


class LogRecords:
    """The ``LoggedEvent`` records of held events (an
    :class:`~arena.storage.eventlog.EventRecords`). Not thread-safe: one per log, used by the
    thread that writes it."""

    def __init__(self) -> None:
        # Each event is encoded once here; the seat and history caches serve a hand's summary.
        self._encoder = Encoder(cache_size=64, event_cache_size=4)

    def records(self, held: Sequence[Held]) -> list[bytes]:
        event_message = self._encoder.event_message
        out = []
        for notice, seats, sent in held:
            record = b"".join([
                # A seat below 128 is its own one-byte varint (a table has at most 11 seats).
                field(_SEATS_FIELD, bytes(seats) if max(seats) < 0x80
                      else b"".join([signed(s) for s in seats])) if seats else b"",
                _LOGGED_TAG + double(sent) if sent else b"",
                field(_EVENT_FIELD, event_message(notice))])
            payload = notice.payload
            if type(payload) is ActionTaken and payload.strategy:
                # Issue 40: the declared strategy, logged but never sent (rare: spliced on).
                record += lpb.LoggedEvent(strategy=[
                    lpb.LoggedStrategyEntry(action=action, weight=weight)
                    for action, weight in payload.strategy]).SerializeToString()
            out.append(record)
        return out

    def gap(self, hand_ids: Sequence[str], reason: str) -> bytes:
        return lpb.LoggedEvent(gap=lpb.LogGap(hand_ids=list(hand_ids), reason=reason)
                               ).SerializeToString()


def read_records(path: Path) -> Iterator[lpb.LoggedEvent | TornTail]:
    """The records of an event log as messages, then a :class:`TornTail` if its last record is
    cut short. A record that is not a ``LoggedEvent`` raises :class:`MalformedInput` naming the
    file and the record."""
    for item in read_frames(path):
        if isinstance(item, TornTail):
            yield item
            return
        record_number, data = item
        try:
            yield lpb.LoggedEvent.FromString(data)
        except (DecodeError, RecursionError) as exc:
            raise MalformedInput(f"{path}: record {record_number} is not an event log record "
                                 f"({exc}): not an event log, or damaged there") from None


def read_events(path: Path, *, seat: int | None = None) -> Iterator[dict[str, Any]]:
    """The one reader of an event log: each record as a dict (protobuf's JSON mapping with the
    .proto's field names, zeros and empty lists too: ``seats``, ``logged_unix_seconds``,
    ``strategy``, and ``event`` or ``gap``). With ``seat``, only the copies that seat received (and
    every gap). A torn tail ends the records with ``{"torn_tail": "<what and where>"}``; other
    damage raises :class:`MalformedInput` naming the file and the record."""
    for record in read_records(path):
        if isinstance(record, TornTail):
            yield {"torn_tail": record.describe(path)}
            return
        if seat is not None and record.HasField("event") and seat not in record.seats:
            continue
        yield json_format.MessageToDict(record, preserving_proto_field_name=True,
                                        always_print_fields_with_no_presence=True)


def last_sequence(path: Path) -> int:
    """The highest event sequence number in a log (0 when there is none or no file), so that a
    resumed match numbers its events on from there; a damaged log counts up to its damage."""
    if not path.exists():
        return 0
    highest = 0
    try:
        for record in read_records(path):
            if not isinstance(record, TornTail):
                highest = max(highest, record.event.sequence)
    except MalformedInput:
        pass
    return highest


def print_events(path: str, *, seat: int | None, out: TextIO, err: TextIO) -> int:
    """`arena events FILE`: the log's records as JSON lines on ``out``; 1 (after the whole
    records) when its tail is torn, said on ``err``. Other damage raises
    :class:`MalformedInput` after the records before it were printed."""
    for record in read_events(Path(path), seat=seat):
        torn = record.get("torn_tail")
        if torn is not None:
            print(f"arena events: {torn}", file=err)
            return 1
        out.write(json.dumps(record, separators=(",", ":")) + "\n")
    return 0

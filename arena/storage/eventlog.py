"""The event log of a match (``<match>.events.pb``): every event as sent to each seat, with the
seats that received it and when, stored as the wire's own bytes.

Each record is a ``LoggedEvent`` (protos/arena/v1/eventlog.proto) framed as protobuf's
length-delimited stream: its size as a varint, then its bytes. This module frames and unframes
records; what they hold is made and read by the transport layer (``arena/server/eventrecord.py``,
:class:`EventRecords`), which encodes each event as the dealer's ``Encoder`` does for the seats.
JSON is made only when the log is read (``arena events FILE``).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, Protocol

from arena.engine.errors import MalformedInput
from arena.storage.eventhold import EventHold, Held
from arena.storage.phhappend import owner_only

# A record larger than this is refused as garbage when read (a hand's summary with every
# action of a long hand is a few kilobytes).
MAX_RECORD_BYTES = 1 << 20
_MAX_VARINT_BYTES = 10  # a 64-bit varint's longest form


class EventRecords(Protocol):
    """What the event log's records hold: made by the transport layer, framed here."""

    def records(self, held: Sequence[Held]) -> list[bytes]:
        """One serialized ``LoggedEvent`` per held event."""
        ...

    def gap(self, hand_ids: Sequence[str], reason: str) -> bytes:
        """A serialized ``LoggedEvent`` saying the events of ``hand_ids`` may be missing."""
        ...


def frame(records: Sequence[bytes]) -> bytes:
    """Records as a length-delimited stream (each: its size as a varint, its bytes)."""
    return b"".join([_varint(len(record)) + record for record in records])


def _varint(value: int) -> bytes:
    out = bytearray()
    while value > 0x7F:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


@dataclass(frozen=True, slots=True, kw_only=True)
class TornTail:
    """The end of a log cut inside a record (the writer stopped while writing it)."""

    record: int  # the number of the cut record, from 1
    offset: int  # the byte where it starts: the log's whole records end here
    size_bytes: int  # the bytes left of it

    def describe(self, path: Path) -> str:
        return (f"{path}: record {self.record} (at byte {self.offset}) is cut short, "
                f"{self.size_bytes} byte(s) of it: the log was torn while it was written; "
                "the records before it are whole")


def read_frames(path: Path, *, max_record_bytes: int = MAX_RECORD_BYTES
                ) -> Iterator[tuple[int, bytes] | TornTail]:
    """The records of a length-delimited log, numbered from 1, then a :class:`TornTail` if the
    file ends inside a record. A size that is not a varint or is over ``max_record_bytes``
    raises :class:`MalformedInput` naming the file, the record and its byte."""
    with open(path, "rb") as fh:
        number, offset = 0, 0
        while byte := fh.read(1):  # a record's size: a varint, 7 bits a byte, low bits first
            number += 1
            size, read = 0, 0
            while True:
                size |= (byte[0] & 0x7F) << 7 * read
                read += 1
                if not byte[0] & 0x80:
                    break
                if read == _MAX_VARINT_BYTES:
                    raise MalformedInput(f"{path}: record {number} (at byte {offset}) has no valid "
                                         "size: not an event log, or damaged there")
                if not (byte := fh.read(1)):
                    yield TornTail(record=number, offset=offset, size_bytes=read)
                    return
            if size > max_record_bytes:
                raise MalformedInput(f"{path}: record {number} (at byte {offset}) claims "
                                     f"{size} bytes, more than {max_record_bytes}: not an "
                                     "event log, or damaged there")
            data = fh.read(size)
            if len(data) < size:
                yield TornTail(record=number, offset=offset, size_bytes=read + len(data))
                return
            yield number, data
            offset += read + size


def torn_tail(path: Path) -> TornTail | None:
    """Where a log's last record is cut short, if it is; None for a whole log, or one that is
    damaged before its end (the reader names that damage)."""
    try:
        return next((item for item in read_frames(path) if isinstance(item, TornTail)), None)
    except MalformedInput:
        return None


class EventLog(EventHold):
    """The event log's file: one record per distinct event, naming every seat that received
    exactly that copy (public events go to all seats as one record), with the time it was sent.

    Events are held in memory until :meth:`flush` (the end of a hand): no file on disk ever
    holds a hidden card of a hand that is still being played. :meth:`take` and :meth:`write`
    split a flush in two, so that the records are made on another thread (the league's writer):
    a held event is the dealer's own immutable value. Holding them (:meth:`sent`, :meth:`take`)
    is :class:`~arena.storage.eventhold.EventHold`'s. The file is its owner's only (it holds
    every seat's hole cards).
    """

    def __init__(self, path: Path, records: EventRecords) -> None:
        super().__init__()
        self.path = path
        self.records = records
        self._file: BinaryIO | None = None

    def write(self, held: list[Held]) -> None:
        """Append events given by :meth:`take` as records."""
        if not held:
            return
        data = frame(self.records.records(held))
        if self._file is None:
            self._file = open_for_append(self.path, self.records)
        self._file.write(data)
        self._file.flush()

    def flush(self) -> None:
        """Write what is held (the hand has ended)."""
        self.write(self.take())

    def close(self) -> None:
        self.flush()
        if self._file is not None:
            self._file.close()
            self._file = None


def open_for_append(path: Path, records: EventRecords) -> BinaryIO:
    """A log, opened for appending (created its owner's only). A log an interrupted run left
    with its last record cut short loses that record's bytes (nothing could read them, and every
    record after them would be misread) and says so in a gap record."""
    fh = open(path, "ab", opener=owner_only)  # noqa: SIM115
    torn = torn_tail(path) if fh.tell() > 0 else None
    if torn is not None:
        fh.truncate(torn.offset)
        fh.write(frame([records.gap([], "the dealer stopped while writing this log: "
                                    f"{torn.size_bytes} byte(s) of a cut record were dropped "
                                    f"at byte {torn.offset}; the events of the hand it "
                                    "belonged to may be missing")]))
    return fh

"""The league's sink with a writer process (`arena.league.procwriter`): a league on an SQLite
store keeping its in-flight marks there (`StoreBook`).

On the dealer's thread the finished hand's event lines are made and sent to the child with the
hand's PHH fields (plain values: the child writes their text, see `arena.storage.writer_child`)
and the next hand's in-flight mark, as one job;
the table deals its next hand once the child has answered that the job is committed, and ends
its match once the last one is (``settle``: awaited, the dealer's thread runs on). No
writer thread: nothing else in the dealer's process takes its interpreter lock per hand.
"""

from __future__ import annotations

import contextlib
from typing import Any, cast

from arena.league.procwriter import ProcessWriter
from arena.league.sink import LeagueSink, SeatFields, _Finished, store_facts
from arena.match.records import PlayedHand, phh_fields
from arena.storage.eventlog import event_lines
from arena.storage.framing import WriterProcessError


class ProcessSink(LeagueSink):
    """A :class:`LeagueSink` whose store commits and log files are the writer process's."""

    def __init__(self, *, process: ProcessWriter, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.process = process

    async def ready(self) -> None:
        """Return once the child has committed all this table gave it; raise what it failed with."""
        await self.process.wait_committed(self._ticket)
        if self.failed is not None:
            raise self.failed

    async def _written(self) -> None:
        await self.process.wait_committed(self._ticket)

    def _wait_written(self) -> None:
        try:
            self.process.wait(self._ticket)
        except WriterProcessError as exc:
            self._failed_as(str(exc))
        # The child closes this match's log files even when the table stopped at a failure.
        with contextlib.suppress(WriterProcessError):
            self.process.submit(("close", str(self.log.paths.hands), str(self.log.paths.voids),
                                 str(self.log.paths.events)), on_committed=None,
                                on_failed=self._failed_as)

    def _hand_over(self, finished: _Finished | None, mark: int) -> None:
        """The finished hand (if any) and the in-flight mark of hand ``mark`` (0: none), as one job."""
        copy_index = self.scheduled.copy_index
        if finished is None:
            self._send_job(("mark", self.store_match_id, copy_index, mark), None)
            return
        hand, events, started_at, finished_at = finished
        try:
            fields = writer_fields(hand)
            game, small_bet, button, seat_fields = store_facts(hand)
            lines = event_lines(events) if events else b""
        except Exception as exc:  # this table stops, as the writer thread would stop it
            self._failed_as(f"making the hand's log text failed: {type(exc).__name__}: {exc}")
            return
        paths = self.log.paths
        self._send_job((
            "void" if hand.voided else "hand", self.store_match_id, copy_index, hand.hand_number,
            hand.context.deal_id, game, small_bet, button,
            hand.void_reason if hand.voided else seat_fields, fields, started_at.isoformat(),
            finished_at.isoformat(), str(paths.voids if hand.voided else paths.hands),
            str(paths.events), lines, mark),
            None if hand.voided else (hand, seat_fields))

    def _send_job(self, job: tuple[object, ...],
                  counted: tuple[PlayedHand, tuple[SeatFields, ...]] | None) -> None:
        if self.failed is not None:
            return  # the table stops at the first failure, as if the dealer had stopped there
        on_committed = None if counted is None else (lambda: self._count(*counted))
        try:
            self._ticket = self.process.submit(job, on_committed=on_committed,
                                               on_failed=self._failed_as)
        except WriterProcessError as exc:
            self._failed_as(str(exc))
        except ValueError as exc:  # not plain values (marshal) or too big: nothing was sent
            self._failed_as(f"the hand cannot be handed to the writer process: {exc}"
                            f"{_not_plain(job)}")

    def _failed_as(self, reason: str) -> None:
        self._failed(WriterProcessError(reason))


def writer_fields(hand: PlayedHand) -> dict[str, Any]:
    """The hand's PHH fields as the writer process is sent them: plain values (``marshal``'s),
    from whose text it writes the very text the dealer's process would (`hand_facts`)."""
    fields = phh_fields(hand)
    fields["_rules"] = dict(fields["_rules"])  # a read-only view: not a plain value
    return fields


_PLAIN = (str, int, float, bool, bytes, type(None))


def _not_plain(job: tuple[object, ...]) -> str:
    """Which PHH field of a job ``marshal`` refused (its value not of an exact plain type, or
    holding one that is not), as the end of a message; empty when each is plain."""
    for value in job:
        if isinstance(value, dict):
            for key, field in value.items():
                if not _is_plain(field):
                    return f" (the PHH field {key!r} holds a {type(field).__name__})"
    return ""


def _is_plain(value: object) -> bool:
    if type(value) in _PLAIN:
        return True
    if type(value) in (list, tuple):  # exactly: marshal refuses a subclass
        return all(_is_plain(item) for item in cast("list[object] | tuple[object, ...]", value))
    if type(value) is dict:
        return all(type(k) is str and _is_plain(v) for k, v in cast(dict[object, object], value).items())
    return False

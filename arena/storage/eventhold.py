"""The events of a match held until its hand ends, each with the seats that received that copy and
when it was first sent (the JSONL event log's lines, see ``arena/storage/matchlog.py``).
The dealer calls :meth:`EventHold.sent` for every event and every seat it goes to (~180 times a
hand at a table of four). ``EventLog`` (the log's file) is its subclass.
"""

from __future__ import annotations

import time

from arena.match.messages import Notice

# A held event: the copy sent, the seats it went to (in the order they were sent it) and the
# time it was first sent (``time.time()``).
Held = tuple[Notice, list[int], float]


class EventHold:
    """Holds events as sent, one entry per distinct copy; :meth:`take` gives them away."""

    def __init__(self) -> None:
        self._held: list[Held] = []
        self._last_notice: Notice | None = None
        self._last_seats: list[int] = []
        self._other_notice: Notice | None = None  # the distinct event held before the last
        self._other_seats: list[int] = []

    def sent(self, seat: int, notice: Notice) -> None:
        """Log an event as ``seat`` received it. The seats of one event are sent its copies in
        turn: a private event's copy for the others comes before and after its owner's, and
        both runs go to one line (``[0,2,3]`` and ``[1]``, not ``[0]``, ``[1]``, ``[2,3]``)."""
        if notice is self._last_notice:
            self._last_seats.append(seat)
            return
        if notice is self._other_notice:
            self._other_seats.append(seat)
            return
        self._hold(notice, [seat])

    def sent_to_all(self, notice: Notice, seat_count: int) -> None:
        """:meth:`sent` for seats 0 to ``seat_count - 1`` in turn, in one call (a public event:
        one object for every seat)."""
        if notice is self._last_notice or notice is self._other_notice:
            for seat in range(seat_count):
                self.sent(seat, notice)
        else:
            self._hold(notice, list(range(seat_count)))

    def _hold(self, notice: Notice, seats: list[int]) -> None:
        """A distinct event, first sent to ``seats``: the last one held becomes the other."""
        self._other_notice, self._other_seats = self._last_notice, self._last_seats
        self._last_notice, self._last_seats = notice, seats
        self._held.append((notice, seats, time.time()))

    def take(self) -> list[Held]:
        """The events held so far (each with its seats and the time it was sent), no longer held."""
        held = self._held
        self._held = []
        self._last_notice = self._other_notice = None
        return held

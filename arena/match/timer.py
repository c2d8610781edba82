"""One timer per table for its decisions' deadlines (docs/house-rules.md §6), not a cancel scope each.

A :class:`DecisionTimer` is a trio system task that sleeps until the deadline of the decision
it was last armed for. A decision answered in time costs the table two attribute writes: the
timer wakes at that old deadline, finds a later decision open (or none) and sleeps again until
its deadline, so it wakes about once per decision time, not once per decision. When it finds
the open decision past its deadline it expires the decision's :class:`~arena.match.lobby.ReplyBox`,
which ends the table's wait.
"""

from __future__ import annotations

import math
from typing import Protocol

import trio


class Expiring(Protocol):
    """What the timer expires: a reply box with its decision's deadline."""

    deadline: float

    def expire(self) -> None: ...


class DecisionTimer:
    """The deadline of one table's open decision; :meth:`start` it, :meth:`stop` it at the end."""

    __slots__ = ("_box", "_life", "_sleep", "_until")

    def __init__(self) -> None:
        self._box: Expiring | None = None
        self._until = math.inf  # when the timer task wakes next
        self._sleep: trio.CancelScope | None = None  # its current sleep, while it sleeps
        self._life = trio.CancelScope()

    def start(self) -> None:
        """Start the timer task (a system task: it needs no nursery from the table's caller)."""
        trio.lowlevel.spawn_system_task(self._run, name="decision timer")

    def stop(self) -> None:
        self._box = None
        self._life.cancel()

    def arm(self, box: Expiring) -> None:
        """Watch ``box`` (the open decision) until :meth:`disarm`."""
        self._box = box
        if box.deadline < self._until:  # earlier than the timer's wake-up: move it (rare)
            self._until = box.deadline
            if self._sleep is not None:
                self._sleep.deadline = box.deadline

    def disarm(self) -> None:
        self._box = None

    async def _run(self) -> None:
        with self._life:
            while True:
                box = self._box
                if box is not None and box.deadline <= trio.current_time():
                    self._box = None
                    box.expire()
                    continue
                self._until = box.deadline if box is not None else math.inf
                with trio.CancelScope(deadline=self._until) as sleep:
                    self._sleep = sleep
                    await trio.sleep_forever()
                self._sleep = None

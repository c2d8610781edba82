"""Spectators of live tables: what they are told, and a sink that tells them beside another sink."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from arena.match.messages import Notice, Prompt
from arena.match.records import MatchSink, MatchSummary, PlayedHand


class Spectator(Protocol):
    """Told of every event as sent to each seat, and of every decision opened.

    Both are called on the dealer's thread and must return at once; a spectator must take
    only public information from them (a private ``CardsDealt`` copy holds hole cards).
    """

    def event_sent(self, seat: int, notice: Notice) -> None: ...

    def decision_opened(self, prompt: Prompt) -> None: ...


class TeeSink:
    """A :class:`MatchSink` passing everything to ``inner`` and the events also to ``spectator``."""

    def __init__(self, inner: MatchSink | None, spectator: Spectator) -> None:
        self.inner = inner
        self.spectator = spectator
        self._inner_tap = getattr(inner, "event_sent", None)
        self._inner_tap_all: Callable[[Notice, int], None] | None = getattr(
            inner, "event_sent_to_all", None)
        self._last: Notice | None = None  # the copy the spectator was told last
        # The inner sink's wait before each hand (the league's writer), when it has one.
        self.ready: Callable[[], Awaitable[None]] | None = getattr(inner, "ready", None)
        # ... and its wait for the last hand's commit at the match's end.
        self.settle: Callable[[], Awaitable[None]] | None = getattr(inner, "settle", None)

    def event_sent(self, seat: int, notice: Notice) -> None:
        if self._inner_tap is not None:
            self._inner_tap(seat, notice)
        if notice is not self._last:  # a public event goes to every seat as one object: the
            self._last = notice  # spectator, who reads each event once, is told it once
            self.spectator.event_sent(seat, notice)

    def event_sent_to_all(self, notice: Notice, seat_count: int) -> None:
        """:meth:`event_sent` for seats 0 to ``seat_count - 1`` in turn (a public event), in one
        call to the inner sink when it takes one."""
        if self._inner_tap_all is not None:
            self._inner_tap_all(notice, seat_count)
        elif self._inner_tap is not None:
            for seat in range(seat_count):
                self._inner_tap(seat, notice)
        if notice is not self._last and seat_count > 0:
            self._last = notice
            self.spectator.event_sent(0, notice)

    def hand_started(self, match_id: str, hand_number: int) -> None:
        if self.inner is not None:
            self.inner.hand_started(match_id, hand_number)

    def hand_finished(self, record: PlayedHand) -> None:
        if self.inner is not None:
            self.inner.hand_finished(record)

    def match_finished(self, summary: MatchSummary) -> None:
        if self.inner is not None:
            self.inner.match_finished(summary)

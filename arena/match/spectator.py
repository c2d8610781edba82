"""Spectators of live tables: what they are told, and a sink that tells them beside another sink."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Protocol

from arena.match.messages import Notice, Prompt
from arena.match.records import MatchSink, MatchSummary, PlayedHand


class Spectator(Protocol):
    """Told of every event once, and of every decision opened.

    Both are called on the dealer's thread and must return at once. An event is told whether or
    not any seat is sent it (seats that take requests and results only are not): a private one
    as a seat that does not own it sees it (a ``CardsDealt`` without the owner's hidden cards),
    one with a copy per seat (``MatchStarted``, ``DuplicateCopyStarted``, ``HandStarted``) as
    seat 0's copy; a decision's prompt holds its seat's cards: a spectator must read only public
    information from it.
    """

    def event_watched(self, notice: Notice) -> None: ...

    def decision_opened(self, prompt: Prompt) -> None: ...


class TeeSink:
    """A :class:`MatchSink` passing everything to ``inner``, and every event once to ``spectator``
    (the table tells each directly: `arena.match.live.LiveTable`)."""

    def __init__(self, inner: MatchSink | None, spectator: Spectator) -> None:
        self.inner = inner
        self.spectator = spectator
        # The inner sink's record of every event as sent to each seat (the league's event log).
        self.event_sent: Callable[[int, Notice], None] | None = getattr(inner, "event_sent", None)
        self.event_sent_to_all: Callable[[Notice, int], None] | None = getattr(
            inner, "event_sent_to_all", None)
        # Every event once, sent or not (the live page shows tables of requests-only bots too).
        self.event_watched: Callable[[Notice], None] = spectator.event_watched
        # The inner sink's wait before each hand (the league's writer), when it has one.
        self.ready: Callable[[], Awaitable[None]] | None = getattr(inner, "ready", None)
        # ... and its wait for the last hand's commit at the match's end.
        self.settle: Callable[[], Awaitable[None]] | None = getattr(inner, "settle", None)

    def hand_started(self, match_id: str, hand_number: int) -> None:
        if self.inner is not None:
            self.inner.hand_started(match_id, hand_number)

    def hand_finished(self, record: PlayedHand) -> None:
        if self.inner is not None:
            self.inner.hand_finished(record)

    def match_finished(self, summary: MatchSummary) -> None:
        if self.inner is not None:
            self.inner.match_finished(summary)

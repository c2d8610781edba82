"""Telling a live table's seats: every event numbered once, sent to the seats that get it, and
told to the sink's tap (the event log, as sent) and watcher (spectators).

Seats that get requests and results only are sent only the events of ``RESULTS``, their own
cards and, for the hand's end, a ``HandSummary`` (docs/protocol.md).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Final

from arena.match import messages as m
from arena.match.feed import FeedItem, Private
from arena.match.hand_run import HandRun
from arena.match.lobby import Presence

# What seats that get requests and results only are told besides their own cards (and a
# HandSummary for HandEnded): the rest is in their decision requests.
RESULTS: Final = (m.MatchStarted, m.DuplicateCopyStarted, m.GameChanged, m.HandStarted,
                  m.Showdown, m.HandEnded, m.MatchEnded)


class SeatPublisher:
    """Numbers and sends one match's events. ``sink`` may have ``event_sent(seat, notice)``,
    ``event_sent_to_all(notice, seats)`` and ``event_watched(notice)``; ``current_hand`` is
    the hand in play (its public record makes the ``HandSummary``)."""

    def __init__(self, *, match_id: str, presences: list[Presence], sink: object,
                 first_sequence: int, current_hand: Callable[[], HandRun | None]) -> None:
        self.match_id = match_id
        self._presences = presences
        self._current_hand = current_hand
        self.sequence = first_sequence  # the last number given
        # A sink may also record every event as sent to each seat (the league's JSONL log) ...
        self._tap: Callable[[int, m.Notice], None] | None = getattr(sink, "event_sent", None)
        # ... with a public event sent to every seat (one object) told once for all seats ...
        self._tap_all: Callable[[m.Notice, int], None] | None = (
            getattr(sink, "event_sent_to_all", None) if self._tap is not None else None)
        # ... and be told every event once, whoever is sent it, as a seat that does not own it
        # sees it (spectators of the live web page).
        self._watch: Callable[[m.Notice], None] | None = getattr(sink, "event_watched", None)

    def next_notice(self, hand_id: str, payload: m.Payload) -> m.Notice:
        self.sequence += 1
        return m.Notice(match_id=self.match_id, hand_id=hand_id, sequence=self.sequence,
                        unix_seconds=time.time(), payload=payload)

    def publish(self, items: Iterable[FeedItem], *, hand_id: str) -> None:
        """Send each seat the items it is sent, and tell the tap what each seat was sent (the
        event log: as sent) and the watcher every item. Seats that get requests and results
        only are sent only the events of ``RESULTS``, their own cards and, for the hand's
        end, a ``HandSummary``; an item that no seat is sent and nobody watches is only
        numbered."""
        presences = self._presences
        tap = self._tap
        tap_all = self._tap_all
        watch = self._watch
        told_all: bool | None = None  # whether every seat gets every event (computed once)
        told_any = False  # ... whether some seat does
        for item in items:
            if isinstance(item, Private):
                own = self.next_notice(hand_id, item.own)
                others: m.Notice | None = None  # made once a seat or the watcher needs it
                for seat, presence in enumerate(presences):
                    if seat == item.seat:
                        sent = own
                    elif presence.every_event:
                        sent = others = others or replace(own, payload=item.others)
                    else:
                        continue  # requests and results only: not sent another's cards
                    presence.deliver(sent)
                    if tap is not None:
                        tap(seat, sent)
                if watch is not None:
                    watch(others or replace(own, payload=item.others))
                continue
            ended = item if isinstance(item, m.HandEnded) else None
            wanted = ended is None and isinstance(item, RESULTS)  # sent to every seat
            if told_all is None:
                told_all = all(p.every_event for p in presences)
                told_any = any(p.every_event for p in presences)
            if not (wanted or told_any or ended is not None or watch is not None):
                self.sequence += 1  # nobody is sent it (requests-only seats): numbered all the same
                continue
            notice = self.next_notice(hand_id, item)
            if watch is not None:
                watch(notice)
            if wanted or told_all:
                for presence in presences:
                    presence.deliver(notice)
                if tap_all is not None:
                    tap_all(notice, len(presences))
                elif tap is not None:
                    for seat in range(len(presences)):
                        tap(seat, notice)
                continue
            summary: m.Notice | None = None
            for seat, presence in enumerate(presences):
                if presence.every_event:
                    sent = notice
                elif ended is not None:
                    if summary is None:
                        summary = self._summary(notice, ended)
                    sent = summary
                else:
                    continue  # requests and results only
                presence.deliver(sent)
                if tap is not None:
                    tap(seat, sent)

    def _summary(self, notice: m.Notice, ended: m.HandEnded) -> m.Notice:
        """The hand's end with its public record, for seats that get requests and results."""
        run = self._current_hand()
        if run is None:
            return notice
        feed = run.feed
        return replace(notice, payload=m.HandSummary(
            results=ended.results, awards=ended.awards, voided=ended.voided,
            void_reason=ended.void_reason, went_to_showdown=ended.went_to_showdown,
            actions=tuple(feed.records), board=tuple(run.state.board), seats=feed.seat_infos()))

    def publish_each(self, payload_for: Callable[[int], m.Payload], *, hand_id: str) -> None:
        """One event with a different payload per seat (``payload_for(seat)``)."""
        self.sequence += 1
        wall = time.time()
        for seat, presence in enumerate(self._presences):
            notice = m.Notice(match_id=self.match_id, hand_id=hand_id, sequence=self.sequence,
                              unix_seconds=wall, payload=payload_for(seat))
            presence.deliver(notice)
            if self._tap is not None:
                self._tap(seat, notice)
            if seat == 0 and self._watch is not None:
                self._watch(notice)  # the watcher is told an event once: seat 0's copy

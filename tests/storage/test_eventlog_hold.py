"""The events the event log holds until a hand ends (arena/storage/eventhold.py), the dealer
calling its ``sent`` for every event and seat; the log's file is its subclass, so a subclass or a
patch of ``EventLog.sent`` still holds."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.match import messages as m
from arena.match.spectator import TeeSink
from arena.server.eventrecord import LogRecords
from arena.storage.eventhold import EventHold
from arena.storage.eventlog import EventLog


def _notices() -> list[m.Notice]:
    return [m.Notice(match_id="r1", hand_id="r1-h1", sequence=k // 2 + 1, unix_seconds=1763840000.5,
                     payload=m.GameChanged(game="FT", previous_game="", first_hand_number=k))
            for k in range(6)]


def test_the_log_is_an_event_hold() -> None:
    assert issubclass(EventLog, EventHold)


def test_each_distinct_copy_is_held_once_with_its_seats_and_the_time_it_was_first_sent() -> None:
    log = EventLog(Path(os.devnull), LogRecords())
    own = m.Notice(match_id="r1", hand_id="r1-h1", sequence=4, unix_seconds=1.5,
                   payload=m.CardsDealt(street="preflop", seat=1, up_cards=(), hole_cards=(0, 51),
                                        hole_card_count=2))
    others = m.Notice(match_id="r1", hand_id="r1-h1", sequence=4, unix_seconds=1.5,
                      payload=m.CardsDealt(street="preflop", seat=1, up_cards=(), hole_cards=(),
                                           hole_card_count=2))
    before = time.time()
    log.sent(0, others)
    log.sent(1, own)
    log.sent(2, others)
    log.sent(3, others)
    after = time.time()
    held = log.take()
    assert [(notice, seats) for notice, seats, _ in held] == [(others, [0, 2, 3]), (own, [1])]
    assert before <= held[0][2] <= held[1][2] <= after
    assert log.take() == []
    log.sent(0, others)  # after a take, the same object is a new line
    assert [(notice, seats) for notice, seats, _ in log.take()] == [(others, [0])]


def test_a_patched_event_log_sent_is_what_its_instances_call(monkeypatch: pytest.MonkeyPatch) -> None:
    """The league's sink taps ``event_log.sent``: a patch of the class (tests/league/
    test_trust_league.py plants a leak that way) must reach it."""
    seen: list[int] = []
    original = EventLog.sent

    def spy(self: EventLog, seat: int, notice: m.Notice) -> None:
        seen.append(seat)
        original(self, seat, notice)

    monkeypatch.setattr(EventLog, "sent", spy)
    log = EventLog(Path(os.devnull), LogRecords())
    notice = _notices()[0]
    log.sent(2, notice)
    log.sent(3, notice)
    assert seen == [2, 3]
    assert [(n, seats) for n, seats, _ in log.take()] == [(notice, [2, 3])]


# As `_calls`, and a negative seat: the notice sent to every seat of a table of -seat seats
# (``sent_to_all``).
_calls_to_all = st.lists(st.tuples(st.integers(-8, 7), st.integers(0, 5)), max_size=40)


def _feed(hold: EventHold, notices: list[m.Notice], calls: list[tuple[int, int]], *,
          one_by_one: bool) -> list[object]:
    for seat, which in calls:
        if seat >= 0:
            hold.sent(seat, notices[which])
        elif one_by_one:
            for each in range(-seat):
                hold.sent(each, notices[which])
        else:
            hold.sent_to_all(notices[which], -seat)
    return [(notice, seats) for notice, seats, _ in hold.take()]


@given(calls=_calls_to_all)
def test_an_event_sent_to_all_is_held_as_sent_to_each_seat_in_turn(calls: list[tuple[int, int]]) -> None:
    """``sent_to_all(notice, n)`` (the table's public events, one call) holds what ``sent`` for
    seats 0 to n-1 holds, whatever was held before (the same object again included)."""
    notices = _notices()
    expected = _feed(EventLog(Path(os.devnull), LogRecords()), notices, calls, one_by_one=True)
    assert _feed(EventLog(Path(os.devnull), LogRecords()), notices, calls, one_by_one=False) == expected


def test_a_table_holds_the_same_events_told_once_for_all_seats_or_seat_by_seat() -> None:
    """A match of real hands (private cards, showdowns) with a sink that takes a public event
    once for all seats (as the league's) holds line for line what a sink told seat by seat holds."""
    from arena.engine.rules import Rules
    from arena.match.spec import MatchSpec, SeatSpec
    from tests.match.scripted import play_with_scripted_bots

    class Sink:
        def __init__(self, to_all: bool) -> None:
            self.hold = EventLog(Path(os.devnull), LogRecords())
            self.event_sent = self.hold.sent
            if to_all:
                self.event_sent_to_all = self.hold.sent_to_all
            self.held: list[object] = []
            self.all_calls = 0

        def hand_started(self, match_id: str, hand_number: int) -> None:
            pass

        def hand_finished(self, hand: object) -> None:
            self.held.append([(n.sequence, n.payload, seats) for n, seats, _ in self.hold.take()])

        def match_finished(self, summary: object) -> None:
            self.held.append([(n.sequence, n.payload, seats) for n, seats, _ in self.hold.take()])

    class Seen:
        """A spectator (the live web page's hub): what it is told."""

        def __init__(self) -> None:
            self.told: list[m.Notice] = []

        def event_watched(self, notice: m.Notice) -> None:
            self.told.append(notice)

        def decision_opened(self, prompt: object) -> None:
            pass

    spec = MatchSpec("taps", tuple(SeatSpec(n, n) for n in ("a", "b", "c")),
                     Rules(games=("FT", "F7S/8")), 6, 11)
    sinks = [Sink(to_all=True), Sink(to_all=False)]
    for sink in sinks:
        play_with_scripted_bots(spec, ("a", "b", "c"), sink=sink)
    assert len(sinks[0].held) == 7 and any(len(hand) > 20 for hand in sinks[0].held)
    assert sinks[0].held == sinks[1].held
    # The live web page's tee before the league's sink: the sink holds the same, and the
    # spectator is told every event once, never an owner's copy of its hidden cards.
    tees = [TeeSink(Sink(to_all=True), Seen()), TeeSink(Sink(to_all=False), Seen())]  # type: ignore[arg-type]
    for tee in tees:
        play_with_scripted_bots(spec, ("a", "b", "c"), sink=tee)
        assert tee.inner.held == sinks[1].held  # type: ignore[union-attr]
        told: list[m.Notice] = tee.spectator.told  # type: ignore[attr-defined]
        sequences = [n.sequence for n in told]
        assert sequences == list(range(1, len(told) + 1)) and len(told) > 40
        assert [n for n in told if isinstance(n.payload, m.CardsDealt)]
        assert all(n.payload.hole_cards == () for n in told if isinstance(n.payload, m.CardsDealt))

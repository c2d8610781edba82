"""Tables whose seats all take requests and results only (Hello.subscription) number their
events exactly as tables telling every event do: events nobody is told still count."""

from __future__ import annotations

from pathlib import Path

from arena.engine.rules import Rules
from arena.match import messages as m
from arena.match.spec import MatchSpec, SeatSpec
from arena.match.spectator import TeeSink
from arena.storage.eventhold import EventHold
from tests.match.scripted import ScriptedBot, play_with_scripted_bots


class _RequestsOnly(ScriptedBot):
    every_event = False


def _notices(bot_class: type[ScriptedBot]) -> dict[str, list[tuple[int, str]]]:
    spec = MatchSpec("t", tuple(SeatSpec(n, n) for n in ("a", "b", "c")), Rules(), 10, 7)
    bots = play_with_scripted_bots(spec, ("a", "b", "c"), bot_class)
    return {name: [(n.sequence, type(n.payload).__name__) for _, n in bot.notices(object)]
            for name, bot in bots.items()}


def test_requests_only_seats_see_the_same_sequence_numbers() -> None:
    every = _notices(ScriptedBot)
    cheap = _notices(_RequestsOnly)
    for name, seen in cheap.items():
        told = {seq for seq, _ in seen}
        assert told < {seq for seq, _ in every[name]}  # fewer events, none of them new
        same = [(seq, kind) for seq, kind in every[name] if seq in told]
        # HandEnded goes as a HandSummary to requests-only seats, at the same number.
        assert [(s, k.replace("HandSummary", "HandEnded")) for s, k in seen] == same
        assert {k for _, k in seen} >= {"HandStarted", "HandSummary", "MatchEnded"}
        assert "ActionTaken" not in {k for _, k in seen}


class _Mixed(ScriptedBot):
    """Bot "b" takes requests and results only, the others every event."""

    @property
    def every_event(self) -> bool:  # type: ignore[override]
        return self.bot_id != "b"


class _Watcher:
    """A spectator (the live web page's hub): what it is told."""

    def __init__(self) -> None:
        self.watched: list[m.Notice] = []

    def event_watched(self, notice: m.Notice) -> None:
        self.watched.append(notice)

    def decision_opened(self, prompt: object) -> None:
        pass


class _LogSink:
    """A league sink's event log (the league holds events the same way)."""

    def __init__(self) -> None:
        self.hold = EventHold()
        self.event_sent = self.hold.sent
        self.event_sent_to_all = self.hold.sent_to_all
        self.lines: list[tuple[m.Notice, list[int]]] = []

    def hand_started(self, match_id: str, hand_number: int) -> None:
        pass

    def hand_finished(self, hand: object) -> None:
        self.lines += [(notice, seats) for notice, seats, _ in self.hold.take()]

    def match_finished(self, summary: object) -> None:
        self.lines += [(notice, seats) for notice, seats, _ in self.hold.take()]


def test_the_event_log_holds_what_each_seat_was_sent() -> None:
    """README "Leagues": the event log is every event *as sent*, each line naming the seats that
    received exactly that copy. At a table where one seat takes requests and results only, each
    seat's lines are the very notices it received, in order: that seat's lines skip the others'
    actions and cards and end each hand with its HandSummary
    (logged as the wire's HandEnded). A spectator beside the log (the
    live web page) is still told every event once."""
    spec = MatchSpec("t", tuple(SeatSpec(n, n) for n in ("a", "b", "c")),
                     Rules(games=("FT", "F7S/8")), 6, 7)
    for spectator in (False, True):
        sink, watcher = _LogSink(), _Watcher()
        table_sink = TeeSink(sink, watcher) if spectator else sink  # type: ignore[arg-type]
        bots = play_with_scripted_bots(spec, ("a", "b", "c"), _Mixed, sink=table_sink)
        for seat, name in enumerate(("a", "b", "c")):
            logged = [notice for notice, seats in sink.lines if seat in seats]
            received = [notice for _, notice in bots[name].notices(object)]
            assert len(logged) == len(received) > 0
            assert all(a is b for a, b in zip(logged, received, strict=True)), name
        kinds = {type(n.payload).__name__ for n, seats in sink.lines if 1 in seats}
        assert "ActionTaken" not in kinds and {"HandSummary", "CardsDealt"} <= kinds
        if spectator:
            told = watcher.watched
            assert [n.sequence for n in told] == list(range(1, len(told) + 1))
            assert {type(n.payload).__name__ for n in told} >= {
                "ActionTaken", "CardsDealt", "HandEnded", "MatchEnded"}
            assert all(n.payload.hole_cards == () for n in told if isinstance(n.payload, m.CardsDealt))
        else:
            assert not watcher.watched


def test_a_table_of_requests_only_seats_logs_no_event_it_does_not_send() -> None:
    """With every seat on requests and results only, no line of the log is an event no seat was
    sent (the dealer makes no notice for the log alone); a spectator still sees them all."""
    spec = MatchSpec("t", tuple(SeatSpec(n, n) for n in ("a", "b", "c")), Rules(), 4, 7)
    quiet, watched, watcher = _LogSink(), _LogSink(), _Watcher()
    play_with_scripted_bots(spec, ("a", "b", "c"), _RequestsOnly, sink=quiet)
    play_with_scripted_bots(spec, ("a", "b", "c"), _RequestsOnly,
                            sink=TeeSink(watched, watcher))  # type: ignore[arg-type]
    kinds = {type(n.payload).__name__ for n, _ in quiet.lines}
    assert kinds == {"MatchStarted", "HandStarted", "CardsDealt", "HandSummary", "GameChanged",
                     "MatchEnded"} | ({"Showdown"} & kinds)
    assert all(seats == [n.payload.seat] for n, seats in quiet.lines
               if isinstance(n.payload, m.CardsDealt))  # each seat's own cards, to it alone
    assert [(n.sequence, seats) for n, seats in quiet.lines] == [
        (n.sequence, seats) for n, seats in watched.lines]
    assert len(watcher.watched) > len({n.sequence for n, _ in quiet.lines})


def test_a_requests_only_seat_logs_each_hand_end_with_its_results_and_record(
        tmp_path: Path) -> None:
    """The log names a requests-only seat's hand end as the wire does (``HandEnded``) with all it
    was sent: the results and awards, then the public record (actions, board by card name)."""
    from arena.server.eventrecord import LogRecords, read_events
    from arena.storage.eventlog import EventLog

    spec = MatchSpec("t", tuple(SeatSpec(n, n) for n in ("a", "b", "c")), Rules(), 6, 7)
    sink = _LogSink()
    play_with_scripted_bots(spec, ("a", "b", "c"), _RequestsOnly, sink=sink)
    log = EventLog(tmp_path / "t.events.pb", LogRecords())
    log.write([(notice, seats, 1763840000.5) for notice, seats in sink.lines])
    log.close()
    lines = list(read_events(log.path))
    ends = [line for line in lines if "hand_ended" in line["event"]]
    assert len(ends) == 6 and all(line["seats"] == [0, 1, 2] for line in ends)
    for line in ends:
        payload = line["event"]["hand_ended"]
        assert [r.get("seat", 0) for r in payload["results"]] == [0, 1, 2]
        assert sum(int(r.get("net_chips", 0)) for r in payload["results"]) == 0
        assert payload["awards"] and payload["actions"] and len(payload["seats"]) == 3
        assert all(isinstance(card, str) and len(card) == 2
                   for card in payload.get("board_cards", []))
    assert any(line["event"]["hand_ended"].get("board_cards") for line in ends)

"""Issue 37 item 4: the event log stores what the wire sends (``LoggedEvent`` records,
protos/arena/v1/eventlog.proto) and JSON is made when it is read (`arena events`). Each record's
event is byte for byte what protobuf serializes of the event the seats were sent; the one reader
bounds what it reads, names the file and record of garbage, and reads a torn tail's whole records."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine.errors import MalformedInput
from arena.engine.games import HORSE
from arena.engine.rules import Rules
from arena.match import messages as m
from arena.match.spec import MatchSpec, SeatSpec
from arena.server.convert import event
from arena.server.eventrecord import LogRecords, last_sequence, read_events, read_records
from arena.storage.eventhold import EventHold, Held
from arena.storage.eventlog import MAX_RECORD_BYTES, EventLog, TornTail, frame, read_frames
from arena.v1.eventlog_pb2 import LoggedEvent
from tests.match.scripted import play_with_scripted_bots

ROOT = Path(__file__).resolve().parents[2]


class _Sink:
    """A league sink's event log, kept in memory."""

    def __init__(self) -> None:
        self.hold = EventHold()
        self.event_sent = self.hold.sent
        self.event_sent_to_all = self.hold.sent_to_all
        self.held: list[Held] = []

    def hand_started(self, match_id: str, hand_number: int) -> None:
        pass

    def hand_finished(self, hand: object) -> None:
        self.held += self.hold.take()

    def match_finished(self, summary: object) -> None:
        self.held += self.hold.take()


_HELD: list[Held] = []


def _match_events() -> list[Held]:
    """Every event of a three-seat H.O.R.S.E. match (hole cards, showdowns, stud up cards),
    as the log holds them."""
    if not _HELD:
        spec = MatchSpec("m1", tuple(SeatSpec(n, n) for n in ("a", "b", "c")),
                         Rules.from_mapping({"games": list(HORSE), "hands_per_game": 2}), 10, 11)
        sink = _Sink()
        play_with_scripted_bots(spec, ("a", "b", "c"), sink=sink)
        _HELD.extend(sink.held)
    return _HELD


def _write(path: Path, held: list[Held]) -> EventLog:
    log = EventLog(path, LogRecords())
    log.write(held)
    log.close()
    return log


def test_each_record_is_the_event_the_wire_sends_byte_for_byte() -> None:
    held = _match_events()
    kinds = {event(notice).WhichOneof("payload") for notice, _, _ in held}
    assert {"match_started", "hand_started", "cards_dealt", "board_dealt", "action_taken",
            "street_ended", "showdown", "hand_ended", "game_changed", "match_ended"} <= kinds
    records = LogRecords().records(held)
    assert len(records) == len(held)
    for record, (notice, seats, sent) in zip(records, held, strict=True):
        expected = LoggedEvent(seats=seats, logged_unix_seconds=sent, event=event(notice))
        assert LoggedEvent.FromString(record) == expected, notice
        if not isinstance(notice.payload, m.MatchStarted):  # a map's order is protobuf's own
            assert record == expected.SerializeToString(), notice


def test_the_log_file_is_owner_only_and_holds_one_record_per_copy(tmp_path: Path) -> None:
    held = _match_events()
    log = _write(tmp_path / "m1.events.pb", held)
    assert stat.S_IMODE(log.path.stat().st_mode) == 0o600
    records = list(read_records(log.path))
    assert [(r.seats, r.event) for r in records if isinstance(r, LoggedEvent)] == [
        (seats, event(notice)) for notice, seats, _ in held]


def test_hole_cards_are_only_in_their_owners_copy(tmp_path: Path) -> None:
    """A private event is one record per distinct copy: the owner's holds its hole cards, the
    others' their count only; reading as a seat gives that seat's copies alone."""
    log = _write(tmp_path / "m1.events.pb", _match_events())
    dealt = [(r["seats"], r["event"]["cards_dealt"]) for r in read_events(log.path)
             if "cards_dealt" in r["event"]]
    owned = [(seats, cards) for seats, cards in dealt if cards["hole_cards"]]
    assert owned and all(seats == [cards["seat"]] for seats, cards in owned)
    for seat in range(3):
        mine = [r["event"]["cards_dealt"] for r in read_events(log.path, seat=seat)
                if "cards_dealt" in r["event"]]
        assert any(c["hole_cards"] for c in mine)
        assert all(c["seat"] == seat for c in mine if c["hole_cards"])
        sequences = [int(r["event"]["sequence"]) for r in read_events(log.path, seat=seat)]
        assert sequences == sorted(sequences)  # one copy of each event, in order


def test_the_declared_strategy_is_logged_beside_the_event_not_on_the_wire(tmp_path: Path) -> None:
    record = m.ActionRecord(seat=1, street="preflop", kind=m.RecordKind.CALL, raise_to_chips=0,
                            amount_chips=10, round_bet_chips=20, is_all_in=False)
    notice = m.Notice(match_id="m1", hand_id="m1-h1", sequence=5, unix_seconds=1763840000.5,
                      payload=m.ActionTaken(action=record, stack_after_chips=980,
                                                pot_total_after_chips=40, decision_id="d",
                                                strategy=(("cc", 0.5), ("f", 0.5))))
    log = _write(tmp_path / "m1.events.pb", [(notice, [0, 1], 1763840000.75)])
    (only,) = read_events(log.path)
    assert only["strategy"] == [{"action": "cc", "weight": 0.5}, {"action": "f", "weight": 0.5}]
    assert only["seats"] == [0, 1] and only["logged_unix_seconds"] == 1763840000.75
    assert only["event"]["action_taken"]["drawn_from_strategy"] is True
    assert "strategy" not in event(notice).action_taken.DESCRIPTOR.fields_by_name


def test_a_torn_tail_is_read_up_to_it_and_cut_off_when_the_log_goes_on(tmp_path: Path) -> None:
    held = _match_events()[:20]
    log = _write(tmp_path / "m1.events.pb", held)
    whole = log.path.read_bytes()
    for cut in (1, 2, 7, 40):
        log.path.write_bytes(whole[:-cut])
        read = list(read_events(log.path))
        assert len(read) == 20 and "torn_tail" in read[-1]
        assert str(log.path) in read[-1]["torn_tail"] and "record 20" in read[-1]["torn_tail"]
        assert last_sequence(log.path) == int(read[-2]["event"]["sequence"])
    # The league resumes the match: the cut record's bytes go, a gap says so, records go on.
    more = _match_events()[20:25]
    _write(log.path, more)
    read = list(read_events(log.path))
    assert len(read) == 19 + 1 + 5 and "torn_tail" not in read[-1]
    assert "dropped" in read[19]["gap"]["reason"]
    assert [r["event"] for r in read[20:]] == [r["event"] for r in read_events(
        _write(tmp_path / "more.events.pb", more).path)]


def test_garbage_is_a_clear_error_naming_the_file_and_the_record(tmp_path: Path) -> None:
    log = _write(tmp_path / "m1.events.pb", _match_events()[:3])
    whole = log.path.read_bytes()
    huge = bytes([0xFF, 0xFF, 0xFF, 0x7F])  # a size of 256 MiB
    log.path.write_bytes(whole + huge + b"x" * 10)
    with pytest.raises(MalformedInput, match=rf"{log.path}: record 4 .*claims 268435455 bytes"):
        list(read_events(log.path))
    log.path.write_bytes(whole + bytes([0x80] * 11))
    with pytest.raises(MalformedInput, match=rf"{log.path}: record 4 .*no valid size"):
        list(read_events(log.path))
    log.path.write_bytes(whole + frame([b"\xff\xff\xff"]))
    with pytest.raises(MalformedInput, match=rf"{log.path}: record 4 is not an event log record"):
        list(read_events(log.path))
    jsonl = tmp_path / "old.events.jsonl"
    jsonl.write_text('{"seats":[0],"logged_at":1.0,"event":{"type":"GameChanged"}}\n' * 3)
    with pytest.raises(MalformedInput, match="record 1"):
        list(read_events(jsonl))


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(max_size=300), cut=st.integers(0, 400))
def test_any_bytes_read_as_records_or_a_clear_error(tmp_path_factory: pytest.TempPathFactory,
                                                    data: bytes, cut: int) -> None:
    """Whatever a file holds, reading it gives records, a torn tail or MalformedInput: never
    another exception, never a record over the bound."""
    path = tmp_path_factory.mktemp("garbage") / "x.events.pb"
    path.write_bytes((frame(LogRecords().records(_match_events()[:2])) + data)[:cut])
    try:
        for item in read_frames(path, max_record_bytes=64):
            assert isinstance(item, TornTail) or len(item[1]) <= 64
        list(read_events(path))
    except MalformedInput as exc:
        assert str(path) in str(exc) and "record" in str(exc)


def test_the_record_bound_is_generous_for_real_events() -> None:
    biggest = max(len(r) for r in LogRecords().records(_match_events()))
    assert biggest * 100 < MAX_RECORD_BYTES


def test_arena_events_prints_json_lines(tmp_path: Path) -> None:
    log = _write(tmp_path / "m1.events.pb", _match_events())

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "arena.cli", "events", *args], cwd=ROOT,
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "PYTHONPATH": str(ROOT)})

    everything = run(str(log.path))
    assert everything.returncode == 0, everything.stderr
    lines = [json.loads(line) for line in everything.stdout.splitlines()]
    assert lines == list(read_events(log.path)) and len(lines) == len(_match_events())
    seat = run(str(log.path), "--seat", "2")
    assert seat.returncode == 0 and all(2 in json.loads(x)["seats"] for x in seat.stdout.splitlines())
    log.path.write_bytes(log.path.read_bytes()[:-3])
    torn = run(str(log.path))
    assert torn.returncode == 1 and len(torn.stdout.splitlines()) == len(lines) - 1
    assert "cut short" in torn.stderr and "Traceback" not in torn.stderr
    log.path.write_bytes(b"\xff" * 12)
    bad = run(str(log.path))
    assert bad.returncode == 2 and "record 1" in bad.stderr and "Traceback" not in bad.stderr
    assert run(str(log.path), "--seat", "11").returncode == 2  # no such seat: a usage error


def test_a_resumed_match_numbers_its_events_on(tmp_path: Path) -> None:
    held = _match_events()
    assert last_sequence(tmp_path / "none.events.pb") == 0
    log = _write(tmp_path / "m1.events.pb", held)
    assert last_sequence(log.path) == max(n.sequence for n, _, _ in held)

"""Issue 13 item 4: the JSONL event log's fast encoder (compiled converters and orjson, event
types of plain fields given to orjson as they are) writes byte for byte what the plain walk and
``json.dumps`` write, whatever the event holds."""

from __future__ import annotations

import json
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine.events import PotShare
from arena.match import messages as m
from arena.storage import eventlog
from arena.storage.eventlog import event_line, event_lines, notice_json, reference_notice_json
from arena.storage.matchlog import EventLog


@dataclass(frozen=True, slots=True)
class Odd:
    """A payload with every kind of field an event can hold."""

    label: str
    seconds: float
    count: int
    flag: bool | None
    kind: m.RecordKind
    hole_cards: tuple[Any, ...]
    nested: tuple[Any, ...]


_floats = st.floats(allow_nan=True, allow_infinity=True) | st.sampled_from(
    [1e-05, 7.2e-05, 1e-4, 1e16, -1e16, 1e22, 5e-324, -0.0, 0.0, 1.5e-7, 123456789012345678.0])
_texts = st.text() | st.sampled_from(["\x7f", "é", "\u2028", 'a"b\\c/', ":1e5", ",0.00001"])
_ints = st.integers() | st.sampled_from([2**63, -(2**63) - 1, 2**64, 10**30])
_leaves = _floats | _texts | _ints | st.booleans() | st.none()


@given(label=_texts, seconds=_floats, count=_ints, flag=st.booleans() | st.none(),
       kind=st.sampled_from(list(m.RecordKind)),
       cards=st.lists(st.integers(-3, 60) | st.none() | st.tuples(st.integers(0, 51)), max_size=4),
       nested=st.lists(_leaves | st.tuples(_leaves, _leaves), max_size=4), unix=_floats,
       match_id=_texts)
def test_the_fast_event_json_is_byte_for_byte_the_plain_walks(
        label: str, seconds: float, count: int, flag: bool | None, kind: m.RecordKind,
        cards: list[Any], nested: list[Any], unix: float, match_id: str) -> None:
    payload = Odd(label, seconds, count, flag, kind, tuple(cards), tuple(nested))
    notice = m.Notice(match_id, "h-1", 7, unix, payload)  # type: ignore[arg-type]
    assert notice_json(notice) == reference_notice_json(notice)


def _count_plain_walks(monkeypatch: Any) -> list[m.Notice]:
    """The events the plain walk writes from now on (a list that grows)."""
    walked: list[m.Notice] = []
    plain = eventlog.reference_notice_json

    def counted(n: m.Notice) -> str:
        walked.append(n)
        return plain(n)

    monkeypatch.setattr(eventlog, "reference_notice_json", counted)
    return walked


def test_a_real_event_takes_the_fast_way_and_a_tiny_float_the_plain_one(monkeypatch: Any) -> None:
    record = m.ActionRecord(2, "flop", m.RecordKind.RAISE, 40, 20, 40, False)
    notice = m.Notice("r1", "r1-h3", 12, 1763840000.25, m.ActionAnnounced(record, 980, 120, "d-9"))
    plain = eventlog.reference_notice_json
    walked = _count_plain_walks(monkeypatch)
    text = notice_json(notice)
    assert text == plain(notice) and walked == []  # orjson wrote it
    assert json.loads(text)["payload"]["action"]["kind"] == m.RecordKind.RAISE.value
    odd = m.Notice("r1", "r1-h3", 13, 1763840000.5,
                   Odd("x", 1e-05, 1, None, m.RecordKind.CALL, (), ()))  # type: ignore[arg-type]
    assert notice_json(odd) == plain(odd) and walked == [odd]
    assert '"seconds":1e-05' in notice_json(odd)


_PAYLOADS = (*typing.get_args(m.Payload), m.HandSummary)
_held = st.tuples(
    st.builds(m.Notice, match_id=_texts, hand_id=_texts, sequence=_ints, unix_seconds=_floats,
              payload=st.one_of(*(st.from_type(kind) for kind in _PAYLOADS))),
    st.lists(st.integers(0, 9), min_size=1, max_size=4), _floats)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(held=st.lists(_held, max_size=6))
def test_every_event_type_writes_the_lines_of_the_plain_walk(held: list[Any]) -> None:
    """Whatever a real event holds (huge ints, NaN, non-ASCII names, DEL): the lines are the
    plain walk's, byte for byte."""
    expected = "".join(event_line(notice, seats, sent) for notice, seats, sent in held)
    assert event_lines(held) == expected.encode()


def test_every_common_event_type_takes_its_converter_not_the_plain_walk(monkeypatch: Any) -> None:
    """Actions, street ends, hand ends, game changes and dealt cards are written by the converter
    made for their type (orjson's own walk of a dataclass is slower), fields of plain values taken
    as they are; the plain walk is never called for them, and the lines are its lines."""
    plain = eventlog.reference_notice_json
    walked = _count_plain_walks(monkeypatch)
    record = m.ActionRecord(1, "turn", m.RecordKind.CALL, 20, 10, 20, False, m.AutoReason.TIMEOUT)
    payloads: list[Any] = [
        m.ActionAnnounced(record, 90, 60, "d-3"),
        m.StreetEnded("turn", (m.PotInfo(120, (0, 1, 2)),), 120, ((2, 10),)),
        m.HandEnded((m.HandSeatResult(0, 30, 1030),), (m.PotAward(0, 60, PotShare.WHOLE,
                                                                  ((0, 60),)),), False, "", True),
        m.GameChanged("O8", "FT", 9),
        m.CardsDealt("flop", 2, (0, 51), (), 2)]
    held = [(m.Notice("r1", "r1-h2", 9 + k, 1763840000.5, payload), [0, 1, 2], 1763840000.75)
            for k, payload in enumerate(payloads)]
    lines = event_lines(held)
    assert walked == []
    assert lines == "".join(plain(n).join(('{"seats":[0,1,2],"logged_at":1763840000.750000,'
                                          '"event":', '}\n')) for n, _, _ in held).encode()
    decoded = [json.loads(line) for line in lines.splitlines()]
    assert decoded[0]["event"]["payload"]["action"]["automatic"] == "timeout"
    assert decoded[4]["event"]["payload"]["up_cards"] == ["2c", "As"]
    assert eventlog._plain_hint(tuple[tuple[int, int], ...]) and eventlog._plain_hint(m.RecordKind)
    assert not eventlog._plain_hint(m.PotInfo) and not eventlog._plain_hint(float)


def test_the_event_log_appends_the_lines_to_an_owner_only_file(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "m.events.jsonl")
    notice = m.Notice("r1", "r1-h1", 1, 1763840000.5, m.GameChanged("O8", "FT", 9))
    log.sent(0, notice)
    log.sent(1, notice)
    log.flush()
    log.close()
    assert log.path.read_text() == event_line(notice, [0, 1], json.loads(
        log.path.read_text())["logged_at"])
    assert log.path.stat().st_mode & 0o777 == 0o600


def test_a_private_events_two_copies_take_one_line_each(tmp_path: Path) -> None:
    """The dealer sends a private event's copies seat by seat (the others' copy, the owner's, the
    others' again): the log holds one line per distinct copy, with every seat that received it."""
    log = EventLog(tmp_path / "m.events.jsonl")
    own = m.Notice("r1", "r1-h1", 4, 1763840000.5, m.CardsDealt("preflop", 1, (), (0, 51), 2))
    others = m.Notice("r1", "r1-h1", 4, 1763840000.5, m.CardsDealt("preflop", 1, (), (), 2))
    after = m.Notice("r1", "r1-h1", 5, 1763840000.6, m.GameChanged("O8", "FT", 9))
    for seat in range(4):
        log.sent(seat, own if seat == 1 else others)
    for seat in range(4):
        log.sent(seat, after)
    held = log.take()
    assert [(notice, seats) for notice, seats, _ in held] == [
        (others, [0, 2, 3]), (own, [1]), (after, [0, 1, 2, 3])]
    log.write(held)
    log.close()
    lines = [json.loads(line) for line in log.path.read_text().splitlines()]
    assert [line["seats"] for line in lines] == [[0, 2, 3], [1], [0, 1, 2, 3]]
    assert lines[1]["event"]["payload"]["hole_cards"] == ["2c", "As"]


def test_a_line_json_dumps_escapes_is_the_plain_walks_and_the_others_stay_fast(
        monkeypatch: Any) -> None:
    """The hand's lines are checked for what json.dumps escapes once, as one buffer; when a name
    beyond ASCII (or a DEL) is in one line, that line is the plain walk's and the others are
    still orjson's: the lines are the plain walk's, byte for byte."""
    plain = eventlog.reference_notice_json
    walked = _count_plain_walks(monkeypatch)
    ascii_notice = m.Notice("r1", "r1-h2", 9, 1763840000.5, m.GameChanged("O8", "FT", 9))
    for odd_name in ("Jürgen", "del\x7f"):
        walked.clear()
        odd = m.Notice("r1", "r1-h2", 10, 1763840000.5, m.GameChanged(odd_name, "FT", 9))
        held = [(ascii_notice, [0, 1], 1763840000.75), (odd, [2], 1763840000.8),
                (ascii_notice, [3], 1763840000.9)]
        assert event_lines(held) == "".join(plain(n).join((
            f'{{"seats":[{",".join(map(str, seats))}],"logged_at":{sent:.6f},"event":', '}\n'))
            for n, seats, sent in held).encode()
        assert walked == [odd]

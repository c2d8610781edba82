"""Issue 13 item 4: the JSONL event log's fast writers (arena/storage/eventtext.py: one typed
writer per message type, compiled by mypyc in the compiled pass) write byte for byte what the
plain walk and ``json.dumps`` write, whatever the event holds; a writer that leaves out a field
of its message, or spells a value otherwise, fails here."""

from __future__ import annotations

import dataclasses
import importlib.util
import json
import math
import typing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena.engine.events import PotShare
from arena.engine.rules import Stakes
from arena.host.compiled import ARENA_DIR
from arena.match import messages as m
from arena.storage import eventlog, eventtext
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


def test_a_name_json_dumps_escapes_is_escaped_as_json_dumps_does_without_the_plain_walk(
        monkeypatch: Any) -> None:
    """A name beyond ASCII (or a DEL, a quote, a backslash, a newline) is spelled by the
    standard library's own escaping, by the typed writer: the lines are the plain walk's, byte
    for byte, and the plain walk writes none of them."""
    plain = eventlog.reference_notice_json
    walked = _count_plain_walks(monkeypatch)
    ascii_notice = m.Notice("r1", "r1-h2", 9, 1763840000.5, m.GameChanged("O8", "FT", 9))
    for odd_name in ("Jürgen", "del\x7f", 'q"b\\s\nl\u2028'):
        walked.clear()
        odd = m.Notice("r1", "r1-h2", 10, 1763840000.5, m.GameChanged(odd_name, "FT", 9))
        held = [(ascii_notice, [0, 1], 1763840000.75), (odd, [2], 1763840000.8),
                (ascii_notice, [3], 1763840000.9)]
        assert event_lines(held) == "".join(plain(n).join((
            f'{{"seats":[{",".join(map(str, seats))}],"logged_at":{sent:.6f},"event":', '}\n'))
            for n, seats, sent in held).encode()
        assert walked == []


@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_each_message_types_writer_writes_every_field_as_the_plain_walk(data: Any) -> None:
    """Drift guard: each payload type's own writer (not the plain walk it falls back on) writes
    byte for byte the plain walk's text of any value of it; a field added to a message and not
    to its writer, a field written under another name or in another order, or a value spelled
    otherwise fails here (the plain walk writes every slot)."""
    for kind in _PAYLOADS:
        payload = data.draw(st.from_type(kind))
        notice = m.Notice(data.draw(_texts), data.draw(_texts), data.draw(_ints),
                          data.draw(_floats), payload)
        text = eventtext.notice_text(notice)  # raises Unusual where it leaves it to the walk
        assert text == reference_notice_json(notice), kind.__name__


def test_the_writers_know_every_payload_type_and_its_fields() -> None:
    """Every payload type has a writer: a payload type added to the messages fails here until
    it has one; and each message class's slots are its fields, in order (what the walk writes)."""
    for kind in (*_PAYLOADS, m.Notice, m.SeatInfo, m.PotInfo, m.ActionRecord, m.ShownHand,
                 m.PotAward, m.HandSeatResult, m.MatchSeatResult, m.TournamentInfo):
        own = [f.name for f in dataclasses.fields(kind)]  # type: ignore[arg-type]
        inherited = [f.name for base in kind.__mro__[1:] if dataclasses.is_dataclass(base)
                     for f in dataclasses.fields(base)]
        assert list(kind.__slots__) == [name for name in own if name not in inherited]
    source = (ARENA_DIR / "storage" / "eventtext.py").read_text()
    for kind in _PAYLOADS:
        assert f"type(payload) is {kind.__name__}:" in source, kind.__name__


@pytest.mark.parametrize("seconds", [
    0.0, 1 / 128, 0.0000005, 0.0000015, 1.0000005, 2.5e-7, 1763840000.7500005, 1763840000.0,
    1795481298.3078735, 8589934591.9999995, 8589934592.0, 2.0**53, -0.0, -1.5, 1e300, 5e-324,
    math.nan, math.inf, -math.inf, 4294967296.0000005])
def test_logged_at_is_spelled_as_percent_six_f(seconds: float) -> None:
    notice = m.Notice("r1", "r1-h1", 1, 1763840000.5, m.GameChanged("O8", "FT", 9))
    held = [(notice, [0, 1], seconds)]
    assert event_lines(held) == event_line(notice, [0, 1], seconds).encode()


@given(seconds=st.floats(0, 2.0**33) | st.integers(0, 2**33).map(lambda n: n / 2**22)
       | st.integers(0, 2**33 * 10**6).map(lambda n: (n + 0.5) / 10**6))
def test_micros_rounds_as_percent_six_f(seconds: float) -> None:
    """Ties to even from the exact binary value, as ``"%.6f"`` rounds."""
    micros = eventtext.micros(seconds)
    if not 0 < seconds < 2**33:
        assert micros == -1
        return
    assert f"{seconds:.6f}" == f"{micros // 10**6}.{micros % 10**6:06d}"


def test_the_lines_of_real_hands_are_the_plain_walks() -> None:
    """A match of real hands (every event type a table sends, HandSummary included): each event
    written by its type's writer, the lines byte for byte the plain walk's."""
    from arena.engine.rules import Rules
    from arena.match.spec import MatchSpec, SeatSpec
    from tests.match.scripted import ScriptedBot, play_with_scripted_bots

    class RequestsOnly(ScriptedBot):
        every_event = False

    spec = MatchSpec("real", tuple(SeatSpec(n, n) for n in ("a", "b", "c")), Rules(), 10, 7)
    notices = [n for bots in (play_with_scripted_bots(spec, ("a", "b", "c")),
                              play_with_scripted_bots(spec, ("a", "b", "c"), RequestsOnly))
               for bot in bots.values() for _, n in bot.notices(object)]
    assert {type(n.payload).__name__ for n in notices} >= {
        "MatchStarted", "HandStarted", "CardsDealt", "ActionAnnounced", "StreetEnded",
        "HandEnded", "HandSummary", "MatchEnded"}
    held = [(n, [k % 3, (k + 1) % 3], 1763840000.123 + k * 0.0137) for k, n in enumerate(notices)]
    for notice, _, _ in held:
        assert eventtext.notice_text(notice) == reference_notice_json(notice)
    assert event_lines(held) == "".join(event_line(*line) for line in held).encode()


def test_the_compiled_writers_write_what_their_source_writes() -> None:
    """The writers' source run as Python (the fallback without a build) and the module as
    loaded (compiled in the compiled pass) write the same bytes."""
    path = Path(eventtext.__spec__.origin or "")
    if path.suffix != ".py":
        path = ARENA_DIR / "storage" / "eventtext.py"
    spec = importlib.util.spec_from_file_location("eventtext_as_source", path)
    assert spec is not None and spec.loader is not None
    source = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(source)
    record = m.ActionRecord(1, "turn", m.RecordKind.CALL, 20, 10, 20, True, m.AutoReason.ABSENT)
    seats = tuple(m.SeatInfo(seat=k, name=f"b{k}", bot_id="x\u00e9\x7f", stack_chips=990 + k,
                             bet_chips=k, committed_chips=2 * k, up_cards=(k, 51, 60),
                             hole_card_count=2, status=m.SeatStatus.ACTIVE) for k in range(3))
    held = [(m.Notice("r1", "r1-h2", 9 + k, 1763840000.5 + k / 7, payload), [0, 2], 1763840000.75)
            for k, payload in enumerate([
                m.ActionAnnounced(record, 90, 60, "d-3"),
                m.HandStarted(1, "FT", 0, 1, seats, Stakes(), "deal-1", 1),
                m.ShowdownAnnounced((m.ShownHand(0, (1, 2), "pair", (1, 2), "", ()),)),
                m.MatchEnded((m.MatchSeatResult(0, "a", "a", 5, 10, 1e-05, math.inf, 1000),),
                             "seed", 10, False, "")])]
    assert source.lines_text(held, event_line) == eventtext.lines_text(held, event_line)
    assert source.lines_text(held, event_line).encode() == "".join(
        event_line(*line) for line in held).encode()


def test_lines_spell_any_seats_as_the_plain_line_does() -> None:
    """The seats of a line as one text when they are 0-7 in increasing order (a list, as the
    dealer holds them), and one by one otherwise: the same bytes either way."""
    notice = m.Notice("r1", "r1-h1", 3, 1763840000.5, m.GameChanged("O8", "FT", 9))
    for seats in ([0, 1, 2, 3], [], [7], [0, 2, 3], [0, 1, 2, 3, 4, 5, 6, 7], [3, 1], [2, 2],
                  [8], [0, 9], [True], (0, 1), [1023, 1024], [-1]):
        held = [(notice, seats, 1763840000.25)]
        assert event_lines(held) == event_line(notice, seats, 1763840000.25).encode(), seats


def _seats(status: m.SeatStatus) -> tuple[m.SeatInfo, ...]:
    return tuple(m.SeatInfo(seat=k, name=f"bot{k}", bot_id=f"b{k}", stack_chips=2000, bet_chips=0,
                            committed_chips=0, up_cards=(), hole_card_count=0,
                            status=status if k == 1 else m.SeatStatus.ACTIVE) for k in range(3))


def test_a_text_kept_for_the_next_event_is_that_events_own() -> None:
    """The writers keep two texts for the next event (the seats of a hand's HandStarted, one per
    seat, and the rules of a match's MatchStarted): each line is still its own event's plain walk
    when the seats are another tuple (a seat's status changed), equal or not, and when the rules
    are the same in another order, others, or not all strings."""
    active, absent, again = (_seats(m.SeatStatus.ACTIVE), _seats(m.SeatStatus.ABSENT),
                             _seats(m.SeatStatus.ACTIVE))
    payloads: list[m.Payload] = [
        m.HandStarted(k, "FT", 0, viewer, seats, Stakes(), f"d{k}", k, 0)
        for k, seats in enumerate((active, active, absent, absent, active, again), start=1)
        for viewer in range(3)]
    for rules in ({"a": '"x"', "b": "1"}, {"a": '"x"', "b": "1"}, {"b": "1", "a": '"x"'},
                  {"a": '"y"', "b": "1"}, {"a": 1, "b": "1"}, {"a": '"y"', "b": "1"}, {}):
        payloads.append(m.MatchStarted(active, 0, ("FT",), 3, 6, Stakes(), 2000, 1.0, 10.0,
                                       rules, 1, None))  # type: ignore[arg-type]
    held = [(m.Notice("r1", "r1-h1", k, 1763840000.5, p), [0], 1763840000.25)
            for k, p in enumerate(payloads, start=1)]
    assert event_lines(held) == "".join(event_line(*line) for line in held).encode()
    one_by_one = [event_lines([line]) for line in held]  # the texts kept from line to line
    assert b"".join(one_by_one) == event_lines(held)


def test_a_hand_started_copy_reuses_only_its_own_hands_seats_stakes_and_deal() -> None:
    """The copies of a hand's HandStarted (one per seat) share their seats, stakes and deal id,
    and the writer keeps that part's text for the next copy: a HandStarted with the same seats
    but other stakes, another deal id, or other numbers is still its own plain walk."""
    seats = _seats(m.SeatStatus.ACTIVE)
    low, high = Stakes(), Stakes(small_bet=40, big_bet=80, small_blind=20, big_blind=40)
    deal = "deal-1"
    payloads: list[m.Payload] = [
        m.HandStarted(hand, game, button, viewer, seats, stakes, deal_id, game_hand, copy)
        for hand, game, button, stakes, deal_id, game_hand, copy in (
            (1, "FT", 0, low, deal, 1, 0), (1, "FT", 0, high, deal, 1, 0),
            (2, "FT", 1, high, "deal-2", 2, 0), (2, "FO8", 1, high, "deal-2", 1, 1),
            (3, "FO8", 2, low, "deal-2", True, 1))
        for viewer in range(3)]
    held = [(m.Notice("r1", "r1-h1", k, 1763840000.5, p), [k % 3], 1763840000.25)
            for k, p in enumerate(payloads, start=1)]
    assert event_lines(held) == "".join(event_line(*line) for line in held).encode()


def test_a_string_is_spelled_as_json_dumps_spells_it_from_the_first_time_on() -> None:
    """The writers keep the JSON text of strings for the next time: a plain string and the str
    enum of its value (a name "active", a status), and a name escaped, are spelled as the plain
    walk spells each."""
    seats = tuple(m.SeatInfo(seat=k, name=name, bot_id=name, stack_chips=100, bet_chips=0,
                             committed_chips=0, up_cards=(), hole_card_count=0, status=status)
                  for k, (name, status) in enumerate((("active", m.SeatStatus.ACTIVE),
                                                      ("a\"b", m.SeatStatus.ACTIVE),
                                                      ("\u00e9t\u00e9", m.SeatStatus.FOLDED))))
    held = [(m.Notice("r1", "r1-h1", k, 1763840000.5, m.DuplicateCopyStarted(0, 2, "d", 0, seats)),
             [0], 1763840000.25) for k in range(1, 4)]
    assert event_lines(held) == "".join(event_line(*line) for line in held).encode()

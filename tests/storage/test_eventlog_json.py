"""Issue 13 item 4: the JSONL event log's fast writers (arena/storage/eventtext.py: one typed
writer per message type) write byte for byte what the
plain walk and ``json.dumps`` write, whatever the event holds; a writer that leaves out a field
of its message, or spells a value otherwise, fails here."""

from __future__ import annotations

import dataclasses
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
    notice = m.Notice(match_id=match_id, hand_id="h-1", sequence=7, unix_seconds=unix,
                      payload=payload)  # type: ignore[arg-type]
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
    record = m.ActionRecord(seat=2, street="flop", kind=m.RecordKind.RAISE, raise_to_chips=40,
                            amount_chips=20, round_bet_chips=40, is_all_in=False)
    notice = m.Notice(match_id="r1", hand_id="r1-h3", sequence=12, unix_seconds=1763840000.25,
                      payload=m.ActionAnnounced(action=record, stack_after_chips=980,
                                                pot_total_after_chips=120, decision_id="d-9"))
    plain = eventlog.reference_notice_json
    walked = _count_plain_walks(monkeypatch)
    text = notice_json(notice)
    assert text == plain(notice) and walked == []  # orjson wrote it
    assert json.loads(text)["payload"]["action"]["kind"] == m.RecordKind.RAISE.value
    odd = m.Notice(match_id="r1", hand_id="r1-h3", sequence=13, unix_seconds=1763840000.5,
                   payload=Odd("x", 1e-05, 1, None, m.RecordKind.CALL, (), ()))  # type: ignore[arg-type]
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
    record = m.ActionRecord(seat=1, street="turn", kind=m.RecordKind.CALL, raise_to_chips=20, amount_chips=10,
                            round_bet_chips=20, is_all_in=False, automatic=m.AutoReason.TIMEOUT)
    payloads: list[Any] = [
        m.ActionAnnounced(action=record, stack_after_chips=90, pot_total_after_chips=60, decision_id="d-3"),
        m.StreetEnded(street="turn", pots=(m.PotInfo(amount_chips=120, eligible_seats=(0, 1, 2)),),
                      pot_total_chips=120, returned=((2, 10),)),
        m.HandEnded(results=(m.HandSeatResult(seat=0, net_chips=30, final_stack_chips=1030),),
                    awards=(m.PotAward(pot_index=0, amount_chips=60, half=PotShare.WHOLE,
                                                                  winners=((0,
                                                                            60),)),), voided=False,
                                                                            void_reason="",
                                                                            went_to_showdown=True),
        m.GameChanged(game="O8", previous_game="FT", first_hand_number=9),
        m.CardsDealt(street="flop", seat=2, up_cards=(0, 51), hole_cards=(), hole_card_count=2)]
    held = [(m.Notice(match_id="r1", hand_id="r1-h2", sequence=9 + k, unix_seconds=1763840000.5,
                      payload=payload), [0, 1, 2], 1763840000.75)
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
    notice = m.Notice(match_id="r1", hand_id="r1-h1", sequence=1, unix_seconds=1763840000.5,
                      payload=m.GameChanged(game="O8", previous_game="FT", first_hand_number=9))
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
    own = m.Notice(match_id="r1", hand_id="r1-h1", sequence=4, unix_seconds=1763840000.5,
                   payload=m.CardsDealt(street="preflop", seat=1, up_cards=(), hole_cards=(0, 51),
                                        hole_card_count=2))
    others = m.Notice(match_id="r1", hand_id="r1-h1", sequence=4, unix_seconds=1763840000.5,
                      payload=m.CardsDealt(street="preflop", seat=1, up_cards=(), hole_cards=(),
                                           hole_card_count=2))
    after = m.Notice(match_id="r1", hand_id="r1-h1", sequence=5, unix_seconds=1763840000.6,
                     payload=m.GameChanged(game="O8", previous_game="FT", first_hand_number=9))
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
    ascii_notice = m.Notice(match_id="r1", hand_id="r1-h2", sequence=9, unix_seconds=1763840000.5,
                            payload=m.GameChanged(game="O8", previous_game="FT", first_hand_number=9))
    for odd_name in ("Jürgen", "del\x7f", 'q"b\\s\nl\u2028'):
        walked.clear()
        odd = m.Notice(match_id="r1", hand_id="r1-h2", sequence=10, unix_seconds=1763840000.5,
                       payload=m.GameChanged(game=odd_name, previous_game="FT", first_hand_number=9))
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
        notice = m.Notice(match_id=data.draw(_texts), hand_id=data.draw(_texts), sequence=data.draw(_ints),
                          unix_seconds=data.draw(_floats), payload=payload)
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
    source = Path(eventtext.__file__).read_text()
    for kind in _PAYLOADS:
        assert f"type(payload) is {kind.__name__}:" in source, kind.__name__


@pytest.mark.parametrize("seconds", [
    0.0, 1 / 128, 0.0000005, 0.0000015, 1.0000005, 2.5e-7, 1763840000.7500005, 1763840000.0,
    1795481298.3078735, 8589934591.9999995, 8589934592.0, 2.0**53, -0.0, -1.5, 1e300, 5e-324,
    math.nan, math.inf, -math.inf, 4294967296.0000005])
def test_logged_at_is_spelled_as_percent_six_f(seconds: float) -> None:
    notice = m.Notice(match_id="r1", hand_id="r1-h1", sequence=1, unix_seconds=1763840000.5,
                      payload=m.GameChanged(game="O8", previous_game="FT", first_hand_number=9))
    held = [(notice, [0, 1], seconds)]
    assert event_lines(held) == event_line(notice, [0, 1], seconds).encode()


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


def test_lines_spell_any_seats_as_the_plain_line_does() -> None:
    """The seats of a line as one text when they are 0-7 in increasing order (a list, as the
    dealer holds them), and one by one otherwise: the same bytes either way."""
    notice = m.Notice(match_id="r1", hand_id="r1-h1", sequence=3, unix_seconds=1763840000.5,
                      payload=m.GameChanged(game="O8", previous_game="FT", first_hand_number=9))
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
        m.HandStarted(hand_number=k, game="FT", button_seat=0, your_seat=viewer, seats=seats, stakes=Stakes(),
                      deal_id=f"d{k}", game_hand_number=k, duplicate_copy=0)
        for k, seats in enumerate((active, active, absent, absent, active, again), start=1)
        for viewer in range(3)]
    for rules in ({"a": '"x"', "b": "1"}, {"a": '"x"', "b": "1"}, {"b": "1", "a": '"x"'},
                  {"a": '"y"', "b": "1"}, {"a": 1, "b": "1"}, {"a": '"y"', "b": "1"}, {}):
        payloads.append(m.MatchStarted(seats=active, your_seat=0, games=("FT",), hands_per_game=3,
                                       total_hands=6, stakes=Stakes(), starting_stack_chips=2000,
                                       decision_seconds=1.0, time_bank_seconds=10.0,
                                       rules=rules, duplicate_copies=1,
                                       tournament=None))  # type: ignore[arg-type]
    held = [(m.Notice(match_id="r1", hand_id="r1-h1", sequence=k, unix_seconds=1763840000.5, payload=p), [0],
             1763840000.25)
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
        m.HandStarted(hand_number=hand, game=game, button_seat=button, your_seat=viewer, seats=seats,
                      stakes=stakes, deal_id=deal_id, game_hand_number=game_hand, duplicate_copy=copy)
        for hand, game, button, stakes, deal_id, game_hand, copy in (
            (1, "FT", 0, low, deal, 1, 0), (1, "FT", 0, high, deal, 1, 0),
            (2, "FT", 1, high, "deal-2", 2, 0), (2, "FO8", 1, high, "deal-2", 1, 1),
            (3, "FO8", 2, low, "deal-2", True, 1))
        for viewer in range(3)]
    held = [(m.Notice(match_id="r1", hand_id="r1-h1", sequence=k, unix_seconds=1763840000.5, payload=p),
             [k % 3], 1763840000.25)
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
    held = [(m.Notice(match_id="r1", hand_id="r1-h1", sequence=k, unix_seconds=1763840000.5,
                      payload=m.DuplicateCopyStarted(copy_index=0, copies_total=2, deal_set_id="d",
                                                     your_seat=0, seats=seats)),
             [0], 1763840000.25) for k in range(1, 4)]
    assert event_lines(held) == "".join(event_line(*line) for line in held).encode()

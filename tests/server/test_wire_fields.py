"""The encoder's hand-written fields (varints, timestamps, seats, action records) are the bytes
protobuf writes for the same values, over the whole range of each field."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena.match import messages as m
from arena.server import convert, wire
from arena.v1 import arena_pb2 as pb

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass

INT64 = st.integers(-(1 << 63), (1 << 63) - 1)
INT32 = st.integers(-(1 << 31), (1 << 31) - 1)
CARDS = st.lists(st.integers(0, 51), max_size=4).map(tuple)


@given(st.integers(1, (1 << 64) - 1))  # 0 is a field protobuf leaves out
def test_varint_is_protobufs(value: int) -> None:
    assert wire._varint(value) == pb.Pot(amount_chips=value - (1 << 64) if value >= 1 << 63
                                         else value).SerializeToString()[1:]


@given(INT64.filter(bool))
def test_signed_is_protobufs(value: int) -> None:
    assert b"\x08" + wire._signed(value) == pb.Pot(amount_chips=value).SerializeToString()


@given(st.lists(st.floats(0, 4e9, allow_nan=False), min_size=1, max_size=5))
def test_timestamps_are_protobufs(times: list[float]) -> None:
    """Also across seconds: the kept seconds part is the current one."""
    for unix_seconds in times:
        data = wire._timestamp(wire._EVENT_TIME_TAG, unix_seconds)
        assert pb.Event.FromString(data).server_time == convert.timestamp(unix_seconds)


@given(st.builds(m.SeatInfo, seat=INT32, name=st.text(max_size=8), bot_id=st.text(max_size=8),
                 stack_chips=INT64, bet_chips=INT64, committed_chips=INT64, up_cards=CARDS,
                 hole_card_count=INT32, status=st.sampled_from(list(m.SeatStatus))))
def test_seat_state_is_protobufs(seat: m.SeatInfo) -> None:
    assert wire._seat_state(seat) == convert.seat_state(seat).SerializeToString()


@given(st.builds(m.ActionRecord, seat=INT32, street=st.sampled_from(list(convert.STREETS)),
                 kind=st.sampled_from(list(convert.KINDS_OUT)), raise_to_chips=INT64, amount_chips=INT64,
                 round_bet_chips=INT64, is_all_in=st.booleans(),
                 automatic=st.sampled_from([None, *m.AutoReason]),
                 exchange_card_count=st.integers(0, 7), exchanged_cards=CARDS, drawn_cards=CARDS,
                 exchange_face_up=st.booleans()))
def test_action_record_is_protobufs(record: m.ActionRecord) -> None:
    assert wire._action_record(record) == convert.action_record(record).SerializeToString()


SEATS = st.builds(m.SeatInfo, seat=st.integers(0, 9), name=st.text(max_size=8),
                  bot_id=st.text(max_size=8), stack_chips=INT64, bet_chips=INT64,
                  committed_chips=INT64, up_cards=CARDS, hole_card_count=st.integers(0, 7),
                  status=st.sampled_from(list(m.SeatStatus)))
# Every kind the wire carries, the exchanges of the draw games too (docs/house-rules.md §26).
RECORDS = st.builds(m.ActionRecord, seat=st.integers(0, 9), street=st.sampled_from(list(convert.STREETS)),
                    kind=st.sampled_from(list(convert.KINDS_OUT)), raise_to_chips=INT64, amount_chips=INT64,
                    round_bet_chips=INT64, is_all_in=st.booleans(),
                    automatic=st.sampled_from([None, *m.AutoReason]),
                    exchange_card_count=st.integers(0, 7), exchanged_cards=CARDS,
                    drawn_cards=CARDS, exchange_face_up=st.booleans())
SUMMARIES = st.builds(
    m.HandSummary,
    results=st.lists(st.builds(m.SeatResult, seat=st.integers(0, 9), net_chips=INT64,
                               final_stack_chips=INT64), max_size=8).map(tuple),
    awards=st.lists(st.builds(m.PotAward, pot_index=st.integers(0, 7), amount_chips=INT64,
                              half=st.sampled_from(list(convert.HALVES)),
                       winners=st.lists(st.tuples(st.integers(0, 9), INT64), max_size=3).map(tuple)),
             max_size=3).map(tuple),
    voided=st.booleans(), void_reason=st.text(max_size=12), went_to_showdown=st.booleans(),
    actions=st.lists(RECORDS, max_size=6).map(tuple), board=CARDS, seats=st.lists(SEATS,
        max_size=8).map(tuple))


@given(SUMMARIES, st.integers(0, 1 << 40), st.floats(0, 4e9, allow_nan=False))
def test_hand_summary_is_the_converters_event(summary: m.HandSummary, sequence: int,
                                              unix_seconds: float) -> None:
    notice = m.Notice(match_id="match", hand_id="match-h1", sequence=sequence, unix_seconds=unix_seconds,
                      payload=summary)
    data = wire.Encoder().encode(notice)
    assert pb.DealerMessage.FromString(data).event == convert.event(notice)

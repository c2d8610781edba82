"""Issue 13 item 4: the JSONL event log's fast encoder (compiled converters and orjson) writes
byte for byte what the plain walk and ``json.dumps`` write, whatever the event holds."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from arena.match import messages as m
from arena.storage import eventlog
from arena.storage.eventlog import notice_json, reference_notice_json


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


def test_a_real_event_takes_the_fast_way_and_a_tiny_float_the_plain_one(monkeypatch: Any) -> None:
    record = m.ActionRecord(2, "flop", m.RecordKind.RAISE, 40, 20, 40, False)
    notice = m.Notice("r1", "r1-h3", 12, 1763840000.25, m.ActionAnnounced(record, 980, 120, "d-9"))
    walked: list[m.Notice] = []
    plain = eventlog.reference_notice_json

    def counted(n: m.Notice) -> str:
        walked.append(n)
        return plain(n)

    monkeypatch.setattr(eventlog, "reference_notice_json", counted)
    text = notice_json(notice)
    assert text == plain(notice) and walked == []  # orjson wrote it
    assert json.loads(text)["payload"]["action"]["kind"] == m.RecordKind.RAISE.value
    odd = m.Notice("r1", "r1-h3", 13, 1763840000.5,
                   Odd("x", 1e-05, 1, None, m.RecordKind.CALL, (), ()))  # type: ignore[arg-type]
    assert notice_json(odd) == plain(odd) and walked == [odd]
    assert '"seconds":1e-05' in notice_json(odd)

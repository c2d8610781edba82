"""Issue 37 item 4: the .proto is the one place a field number is written. The wire splicer
(arena/server/wire.py) and the event log's records (arena/server/eventrecord.py) derive every tag
from the generated descriptors (arena/server/wirebytes.py); no hand-written module holds a tag
as a literal: no bytes literal in a module that writes protobuf's wire format, and no field
number shifted into a tag anywhere."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from google.protobuf import timestamp_pb2

from arena.server import wire, wirebytes
from arena.v1 import arena_pb2 as pb
from arena.v1 import eventlog_pb2 as lpb

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass

ARENA = Path(__file__).resolve().parents[2] / "arena"
GENERATED = ARENA / "v1"


def _literal_tags(source: str, *, writes_wire: bool) -> list[str]:
    """What in ``source`` looks like a hand-written tag: a constant shifted left by 3 (a field
    number made a tag), and, in a module that writes the wire format, any non-empty bytes
    literal (a tag or a value spelled as bytes)."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.BinOp) and isinstance(node.op, ast.LShift)
                and isinstance(node.left, ast.Constant) and isinstance(node.right, ast.Constant)
                and node.right.value == 3):
            found.append(f"line {node.lineno}: {ast.unparse(node)}")
        if (writes_wire and isinstance(node, ast.Constant) and isinstance(node.value, bytes)
                and node.value):
            found.append(f"line {node.lineno}: {node.value!r}")
    return found


def _writes_wire(source: str) -> bool:
    return "arena.server.wirebytes" in source or "wirebytes import" in source


def test_no_hand_written_module_holds_a_literal_tag() -> None:
    checked = 0
    for path in sorted(ARENA.rglob("*.py")):
        if GENERATED in path.parents:
            continue
        source = path.read_text(encoding="utf-8")
        writes = _writes_wire(source) or path.name == "wirebytes.py"
        checked += writes
        assert _literal_tags(source, writes_wire=writes) == [], path
    assert checked >= 3  # wirebytes, wire and eventrecord at least


def test_the_check_finds_a_hand_written_tag() -> None:
    """The test above can fail: a tag spelled as bytes or made from a literal field number."""
    assert _literal_tags('_SEQ = b"\\x18"\n', writes_wire=True) == ["line 1: b'\\x18'"]
    assert _literal_tags("_SEQ = varint(3 << 3 | 0)\n", writes_wire=False) == [
        "line 1: 3 << 3"]
    assert _literal_tags('EMPTY = b""\nx = number << 3\n', writes_wire=True) == []


def test_the_derived_tags_are_the_descriptors() -> None:
    """Spot checks of the tags the splicer writes, against protobuf's own serialization."""
    assert wirebytes.tag(pb.Event, "sequence") + wirebytes.varint(5) == pb.Event(
        sequence=5).SerializeToString()
    assert wirebytes.tag(pb.DecisionRequest, "decision_time_left_seconds") + wirebytes.double(
        1.5) == pb.DecisionRequest(decision_time_left_seconds=1.5).SerializeToString()
    assert wirebytes.field(wirebytes.number(lpb.LoggedEvent, "seats"), b"\x00\x02") == (
        lpb.LoggedEvent(seats=[0, 2]).SerializeToString())
    assert wirebytes.timestamp(wire._EVENT_TIME_TAG, 12.25) == pb.Event(
        server_time=timestamp_pb2.Timestamp(seconds=12, nanos=250_000_000)).SerializeToString()
    assert pb.HandEnded(voided=True).SerializeToString() == wire._HE_VOIDED

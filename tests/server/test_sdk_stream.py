"""The SDK's direct stream (arena_bot/_direct.Stream) on a stand-in call: which batches it
starts and when. A reply made while the last message is handled starts with the next read, in
one batch; every other write at once, one send in flight at a time, in order."""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

import pytest
from arena_bot import _direct
from arena_bot._proto import arena_pb2 as pb

pytestmark = pytest.mark.skipif(not _direct.AVAILABLE, reason="a grpcio the SDK was not tested with")


@dataclass
class _Operation:
    kind: str
    data: bytes | None = None

    def message(self) -> bytes | None:
        return self.data


@dataclass
class _Event:
    tag: str
    success: bool
    batch_operations: tuple[_Operation, ...]


@dataclass
class _Call:
    """Records each batch started as (tag, kinds of its operations, bytes sent)."""

    started: list[tuple[str, tuple[str, ...], bytes | None]] = field(default_factory=list)
    events: deque[_Event] = field(default_factory=deque)

    def operate(self, operations: tuple[Any, ...], tag: str) -> bool:
        kinds = tuple(type(o).__name__ for o in operations)
        sent = [o for o in operations if type(o).__name__ == "SendMessageOperation"]
        self.started.append((tag, kinds, _sent_bytes(sent[0]) if sent else None))
        return True

    def next_event(self) -> _Event:
        return self.events.popleft()


def _sent_bytes(operation: Any) -> bytes:
    return bytes(operation._message)  # grpcio's operation keeps its bytes


def _reply(decision: str) -> pb.BotMessage:
    return pb.BotMessage(action_reply=pb.ActionReply(decision_id=decision))


SEND, RECEIVE = ("SendMessageOperation",), ("ReceiveMessageOperation",)
BOTH = (*SEND, *RECEIVE)


def test_the_reply_to_the_last_message_goes_with_the_next_read_in_one_batch() -> None:
    call = _Call()
    stream = _direct.Stream.on_call(call)
    stream.hold()
    stream.write(_reply("d1"))
    assert call.started == []  # held until the read
    assert stream.read()
    assert call.started == [("both", BOTH, _reply("d1").SerializeToString())]
    assert stream.due == 1 and stream.sending
    call.events.append(_Event("both", True, (_Operation("send"), _Operation("receive", b"next"))))
    assert stream.next() == b"next"
    assert not stream.sending and stream.due == 0


def test_writes_before_the_last_go_at_once_and_in_order() -> None:
    """Two requests in one envelope: the first reply is not held back while the bot thinks
    about the second; the second waits for the first's completion, then goes alone."""
    call = _Call()
    stream = _direct.Stream.on_call(call)
    stream.write(_reply("d1"))  # not the last message: at once
    assert call.started == [("send", SEND, _reply("d1").SerializeToString())]
    stream.hold()
    stream.write(_reply("d2"))
    assert len(call.started) == 1
    stream.read()  # a send is in flight: d2 queued behind it, the read alone
    assert call.started[1] == ("receive", RECEIVE, None)
    assert list(stream.queued) == [_reply("d2").SerializeToString()]
    call.events.append(_Event("send", True, (_Operation("send"),)))
    call.events.append(_Event("receive", True, (_Operation("receive", b"next"),)))
    assert stream.next() == b"next"
    assert call.started[2] == ("send", SEND, _reply("d2").SerializeToString())
    assert not stream.queued


def test_two_writes_while_holding_send_the_first_at_once() -> None:
    """A rejection's fallback and a reply in the last message: the earlier goes at once."""
    call = _Call()
    stream = _direct.Stream.on_call(call)
    stream.hold()
    stream.write(_reply("fallback"))
    stream.write(_reply("d2"))
    assert call.started == [("send", SEND, _reply("fallback").SerializeToString())]
    stream.read()
    assert [s[0] for s in call.started] == ["send", "receive"]
    assert list(stream.queued) == [_reply("d2").SerializeToString()]


def test_a_read_without_a_held_write_reads_alone_and_the_stream_ends_on_its_status() -> None:
    call = _Call()
    stream = _direct.Stream.on_call(call, due=1)  # the status batch, as a new stream has it
    stream.hold()
    stream.read()
    assert call.started == [("receive", RECEIVE, None)]
    status = _Operation("status")
    status.code = lambda: 0  # type: ignore[attr-defined]
    status.details = lambda: "done"  # type: ignore[attr-defined]
    call.events.append(_Event("receive", True, (_Operation("receive", None),)))
    call.events.append(_Event("status", True, (status,)))
    assert stream.next() is None
    assert stream.status is not None and stream.status[0].name == "OK"
    stream.hold()
    stream.write(_reply("late"))
    assert not stream.read() and len(call.started) == 1  # nothing starts once it ended

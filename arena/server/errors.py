"""The one table from arena errors to wire codes: in-stream rejections and stream-ending statuses."""

from __future__ import annotations

import grpc

from arena.engine.errors import (
    AmountOutOfRange,
    ArenaError,
    HandOver,
    IllegalAction,
    MalformedInput,
    NotYourTurn,
    StaleDecision,
)
from arena.match.messages import WrongSeat
from arena.v1 import arena_pb2 as pb

# Most specific first: AmountOutOfRange, NotYourTurn, StaleDecision and HandOver are all
# IllegalActions. The numbers of RejectCode equal the gRPC status codes of the same name.
REJECT_CODES: tuple[tuple[type[ArenaError], pb.RejectCode.ValueType], ...] = (
    (WrongSeat, pb.REJECT_CODE_PERMISSION_DENIED),
    (StaleDecision, pb.REJECT_CODE_ABORTED),
    (HandOver, pb.REJECT_CODE_ABORTED),
    (MalformedInput, pb.REJECT_CODE_INVALID_ARGUMENT),
    (AmountOutOfRange, pb.REJECT_CODE_OUT_OF_RANGE),
    (NotYourTurn, pb.REJECT_CODE_FAILED_PRECONDITION),
    (IllegalAction, pb.REJECT_CODE_FAILED_PRECONDITION),
    (ArenaError, pb.REJECT_CODE_FAILED_PRECONDITION),
)


def reject_code(error: ArenaError) -> pb.RejectCode.ValueType:
    for kind, code in REJECT_CODES:
        if isinstance(error, kind):
            return code
    return pb.REJECT_CODE_FAILED_PRECONDITION


class StreamEnded(Exception):
    """Why the dealer ends a Play stream with a non-OK status."""

    code = grpc.StatusCode.UNKNOWN

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Unauthenticated(StreamEnded):
    code = grpc.StatusCode.UNAUTHENTICATED


class NotKnownYet(Unauthenticated):
    """A token a worker does not know yet: its league may not be queued yet (bots started with
    the workers, before the coordinator), so the bot may retry (UNAVAILABLE, which the SDKs retry
    within their connect time). Slowed down like any failed authentication."""

    code = grpc.StatusCode.UNAVAILABLE


class BadHandshake(StreamEnded):
    """The first message was not ``hello``, or its protocol version is not spoken here."""

    code = grpc.StatusCode.FAILED_PRECONDITION


class Replaced(StreamEnded):
    """A newer stream with the same token took over the bot's seats."""

    code = grpc.StatusCode.ALREADY_EXISTS


class Flooding(StreamEnded):
    """Too many messages from the bot, or too many undelivered ones to it (not reading)."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class Malformed(StreamEnded):
    """Bytes that are not a ``BotMessage`` (garbage on the stream)."""

    code = grpc.StatusCode.INVALID_ARGUMENT


class Internal(StreamEnded):
    """A dealer bug ended the stream; the reason is in the dealer's log."""

    code = grpc.StatusCode.INTERNAL


class Busy(StreamEnded):
    """Refused for now: backing off after a flood, or too many failed authentications."""

    code = grpc.StatusCode.RESOURCE_EXHAUSTED


class ShuttingDown(StreamEnded):
    code = grpc.StatusCode.UNAVAILABLE


class NotSeated(StreamEnded):
    """A table stream for a table where the bot holds no seat."""

    code = grpc.StatusCode.PERMISSION_DENIED


class DirectConnectionWins(StreamEnded):
    """A relayed stream for a bot that is connected to this worker directly."""

    code = grpc.StatusCode.ABORTED

"""The gateway's own bounds on what an agent sends, before anything reaches the dealer."""

from __future__ import annotations

from dataclasses import dataclass

from arena.server.config import Limits

_DEALER = Limits()


@dataclass(frozen=True, slots=True, kw_only=True)
class GatewayLimits:
    """Per-connection bounds of the gateway. The defaults are the dealer's own (``[limits]``), so a
    frame the gateway lets through is one the dealer would take from a gRPC bot.

    max_message_bytes: a frame longer than this (UTF-8 bytes) is refused with an ``error`` frame
        (RESOURCE_EXHAUSTED) and dropped; one longer than ``hard_frame_bytes`` closes the socket
        (WebSocket code 1009), since it is not even read whole.
    messages_per_second, message_burst: every frame an agent sends, refused ones included, takes
        one token of a bucket refilled at this rate up to the burst; an empty bucket closes the
        socket (code 1008, "flood") and the dealer sees the seat disconnect, as for a gRPC flood.
    max_open_decisions: decision requests remembered per connection for text replies and think
        time (oldest forgotten first).
    """

    max_message_bytes: int = _DEALER.max_message_bytes
    hard_frame_bytes: int = 4 * _DEALER.max_message_bytes
    messages_per_second: float = _DEALER.messages_per_second
    message_burst: int = _DEALER.message_burst
    max_open_decisions: int = 64


class TokenBucket:
    """``rate`` tokens a second up to ``burst``; :meth:`take` is False when none is left."""

    def __init__(self, rate: float, burst: int, now: float) -> None:
        self.rate = rate
        self.burst = float(burst)
        self.tokens = float(burst)
        self.at = now

    def take(self, now: float) -> bool:
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1.0:
            return False
        self.tokens -= 1.0
        return True

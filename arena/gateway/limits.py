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
    auth_failure_delay_seconds, auth_failure_max_delay_seconds: after the dealer refuses a token
        (UNAUTHENTICATED), the agent's address must wait this long before the gateway opens
        another stream for it, doubling with every refusal up to the maximum (the dealer's own
        rule, applied here per agent address, since to the dealer every agent comes from the
        gateway's address and one agent guessing tokens would slow all the others).
    max_pending_per_address: streams of one agent address not yet welcomed by the dealer; more
        are refused at once (RESOURCE_EXHAUSTED).
    """

    max_message_bytes: int = _DEALER.max_message_bytes
    hard_frame_bytes: int = 4 * _DEALER.max_message_bytes
    messages_per_second: float = _DEALER.messages_per_second
    message_burst: int = _DEALER.message_burst
    max_open_decisions: int = 64
    auth_failure_delay_seconds: float = _DEALER.auth_failure_delay_seconds
    auth_failure_max_delay_seconds: float = _DEALER.auth_failure_max_delay_seconds
    max_pending_per_address: int = 16

"""Rate guards of the dealer: token buckets, backoff for bots cut for flooding, and a growing
delay for failed authentications per peer address."""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass

MAX_TRACKED = 10_000  # peers and tokens remembered at once (oldest forgotten first)


class TokenBucket:
    """Allows ``rate`` units per second on average and ``burst`` at once."""

    __slots__ = ("burst", "rate", "stamp", "tokens")

    def __init__(self, rate: float, burst: float) -> None:
        self.rate = rate
        self.burst = burst
        self.tokens = burst
        self.stamp = time.monotonic()

    def take(self, amount: float = 1.0) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens < amount:
            return False
        self.tokens -= amount
        return True


@dataclass(slots=True)
class _Strikes:
    count: int
    last: float
    until: float


class Backoff:
    """Per key: after each strike the key waits ``base * 2**(strikes-1)`` seconds (at most
    ``cap``); strikes are forgotten after ``4 * cap`` seconds without one."""

    def __init__(self, base_seconds: float, cap_seconds: float) -> None:
        self.base_seconds = base_seconds
        self.cap_seconds = cap_seconds
        self._strikes: OrderedDict[str, _Strikes] = OrderedDict()

    def _current(self, key: str, now: float) -> _Strikes | None:
        found = self._strikes.get(key)
        if found is not None and now - found.last > 4 * self.cap_seconds:
            del self._strikes[key]
            return None
        return found

    def strike(self, key: str) -> float:
        """Count a strike; returns the seconds the key must now wait."""
        now = time.monotonic()
        found = self._current(key, now)
        count = 1 if found is None else found.count + 1
        delay = min(self.cap_seconds, self.base_seconds * 2.0 ** min(count - 1, 60))
        self._strikes[key] = _Strikes(count, now, now + delay)
        self._strikes.move_to_end(key)
        while len(self._strikes) > MAX_TRACKED:
            self._strikes.popitem(last=False)
        return delay

    def wait_left(self, key: str) -> float:
        """Seconds the key must still wait (0 when it may go on)."""
        now = time.monotonic()
        found = self._current(key, now)
        return 0.0 if found is None else max(0.0, found.until - now)

    def strikes(self, key: str) -> int:
        found = self._current(key, time.monotonic())
        return 0 if found is None else found.count


def peer_host(peer: str) -> str:
    """The address part of a gRPC peer string (``ipv4:1.2.3.4:5678`` -> ``ipv4:1.2.3.4``)."""
    if peer.startswith("ipv6:"):
        host, _, _port = peer.rpartition(":")
        return host or peer
    if peer.startswith("ipv4:"):
        return peer.rsplit(":", 1)[0]
    return peer

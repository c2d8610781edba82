"""Transport counters and latency samples, summarised into the results file and the benchmark."""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass, field

from arena.match.records import percentile


class Samples:
    """A bounded uniform sample of a stream of values (reservoir sampling)."""

    def __init__(self, capacity: int = 100_000, seed: int = 0) -> None:
        self.values: list[float] = []
        self.count = 0
        self._capacity = capacity
        self._rng = random.Random(seed)

    def add(self, value: float) -> None:
        self.count += 1
        if len(self.values) < self._capacity:
            self.values.append(value)
            return
        k = self._rng.randrange(self.count)
        if k < self._capacity:
            self.values[k] = value

    def summary(self) -> dict[str, float]:
        return {"count": self.count, "p50": percentile(self.values, 0.5),
                "p99": percentile(self.values, 0.99), "max": max(self.values, default=0.0)}


@dataclass
class TransportStats:
    """What the connections did, summed over all of them."""

    streams: int = 0
    writes: int = 0
    messages_out: int = 0
    bytes_out: int = 0
    messages_in: int = 0
    bytes_in: int = 0
    replies_in: int = 0
    overhead_seconds: Samples = field(default_factory=Samples)  # reply read -> next prompt written
    # Reply read -> the write of the next prompt started (its bytes handed to the socket):
    # the dealer's own part of a serial (heads-up) decision, without the write's completion.
    turnaround_seconds: Samples = field(default_factory=Samples)
    ended: Counter[str] = field(default_factory=Counter)  # streams ended by the dealer, by status

    def summary(self) -> dict[str, object]:
        return {
            "streams": self.streams, "writes": self.writes, "messages_out": self.messages_out,
            "bytes_out": self.bytes_out, "messages_in": self.messages_in,
            "bytes_in": self.bytes_in, "replies_in": self.replies_in,
            "overhead_seconds": self.overhead_seconds.summary(),
            "turnaround_seconds": self.turnaround_seconds.summary(),
            "ended": dict(self.ended),
        }

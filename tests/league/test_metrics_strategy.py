"""Issue 40: the share of decisions answered with a declared strategy, per bot, in /metrics
(`arena_strategy_replies_total` beside `arena_decisions_total`), counted from the hands the
league commits."""

from __future__ import annotations

import pytest
from prometheus_client import generate_latest
from prometheus_client.parser import text_string_to_metric_families

from arena.metrics import ArenaMetrics

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def _samples(metrics: ArenaMetrics, name: str) -> dict[str, float]:
    text = generate_latest(metrics.registry).decode()
    return {s.labels["bot"]: s.value for family in text_string_to_metric_families(text)
            for s in family.samples if s.name == name}


def test_strategy_replies_are_counted_per_bot_beside_the_decisions() -> None:
    metrics = ArenaMetrics()
    for bot in ("alice", "bob"):
        metrics.register_bot(bot)
    for _ in range(4):
        metrics.decision(0.01, 0.001, bot="alice")
    metrics.decision(0.01, 0.001, bot="bob")
    for _ in range(3):
        metrics.strategy_reply(bot="alice")
    assert _samples(metrics, "arena_strategy_replies_total") == {"alice": 3.0, "bob": 0.0, "other": 0.0}
    assert _samples(metrics, "arena_decisions_total")["alice"] == 4.0

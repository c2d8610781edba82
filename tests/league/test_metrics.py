"""Prometheus metrics (arena/metrics.py), scraped over real HTTP and parsed by prometheus_client.

Lives here because the brief's test rooms are tests/league and tests/storage; move to
tests/test_metrics.py if a metrics room is wanted.
"""

from __future__ import annotations

import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

from arena.league.stats import compute_leaderboard
from arena.metrics import (
    GAME_LABELS,
    INVALID_ACTION_REASONS,
    LATENCY_BUCKETS_SECONDS,
    OTHER_BOT,
    ArenaMetrics,
    MetricsServer,
    Reason,
    start_metrics_server,
)
from arena.storage.records import ResultRow

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


@pytest.fixture
def metrics() -> ArenaMetrics:
    return ArenaMetrics(bot_label_cap=8)


@pytest.fixture
def server(metrics: ArenaMetrics) -> Iterator[MetricsServer]:
    with start_metrics_server(0, metrics.registry) as running:
        yield running


def scrape(server: MetricsServer) -> dict[str, Metric]:
    with urllib.request.urlopen(server.url, timeout=5) as response:
        assert response.status == 200
        text = response.read().decode()
    return {family.name: family for family in text_string_to_metric_families(text)}


def value(family: Metric, sample_name: str, **labels: str) -> float:
    matches = [s.value for s in family.samples if s.name == sample_name and s.labels == labels]
    assert len(matches) == 1, f"{sample_name}{labels}: {len(matches)} samples"
    return matches[0]


def test_events_are_scraped_with_names_types_labels_and_values(metrics: ArenaMetrics,
                                                               server: MetricsServer) -> None:
    assert server.host == "127.0.0.1" and server.port > 0
    metrics.register_bot("alice")
    for game in ("FT", "FT", "FT", "FR"):
        metrics.hand_played(game)
    metrics.decision(0.02, 0.003, bot="alice")
    metrics.decision(0.5, 0.01, bot="stranger")  # not registered: counted as "other"
    metrics.decision(40.0, -0.001, bot="alice")  # beyond the last bucket; negative network time -> 0
    metrics.timeout(bot="alice")
    metrics.timeout(Reason.ABSENT, bot="alice")
    metrics.invalid_action("stale", bot="alice")
    metrics.invalid_action(Reason.OUT_OF_RANGE, bot="stranger")
    metrics.set_connected_bots(1)
    metrics.table_started()
    metrics.table_started()
    metrics.table_ended()
    families = scrape(server)

    hands = families["arena_hands"]
    assert hands.type == "counter"
    assert value(hands, "arena_hands_total", game="FT") == 3
    assert value(hands, "arena_hands_total", game="FR") == 1
    assert value(hands, "arena_hands_total", game="F7S/8") == 0  # series exist before the first hand

    decisions = families["arena_decisions"]
    assert decisions.type == "counter"
    assert value(decisions, "arena_decisions_total", bot="alice") == 2
    assert value(decisions, "arena_decisions_total", bot=OTHER_BOT) == 1

    think = families["arena_decision_think_seconds"]
    assert think.type == "histogram"
    assert value(think, "arena_decision_think_seconds_bucket", le="0.001") == 0
    assert value(think, "arena_decision_think_seconds_bucket", le="0.025") == 1
    assert value(think, "arena_decision_think_seconds_bucket", le="30.0") == 2
    assert value(think, "arena_decision_think_seconds_bucket", le="+Inf") == 3
    assert value(think, "arena_decision_think_seconds_count") == 3
    assert value(think, "arena_decision_think_seconds_sum") == pytest.approx(40.52)
    network = families["arena_decision_network_seconds"]
    assert network.type == "histogram"
    assert value(network, "arena_decision_network_seconds_bucket", le="0.001") == 1  # the clamped one
    assert value(network, "arena_decision_network_seconds_sum") == pytest.approx(0.013)
    buckets = [s.labels["le"] for s in think.samples if s.name.endswith("_bucket")]
    assert buckets == [repr(float(b)) for b in LATENCY_BUCKETS_SECONDS] + ["+Inf"]

    timeouts = families["arena_timeouts"]
    assert timeouts.type == "counter"
    assert value(timeouts, "arena_timeouts_total", bot="alice", reason="timeout") == 1
    assert value(timeouts, "arena_timeouts_total", bot="alice", reason="absent") == 1
    invalid = families["arena_invalid_actions"]
    assert value(invalid, "arena_invalid_actions_total", bot="alice", reason="stale") == 1
    assert value(invalid, "arena_invalid_actions_total", bot=OTHER_BOT, reason="out_of_range") == 1
    assert {s.labels["reason"] for s in invalid.samples} == {r.value for r in INVALID_ACTION_REASONS}

    assert families["arena_connected_bots"].type == "gauge"
    assert value(families["arena_connected_bots"], "arena_connected_bots") == 1
    assert value(families["arena_active_tables"], "arena_active_tables") == 1


def test_names_are_prefixed_and_in_base_units(metrics: ArenaMetrics, server: MetricsServer) -> None:
    families = scrape(server)
    assert families and all(name.startswith("arena_") for name in families)
    for family in families.values():
        if family.type == "counter":
            assert all(s.name.endswith(("_total", "_created")) for s in family.samples)
        if family.type == "histogram":
            assert family.name.endswith("_seconds")
    assert {f.type for f in families.values()} == {"counter", "gauge", "histogram"}


def test_leaderboard_gauges_come_from_the_snapshot(metrics: ArenaMetrics, server: MetricsServer) -> None:
    rows = []
    for i, net in enumerate((20, -10, 30, 0)):
        rows += [ResultRow("alice", "FT", net, 20, 1, f"d{i}", 0, (("bob", -net),)),
                 ResultRow("bob", "FT", -net, 20, 1, f"d{i}", 0, (("alice", net),))]
    board = compute_leaderboard(rows)
    metrics.update_leaderboard(board)
    families = scrape(server)
    mean = families["arena_leaderboard_mbb_per_hand"]
    assert mean.type == "gauge"
    alice = board.stat("alice", "FT")
    assert alice is not None and alice.raw.ci_half_width_mbb is not None
    assert value(mean, "arena_leaderboard_mbb_per_hand", bot="alice", game="FT") == pytest.approx(500.0)
    assert value(mean, "arena_leaderboard_mbb_per_hand", bot="bob", game="all") == pytest.approx(-500.0)
    half = families["arena_leaderboard_ci_half_width_mbb_per_hand"]
    assert value(half, "arena_leaderboard_ci_half_width_mbb_per_hand", bot="alice", game="FT",
                 variance="raw") == pytest.approx(alice.raw.ci_half_width_mbb)
    assert value(families["arena_leaderboard_hands"], "arena_leaderboard_hands", bot="bob", game="all") == 4
    assert {s.labels["game"] for s in mean.samples} <= set(GAME_LABELS)
    metrics.update_leaderboard(compute_leaderboard([]))  # a new snapshot replaces the old one
    assert scrape(server)["arena_leaderboard_mbb_per_hand"].samples == []


def test_bot_label_cardinality_stays_bounded(metrics: ArenaMetrics, server: MetricsServer) -> None:
    names = [f"bot{i:04d}" for i in range(1000)]
    labels = [metrics.register_bot(name) for name in names]
    assert labels[:8] == names[:8] and set(labels[8:]) == {OTHER_BOT}
    for name in names:
        metrics.invalid_action(Reason.MALFORMED, bot=name)
        metrics.decision(0.01, 0.01, bot=name)
    rows = [ResultRow(name, "FR", 1 if i % 2 else -1, 20, 1, f"d{i // 2}", 0,
                          ((names[i ^ 1], -1 if i % 2 else 1),)) for i, name in enumerate(names)]
    metrics.update_leaderboard(compute_leaderboard(rows))
    families = scrape(server)
    for family in families.values():
        bots = {s.labels["bot"] for s in family.samples if "bot" in s.labels}
        assert len(bots) <= 9, family.name  # 8 registered + "other"
    invalid = families["arena_invalid_actions"]
    assert value(invalid, "arena_invalid_actions_total", bot=OTHER_BOT, reason="malformed") == 992
    assert value(families["arena_decisions"], "arena_decisions_total", bot="bot0000") == 1
    assert value(families["arena_bot_labels"], "arena_bot_labels", state="admitted") == 8
    assert value(families["arena_bot_labels"], "arena_bot_labels", state="refused") == 992
    leaderboard_bots = {s.labels["bot"] for s in families["arena_leaderboard_mbb_per_hand"].samples}
    assert leaderboard_bots == set(names[:8])  # a mean has no "other": unlabelled bots are left out
    assert sum(len(f.samples) for f in families.values()) < 600


def test_closed_label_sets_refuse_unknown_values(metrics: ArenaMetrics) -> None:
    with pytest.raises(ValueError, match="unknown game"):
        metrics.hand_played("NLHE")
    with pytest.raises(ValueError, match="not one of"):
        metrics.timeout(Reason.STALE)  # an invalid action, not a timeout
    with pytest.raises(ValueError, match="not one of"):
        metrics.invalid_action("cosmic_rays")


def test_each_instance_has_its_own_registry() -> None:
    first, second = ArenaMetrics(), ArenaMetrics()  # the global registry would raise on duplicates
    first.hand_played("FT")
    assert first.registry.get_sample_value("arena_hands_total", {"game": "FT"}) == 1
    assert second.registry.get_sample_value("arena_hands_total", {"game": "FT"}) == 0


def test_only_the_metrics_path_is_served(server: MetricsServer) -> None:
    with pytest.raises(urllib.error.HTTPError) as caught:
        urllib.request.urlopen(server.url.replace("/metrics", "/"), timeout=5)
    assert caught.value.code == 404


def test_a_stopped_server_no_longer_answers(metrics: ArenaMetrics) -> None:
    running = start_metrics_server(0, metrics.registry)
    url = running.url
    assert scrape(running)
    running.stop()
    with pytest.raises((urllib.error.URLError, ConnectionError)):
        urllib.request.urlopen(url, timeout=2)


def test_rejection_reasons_follow_the_error_types() -> None:
    """Invalid actions are labelled by cause, the same causes as the in-stream rejections."""
    from arena.engine.errors import (
        AmountOutOfRange,
        IllegalAction,
        MalformedAction,
        NotYourTurn,
        StaleDecision,
    )
    from arena.match.messages import WrongSeat
    from arena.metrics import Reason, rejection_reason

    assert rejection_reason(MalformedAction("x")) is Reason.MALFORMED
    assert rejection_reason(AmountOutOfRange("x")) is Reason.OUT_OF_RANGE
    assert rejection_reason(NotYourTurn("x")) is Reason.NOT_YOUR_TURN
    assert rejection_reason(StaleDecision("x")) is Reason.STALE
    assert rejection_reason(WrongSeat("x")) is Reason.PERMISSION_DENIED
    assert rejection_reason(IllegalAction("x")) is Reason.ILLEGAL

"""Prometheus metrics: every arena metric in one module, on a registry owned by one server instance.

Names start with ``arena_``, times are in seconds, counters end in ``_total``. Label values come
from closed sets (game codes, `Reason`) or, for ``bot``, from at most ``bot_label_cap`` registered
bots; any other bot is counted as ``other``, so a flood of names cannot flood Prometheus.
"""

from __future__ import annotations

import errno
import logging
import socket
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from socketserver import ThreadingMixIn
from typing import TYPE_CHECKING, Any, Protocol
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, make_wsgi_app
from prometheus_client.metrics_core import GaugeMetricFamily, Metric

from arena.engine.errors import (
    AmountOutOfRange,
    ConfigError,
    MalformedInput,
    NotYourTurn,
    StaleDecision,
)
from arena.engine.games import ALL_GAMES, ALL_VARIANTS, HORSE
from arena.host import fastpaths
from arena.match.messages import WrongSeat

if TYPE_CHECKING:
    from wsgiref.types import StartResponse, WSGIApplication

GAME_LABELS: tuple[str, ...] = (*ALL_VARIANTS, ALL_GAMES)  # every game code (issue 42 too), "all"
OTHER_BOT = "other"
DEFAULT_BOT_LABEL_CAP = 64
# 1 ms .. 30 s: a local bot answers in milliseconds, the default limit is 2 s plus a 30 s time bank.
LATENCY_BUCKETS_SECONDS: tuple[float, ...] = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                               1.0, 2.5, 5.0, 10.0, 30.0)


class Reason(StrEnum):
    """Why a seat acted by default or an answer was refused: the ``reason`` label's values."""

    TIMEOUT = "timeout"
    ABSENT = "absent"
    MALFORMED = "malformed"
    OUT_OF_RANGE = "out_of_range"
    NOT_YOUR_TURN = "not_your_turn"
    STALE = "stale"
    PERMISSION_DENIED = "permission_denied"
    ILLEGAL = "illegal"  # well formed, but not legal now (e.g. a check facing a bet)


def rejection_reason(error: Exception) -> Reason:
    """The ``reason`` label of a refused reply, by the error's type (most specific first)."""
    for kind, reason in ((WrongSeat, Reason.PERMISSION_DENIED), (StaleDecision, Reason.STALE),
                         (MalformedInput, Reason.MALFORMED),
                         (AmountOutOfRange, Reason.OUT_OF_RANGE),
                         (NotYourTurn, Reason.NOT_YOUR_TURN)):
        if isinstance(error, kind):
            return reason
    return Reason.ILLEGAL


TIMEOUT_REASONS: tuple[Reason, ...] = (Reason.TIMEOUT, Reason.ABSENT)
INVALID_ACTION_REASONS: tuple[Reason, ...] = tuple(r for r in Reason if r not in TIMEOUT_REASONS)


class BotLabels:
    """The bounded set of ``bot`` label values: registered bots up to a cap, then ``other``."""

    def __init__(self, cap: int = DEFAULT_BOT_LABEL_CAP) -> None:
        if cap < 0:
            raise ValueError(f"bot label cap must be >= 0, not {cap}")
        self.cap = cap
        self._admitted: set[str] = set()
        self._lock = threading.Lock()

    def admit(self, bot: str) -> bool:
        """Give ``bot`` its own label if there is room; False when it will be counted as ``other``."""
        with self._lock:
            if bot in self._admitted:
                return True
            if bot == OTHER_BOT or len(self._admitted) >= self.cap:
                return False
            self._admitted.add(bot)
            return True

    def label(self, bot: str | None) -> str:
        return bot if bot is not None and bot in self._admitted else OTHER_BOT

    def __contains__(self, bot: object) -> bool:
        return bot in self._admitted

    def __len__(self) -> int:
        return len(self._admitted)


class _Estimate(Protocol):
    @property
    def ci_half_width_mbb(self) -> float | None: ...


class _LuckEstimate(_Estimate, Protocol):
    @property
    def hands(self) -> int: ...

    @property
    def mean_mbb(self) -> float: ...


class _BotGameRow(Protocol):
    @property
    def bot(self) -> str: ...

    @property
    def game(self) -> str: ...

    @property
    def hands(self) -> int: ...

    @property
    def mean_mbb(self) -> float: ...

    @property
    def raw(self) -> _Estimate: ...

    @property
    def duplicate(self) -> _Estimate: ...

    @property
    def luck(self) -> _LuckEstimate: ...

    @property
    def duplicate_luck(self) -> _LuckEstimate: ...


class LeaderboardSnapshot(Protocol):
    """What the gauges read from a leaderboard (`arena.league.stats.Leaderboard` is one)."""

    @property
    def bots(self) -> Sequence[str]: ...

    @property
    def stats(self) -> Sequence[_BotGameRow]: ...


class LeaderboardCollector:
    """Gauges read from the latest leaderboard snapshot at scrape time (no per-hand work)."""

    def __init__(self, bot_labels: BotLabels) -> None:
        self._bot_labels = bot_labels
        self._board: LeaderboardSnapshot | None = None
        self.on_scrape: list[Callable[[], None]] = []  # told before each read (quick; never fails it)

    def update(self, board: LeaderboardSnapshot) -> None:
        self._board = board  # one reference swap: a scrape sees the old or the new snapshot

    def collect(self) -> Iterable[Metric]:
        mean = GaugeMetricFamily("arena_leaderboard_mbb_per_hand",
                                 "Mean result per hand in milli-big-blinds (big blind = small bet).",
                                 labels=["bot", "game"])
        half = GaugeMetricFamily("arena_leaderboard_ci_half_width_mbb_per_hand",
                                 "Half-width of the 95% confidence interval of the mean: raw, "
                                 "duplicate, luck or duplicate_luck (adjusted).",
                                 labels=["bot", "game", "variance"])
        hands = GaugeMetricFamily("arena_leaderboard_hands", "Completed hands in the leaderboard snapshot.",
                                  labels=["bot", "game"])
        luck_mean = GaugeMetricFamily(
            "arena_leaderboard_luck_adjusted_mbb_per_hand",
            "Mean of net minus the cards' luck (chance-only AIVAT) per hand, in milli-big-blinds, "
            "over the hands whose luck is computed (ended matches).", labels=["bot", "game"])
        luck_hands = GaugeMetricFamily("arena_leaderboard_luck_adjusted_hands",
                                       "Hands in the luck-adjusted estimate.", labels=["bot", "game"])
        for wanted in self.on_scrape:
            try:
                wanted()
            except Exception:  # a refresh that cannot even be asked must not fail the scrape
                logging.getLogger("arena.metrics").exception("asking for a leaderboard refresh failed")
        board = self._board
        for stats in board.stats if board is not None else ():
            if stats.bot not in self._bot_labels or stats.game not in GAME_LABELS:
                continue  # a mean has no meaningful "other" aggregate: unlabelled bots are left out
            mean.add_metric([stats.bot, stats.game], stats.mean_mbb)
            hands.add_metric([stats.bot, stats.game], stats.hands)
            if stats.luck.hands:
                luck_mean.add_metric([stats.bot, stats.game], stats.luck.mean_mbb)
                luck_hands.add_metric([stats.bot, stats.game], stats.luck.hands)
            for variance, estimate in (("raw", stats.raw), ("duplicate", stats.duplicate),
                                       ("luck", stats.luck), ("duplicate_luck", stats.duplicate_luck)):
                if estimate.ci_half_width_mbb is not None:
                    half.add_metric([stats.bot, stats.game, variance], estimate.ci_half_width_mbb)
        return [mean, half, hands, luck_mean, luck_hands]


QUEUE_STATES: tuple[str, ...] = ("queued", "running", "done")


class QueueCollector:
    """``arena_queue_jobs{state}``: the work queue's jobs by state, read from the database at scrape
    time (every worker and the coordinator report the same numbers)."""

    def __init__(self, depth: Callable[[], Mapping[str, int]]) -> None:
        self._depth = depth

    def collect(self) -> Iterable[Metric]:
        jobs = GaugeMetricFamily("arena_queue_jobs", "Jobs (matches or duplicate blocks) of the work queue, "
                                 "by state.", labels=["state"])
        try:
            depth = self._depth()
        except Exception:  # the database is away: leave the series out rather than fail the scrape
            return [jobs]
        for state in QUEUE_STATES:
            jobs.add_metric([state], float(depth.get(state, 0)))
        return [jobs]


@dataclass(frozen=True, slots=True)
class TournamentSnapshot:
    """A tournament's state after a round (or its end): the event playing and the standings."""

    event: str
    players_left: int
    level: int
    big_blind_chips: int
    tables: int
    chips: dict[str, int]
    places: dict[str, int]
    points: dict[str, int]


class TournamentCollector:
    """Tournament gauges read from the latest snapshot at scrape time."""

    def __init__(self, bot_labels: BotLabels) -> None:
        self._bot_labels = bot_labels
        self._snapshot: TournamentSnapshot | None = None

    def update(self, snapshot: TournamentSnapshot) -> None:
        self._snapshot = snapshot

    def collect(self) -> Iterable[Metric]:
        snap = self._snapshot
        if snap is None:
            return []
        families = []
        for name, text, value in (
                ("players_left", "Players still in the event playing now.", snap.players_left),
                ("level", "The level (from 1) of that event.", snap.level),
                ("big_blind_chips", "The big blind of that level.", snap.big_blind_chips),
                ("tables", "Tables of that event.", snap.tables)):
            family = GaugeMetricFamily(f"arena_tournament_{name}", text, labels=["event"])
            family.add_metric([snap.event], value)
            families.append(family)
        for name, text, values in (
                ("chips", "Chips of each bot in that event.", snap.chips),
                ("place", "Place of each placed bot (1 is first).", snap.places),
                ("points", "Sum of placings over the tournaments (lower is better).", snap.points)):
            family = GaugeMetricFamily(f"arena_tournament_{name}", text, labels=["bot"])
            for bot, count in sorted(values.items()):
                if bot in self._bot_labels:  # registered bots only: a bounded label set
                    family.add_metric([bot], count)
            families.append(family)
        return families


class FastPathCollector:
    """``arena_fast_path_taken{path}``: 1 when this process took a fast path, 0 when it did not
    (arena/host/fastpaths.py; the log says why)."""

    def collect(self) -> Iterable[Metric]:
        family = GaugeMetricFamily("arena_fast_path_taken",
                                   "Whether this process took each fast path (0: it runs the "
                                   "plain way; the log says why).", labels=["path"])
        taken = fastpaths.taken()
        for path in fastpaths.ALL:
            if path.name in taken:
                family.add_metric([path.name], 1.0 if taken[path.name] else 0.0)
        yield family


class ArenaMetrics:
    """The dealer's metrics facade; every method is cheap and thread-safe."""

    def __init__(self, registry: CollectorRegistry | None = None, *,
                 bot_label_cap: int = DEFAULT_BOT_LABEL_CAP) -> None:
        self.registry = CollectorRegistry() if registry is None else registry
        self.bot_labels = BotLabels(bot_label_cap)
        r = self.registry
        self.hands = Counter("arena_hands", "Hands played to the end, by game (PHH code).", ["game"],
                             registry=r)
        self.decisions = Counter("arena_decisions", "Decisions answered by bots.", ["bot"], registry=r)
        self.strategy_replies = Counter(
            "arena_strategy_replies", "Decisions answered with a declared strategy the dealer drew "
            "from (issue 40; a share of arena_decisions_total).", ["bot"], registry=r)
        self.think_seconds = Histogram("arena_decision_think_seconds",
                                       "Time a bot spent deciding, as measured at the bot.",
                                       buckets=LATENCY_BUCKETS_SECONDS, registry=r)
        self.network_seconds = Histogram("arena_decision_network_seconds",
                                         "Round trip of a decision minus the bot's think time.",
                                         buckets=LATENCY_BUCKETS_SECONDS, registry=r)
        self.timeouts = Counter("arena_timeouts", "Decisions acted by default: timed out or seat absent.",
                                ["bot", "reason"], registry=r)
        self.invalid_actions = Counter("arena_invalid_actions", "Answers refused, by reason.",
                                       ["bot", "reason"], registry=r)
        self.bot_labels_gauge = Gauge("arena_bot_labels",
                                      "Registered bots with their own bot label (admitted) or counted as "
                                      "bot=\"other\" because the cap was reached (refused).", ["state"],
                                      registry=r)
        self.disconnects = Counter("arena_bot_disconnects", "Connections a bot lost during a hand.",
                                   ["bot"], registry=r)
        self.sdk_fallbacks = Counter("arena_sdk_fallbacks",
                                     "Replies a bot's SDK sent in place of its code's (the code "
                                     "failed, or its reply was refused).", ["bot"], registry=r)
        self.connected_bots = Gauge("arena_connected_bots", "Bots connected now.", registry=r)
        self.active_tables = Gauge("arena_active_tables", "Tables dealing now.", registry=r)
        self._refused: set[str] = set()
        for state in ("admitted", "refused"):
            self.bot_labels_gauge.labels(state=state)
        self.leaderboard = LeaderboardCollector(self.bot_labels)
        r.register(self.leaderboard)
        self.tournament = TournamentCollector(self.bot_labels)
        r.register(self.tournament)
        r.register(FastPathCollector())
        for game in HORSE:  # zero series exist from the start, so rate() and absent() behave
            self.hands.labels(game=game)
        self._init_bot_series(OTHER_BOT)

    def _init_bot_series(self, label: str) -> None:
        self.decisions.labels(bot=label)
        self.strategy_replies.labels(bot=label)
        self.disconnects.labels(bot=label)
        self.sdk_fallbacks.labels(bot=label)
        for reason in TIMEOUT_REASONS:
            self.timeouts.labels(bot=label, reason=reason.value)
        for reason in INVALID_ACTION_REASONS:
            self.invalid_actions.labels(bot=label, reason=reason.value)

    def register_bot(self, bot: str) -> str:
        """Give a registered bot its own ``bot`` label if under the cap; returns the label it gets."""
        if bot in self.bot_labels:
            return bot
        if not self.bot_labels.admit(bot):
            self._refused.add(bot)  # registered bots only: bounded by the bots table
            self.bot_labels_gauge.labels(state="refused").set(len(self._refused))
            return OTHER_BOT
        self.bot_labels_gauge.labels(state="admitted").set(len(self.bot_labels))
        self._init_bot_series(bot)
        return bot

    def hand_played(self, game: str) -> None:
        if game not in ALL_VARIANTS:
            raise ValueError(f"unknown game {game!r}; known: {', '.join(ALL_VARIANTS)}")
        self.hands.labels(game=game).inc()

    def decision(self, think_seconds: float, network_seconds: float, *, bot: str | None = None) -> None:
        """One answered decision. Negative times (clock skew between bot and dealer) count as 0."""
        self.decisions.labels(bot=self.bot_labels.label(bot)).inc()
        self.think_seconds.observe(max(0.0, think_seconds))
        self.network_seconds.observe(max(0.0, network_seconds))

    def strategy_reply(self, *, bot: str | None = None) -> None:
        """One decision the bot answered with a strategy (also counted by `decision`)."""
        self.strategy_replies.labels(bot=self.bot_labels.label(bot)).inc()

    def timeout(self, reason: Reason | str = Reason.TIMEOUT, *, bot: str | None = None) -> None:
        code = _reason(reason, TIMEOUT_REASONS)
        self.timeouts.labels(bot=self.bot_labels.label(bot), reason=code).inc()

    def invalid_action(self, reason: Reason | str, *, bot: str | None = None) -> None:
        code = _reason(reason, INVALID_ACTION_REASONS)
        self.invalid_actions.labels(bot=self.bot_labels.label(bot), reason=code).inc()

    def disconnected(self, *, bot: str | None = None) -> None:
        self.disconnects.labels(bot=self.bot_labels.label(bot)).inc()

    def sdk_fallback(self, *, bot: str | None = None) -> None:
        """An accepted reply the bot's SDK chose in place of its code."""
        self.sdk_fallbacks.labels(bot=self.bot_labels.label(bot)).inc()

    def set_connected_bots(self, count: int) -> None:
        self.connected_bots.set(max(0, count))

    def table_started(self) -> None:
        self.active_tables.inc()

    def table_ended(self) -> None:
        self.active_tables.dec()

    def set_worker(self, worker: str) -> None:
        """Name this process: ``arena_worker_info{worker}`` is 1, so per-worker panels can join on it."""
        info = Gauge("arena_worker_info", "The worker identity of this process (always 1).", ["worker"],
                     registry=self.registry)
        info.labels(worker=worker).set(1)

    def watch_queue(self, depth: Callable[[], Mapping[str, int]]) -> None:
        self.registry.register(QueueCollector(depth))

    def update_leaderboard(self, board: LeaderboardSnapshot) -> None:
        """Publish a snapshot; its bots are registered bots, so they get labels while under the cap."""
        for bot in board.bots:
            self.register_bot(bot)
        self.leaderboard.update(board)


    def on_leaderboard_scrape(self, wanted: Callable[[], None]) -> None:
        """Call ``wanted`` whenever the metrics are read, before the leaderboard snapshot is (it
        may ask for a fresher one, which the next read gets)."""
        self.leaderboard.on_scrape.append(wanted)

    def update_tournament(self, snapshot: TournamentSnapshot) -> None:
        self.tournament.update(snapshot)


def _reason(reason: Reason | str, allowed: tuple[Reason, ...]) -> str:
    try:
        value = Reason(reason)
    except ValueError:
        value = None
    if value not in allowed:
        raise ValueError(f"reason {reason!r} is not one of {', '.join(r.value for r in allowed)}")
    return str(value)


class _QuietHandler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        """Scrapes every few seconds would flood stderr."""


class _ThreadingServer(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class _ThreadingServer6(_ThreadingServer):
    address_family = socket.AF_INET6


def _metrics_only(app: WSGIApplication) -> WSGIApplication:
    def serve(environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        if environ.get("PATH_INFO", "") != "/metrics":
            start_response("404 Not Found", [("Content-Type", "text/plain")])
            return [b"metrics are at /metrics\n"]
        return app(environ, start_response)

    return serve


@dataclass
class MetricsServer:
    """A running ``/metrics`` endpoint; `stop` (or leaving the ``with`` block) shuts it down."""

    server: WSGIServer
    thread: threading.Thread

    @property
    def host(self) -> str:
        return str(self.server.server_address[0])

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()
        self.thread.join(timeout=5.0)

    def __enter__(self) -> MetricsServer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def start_metrics_server(port: int, registry: CollectorRegistry, addr: str = "127.0.0.1", *,
                         poll_interval_seconds: float = 0.05,
                         setting: str = "metrics_port") -> MetricsServer:
    """Serve ``registry`` at ``/metrics`` on a daemon thread; port 0 picks a free port (``.port``).

    Binds to localhost by default: metrics name the bots, so exposing them is a deliberate choice.
    ``poll_interval_seconds`` bounds how long `MetricsServer.stop` waits for the serving loop.
    A port that cannot be bound is a `ConfigError` naming it and ``setting`` (the key or option
    that chose it).
    """
    server_class = _ThreadingServer6 if ":" in addr else _ThreadingServer
    try:
        server = make_server(addr, port, _metrics_only(make_wsgi_app(registry)), server_class,
                             handler_class=_QuietHandler)
    except OSError as exc:
        shown = f"[{addr}]:{port}" if ":" in addr else f"{addr}:{port}"
        why = "the port is in use" if exc.errno == errno.EADDRINUSE else exc.strerror or str(exc)
        raise ConfigError(f"cannot serve /metrics on {shown} ({setting} = {port}): {why}; "
                          f"choose another {setting} (0 picks a free port)") from None
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": poll_interval_seconds},
                              name=f"arena-metrics-{server.server_address[1]}", daemon=True)
    thread.start()
    return MetricsServer(server, thread)

"""The dealer server: grpc.aio on asyncio, the tables in trio (as a guest), clean shutdown.

:func:`serve` runs the matches of a config to their end, or until SIGINT/SIGTERM: then every
running hand is voided, every bot is told (MatchEnded aborted), the streams end with
UNAVAILABLE and the process exits normally.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import grpc
import trio
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from arena.engine.errors import ConfigError
from arena.host.process import tuned_for_dealing
from arena.match.live import LiveTable
from arena.match.lobby import Lobby
from arena.match.records import MatchSink, MatchSummary
from arena.match.spec import MatchSpec
from arena.server import reflection
from arena.server.auth import TokenBook
from arena.server.bridge import TrioGuest
from arena.server.config import BotEntry, ServerConfig
from arena.server.errors import ShuttingDown
from arena.server.service import SERVICE_NAME, DealerService
from arena.storage.matchlog import MatchLog

log = logging.getLogger("arena.server")
# Around each table's deal: starts what its seats need (hosted bots) and stops it after.
TableInstances = Callable[[MatchSpec, DealerService], contextlib.AbstractAsyncContextManager[None]]


@dataclass(frozen=True, slots=True)
class ServeResult:
    summaries: tuple[MatchSummary, ...]
    stopped_early: bool
    transport: dict[str, Any]
    cpu_seconds: float
    wall_seconds: float


class DealerServer:
    """Start with :meth:`start`, then :meth:`run_until_done` (or :meth:`stop` from anywhere)."""

    def __init__(self, config: ServerConfig, *,
                 sink_factory: Callable[[MatchSpec], MatchSink | None] | None = None,
                 max_tables_at_once: int | None = None, open_ended: bool = False,
                 driver: Callable[[DealerServer], Awaitable[None]] | None = None,
                 peer: tuple[str, grpc.ServerCredentials] | None = None,
                 instances: TableInstances | None = None) -> None:
        """``instances``: what runs around each table's deal (the hosted bots' sandboxes, one
        set per match and try: :class:`arena.server.hosted.HostedBots`). ``open_ended``: more
        matches may be added while it runs (`add_match`), until
        `close_intake`; a worker's server lives across many jobs. ``peer``: a second address, with
        its TLS credentials, where other workers' relays connect (`arena.server.peer_tls`)."""
        self.config = config
        self._peer = peer
        self.peer_port = 0
        self.open_ended = open_ended
        self._intake: trio.MemorySendChannel[int] | None = None
        self._driver = driver  # a trio task that deals the tables itself (tournaments)
        self.lobby = Lobby()
        self.guest = TrioGuest()
        self.tables: list[LiveTable] = []
        self._table_scopes: dict[int, trio.CancelScope] = {}  # by place in `tables`, while it runs
        self._ended_tables: set[int] = set()  # places `end_tables` ended
        self._max_tables_at_once = max_tables_at_once
        self.instances = instances
        for spec in config.matches:
            sink: MatchSink | None
            if sink_factory is not None:
                sink = sink_factory(spec)
            else:
                sink = MatchLog(config.log_dir, spec.match_id) if config.log_dir else None
            self.tables.append(LiveTable(spec, self.lobby, sink=sink))
        self.service = DealerService(book=TokenBook(config.bots, unknown_may_come=open_ended),
                                     lobby=self.lobby,
                                     guest=self.guest, limits=config.limits)
        self.health = health.aio.HealthServicer()
        self._server: grpc.aio.Server | None = None
        self._finished: asyncio.Future[None] | None = None
        self._stop_requested = False
        self._over = ""  # why the matches are over although stopped early (stop(over=...))
        self.port = 0
        self.postponements = 0  # matches put back because their bots were not all connected

    async def start(self) -> int:
        """Bind, start gRPC and the trio tables; returns the bound port."""
        limits = self.config.limits
        server = grpc.aio.server(options=[
            ("grpc.max_receive_message_length", limits.max_message_bytes),
            ("grpc.so_reuseport", 0),
            ("grpc.keepalive_time_ms", 30_000),
            ("grpc.keepalive_timeout_ms", 10_000),
            ("grpc.http2.min_ping_interval_without_data_ms", 5_000),
            # A stream the dealer does not read (a refusal that waits) takes at most 8 KB:
            # no window growth, so a flood through it costs about 1,000 tiny messages.
            ("grpc.http2.bdp_probe", 0),
            ("grpc.http2.lookahead_bytes", 8192),
        ])
        server.add_generic_rpc_handlers((self.service.handler(),))
        health_pb2_grpc.add_HealthServicer_to_server(self.health, server)
        reflection.enable((SERVICE_NAME, health.SERVICE_NAME), server)  # v1 and v1alpha
        tls = self.config.tls
        try:
            if tls is None:
                port = server.add_insecure_port(self.config.listen)
            else:
                credentials = grpc.ssl_server_credentials(
                    [(tls.key_path.read_bytes(), tls.cert_path.read_bytes())])
                port = server.add_secure_port(self.config.listen, credentials)
        except (OSError, RuntimeError) as exc:
            raise ConfigError(f"cannot listen on {self.config.listen}: {exc}") from None
        if self.config.unix_socket is not None:
            try:
                server.add_insecure_port(f"unix:{self.config.unix_socket}")
            except (OSError, RuntimeError) as exc:
                raise ConfigError(f"cannot listen on {self.config.unix_socket}: {exc}") from None
        if self._peer is not None:
            try:
                self.peer_port = server.add_secure_port(*self._peer)
            except (OSError, RuntimeError) as exc:
                raise ConfigError(f"cannot listen on {self._peer[0]} (peer port): {exc}") from None
        self.port = port
        await self.guest.start(self._run_tables)
        try:
            await server.start()
        except BaseException:
            self.guest.cancel()
            await self.guest.wait()
            raise
        self._server = server
        await self.health.set("", health_pb2.HealthCheckResponse.SERVING)
        await self.health.set(SERVICE_NAME, health_pb2.HealthCheckResponse.SERVING)
        self._finished = asyncio.ensure_future(self._finish())
        return port

    async def _run_tables(self) -> None:
        if self._driver is not None:
            await self._driver(self)
            return
        limit = self._max_tables_at_once or max(1, len(self.tables))
        limiter = trio.CapacityLimiter(limit)

        async def run_one(index: int) -> None:
            with trio.CancelScope() as scope:  # `end_tables` ends this table alone
                self._table_scopes[index] = scope
                if index in self._ended_tables:
                    scope.cancel()
                try:
                    while True:
                        async with limiter:
                            table = self.tables[index]
                            if self.instances is None:
                                summary = await table.run()
                            else:
                                async with self.instances(table.spec, self.service):
                                    summary = await table.run()
                        if not summary.postponed:
                            return
                        # Bots missing (absent = "wait"): give the slot to the matches queued
                        # behind this one (the limiter is FIFO), then deal this match when its
                        # turn comes again.
                        self.postponements += 1
                        self.tables[index] = self.tables[index].again()
                        await trio.lowlevel.checkpoint()
                finally:
                    del self._table_scopes[index]

        async with trio.open_nursery() as nursery:
            for index in range(len(self.tables)):  # in schedule order: first come, first served
                nursery.start_soon(run_one, index)
                await trio.lowlevel.checkpoint()
            if self.open_ended:
                send, receive = trio.open_memory_channel[int](1000)
                self._intake = send
                async with receive:
                    async for index in receive:  # tables added by add_match
                        nursery.start_soon(run_one, index)

    def add_match(self, spec: MatchSpec, sink: MatchSink | None) -> bool:
        """Deal one more match (an open-ended server); False when it no longer takes matches."""
        if self._intake is None or self._stop_requested:
            return False
        self.tables.append(LiveTable(spec, self.lobby, sink=sink))
        return self.guest.call_soon(self._intake.send_nowait, len(self.tables) - 1)

    def end_tables(self, indices: Iterable[int]) -> None:
        """End these tables now, the others deal on (a worker's job went to another worker): a
        running hand is voided and the match ends aborted, a table waiting for its bots (or
        for a free slot) stops waiting. Callable from any thread."""
        chosen = set(indices)
        self._ended_tables |= chosen

        def cancel() -> None:
            for index in chosen:
                scope = self._table_scopes.get(index)
                if scope is not None:
                    scope.cancel()

        self.guest.call_soon(cancel)

    def close_intake(self) -> None:
        """No more matches: the server ends when the running ones have."""
        if self._intake is not None:
            self.guest.call_soon(self._intake.close)

    def add_bots(self, bots: Iterable[BotEntry]) -> None:
        """Let more bots in (their tokens), e.g. a new league's on a worker."""
        self.service.add_bots(bots)

    def stop(self, *, over: str = "") -> None:
        """Ask for a shutdown: running hands are voided and the matches end aborted. ``over``:
        the matches will not be resumed (e.g. a league decided early), said in these words, so
        the bots are told every match is over rather than that the server is stopping."""
        self._over = self._over or over
        self._stop_requested = True
        self.service.stop_accepting()
        self.guest.cancel()

    async def run_until_done(self) -> None:
        """Wait until every match has ended (or a stop) and the server is closed."""
        assert self._finished is not None, "start() first"
        await asyncio.shield(self._finished)

    async def _finish(self) -> None:
        """When trio is done: flush and close the streams, then stop gRPC."""
        await self.guest.wait()
        final = (ShuttingDown("the server is shutting down")
                 if self._stop_requested and not self._over else None)
        await self.service.close_all(final, flush_seconds=self.config.limits.flush_on_close_seconds,
                                     farewell=self._farewell)
        await self.health.enter_graceful_shutdown()
        if self._server is not None:
            await self._server.stop(grace=0.5)

    def _farewell(self, bot_id: str) -> str:
        """What a bot is told when every match is over: that, and each of its matches that was
        forfeited or never started, with why."""
        unplayed = [f"match {s.match_id} {s.abort_reason}" for s in self.summaries()
                    if s.hands_played == 0 and s.abort_reason
                    and any(r.bot_id == bot_id for r in s.results)]
        return "; ".join(["all your matches on this dealer are over", *unplayed,
                          *([self._over] if self._over else [])])

    @property
    def stopped_early(self) -> bool:
        return self._stop_requested

    def summaries(self) -> tuple[MatchSummary, ...]:
        return tuple(t.summary for t in self.tables if t.summary is not None)


async def serve(config: ServerConfig, *, on_ready: Callable[[int], None] | None = None,
                handle_signals: bool = True,
                sink_factory: Callable[[MatchSpec], MatchSink | None] | None = None,
                max_tables_at_once: int | None = None,
                on_server: Callable[[DealerServer], None] | None = None,
                driver: Callable[[DealerServer], Awaitable[None]] | None = None,
                instances: TableInstances | None = None) -> ServeResult:
    """Run a config's matches to the end (or to SIGINT/SIGTERM) and return what happened."""
    started = time.perf_counter()
    cpu = time.process_time()
    loop = asyncio.get_running_loop()
    server = DealerServer(config, sink_factory=sink_factory, max_tables_at_once=max_tables_at_once,
                          driver=driver, instances=instances)
    if on_server is not None:
        on_server(server)
    signals = (signal.SIGINT, signal.SIGTERM) if handle_signals else ()
    with tuned_for_dealing():
        for sig in signals:  # before trio starts, so that trio leaves SIGINT to asyncio
            loop.add_signal_handler(sig, server.stop)
        try:
            port = await server.start()
            if on_ready is not None:
                on_ready(port)
            await server.run_until_done()
        finally:
            for sig in signals:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(sig)
    return ServeResult(
        summaries=server.summaries(),
        stopped_early=server.stopped_early,
        transport={**server.service.stats.summary(),
                   "refused_unknown_decisions": dict(server.lobby.refused_unknown)},
        cpu_seconds=time.process_time() - cpu,
        wall_seconds=time.perf_counter() - started,
    )

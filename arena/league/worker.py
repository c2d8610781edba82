"""`arena worker`: take jobs from the PostgreSQL work queue and deal them to the bots.

A worker runs one dealer server for its whole life. It claims a job (one match: every duplicate
copy of one deal set) whenever it has free tables, plays it with the league runner's sinks, heartbeats
while it plays and marks the job done when the match has ended. A worker killed mid-match stops
heart-beating; after ``lease_seconds`` another worker claims the job, voids the hand that was in
flight (docs/house-rules.md §6) and continues from the last completed hand. Bots connect to any one worker:
its relay carries their seats on the other workers (`arena.server.relay`), over mutual TLS when
the workers are given peer certificates (`arena.server.peer_tls`). A match it puts back because
bots are missing (absent = "wait") is noted in the store once per postponement (`JobWaits`), so
the coordinator's progress names the bots the league waits for.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import logging
import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO

from arena.engine.configfile import parse_toml
from arena.engine.errors import ConfigError
from arena.engine.seeds import derive_secret
from arena.host.botpackage import BotPackage
from arena.host.process import tuned_for_dealing
from arena.league.config import LeagueConfig, league_from_mapping
from arena.league.hosting import build_packages
from arena.league.runner import LeagueRun
from arena.league.secret import league_secret, reveal_league_secret
from arena.league.sink import LeagueSink
from arena.match.live import LiveTable
from arena.match.records import MatchSummary, PlayedHand
from arena.metrics import ArenaMetrics
from arena.server.app import DealerServer
from arena.server.config import BotEntry, ServerConfig, TlsConfig
from arena.server.hosted import HostedBots
from arena.server.peer_tls import PeerTls
from arena.server.relay import Relay
from arena.storage import store as st
from arena.storage.matchlog import MatchLogPaths, reveal_seed, safe_file_name
from arena.storage.postgres import PostgresStore, open_when_up
from arena.storage.queue import Job, JobBook, JobWaits, WorkQueue

log = logging.getLogger("arena.worker")
ADMIT_EVERY_SECONDS = 2.0  # how often a worker looks for newly queued leagues (their bots' tokens)
WITHHELD = "<token withheld>"  # what the store keeps instead of a token (arena.league.secret)


def default_worker_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    name: str
    listen: str = "0.0.0.0:50051"
    advertise: str | None = None  # how other workers reach this one (default: `Worker._own_address`)
    log_dir: Path = Path("worker-logs")
    tables: int = 4  # tables dealt at once
    lease_seconds: float = 15.0  # a job whose worker was silent this long is claimed again
    heartbeat_seconds: float = 3.0
    poll_seconds: float = 0.5
    league_id: int | None = None  # only this league's jobs
    exit_when_done: bool = False  # leave when the league (or every league) has no job left
    log_dir_per_league: bool = True  # logs in log_dir/<league>; False: in log_dir itself
    tls: TlsConfig | None = None  # bots connect with TLS
    # Relays between workers: mutual TLS on a port of their own (then ``advertise`` names that port);
    # None: plaintext to the bots' port.
    peer_tls: PeerTls | None = None
    peer_listen: str = "0.0.0.0:50052"

    def __post_init__(self) -> None:
        if not 0 < self.heartbeat_seconds < self.lease_seconds:
            raise ConfigError(f"heartbeat_seconds ({self.heartbeat_seconds}) must be positive and below "
                              f"lease_seconds ({self.lease_seconds})")
        if self.poll_seconds <= 0 or self.tables <= 0:
            raise ConfigError("poll_seconds and tables must be positive")


class Heartbeat:
    """Renews the lease of the jobs being played, on its own thread, until stopped."""

    def __init__(self, queue: WorkQueue, worker: str, held: Callable[[], list[int]],
                 every_seconds: float, on_lost: Callable[[set[int]], object] = lambda job_ids: None
                 ) -> None:
        """``on_lost``: told (on the heartbeat's thread) the jobs another worker has taken."""
        self._queue, self._worker, self._held, self._every = queue, worker, held, every_seconds
        self._on_lost = on_lost
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._beat, name="arena-heartbeat", daemon=True)

    def __enter__(self) -> Heartbeat:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join(timeout=10)

    def _beat(self) -> None:
        while not self._stop.wait(self._every):
            ids = self._held()
            try:
                kept = self._queue.heartbeat(self._worker, ids)
            except st.StoreError as exc:
                log.warning("heartbeat failed (%s); retrying", exc)
                continue
            lost = set(ids) - kept
            if lost:
                log.warning("jobs %s were claimed by another worker (this one was silent too long); "
                            "their tables end here", sorted(lost))
                self._on_lost(lost)


@dataclass
class _Running:
    job: Job
    tables_left: int
    aborted: bool = False
    tables: list[int] = field(default_factory=list)  # its tables' places in the server's list
    settled: set[str] = field(default_factory=set)  # its tables that dealt a hand or ended
    noted_postponements: int = 0  # as the store has it (`JobWaits`); 0: not waiting

    def wait_change(self, tables: list[LiveTable]) -> tuple[tuple[str, ...], int] | None:
        """(missing bots, postponements) to note in the store when they changed: the most times
        one of its tables not dealt yet was put back (0 once every table dealt), None if nothing
        new. A postponement whose bots have all connected since is noted with the next one."""
        pending = [table for table in (tables[index] for index in self.tables)
                   if table.spec.match_id not in self.settled]
        count = max((table.postponements for table in pending), default=0)
        if count == self.noted_postponements:
            return None
        bots = tuple(sorted({name for table in pending if table.postponements
                             for name in table.missing_bots()}))
        if count and not bots:
            return None
        return bots, count


class _JobSink:
    """A league sink that also tells the worker when a table of its job has dealt a hand (it
    waits no more) and when it has ended. It passes on the inner sink's awaitables (``ready``,
    ``settle``): a match's end awaits its last commit instead of blocking the dealer's thread."""

    def __init__(self, inner: LeagueSink, on_end: Callable[[MatchSummary], None],
                 on_hand: Callable[[str], None] = lambda match_id: None) -> None:
        self._inner = inner
        self._on_end = on_end
        self._on_hand = on_hand
        self.event_sent = inner.event_sent
        self.event_sent_to_all = inner.event_sent_to_all
        self.ready = inner.ready
        self.settle = inner.settle

    def hand_started(self, match_id: str, hand_number: int) -> None:
        self._on_hand(match_id)
        self._inner.hand_started(match_id, hand_number)

    def hand_finished(self, hand: PlayedHand) -> None:
        self._inner.hand_finished(hand)

    def match_finished(self, summary: MatchSummary) -> None:
        try:
            self._inner.match_finished(summary)
        finally:
            self._on_end(self._inner.as_failed(summary))


@dataclass
class _State:
    running: dict[int, _Running] = field(default_factory=dict)
    runs: dict[int, LeagueRun] = field(default_factory=dict)  # per league
    stop: bool = False


class Worker:
    """Claims and plays jobs until stopped (or, with ``exit_when_done``, until none is left)."""

    def __init__(self, store: st.ResultsStore, settings: WorkerSettings, *, out: TextIO = sys.stdout,
                 metrics: ArenaMetrics | None = None,
                 known: dict[int, LeagueConfig] | None = None) -> None:
        """``known``: league files this process has read itself (with their tokens), by league id."""
        self.store = store
        self._known = dict(known or {})
        self.settings = settings
        self.out = out
        # The queue's statements (claims, heartbeats, the relays' look-ups) go on a connection of
        # their own: the writer's group commits never wait for them under the store's lock.
        self.queue = WorkQueue(open_when_up(store.url, say=self._say, bound_seconds=store.bound_seconds,
                                            role=f"worker {settings.name} queue")
                               if isinstance(store, PostgresStore) else store)
        self.waits = JobWaits(self.queue.store)
        self.metrics = metrics
        self.jobs_done = 0
        self._state = _State()
        self._published: set[int] = set()  # leagues whose secret is published in their log folder
        self.server: DealerServer | None = None
        self._packages: dict[str, BotPackage] = {}  # hosted bots of the leagues played here
        self._wake: Callable[[], object] = lambda: None

    def run(self, *, on_ready: Callable[[int], None] | None = None) -> bool:
        """Play jobs; True when it left because no job was left, False when it was stopped."""
        with tuned_for_dealing():
            return asyncio.run(self._main(on_ready))

    def _say(self, text: str) -> None:
        self.out.write(f"worker {self.settings.name}: {text}\n")
        self.out.flush()

    async def _main(self, on_ready: Callable[[int], None] | None) -> bool:
        settings, state = self.settings, self._state
        peer = settings.peer_tls.load() if settings.peer_tls is not None else None
        # Hosted bots' instances reach this dealer through a Unix socket in a private directory.
        run_dir = Path(tempfile.mkdtemp(prefix="arena-worker-"))
        hosted = HostedBots(self._packages, socket=run_dir / "dealer.sock", log_dir=settings.log_dir)
        server = DealerServer(ServerConfig(listen=settings.listen, bots=(), matches=(), tls=settings.tls,
                                           unix_socket=hosted.socket),
                              open_ended=True, max_tables_at_once=settings.tables,
                              peer=None if peer is None else (settings.peer_listen, peer.server()),
                              instances=hosted.around)
        self.server = server
        loop = asyncio.get_running_loop()
        signals = (signal.SIGINT, signal.SIGTERM) if threading.current_thread() is threading.main_thread() \
            else ()
        for sig in signals:
            loop.add_signal_handler(sig, self.stop)
        # Before serving: a bot of a queued league that connects at once must find its token known
        # (one unknown would be told UNAVAILABLE and retry: later, and slowed down).
        try:
            await asyncio.to_thread(self._admit_known_bots, server)
        except st.StoreError as exc:  # the database went away since: the loop below tries again
            log.warning("worker %s: %s; trying again", settings.name, exc)
        # The relay too: a bot is handed to it when its stream opens, and one that connected
        # without it (in the moment between the port opening and this worker finding its own
        # address, a query) would keep its stream, and its seats on other workers would wait for
        # it for ever. Its own address, needed once it looks at the queue, is set below.
        relay = Relay(token_of=server.service.token_of, own_address="", peer=peer)
        server.service.relay = relay
        port = await server.start()
        address = settings.advertise
        if address is None:
            address = await asyncio.to_thread(self._own_address,
                                              settings.listen if peer is None else settings.peer_listen,
                                              port if peer is None else server.peer_port)
        relay.own_address = address
        if self.metrics is not None:
            metrics = self.metrics
            server.lobby.rejection_observers.append(
                lambda bot, error: metrics.invalid_action(_reason(error), bot=bot))
        if on_ready is not None:
            on_ready(port)
        left_because_done = False
        wake = asyncio.Event()  # a table ended: its slot is free for the next job at once
        self._wake = lambda: loop.call_soon_threadsafe(wake.set)
        if self.metrics is not None:  # the leaderboard is computed when /metrics is read, not per job
            self.metrics.on_leaderboard_scrape(self._board_wanted)
        try:
            with Heartbeat(self.queue, settings.name, lambda: list(state.running),
                           settings.heartbeat_seconds,
                           on_lost=lambda job_ids: loop.call_soon_threadsafe(self._lost, server, job_ids)):
                admitted_at = time.monotonic()
                while not state.stop:
                    wake.clear()
                    try:
                        # Leagues queued since: their bots may connect here first (bots started
                        # before the coordinator are told UNAVAILABLE until then, and retry).
                        if time.monotonic() - admitted_at >= ADMIT_EVERY_SECONDS:
                            admitted_at = time.monotonic()
                            await asyncio.to_thread(self._admit_known_bots, server)
                            await asyncio.to_thread(self._publish_ended_leagues)
                        await self._fill(server, address)
                        relay.want(await asyncio.to_thread(self.queue.remote_tables, relay.bots(),
                                                           settings.name))
                        self._observe(server)
                        await self._note_waits(server)  # (after the relay: it never waits on these)
                        if settings.exit_when_done and not state.running and \
                                await asyncio.to_thread(self._nothing_left):
                            await asyncio.to_thread(self._publish_ended_leagues)
                            left_because_done = True
                            break
                    except st.StoreError as exc:  # the database is away for a moment: tables go on
                        log.warning("worker %s: %s; trying again", settings.name, exc)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(wake.wait(), settings.poll_seconds)
            if state.stop:
                server.stop()
            else:
                server.close_intake()
            await server.run_until_done()
        except BaseException:
            # Void the running hands (docs/house-rules.md §6) before the jobs are given back below: a table
            # must not deal on under a job another worker may claim at once.
            server.stop()
            with contextlib.suppress(Exception):
                await asyncio.wait_for(server.run_until_done(), 30)
            raise
        finally:
            relay.close()
            for sig in signals:
                with contextlib.suppress(Exception):
                    loop.remove_signal_handler(sig)
            for running in list(state.running.values()):  # stopped before their matches ended
                with contextlib.suppress(st.StoreError):
                    await asyncio.to_thread(self.queue.release, settings.name, running.job.job_id)
            for run in state.runs.values():
                run.close()  # its writer thread (the store is the worker's)
            if self.queue.store is not self.store:
                self.queue.store.close()
            shutil.rmtree(run_dir, ignore_errors=True)
        return left_because_done

    def _lost(self, server: DealerServer, job_ids: set[int]) -> None:
        """Jobs another worker took (this one was paused or cut off past its lease): their tables
        end here at once, dealing (the running hand is voided; its writes were refused already)
        or waiting for bots, and the jobs are forgotten, neither completed nor given back. Their
        slots are free again."""
        for job_id in sorted(job_ids):
            running = self._state.running.pop(job_id, None)
            if running is None:
                continue
            server.end_tables(running.tables)
            self._say(f"job {job_id} ({running.job.deal_set}) was claimed by another worker: "
                      "its tables end here")
        self._wake()

    def _own_address(self, listen: str, port: int) -> str:
        """How other workers reach this one, unless ``--advertise`` says: the bound host, or for
        a wildcard (0.0.0.0, ::) the address the database sees this worker connect from, which the
        machines on the database's network reach (127.0.0.1 when the database is local, over its
        socket). Never 127.0.0.1 by mistake for a worker on another machine."""
        host = listen.rsplit(":", 1)[0].strip("[]")
        if host not in ("0.0.0.0", "", "::"):
            return f"{host}:{port}"
        try:
            with self.queue.store.transaction(write=False) as db:
                row = db.execute("SELECT host(inet_client_addr()) AS address").fetchone()
        except st.StoreError:
            row = None
        seen = str(row["address"]) if row is not None and row["address"] else "127.0.0.1"
        return f"[{seen}]:{port}" if ":" in seen else f"{seen}:{port}"

    def stop(self) -> None:
        """Void the running hands, give the jobs back and leave (SIGTERM, SIGINT)."""
        self._state.stop = True

    def _publish_ended_leagues(self) -> None:
        """Once a league this worker dealt has no job left, publish in its log folder what the
        coordinator publishes in its own: the league secret (``league-secret.json``, checked
        against the commitment by `arena replay`) and every match seed in the results files of
        the copies that ended here (a copy that ended here while its deal set ended on another
        worker kept ``match_seed: null``). Every log then verifies where it lies."""
        with_work: set[int] | None = None
        for league in self.store.list_leagues():
            if league.league_id in self._published or (
                    self.settings.league_id is not None and league.league_id != self.settings.league_id):
                continue
            if not self._log_dir_of(league).is_dir():
                continue  # this worker never dealt it
            with_work = self.queue.leagues_with_work() if with_work is None else with_work
            if league.league_id in with_work:
                continue
            run = self._state.runs.get(league.league_id)
            try:  # (a worker started again after its jobs went elsewhere has no run of it)
                config = run.config if run is not None else self.league_config(league)
            except ConfigError:
                continue
            secret = run.secret if run is not None else league_secret(config, self.store)
            reveal_league_secret(config, secret)
            for result in sorted(config.log_dir.glob("*.result.json")):
                paths = MatchLogPaths.at(result.parent / result.name.removesuffix(".result.json"))
                with contextlib.suppress(OSError, ValueError):
                    deal_set = json.loads(result.read_text(encoding="utf-8")).get("deal_set")
                    if isinstance(deal_set, str):
                        reveal_seed(paths, derive_secret(secret.value, "deal-set", deal_set))
            self._published.add(league.league_id)
            self._say(f"league {config.name!r} has ended: its secret and match seeds are "
                      f"published in {config.log_dir}")

    def _nothing_left(self) -> bool:
        depth = self.queue.depth(self.settings.league_id)
        return depth["queued"] == 0 and depth["running"] == 0

    def _admit_known_bots(self, server: DealerServer) -> None:
        """Bots of every league with work left may connect before their first job here."""
        with_work = self.queue.leagues_with_work() - set(self._state.runs)
        if not with_work:
            return
        for league in self.store.list_leagues():
            if self.settings.league_id is not None and league.league_id != self.settings.league_id:
                continue
            if league.league_id in with_work:
                with contextlib.suppress(ConfigError):
                    self._run_of(league, server).ensure_matches()  # the token checks, before any job

    def _run_of(self, league: st.League, server: DealerServer) -> LeagueRun:
        """The league's run in this worker (made on its first use), its bots let in."""
        run = self._state.runs.get(league.league_id)
        if run is None:
            config = self.league_config(league)
            run = LeagueRun(config, out=self.out, store=self.store, metrics=self.metrics,
                            in_flight=JobBook(self.queue, self.settings.name, store=self.store),
                            board_on_scrape=True)
            self._state.runs[league.league_id] = run
            hosted = {b.name: b.package for b in config.bots if b.package is not None}
            if hosted:  # built here, once per worker; an instance per table (docs/hosted-bots.md)
                build_packages(config.bots, self.out)
                self._packages.update(hosted)
            server.add_bots(BotEntry(b.name, b.name, b.token) for b in config.bots if not b.hosted)
        return run

    def league_config(self, league: st.League) -> LeagueConfig:
        """The league file as the coordinator stored it, with this worker's address and logs."""
        where = f"league {league.name!r} in the store"
        known = self._known.get(league.league_id)
        if known is None and WITHHELD in league.config_toml:
            raise ConfigError(f"{where}: the store keeps no tokens; give the league's bots 'token_file' "
                              "paths that the workers can read (a mounted secret) instead of 'token'")
        config = known if known is not None else league_from_mapping(
            parse_toml(league.config_toml.encode(), name=where, what="league")[0],
            source_toml=league.config_toml, where=where)
        return dataclasses.replace(config, listen=self.settings.listen, metrics_port=None,
                                   log_dir=self._log_dir_of(league))

    def _log_dir_of(self, league: st.League) -> Path:
        """Where this worker writes the league's logs."""
        settings = self.settings
        return settings.log_dir / safe_file_name(league.name) if settings.log_dir_per_league \
            else settings.log_dir

    async def _fill(self, server: DealerServer, address: str) -> None:
        """Complete ended jobs, then claim new ones while tables are free."""
        state, settings = self._state, self.settings
        for job_id, running in list(state.running.items()):
            # (Not when another worker took it meanwhile: `_lost` forgot it during an await.)
            if running.tables_left == 0 and state.running.pop(job_id, None) is not None:
                if running.aborted:
                    await asyncio.to_thread(self.queue.release, settings.name, job_id)
                else:
                    run = state.runs.get(running.job.league_id)
                    if run is not None:  # its deal set finished in the store (the finisher thread)
                        await asyncio.to_thread(run.wait_deal_set_finished, running.job.deal_set)
                    await asyncio.to_thread(self.queue.complete, settings.name, job_id)
                    self.jobs_done += 1
                    self._say(f"job {job_id} ({running.job.deal_set}) done")
        # Not ahead of the free tables: a job held in this server's queue could end the league
        # late while another worker has tables free (a job here is ~3 s, a league ~10).
        while not state.stop and sum(r.tables_left for r in state.running.values()) < settings.tables:
            jobs = await asyncio.to_thread(self.queue.claim, settings.name,
                                           lease_seconds=settings.lease_seconds, league_id=settings.league_id,
                                           local_bots=server.service.connected_bots(),
                                           holding=list(state.running))
            if not jobs:
                return
            await self._start(server, jobs[0], address)

    async def _start(self, server: DealerServer, job: Job, address: str) -> None:
        state = self._state
        run = state.runs.get(job.league_id)
        if run is None:
            league = await asyncio.to_thread(self.store.get_league, job.league_id)
            run = await asyncio.to_thread(self._run_of, league, server)
        prepared = await asyncio.to_thread(run.prepare, deal_sets={job.deal_set})
        running = _Running(job, tables_left=len(prepared.specs))
        state.running[job.job_id] = running
        again = " (claimed again)" if job.claims > 1 else ""
        self._say(f"job {job.job_id} ({job.deal_set}): {len(prepared.specs)} tables{again}")

        def ended(summary: MatchSummary) -> None:
            running.tables_left -= 1
            running.aborted = running.aborted or summary.aborted
            running.settled.add(summary.match_id)
            self._wake()

        for spec in prepared.specs:
            place = len(server.tables)
            server.add_match(spec, _JobSink(prepared.sinks[spec.match_id], ended, running.settled.add))
            if len(server.tables) > place:
                running.tables.append(place)
        await asyncio.to_thread(self.queue.announce, self.settings.name, job.job_id, address,
                                [spec.match_id for spec in prepared.specs])

    async def _note_waits(self, server: DealerServer) -> None:
        """Note in the store the jobs whose matches were put back since the last look (absent =
        "wait": their bots were not all connected), and those dealt since: one write each."""
        for job_id, running in list(self._state.running.items()):
            change = running.wait_change(server.tables)
            if change is None:
                continue
            bots, count = change
            try:
                if count:
                    await asyncio.to_thread(self.waits.postponed, self.settings.name, job_id, bots,
                                            count)
                else:
                    await asyncio.to_thread(self.waits.dealt, self.settings.name, job_id)
            except st.InvalidRecord as exc:  # refused for good (e.g. a name not of the match's
                # seats): the note is left out, the job plays on, and it is not tried each poll
                log.warning("worker %s: job %d's postponement not noted: %s", self.settings.name,
                            job_id, exc)
            running.noted_postponements = count

    def _board_wanted(self) -> None:
        """/metrics is being read: refresh the leaderboards that are older than
        `arena.league.runner.BOARD_MAX_AGE_SECONDS`, on their own threads (never per job: a worker
        that nobody scrapes computes none, and the coordinator writes the league's at the end)."""
        for run in list(self._state.runs.values()):
            run.board_wanted()

    def _observe(self, server: DealerServer) -> None:
        if self.metrics is None:
            return
        self.metrics.set_connected_bots(len(server.service.connected_bots()))


def _reason(error: Exception) -> str:
    from arena.metrics import rejection_reason

    return rejection_reason(error).value

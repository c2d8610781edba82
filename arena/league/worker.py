"""`arena worker`: take a league's jobs from the PostgreSQL work queue and deal them to the bots.

A worker claims a job (one match: every duplicate copy of one deal set), plays it with the
ordinary league runner against the bots connected to its address, heartbeats while it plays and
marks the job done when the match has ended. A worker killed mid-match stops heart-beating; after
``lease_seconds`` another worker claims the job, voids the hand that was in flight (RULES.md §5)
and continues from the last completed hand.
"""

from __future__ import annotations

import dataclasses
import logging
import os
import socket
import sys
import threading
import time
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from arena.engine.errors import ConfigError
from arena.league.config import LeagueConfig, league_from_mapping
from arena.league.runner import LeagueRun
from arena.metrics import ArenaMetrics
from arena.storage import store as st
from arena.storage.matchlog import safe_file_name
from arena.storage.queue import Job, WorkQueue

log = logging.getLogger("arena.worker")


def default_worker_name() -> str:
    return f"{socket.gethostname()}-{os.getpid()}"


@dataclass(frozen=True, slots=True)
class WorkerSettings:
    name: str
    listen: str = "0.0.0.0:50051"
    log_dir: Path = Path("worker-logs")
    lease_seconds: float = 15.0  # a job whose worker was silent this long is claimed again
    heartbeat_seconds: float = 3.0
    poll_seconds: float = 1.0
    league_id: int | None = None  # only this league's jobs
    exit_when_done: bool = False  # leave when the league (or every league) has no job left
    log_dir_per_league: bool = True  # logs in log_dir/<league>; False: in log_dir itself

    def __post_init__(self) -> None:
        if not 0 < self.heartbeat_seconds < self.lease_seconds:
            raise ConfigError(f"heartbeat_seconds ({self.heartbeat_seconds}) must be positive and below "
                              f"lease_seconds ({self.lease_seconds})")
        if self.poll_seconds <= 0:
            raise ConfigError("poll_seconds must be positive")


class Heartbeat:
    """Renews the lease of the jobs being played, on its own thread, until stopped."""

    def __init__(self, queue: WorkQueue, worker: str, job_ids: list[int], every_seconds: float) -> None:
        self._queue, self._worker, self._ids, self._every = queue, worker, job_ids, every_seconds
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
            try:
                held = self._queue.heartbeat(self._worker, self._ids)
            except st.StoreError as exc:
                log.warning("heartbeat failed (%s); retrying", exc)
                continue
            lost = set(self._ids) - held
            if lost:
                log.warning("jobs %s were claimed by another worker (this one was silent too long)",
                            sorted(lost))


class Worker:
    """Claims and plays jobs until stopped (or, with ``exit_when_done``, until none is left)."""

    def __init__(self, store: st.ResultsStore, settings: WorkerSettings, *, out: TextIO = sys.stdout,
                 metrics: ArenaMetrics | None = None) -> None:
        self.store = store
        self.queue = WorkQueue(store)
        self.settings = settings
        self.out = out
        self.metrics = metrics
        self.jobs_done = 0
        self.stopped = False

    def run(self, *, on_ready: Callable[[int], None] | None = None) -> bool:
        """Play jobs; True when it left because no job was left, False when play was interrupted."""
        settings = self.settings
        while True:
            jobs = self.queue.claim(settings.name, lease_seconds=settings.lease_seconds,
                                    league_id=settings.league_id)
            if not jobs:
                if settings.exit_when_done and self._nothing_left(settings.league_id):
                    return True
                time.sleep(settings.poll_seconds)
                continue
            if not self._play(jobs, on_ready):
                return False

    def _nothing_left(self, league_id: int | None) -> bool:
        depth = self.queue.depth(league_id)
        return depth["queued"] == 0 and depth["running"] == 0

    def league_config(self, league: st.League) -> LeagueConfig:
        """The league file as the coordinator stored it, with this worker's address, logs and store."""
        where = f"league {league.name!r} in the store"
        try:
            data = tomllib.loads(league.config_toml)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{where}: not valid TOML: {exc}") from None
        config = league_from_mapping(data, source_toml=league.config_toml, where=where)
        return dataclasses.replace(config, listen=self.settings.listen, metrics_port=None,
                                   log_dir=self.settings.log_dir / safe_file_name(league.name)
                                   if self.settings.log_dir_per_league else self.settings.log_dir)

    def _play(self, jobs: list[Job], on_ready: Callable[[int], None] | None) -> bool:
        settings = self.settings
        league = self.store.get_league(jobs[0].league_id)
        config = self.league_config(league)
        copies = 2 if config.duplicate else 1  # tables per job (heads-up duplicate: two copies)
        extra = max(1, config.tables_at_once // copies) - 1
        if extra:
            jobs += self.queue.claim(settings.name, lease_seconds=settings.lease_seconds, limit=extra,
                                     league_id=league.league_id)
        ids = [job.job_id for job in jobs]
        self.out.write(f"worker {settings.name}: league {league.name!r}, jobs {ids} "
                       f"({', '.join(j.deal_set for j in jobs)})"
                       f"{' (claimed again)' if any(j.claims > 1 for j in jobs) else ''}\n")
        self.out.flush()
        run = LeagueRun(config, out=self.out, store=self.store, metrics=self.metrics, in_flight=self.queue)
        with Heartbeat(self.queue, settings.name, ids, settings.heartbeat_seconds):
            complete = run.run(on_ready=on_ready, deal_sets={j.deal_set for j in jobs},
                               more_to_come=lambda: not self._nothing_left_but(ids, league.league_id))
        for job in jobs:
            if self.store.get_match(job.match_id).status is not st.MatchStatus.RUNNING:
                self.queue.complete(settings.name, job.job_id)
                self.jobs_done += 1
            else:
                self.queue.release(settings.name, job.job_id)
        if self.metrics is not None:
            self.metrics.update_leaderboard(run.leaderboard())
        return complete

    def _nothing_left_but(self, job_ids: list[int], league_id: int) -> bool:
        """No job of the league other than ours is queued or running: the bots may leave."""
        depth = self.queue.depth(league_id)
        return depth["queued"] == 0 and depth["running"] <= len(job_ids)

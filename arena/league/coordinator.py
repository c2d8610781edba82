"""`arena league run` on PostgreSQL: enqueue the league's matches, watch every worker, and (unless
told not to) be one of the workers, so one command still does everything on one machine."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TextIO

from arena.league.runner import LeagueRun
from arena.league.secret import describe_secret, publish_commitment, reveal_league_secret
from arena.league.worker import Worker, WorkerSettings
from arena.match.fault_report import many
from arena.server.commands import on_listening
from arena.server.peer_tls import PeerTls
from arena.storage import store as st
from arena.storage.errors import StoreUnavailable
from arena.storage.queue import JobWaits, PostponedJob, WorkQueue


def enqueue(run: LeagueRun, queue: WorkQueue) -> st.League:
    """Create the league's matches (idempotent) and queue every match not finished yet."""
    league, matches = run.ensure_matches()
    queue.enqueue(league.league_id, [(deal_set, match.match_id) for deal_set, match in matches.items()
                                     if match.status is st.MatchStatus.RUNNING])
    return league


def describe_waits(postponed: Sequence[PostponedJob]) -> str:
    """Per missing bot, the matches that workers put back for it (absent = "wait"), e.g.
    ``waiting for gamma (2 matches postponed 6 times for 40 s, w1)``; "" when none waits."""
    by_bot: dict[str, list[PostponedJob]] = {}
    for job in postponed:
        for bot in job.bots:
            by_bot.setdefault(bot, []).append(job)
    parts = []
    for bot, jobs in sorted(by_bot.items()):
        times = sum(job.postponements for job in jobs)
        waited = max(job.waited_seconds for job in jobs)
        workers = ", ".join(sorted({job.worker for job in jobs}))
        parts.append(f"{bot} ({many(len(jobs), 'match', 'matches')} postponed "
                     f"{many(times, 'time')} for {waited:,.0f} s, {workers})")
    return f"waiting for {'; '.join(parts)}" if parts else ""


@dataclass
class ProgressOverWorkers:
    """One line of progress from the database: hands, hands/s per worker, ETA, standings, and the
    bots that postponed matches wait for."""

    store: st.ResultsStore
    queue: WorkQueue
    league_id: int
    total_hands: int
    _last: dict[str, tuple[float, int]] = field(default_factory=dict)
    _started: float = field(default_factory=time.monotonic)
    _first_done: int | None = None

    def line(self) -> str:
        now = time.monotonic()
        done, standings = self._totals()
        if self._first_done is None:
            self._first_done = done
        rate = (done - self._first_done) / max(now - self._started, 1e-9)
        eta = f"{(self.total_hands - done) / rate:,.0f} s" if rate > 0 else "?"
        per_worker = []
        for worker in self.queue.workers(self.league_id):
            then, hands_then = self._last.get(worker.worker, (now, worker.hands))
            worker_rate = (worker.hands - hands_then) / (now - then) if now > then else 0.0
            self._last[worker.worker] = (now, worker.hands)
            per_worker.append(f"{worker.worker} {worker.hands} ({worker_rate:,.1f}/s)")
        depth = self.queue.depth(self.league_id)
        top = "  ".join(f"{bot} {net:+d}" for bot, net in standings[:4])
        waits = describe_waits(JobWaits(self.queue.store).waiting(self.league_id))
        return (f"hands {done}/{self.total_hands}  {rate:,.1f} hands/s  ETA {eta}  |  "
                f"jobs queued {depth['queued']} running {depth['running']} done {depth['done']}  |  "
                f"{'  '.join(per_worker) or 'no worker yet'}  |  {top}"
                + (f"  |  {waits}" if waits else ""))

    def _totals(self) -> tuple[int, list[tuple[str, int]]]:
        with self.queue.store.transaction(write=False) as db:
            row = db.execute("SELECT COUNT(*) AS n FROM hands h JOIN matches m USING (match_id) "
                             "WHERE m.league_id = ? AND h.status = 'completed'", (self.league_id,)).fetchone()
            nets = db.execute(
                "SELECT b.name, SUM(s.net_chips) AS net FROM hand_seats s JOIN hands h USING (hand_id) "
                "JOIN matches m ON m.match_id = h.match_id JOIN bots b ON b.bot_id = s.bot_id "
                "WHERE m.league_id = ? GROUP BY b.name ORDER BY net DESC, b.name",
                (self.league_id,)).fetchall()
        return int(row["n"]), [(str(r["name"]), int(r["net"])) for r in nets]


def wait_until_done(queue: WorkQueue, league_id: int, *, out: TextIO, poll_seconds: float,
                    max_pause_seconds: float = 5.0) -> None:
    """Poll the queue until the league has no job queued or running. A database that is away
    (restarted, failed over, its network cut) is waited for: the coordinator says so once per
    outage, retries with a pause that doubles up to ``max_pause_seconds``, and goes on."""
    pause = poll_seconds
    away_since: float | None = None
    while True:
        try:
            depth = queue.depth(league_id)
        except StoreUnavailable as exc:
            if away_since is None:
                away_since = time.monotonic()
                out.write(f"database unavailable ({exc}); reconnecting\n")
                out.flush()
            time.sleep(pause)
            pause = min(pause * 2, max_pause_seconds)
            continue
        if away_since is not None:
            out.write(f"database back after {time.monotonic() - away_since:,.1f} s\n")
            out.flush()
            away_since, pause = None, poll_seconds
        if depth["queued"] == 0 and depth["running"] == 0:
            return
        time.sleep(poll_seconds)


def run_on_workers(run: LeagueRun, *, out: TextIO = sys.stdout, local_worker: str | None,
                   progress_seconds: float = 5.0, peer_tls: PeerTls | None = None,
                   peer_listen: str = "0.0.0.0:50052") -> bool:
    """Enqueue, then play as a worker named ``local_worker`` (logs in the league's log folder) or
    only watch; True when every job is done (then the league secret is revealed in the log folder)."""
    queue = WorkQueue(run.store)
    league = enqueue(run, queue)
    depth = queue.depth(league.league_id)
    out.write(f"league {run.config.name!r}: {depth['queued']} jobs queued, {depth['running']} running, "
              f"{depth['done']} done\n")
    # The secret is in the store (made by the first `league run`): every worker deals from it. Its
    # commitment is published now, the secret itself only once every job is done.
    out.write(f"deals: {describe_secret(run.secret)} (commitment: "
              f"{publish_commitment(run.config, run.secret)})\n")
    out.flush()
    monitor = ProgressOverWorkers(run.store, queue, league.league_id,
                                  total_hands=len(run.schedule) * run.config.hands_per_match)
    stop = threading.Event()

    def show() -> None:
        while not stop.wait(progress_seconds):
            try:
                out.write(monitor.line() + "\n")
                out.flush()
            except st.StoreError as exc:
                out.write(f"progress: {exc}\n")

    watcher = threading.Thread(target=show, name="arena-progress", daemon=True)
    watcher.start()
    try:
        if local_worker is not None:
            ready = on_listening(out, run.config.listen, f"league {run.config.name!r}",
                                 f"; {len(run.schedule)} matches of {run.config.hands_per_match} "
                                 "hands on workers")
            settings = WorkerSettings(name=local_worker, listen=run.config.listen, log_dir=run.config.log_dir,
                                      league_id=league.league_id, exit_when_done=True,
                                      tables=run.config.tables_at_once,
                                      log_dir_per_league=False, peer_tls=peer_tls, peer_listen=peer_listen)
            if run.metrics is not None:
                run.metrics.set_worker(local_worker)
                run.metrics.watch_queue(lambda: queue.depth(league.league_id))
            worker = Worker(run.store, settings, out=out, metrics=run.metrics,
                            known={league.league_id: run.config})
            if not worker.run(on_ready=ready):
                return False
        else:
            wait_until_done(queue, league.league_id, out=out, poll_seconds=min(progress_seconds, 1.0))
    finally:
        stop.set()
        watcher.join(timeout=5)
    out.write(monitor.line() + "\n")
    out.write(f"league secret revealed: {reveal_league_secret(run.config, run.secret)}\n")
    return True

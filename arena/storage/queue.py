"""The work queue: a league's matches as jobs in the same PostgreSQL database as the results.

Workers claim jobs with ``FOR UPDATE SKIP LOCKED`` (concurrent claimers never wait for or take
each other's rows), heartbeat while they play, and a job whose worker stopped heart-beating for
``lease_seconds`` is claimed again by another worker. Times come from the database's clock, so
workers' clocks need not agree. Hands in flight are recorded per table so that the next claimer
voids them (docs/house-rules.md §6) before continuing with the next hand. Matches a worker postponed because
bots were missing (absent = "wait") are noted per job (:class:`JobWaits`) for the coordinator.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from arena.engine.errors import ConfigError
from arena.storage.errors import InvalidRecord, LeaseLost
from arena.storage.postgres import PostgresStore
from arena.storage.sqlstore import Db, Guard, InFlightBook
from arena.storage.store import ResultsStore

_NOW = "CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION)"
_SQLITE_NOW = "((julianday('now') - 2440587.5) * 86400.0)"  # the same, seconds since the epoch


@dataclass(frozen=True, slots=True)
class Job:
    job_id: int
    league_id: int
    match_id: int
    deal_set: str
    claims: int  # how many times a worker took it; > 1 means a worker died or gave it back


@dataclass(frozen=True, slots=True)
class WorkerProgress:
    worker: str
    running_jobs: int
    hands: int  # completed hands of the matches it holds or finished


@dataclass(frozen=True, slots=True)
class PostponedJob:
    """A running job whose match its worker put back because bots were not connected."""

    job_id: int
    deal_set: str
    worker: str
    bots: tuple[str, ...]  # missing at the last postponement
    postponements: int  # times the match was put back since this worker claimed it
    waited_seconds: float  # since its first postponement, by the database's clock


class WorkQueue:
    """Jobs of every league in one PostgreSQL database."""

    store: PostgresStore

    def __init__(self, store: ResultsStore) -> None:
        if not isinstance(store, PostgresStore):
            raise ConfigError("a work queue shared by workers needs a PostgreSQL store "
                              "(store = \"postgresql://...\"); an SQLite league runs in one process")
        self.store = store

    def enqueue(self, league_id: int, jobs: Iterable[tuple[str, int]]) -> int:
        """Add (deal set, store match id) jobs that are not queued yet; returns how many were new."""
        added = 0
        with self.store.transaction(write=True) as db:
            for deal_set, match_id in jobs:
                row = db.execute(
                    "INSERT INTO jobs (league_id, match_id, deal_set, status) VALUES (?, ?, ?, 'queued') "
                    "ON CONFLICT DO NOTHING RETURNING job_id", (league_id, match_id, deal_set)).fetchone()
                added += row is not None
        return added

    def claim(self, worker: str, *, lease_seconds: float, limit: int = 1,
              league_id: int | None = None, local_bots: Sequence[str] = (),
              holding: Iterable[int] = ()) -> list[Job]:
        """Take up to ``limit`` queued jobs, or running ones whose worker's lease ran out, or
        running ones under this worker's own name that it is not ``holding`` (playing now): a
        worker restarted in place (a container restarted under the same name) takes back at
        once the jobs its previous life held. First those where most seats belong to
        ``local_bots`` (bots connected to this worker, whose seats it then deals without a
        relay), then in queue order."""
        league_filter = "" if league_id is None else "AND j.league_id = ? "
        held = sorted({int(job_id) for job_id in holding})
        params: tuple[object, ...] = (worker, held, worker, lease_seconds)
        params += () if league_id is None else (league_id,)
        names = sorted(set(local_bots))
        local_first = ""
        if names:
            local_first = ("(SELECT COUNT(*) FROM match_seats s JOIN bots b ON b.bot_id = s.bot_id "
                           f"WHERE s.match_id = j.match_id AND b.name IN ({', '.join('?' for _ in names)})) "
                           "DESC, ")
            params += tuple(names)
        with self.store.transaction(write=True) as db:
            rows = db.execute(
                "UPDATE jobs SET status = 'running', worker = ?, claims = claims + 1, "
                f"heartbeat_at = {_NOW}, "
                "address = NULL, tables = NULL "
                "WHERE job_id IN (SELECT j.job_id FROM jobs j "
                "WHERE (j.status = 'queued' OR (j.status = 'running' "
                "AND NOT j.job_id = ANY(CAST(? AS BIGINT[])) "
                f"AND (j.worker = ? OR j.heartbeat_at < {_NOW} - ?))) "
                f"{league_filter}ORDER BY {local_first}j.job_id LIMIT ? FOR UPDATE OF j SKIP LOCKED) "
                "RETURNING job_id, league_id, match_id, deal_set, claims", (*params, limit)).fetchall()
            for row in rows:  # a note of an earlier holder (maybe this worker, before a restart)
                db.execute(_FORGET_WAIT, (row["job_id"],))  # is not this claim's: it starts afresh
        return sorted((Job(r["job_id"], r["league_id"], r["match_id"], r["deal_set"], r["claims"])
                       for r in rows), key=lambda j: j.job_id)

    def heartbeat(self, worker: str, job_ids: Iterable[int]) -> set[int]:
        """Renew the lease of this worker's jobs; returns the ids it still holds. One job per
        transaction: a heartbeat that held one job's row while it waited for another's (locked
        by the worker's writer until its group commit) could deadlock with that writer."""
        held: set[int] = set()
        for job_id in sorted(set(job_ids)):
            with self.store.transaction(write=True) as db:
                row = db.execute(f"UPDATE jobs SET heartbeat_at = {_NOW} WHERE worker = ? "
                                 "AND status = 'running' AND job_id = ? RETURNING job_id",
                                 (worker, job_id)).fetchone()
            if row is not None:
                held.add(int(row["job_id"]))
        return held

    def complete(self, worker: str, job_id: int) -> bool:
        return self._end(worker, job_id, "status = 'done'")

    def release(self, worker: str, job_id: int) -> None:
        """Give a job back (a clean stop before its match ended): another worker may take it now."""
        self._end(worker, job_id, "status = 'queued', worker = NULL")

    def _end(self, worker: str, job_id: int, change: str) -> bool:
        """Apply ``change`` to the job if ``worker`` runs it, and forget its wait note."""
        with self.store.transaction(write=True) as db:
            row = db.execute(f"UPDATE jobs SET {change}, heartbeat_at = NULL WHERE job_id = ? "
                             "AND worker = ? AND status = 'running' RETURNING job_id",
                             (job_id, worker)).fetchone()
            if row is not None:
                db.execute(_FORGET_WAIT, (job_id,))
        return row is not None

    def depth(self, league_id: int | None = None) -> dict[str, int]:
        """Jobs by status (queued, running, done), over one league or all."""
        where, params = ("", ()) if league_id is None else ("WHERE league_id = ? ", (league_id,))
        counts = {"queued": 0, "running": 0, "done": 0}
        with self.store.transaction(write=False) as db:
            for row in db.execute(f"SELECT status, COUNT(*) AS n FROM jobs {where}GROUP BY status", params):
                counts[str(row["status"])] = int(row["n"])
        return counts

    def leagues_with_work(self) -> set[int]:
        """The leagues that have a job queued or running (one query, however many leagues)."""
        with self.store.transaction(write=False) as db:
            return {int(row["league_id"]) for row in db.execute(
                "SELECT DISTINCT league_id FROM jobs WHERE status IN ('queued', 'running')")}

    def workers(self, league_id: int) -> list[WorkerProgress]:
        """Per worker: jobs it runs now and completed hands of the matches it holds or held last."""
        with self.store.transaction(write=False) as db:
            rows = db.execute(
                "SELECT j.worker, SUM(CASE WHEN j.status = 'running' THEN 1 ELSE 0 END) AS running, "
                "(SELECT COUNT(*) FROM hands h WHERE h.status = 'completed' AND h.match_id IN "
                " (SELECT match_id FROM jobs k WHERE k.worker = j.worker AND k.league_id = ?)) AS hands "
                "FROM jobs j WHERE j.league_id = ? AND j.worker IS NOT NULL GROUP BY j.worker "
                "ORDER BY j.worker", (league_id, league_id)).fetchall()
        return [WorkerProgress(str(r["worker"]), int(r["running"]), int(r["hands"])) for r in rows]

    def announce(self, worker: str, job_id: int, address: str, tables: Iterable[str]) -> None:
        """The job's tables are dealing at ``address``: other workers may relay bots to them."""
        with self.store.transaction(write=True) as db:
            db.execute("UPDATE jobs SET address = ?, tables = ? WHERE job_id = ? AND worker = ?",
                       (address, ",".join(tables), job_id, worker))

    def remote_tables(self, bots: Iterable[str], worker: str) -> dict[str, dict[str, list[str]]]:
        """Per bot, the tables it sits at on other workers, by their address."""
        names = sorted(set(bots))
        if not names:
            return {}
        marks = ", ".join("?" for _ in names)
        found: dict[str, dict[str, list[str]]] = {}
        with self.store.transaction(write=False) as db:
            for row in db.execute(
                    "SELECT b.name, j.address, j.tables FROM jobs j "
                    "JOIN match_seats s ON s.match_id = j.match_id JOIN bots b ON b.bot_id = s.bot_id "
                    "WHERE j.status = 'running' AND j.address IS NOT NULL AND j.worker <> ? "
                    f"AND b.name IN ({marks}) ORDER BY j.job_id", (worker, *names)):
                tables = found.setdefault(str(row["name"]), {}).setdefault(str(row["address"]), [])
                tables += [t for t in str(row["tables"] or "").split(",") if t]
        return found


_FORGET_WAIT = "DELETE FROM job_waits WHERE job_id = ?"


class JobWaits:
    """Per job, whether its worker postponed the match (absent = "wait") and for which bots: one
    row per job, written once per postponement and deleted when the match is dealt or the job is
    completed or given back (`WorkQueue.complete`, `WorkQueue.release`). Works on either store;
    the coordinator reads it for its progress line."""

    def __init__(self, store: ResultsStore) -> None:
        self.store = store
        self._now = _NOW if isinstance(store, PostgresStore) else _SQLITE_NOW

    def postponed(self, worker: str, job_id: int, bots: Iterable[str], postponements: int) -> bool:
        """Note that ``worker`` put the job's match back for the ``postponements``-th time, the
        ``bots`` (seats of the match) not connected; False when the worker no longer holds it."""
        names = sorted(set(bots))
        if not names or postponements < 1:
            raise InvalidRecord(f"job {job_id}: a postponement needs missing bots and a count >= 1, "
                                f"got {names} and {postponements}")
        now = self._now
        with self.store.transaction(write=True) as db:
            seated = {str(row["name"]) for row in db.execute(
                "SELECT b.name FROM jobs j JOIN match_seats s ON s.match_id = j.match_id "
                "JOIN bots b ON b.bot_id = s.bot_id WHERE j.job_id = ? AND j.worker = ? "
                "AND j.status = 'running'", (job_id, worker)).fetchall()}
            if not seated:
                return False
            strangers = [name for name in names if name not in seated]
            if strangers:
                raise InvalidRecord(f"job {job_id}: {', '.join(strangers)} has no seat in its match")
            db.execute(
                "INSERT INTO job_waits (job_id, worker, bots, postponements, first_postponed_at, "
                f"last_postponed_at) VALUES (?, ?, ?, ?, {now}, {now}) ON CONFLICT (job_id) DO UPDATE "
                "SET bots = excluded.bots, postponements = excluded.postponements, "
                "last_postponed_at = excluded.last_postponed_at, first_postponed_at = CASE WHEN "
                "job_waits.worker = excluded.worker THEN job_waits.first_postponed_at "
                "ELSE excluded.first_postponed_at END, worker = excluded.worker",
                (job_id, worker, ",".join(names), postponements))
        return True

    def dealt(self, worker: str, job_id: int) -> None:
        """The job's match is being dealt: it waits no more."""
        with self.store.transaction(write=True) as db:
            db.execute("DELETE FROM job_waits WHERE job_id = ? AND worker = ?", (job_id, worker))

    def waiting(self, league_id: int) -> list[PostponedJob]:
        """The league's running jobs whose worker (the one holding them now) postponed them."""
        with self.store.transaction(write=False) as db:
            rows = db.execute(
                "SELECT w.job_id, j.deal_set, w.worker, w.bots, w.postponements, "
                f"{self._now} - w.first_postponed_at AS waited FROM job_waits w "
                "JOIN jobs j ON j.job_id = w.job_id WHERE j.league_id = ? AND j.status = 'running' "
                "AND j.worker = w.worker ORDER BY w.job_id", (league_id,)).fetchall()
        return [PostponedJob(int(r["job_id"]), str(r["deal_set"]), str(r["worker"]),
                             tuple(str(r["bots"]).split(",")), int(r["postponements"]),
                             max(0.0, float(r["waited"]))) for r in rows]


class JobBook(InFlightBook):
    """One worker's hands in flight, fenced by its leases: marking a hand in flight and committing
    a hand both first lock the job's row (``FOR SHARE``, so no claim can pass in between) and
    check that this worker still holds it, or raise :class:`LeaseLost`. A worker that lost a job
    therefore deals no further hand of it and writes nothing more to its match."""

    store: PostgresStore

    def __init__(self, queue: WorkQueue, worker: str, *, store: ResultsStore | None = None) -> None:
        """``store``: the one the hands are committed to, when not the queue's (its connection)."""
        super().__init__(queue.store if store is None else WorkQueue(store).store)
        self.queue = queue
        self.worker = worker

    def guard(self, match_id: int) -> Guard:
        """The check a commit of this match's hands runs in its own transaction."""
        return lambda db: self._hold(db, match_id)

    def _hold(self, db: Db, match_id: int) -> None:
        store = self.store
        key = ("lease", match_id)
        if store.checked_in_transaction(key):  # locked already by a write of this group commit
            return
        if db.execute("SELECT job_id FROM jobs WHERE match_id = ? AND worker = ? AND status = 'running' "
                      "FOR SHARE", (match_id, self.worker)).fetchone() is None:
            raise LeaseLost(f"worker {self.worker}: the job of match {match_id} is no longer held by "
                            "this worker (its lease ran out and another worker claimed it)")
        store.note_checked(key)

"""A worker completes a job in the queue only once its deal set is finished in the store and its
seed revealed (`LeagueRun.wait_deal_set_finished`: the league's finisher thread does that after
the last copy's end): a worker killed in between leaves the job to be claimed again, never a
job done with its match still running."""

from __future__ import annotations

import asyncio
import io
from pathlib import Path

import pytest

from arena.league.worker import Worker, WorkerSettings, _Running
from arena.storage.postgres import PostgresStore
from arena.storage.queue import Job
from tests.pgserver import PostgresServer

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


class _Run:
    def __init__(self, order: list[str]) -> None:
        self.order = order

    def wait_deal_set_finished(self, deal_set: str, timeout_seconds: float | None = None) -> bool:
        self.order.append(f"finished {deal_set}")
        return True


class _Queue:
    def __init__(self, order: list[str]) -> None:
        self.order = order

    def complete(self, worker: str, job_id: int) -> bool:
        self.order.append(f"complete {job_id}")
        return True


def test_a_job_is_completed_only_after_its_deal_set_is_finished(tmp_path: Path,
                                                               postgres: PostgresServer) -> None:
    store = PostgresStore(postgres.new_database())
    try:
        worker = Worker(store, WorkerSettings(name="w", listen="127.0.0.1:0", log_dir=tmp_path),
                        out=io.StringIO())
        order: list[str] = []
        worker.queue = _Queue(order)  # type: ignore[assignment]
        state = worker._state
        state.runs[7] = _Run(order)  # type: ignore[assignment]
        state.running[1] = _Running(Job(1, 7, 3, "r1-t1", 1), tables_left=0)  # every table ended
        state.stop = True  # claims nothing new
        asyncio.run(worker._fill(None, "127.0.0.1:1"))  # type: ignore[arg-type]
        assert order == ["finished r1-t1", "complete 1"] and worker.jobs_done == 1
        assert state.running == {}
    finally:
        store.close()

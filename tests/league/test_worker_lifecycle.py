"""A worker's start and end (in this process, on a real PostgreSQL): it knows the queued leagues' bots
before it serves, and with ``exit_when_done`` it stays while another worker still plays jobs (whose
tables may need the bots connected here, through its relay)."""

from __future__ import annotations

import io
import threading
import time
from pathlib import Path

import pytest

import arena.storage.tokens as tokens_module
from arena.league.config import load_league
from arena.league.coordinator import enqueue
from arena.league.runner import LeagueRun
from arena.league.worker import Worker, WorkerSettings
from arena.server.app import DealerServer
from arena.storage.postgres import PostgresStore
from arena.storage.queue import WorkQueue
from tests.league.test_league_e2e import write_league
from tests.league.test_league_postgres import BOTS
from tests.league.test_workers import with_token_files
from tests.pgserver import PostgresServer


@pytest.fixture(autouse=True)
def cheap_token_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)


def queued_league(tmp_path: Path, url: str) -> int:
    """A league of BOTS enqueued in ``url`` (as `arena league run --no-worker` does); its id."""
    run = LeagueRun(load_league(with_token_files(write_league(tmp_path, BOTS, store=url, hands_per_match=2))),
                    out=io.StringIO())
    try:
        return enqueue(run, WorkQueue(run.store)).league_id
    finally:
        run.close()


def test_a_worker_knows_the_queued_bots_before_it_serves(tmp_path: Path, postgres: PostgresServer,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bot that connects the moment the port opens must not be refused as unknown: the SDKs take
    UNAUTHENTICATED as final, and the bot's seats then wait in vain (a stalled league)."""
    url = postgres.new_database()
    queued_league(tmp_path, url)
    known_at_start: list[str | None] = []
    original = DealerServer.start

    async def start(server: DealerServer) -> int:
        port = await original(server)
        known_at_start.append(server.service.token_of("alpha"))  # what a bot connecting now meets
        return port

    monkeypatch.setattr(DealerServer, "start", start)
    store = PostgresStore(url)
    worker = Worker(store, WorkerSettings(name="w", listen="127.0.0.1:0", log_dir=tmp_path / "w"),
                    out=io.StringIO())
    try:
        assert worker.run(on_ready=lambda port: worker.stop()) is False  # stopped, not done
    finally:
        store.close()
    assert known_at_start == ["token-alpha-0001"]


def test_a_worker_with_nothing_to_claim_stays_while_another_plays(tmp_path: Path,
                                                                  postgres: PostgresServer) -> None:
    """``exit_when_done``: a worker whose own jobs are done does not leave while another worker
    still holds jobs (their tables may need the bots connected to this one); it leaves once
    every job is done."""
    url = postgres.new_database()
    league_id = queued_league(tmp_path, url)
    store = PostgresStore(url)
    queue = WorkQueue(store)
    held = queue.claim("other", lease_seconds=600, limit=10)
    assert len(held) == 3
    worker = Worker(store, WorkerSettings(name="w", listen="127.0.0.1:0", log_dir=tmp_path / "w",
                                          exit_when_done=True, poll_seconds=0.05, league_id=league_id),
                    out=io.StringIO())
    left: list[bool] = []
    thread = threading.Thread(target=lambda: left.append(worker.run()))
    thread.start()
    try:
        time.sleep(1.5)
        assert thread.is_alive() and worker.jobs_done == 0
        for job in held:
            assert queue.complete("other", job.job_id)
        thread.join(timeout=20)
        assert left == [True]
    finally:
        worker.stop()
        thread.join(timeout=20)
        store.close()

"""A worker's notes of postponed matches (`Worker._note_waits`) never stop its poll: a note the
store refuses for good is logged and not tried again each poll; a store that is away for a
moment is tried again at the next poll (the poll loop logs it)."""

from __future__ import annotations

import asyncio
import logging
from types import SimpleNamespace

import pytest

from arena.league.worker import Worker, _Running
from arena.storage.queue import Job
from arena.storage.store import InvalidRecord, StoreError

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


class _Waits:
    def __init__(self, error: Exception) -> None:
        self.error = error
        self.calls = 0

    def postponed(self, worker: str, job_id: int, bots: tuple[str, ...], count: int) -> bool:
        self.calls += 1
        raise self.error

    def dealt(self, worker: str, job_id: int) -> None:
        raise AssertionError("not dealt")


def _worker(error: Exception) -> tuple[SimpleNamespace, _Running]:
    running = _Running(Job(7, 1, 3, "r1", 1), tables_left=1, tables=[0])
    running.wait_change = lambda tables: (("gamma",), 2)  # type: ignore[method-assign]
    fake = SimpleNamespace(_state=SimpleNamespace(running={7: running}), waits=_Waits(error),
                           settings=SimpleNamespace(name="w1"))
    return fake, running


def test_a_note_refused_for_good_is_logged_and_not_tried_again(caplog: pytest.LogCaptureFixture) -> None:
    fake, running = _worker(InvalidRecord("job 7: gamma has no seat in its match"))
    with caplog.at_level(logging.WARNING, logger="arena.worker"):
        asyncio.run(Worker._note_waits(fake, SimpleNamespace(tables=[])))  # type: ignore[arg-type]
    assert running.noted_postponements == 2  # the next poll finds nothing new to write
    assert fake.waits.calls == 1
    assert "job 7's postponement not noted: job 7: gamma has no seat" in caplog.text


def test_a_store_away_for_a_moment_is_tried_at_the_next_poll() -> None:
    fake, running = _worker(StoreError("the database is away"))
    with pytest.raises(StoreError):  # the poll loop logs it and goes on
        asyncio.run(Worker._note_waits(fake, SimpleNamespace(tables=[])))  # type: ignore[arg-type]
    assert running.noted_postponements == 0  # still to write

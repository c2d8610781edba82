"""Issue 13 item 4: the writer tells a table its hand is committed before the log lines of the
batch are written, and commits waiting jobs before it writes earlier batches' logs."""

from __future__ import annotations

import contextlib
import sys
import threading
from collections.abc import Callable, Iterator

from arena.host.process import COMMIT_SWITCH_SECONDS
from arena.storage.writer import Writer


def test_commits_come_before_log_steps_and_are_told_first() -> None:
    seen: list[str] = []
    tickets: list[int] = []
    gate = threading.Event()

    def second() -> Callable[[], None]:
        seen.append("job 2")
        return lambda: seen.append("step 2")

    @contextlib.contextmanager
    def batch() -> Iterator[None]:
        yield
        if "job 1" in seen:
            seen.append("commit")
            if seen.count("commit") == 1:  # a job arrives while job 1's batch commits
                tickets.append(writer.submit(second))

    writer = Writer(batch=batch)

    def first() -> Callable[[], None]:
        seen.append("job 1")
        return lambda: seen.append("step 1")

    def busy() -> None:
        gate.wait(10)

    writer.submit(busy)  # the writer is busy while job 1 is submitted and watched
    tickets.append(writer.submit(first))
    assert writer.when_committed(tickets[0], lambda: seen.append("told 1"))
    gate.set()
    assert writer.wait(tickets[0], timeout_seconds=10) and writer.wait(timeout_seconds=10)
    assert seen == ["job 1", "commit", "told 1", "job 2", "commit", "step 1", "step 2"]
    assert writer.committed(tickets[1]) and writer.done(tickets[1])
    assert not writer.when_committed(tickets[1], lambda: seen.append("never"))
    writer.close()


def test_a_ticket_is_done_only_once_its_steps_ran() -> None:
    gate = threading.Event()
    steps_started = threading.Event()
    writer = Writer()

    def job() -> Callable[[], None]:
        def step() -> None:
            steps_started.set()
            gate.wait(10)
        return step

    ticket = writer.submit(job)
    assert steps_started.wait(10)
    assert writer.committed(ticket) and not writer.done(ticket)
    assert not writer.wait(ticket, timeout_seconds=0.05)
    gate.set()
    assert writer.wait(ticket, timeout_seconds=10) and writer.done(ticket)
    writer.close()


def test_a_batch_runs_up_to_its_commit_with_a_short_switch_interval_then_restores_it() -> None:
    """While any writer runs a batch the GIL changes hands every 0.5 ms (a waiting table's commit
    does not wait for a busy dealer thread's 5 ms); the interval is restored once none does."""
    before = sys.getswitchinterval()
    seen: list[float] = []
    inside = threading.Event()
    gate = threading.Event()

    @contextlib.contextmanager
    def batch() -> Iterator[None]:
        yield
        seen.append(sys.getswitchinterval())  # the commit

    def held() -> Callable[[], None]:
        inside.set()
        gate.wait(10)
        return lambda: seen.append(sys.getswitchinterval())  # a log step: no longer short

    first, second = Writer(batch=batch), Writer(batch=batch)
    first.submit(held)
    assert inside.wait(10)
    assert second.wait(second.submit(lambda: None), timeout_seconds=10)  # its batch overlapped
    assert sys.getswitchinterval() == min(before, COMMIT_SWITCH_SECONDS)  # the first still runs
    gate.set()
    assert first.wait(timeout_seconds=10)
    assert seen == [min(before, COMMIT_SWITCH_SECONDS)] * 2 + [before]
    assert sys.getswitchinterval() == before
    first.close()
    second.close()

"""A writer thread: the league's store commits and log files, done in order off the dealer's thread.

Jobs run one after another in the order they were submitted; each submission returns a ticket
and :meth:`Writer.when_done` / :meth:`Writer.wait` tell when everything up to a ticket has run.
The jobs waiting together run as one batch inside ``batch()`` (the store's group commit: one
transaction, one fsync); what a job must do only once its writes are committed (append to the
log files) it returns as a step run after the batch. :meth:`Writer.when_committed` tells as soon
as a ticket's batch is committed, before those steps: a table deals its next hand then, and the
steps wait while other jobs are waiting to be committed (they run one at a time, so a job that
arrives meanwhile waits for one step at most).

While a batch runs up to its commit, the interpreter hands its lock (the GIL) over every
`arena.host.process.COMMIT_SWITCH_SECONDS` instead of every 5 ms: each query of the batch gives
the GIL away, and a busy dealer's thread would otherwise keep it up to 5 ms each time while its
tables wait for the commit.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable
from contextlib import AbstractContextManager

from arena.host.process import quick_switching

MAX_STEPS_BEHIND = 32  # committed batches whose steps may wait while jobs keep coming
After = Callable[[], None]
Job = Callable[[], After | None]  # returns what to do once its writes are committed, if anything
log = logging.getLogger("arena.writer")


class Writer:
    """One background thread running submitted jobs in order (started on the first job).

    A job must catch its own errors (the writer only logs what escapes and runs on). When the
    batch's commit fails, every job of the batch runs again on its own (store writes are
    idempotent), so one bad write never takes the others with it.
    """

    def __init__(self, name: str = "arena-writer",
                 batch: Callable[[], AbstractContextManager[object]] | None = None) -> None:
        self._name = name
        self._batch = batch
        self._jobs: deque[tuple[int, Job, float]] = deque()  # ticket, job, submitted at
        self._steps: deque[tuple[int, list[After]]] = deque()  # committed batches' steps, in order
        self._watchers: list[tuple[int, Callable[[], None]]] = []
        self._commit_watchers: list[tuple[int, Callable[[], None]]] = []
        self._cond = threading.Condition()
        self._submitted = 0
        self._committed = 0
        self._done = 0
        self._closed = False
        self._thread: threading.Thread | None = None
        self.cpu_seconds = 0.0  # the CPU time of the writer's thread so far (benchmarks)
        self.batches = 0  # commits (benchmarks: jobs per commit)
        self.commit_wait_seconds = 0.0  # from each job's submission to its commit, summed (benchmarks)

    def submit(self, job: Job) -> int:
        """Queue a job; its ticket (tickets grow by one per job)."""
        with self._cond:
            if self._closed:
                raise RuntimeError("the writer is closed")
            self._submitted += 1
            self._jobs.append((self._submitted, job, time.perf_counter()))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify_all()
            return self._submitted

    def done(self, ticket: int) -> bool:
        """Whether the job of ``ticket`` (and every earlier one) has run, steps included."""
        return self._done >= ticket

    def committed(self, ticket: int) -> bool:
        """Whether the job of ``ticket`` (and every earlier one) has run and been committed."""
        return self._committed >= ticket

    def when_done(self, ticket: int, callback: Callable[[], None]) -> bool:
        """Call ``callback`` on the writer's thread once ``ticket`` has run; False (and no call)
        when it has run already."""
        with self._cond:
            if self._done >= ticket:
                return False
            self._watchers.append((ticket, callback))
            return True

    def when_committed(self, ticket: int, callback: Callable[[], None]) -> bool:
        """Call ``callback`` on the writer's thread once ``ticket`` is committed (its steps may
        still be waiting); False (and no call) when it is committed already."""
        with self._cond:
            if self._committed >= ticket:
                return False
            self._commit_watchers.append((ticket, callback))
            return True

    def wait(self, ticket: int | None = None, timeout_seconds: float | None = None) -> bool:
        """Block until ``ticket`` (default: every job submitted so far) has run; False on timeout."""
        with self._cond:
            target = self._submitted if ticket is None else ticket
            return self._cond.wait_for(lambda: self._done >= target, timeout_seconds)

    def close(self, timeout_seconds: float | None = 60.0) -> None:
        """Run what is queued, then stop the thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
            thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout_seconds)

    def _run(self) -> None:
        # Commits first: the steps of a committed batch (log files) run when no job is waiting,
        # so that a table waiting for its commit never waits for other tables' log writing.
        while True:
            with self._cond:
                while not self._jobs and not self._steps and not self._closed:
                    self._cond.wait()
                batch: list[tuple[int, Job, float]] = []
                if len(self._steps) < MAX_STEPS_BEHIND:  # else the logs catch up first
                    batch = list(self._jobs)
                    self._jobs.clear()
                if not batch and not self._steps:
                    return
            started = time.thread_time()
            if batch:
                ticket = batch[-1][0]
                with quick_switching():
                    self._steps.append((ticket, self._run_batch([job for _, job, _ in batch])))
                committed_at = time.perf_counter()
                self.commit_wait_seconds += sum(committed_at - at for _, _, at in batch)
                self._tell(ticket, committed=True)
            else:  # one step, then look for jobs again
                ticket, steps = self._steps[0]
                if steps:
                    _run_step(steps.pop(0))
                if not steps:
                    self._steps.popleft()
                    self._tell(ticket, committed=False)
            self.cpu_seconds += time.thread_time() - started

    def _run_batch(self, jobs: list[Job]) -> list[After]:
        self.batches += 1
        if self._batch is not None:
            try:
                with self._batch():
                    return [after for job in jobs if (after := _run_step(job)) is not None]
            except Exception:
                log.warning("a batch of %d writes failed to commit; writing them one by one",
                            len(jobs), exc_info=True)
        return [after for job in jobs if (after := _run_step(job)) is not None]

    def _tell(self, ticket: int, *, committed: bool) -> None:
        """Everything up to ``ticket`` is committed (``committed``), or done with its steps."""
        with self._cond:
            if committed:
                self._committed = ticket
                due, self._commit_watchers = _split(self._commit_watchers, ticket)
            else:
                self._done = ticket
                due, self._watchers = _split(self._watchers, ticket)
            self._cond.notify_all()
        for callback in due:
            callback()


def _split(watchers: list[tuple[int, Callable[[], None]]], ticket: int
           ) -> tuple[list[Callable[[], None]], list[tuple[int, Callable[[], None]]]]:
    """The callbacks of ``watchers`` due at ``ticket``, and those still waiting."""
    due = [callback for t, callback in watchers if t <= ticket]
    return due, ([(t, cb) for t, cb in watchers if t > ticket] if due else watchers)


def _run_step(step: Callable[[], After | None]) -> After | None:
    try:
        return step()
    except Exception:  # a job's escaped error must not stop the others
        log.exception("writer job failed")
        return None

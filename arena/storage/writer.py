"""A writer thread: the league's store commits and log files, done in order off the dealer's thread.

Jobs run one after another in the order they were submitted; each submission returns a ticket
and :meth:`Writer.when_done` / :meth:`Writer.wait` tell when everything up to a ticket has run.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import deque
from collections.abc import Callable

Job = Callable[[], None]
log = logging.getLogger("arena.writer")


class Writer:
    """One background thread running submitted jobs in order (started on the first job).

    A job must catch its own errors (the writer only logs what escapes and runs on).
    """

    def __init__(self, name: str = "arena-writer") -> None:
        self._name = name
        self._jobs: deque[tuple[int, Job]] = deque()
        self._watchers: list[tuple[int, Callable[[], None]]] = []
        self._cond = threading.Condition()
        self._submitted = 0
        self._done = 0
        self._closed = False
        self._thread: threading.Thread | None = None
        self.cpu_seconds = 0.0  # the CPU time of the writer's thread so far (benchmarks)

    def submit(self, job: Job) -> int:
        """Queue a job; its ticket (tickets grow by one per job)."""
        with self._cond:
            if self._closed:
                raise RuntimeError("the writer is closed")
            self._submitted += 1
            self._jobs.append((self._submitted, job))
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify_all()
            return self._submitted

    def done(self, ticket: int) -> bool:
        """Whether the job of ``ticket`` (and every earlier one) has run."""
        return self._done >= ticket

    def when_done(self, ticket: int, callback: Callable[[], None]) -> bool:
        """Call ``callback`` on the writer's thread once ``ticket`` has run; False (and no call)
        when it has run already."""
        with self._cond:
            if self._done >= ticket:
                return False
            self._watchers.append((ticket, callback))
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
        while True:
            with self._cond:
                while not self._jobs and not self._closed:
                    self._cond.wait()
                if not self._jobs:
                    return
                batch = list(self._jobs)
                self._jobs.clear()
            started = time.thread_time()
            for ticket, job in batch:
                try:
                    job()
                except Exception:  # a job's escaped error must not stop the others
                    log.exception("writer job failed")
                self._finished(ticket)
            self.cpu_seconds += time.thread_time() - started

    def _finished(self, ticket: int) -> None:
        with self._cond:
            self._done = ticket
            ready = [cb for t, cb in self._watchers if t <= ticket]
            if ready:
                self._watchers = [(t, cb) for t, cb in self._watchers if t > ticket]
            self._cond.notify_all()
        for callback in ready:
            callback()

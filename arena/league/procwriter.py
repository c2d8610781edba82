"""A writer process: the league's SQLite commits and log files, done in another process.

The dealer's process makes each hand's event JSON itself and hands the child one small message
per hand with the hand's PHH fields (plain values, ``marshal``: no pickling of the dealer's
objects); the child writes their PHH text, commits the hand (with the next hand's in-flight
mark), appends it to the log files and answers with the ticket committed. A table deals its
next hand only once that answer is in. No thread of the dealer's process shares its
interpreter lock with the writer: the answers are read on the dealer's own loop.

Messages both ways: a 4-byte little-endian length, then a ``marshal`` tuple (see
`arena.storage.writer_child` for the child's side). A message from the child that is cut
short or not of the expected form is a `WriterProcessError`; so is the child ending while
tickets wait: every table waiting for it is told.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import os
import select
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Literal

import trio

from arena.storage.framing import WriterProcessError, frame, unframe

_PIPE_BYTES = 1 << 20  # the pipe to the child: room for every table's hand at once
_F_SETPIPE_SZ = 1031
_READ_BYTES = 1 << 16  # answers are 10-20 bytes: this is hundreds of them


class ProcessWriter:
    """The writer process of one league run (started at once; :meth:`close` ends it).

    :meth:`submit` sends a job and returns its ticket (tickets grow by one); the child commits
    jobs in order, several at a time (one transaction, one fsync). On the dealer's loop,
    :meth:`wait_committed` returns once a ticket is committed; :meth:`wait` blocks for it.
    ``on_committed`` and ``on_failed`` of a job are called on the thread that reads the answer
    (the dealer's)."""

    def __init__(self, store_path: Path, *, synchronous: Literal["FULL", "NORMAL"] = "FULL",
                 command: Sequence[str] | None = None) -> None:
        """``command``: another child than `arena.storage.writer_child` (tests)."""
        self._proc = subprocess.Popen(
            command or [sys.executable, "-P", "-m", "arena.storage.writer_child", str(store_path),
                        synchronous],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._to_child = self._proc.stdin.fileno()
        self._from_child = self._proc.stdout.fileno()
        with contextlib.suppress(OSError):  # a smaller pipe only makes a send wait sooner
            fcntl.fcntl(self._to_child, _F_SETPIPE_SZ, _PIPE_BYTES)
        os.set_blocking(self._from_child, False)
        self._buffer = bytearray()
        self._submitted = 0
        self._committed = 0
        self._pending: deque[tuple[int, float, Callable[[], None] | None,
                                   Callable[[str], None]]] = deque()
        self._waiters: list[tuple[int, trio.Event, trio.lowlevel.TrioToken]] = []
        self._reader: asyncio.AbstractEventLoop | trio.lowlevel.TrioToken | None = None
        # The trio run hosted by the asyncio loop that reads the answers: its tables are woken
        # by ``call_here`` (`arena.server.bridge.TrioGuest.call_here`), set by the league.
        self.call_here: Callable[..., object] | None = None
        self._here: trio.lowlevel.TrioToken | None = None
        self.error: WriterProcessError | None = None  # the child can no longer be used
        self.cpu_seconds = 0.0  # the child's CPU time after its start-up, once it has ended
        self.startup_cpu_seconds = 0.0  # ... and that of its start-up (imports, opening the store)
        self.batches = 0  # commits (benchmarks)
        self.commit_wait_seconds = 0.0  # from each job's submission to its commit, summed

    def submit(self, job: tuple[object, ...], *, on_committed: Callable[[], None] | None,
               on_failed: Callable[[str], None]) -> int:
        """Send ``job`` (its ticket goes first); its ticket."""
        if self.error is not None:
            raise self.error
        ticket = self._submitted + 1
        data = memoryview(frame((job[0], ticket, *job[1:])))  # may raise: no ticket taken then
        self._submitted = ticket
        self._pending.append((ticket, time.perf_counter(), on_committed, on_failed))
        try:
            while data:
                data = data[os.write(self._to_child, data):]
        except OSError as exc:
            self._fail(f"the writer process cannot be written to: {exc}")
            raise self.error from None  # type: ignore[misc]  # set by _fail just above
        return ticket

    def committed(self, ticket: int) -> bool:
        """Whether ``ticket`` is answered (committed, or failed: its ``on_failed`` has run)."""
        return self._committed >= ticket or self.error is not None

    async def wait_committed(self, ticket: int) -> None:
        """(On trio) Return once ``ticket`` is answered."""
        if self.committed(ticket):
            return
        token = trio.lowlevel.current_trio_token()
        self._start_reading(token)  # an answer already in is read soon (its fd is readable)
        event = trio.Event()
        self._waiters.append((ticket, event, token))
        await event.wait()

    def wait(self, ticket: int | None = None, timeout_seconds: float = 60.0) -> None:
        """Block until ``ticket`` (default: every job sent) is answered."""
        target = self._submitted if ticket is None else ticket
        deadline = time.monotonic() + timeout_seconds
        while not self.committed(target):
            left = deadline - time.monotonic()
            if left <= 0:
                raise WriterProcessError(f"no answer from the writer process in {timeout_seconds:g} s")
            select.select([self._from_child], [], [], left)
            self._read()

    def close(self, timeout_seconds: float = 60.0) -> None:
        """Let the child commit and log what it has, then end it."""
        self._stop_reading()
        if self._proc.stdin is not None and not self._proc.stdin.closed:
            with contextlib.suppress(OSError):
                self._proc.stdin.close()
        deadline = time.monotonic() + timeout_seconds
        while self.error is None and time.monotonic() < deadline:
            select.select([self._from_child], [], [], max(0.0, deadline - time.monotonic()))
            self._read()
        try:
            self._proc.wait(max(0.0, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        if self.error is None:  # killed before its last answer: nothing more may be sent (the
            # pipe's descriptor number may be another file's by then)
            self._fail(f"the writer process did not end within {timeout_seconds:g} s and was killed")
        if self._proc.stdout is not None:
            self._proc.stdout.close()

    # ------------------------------------------------------------ answers

    def _start_reading(self, token: trio.lowlevel.TrioToken) -> None:
        """Read answers as they come: on the asyncio loop trio runs in as a guest (no other
        thread involved), else in a trio system task."""
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        if loop is not None:
            if self._reader is not loop:
                self._stop_reading()
                loop.add_reader(self._from_child, self._read)
                self._reader = loop
                self._here = token if self.call_here is not None else None
        elif self._reader is not token:
            self._reader = token
            trio.lowlevel.spawn_system_task(self._read_on_trio)

    def _stop_reading(self) -> None:
        reader, self._reader = self._reader, None
        self._here = None
        if isinstance(reader, asyncio.AbstractEventLoop) and not reader.is_closed():
            with contextlib.suppress(RuntimeError, ValueError, OSError):
                reader.remove_reader(self._from_child)

    async def _read_on_trio(self) -> None:
        token = trio.lowlevel.current_trio_token()
        while self._reader is token and self.error is None:
            await trio.lowlevel.wait_readable(self._from_child)
            self._read()

    def _read(self) -> None:
        """Take in what the child has answered so far."""
        if self.error is not None:
            return
        ended = False
        try:  # one read: what is left makes the fd readable again (no EAGAIN raised each time)
            data = os.read(self._from_child, _READ_BYTES)
            ended = not data
            self._buffer += data
        except BlockingIOError:
            pass
        except OSError as exc:
            self._fail(f"the writer process cannot be read: {exc}")
            return
        try:
            for message in unframe(self._buffer):
                self._take(message)
        except WriterProcessError as exc:
            self._fail(f"the writer process answered wrongly: {exc}")
            return
        if ended:
            status = self._proc.wait()
            self._fail(f"the writer process ended in the middle of a message (exit status {status})"
                       if self._buffer else f"the writer process ended (exit status {status})"
                       if self._pending else "")
            return
        # Once every answer read is taken in: the tables woken may run right away (`call_here`)
        # and wait on this writer again.
        self._wake()

    def _take(self, message: tuple[object, ...]) -> None:
        kind = message[0]
        if kind == "committed" and len(message) == 2 and isinstance(message[1], int):
            self._answered(message[1], None)
        elif (kind == "failed" and len(message) == 3 and isinstance(message[1], int)
              and isinstance(message[2], str)):
            self._answered(message[1], message[2])
        elif (kind == "ended" and len(message) == 4 and isinstance(message[1], float)
              and isinstance(message[2], int) and isinstance(message[3], float)):
            self.cpu_seconds, self.batches = message[1], message[2]
            self.startup_cpu_seconds = message[3]
        else:
            raise WriterProcessError(f"unknown answer {message!r:.200}")

    def _answered(self, ticket: int, failure: str | None) -> None:
        """Every job up to ``ticket`` is committed; ``failure``: that one failed instead."""
        if failure is None and ticket == self._committed:
            return  # its last job failed: answered already
        if not self._committed < ticket <= self._submitted:
            raise WriterProcessError(f"an answer for ticket {ticket}, expected {self._committed + 1} "
                                     f"to {self._submitted}")
        now = time.perf_counter()
        while self._pending and self._pending[0][0] <= ticket:
            done, submitted_at, on_committed, on_failed = self._pending.popleft()
            self.commit_wait_seconds += now - submitted_at
            if done == ticket and failure is not None:
                on_failed(failure)
            elif on_committed is not None:
                on_committed()
        self._committed = ticket

    def _fail(self, reason: str) -> None:
        """The child is gone (``reason`` empty: as asked, with nothing waiting) or unusable."""
        self.error = WriterProcessError(reason or "the writer process has ended")
        self._stop_reading()
        pending, self._pending = self._pending, deque()
        for _ticket, _at, _committed, on_failed in pending:
            on_failed(str(self.error))
        self._wake()

    def _wake(self) -> None:
        """Set the events of the tables whose tickets are answered: one call into trio per run;
        into the trio run hosted by the loop that reads the answers, right here (no write to
        trio's wake-up socket, no hop through its queue: the woken tables run in this callback
        when trio was idle)."""
        gone = self.error is not None
        due: dict[trio.lowlevel.TrioToken, list[trio.Event]] = {}
        waiting: list[tuple[int, trio.Event, trio.lowlevel.TrioToken]] = []
        for waiter in self._waiters:
            if gone or waiter[0] <= self._committed:
                due.setdefault(waiter[2], []).append(waiter[1])
            else:
                waiting.append(waiter)
        if due:
            self._waiters = waiting
            for token, events in due.items():
                if token is self._here and self.call_here is not None:
                    self.call_here(_set_all, events)
                    continue
                with contextlib.suppress(trio.RunFinishedError):
                    token.run_sync_soon(_set_all, events)


def _set_all(events: list[trio.Event]) -> None:
    for event in events:
        event.set()

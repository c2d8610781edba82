"""The writer process (`arena.league.procwriter`): ``python -m arena.storage.writer_child STORE
SYNC`` reads jobs on stdin, commits them to the SQLite store, answers on stdout, logs.

The jobs waiting together are one transaction (one commit, one fsync); when a job is refused
or that commit fails, each job is committed on its own, so that one bad job fails alone. Once committed the
child appends the committed hands to their PHH and event logs (two writes a hand) and then
answers ``("committed", last ticket)`` (a failed job first gets ``("failed", ticket,
reason)``): a table whose match ends after that answer finds its logs complete (the dealer
appends the match's last event line itself). At the end of its input it answers ``("ended",
its CPU seconds since its start-up, commits, its start-up's CPU seconds)`` and exits. Jobs
(after the kind and the ticket):

- ``hand``: store match id, copy, hand number, deal id, game, small bet, button (engine
  seat), seats (tuples of `SeatResult`'s fields), the hand's PHH fields (a dict of plain
  values, `arena.match.records.phh_fields`: the child writes their text, the store's copy and
  the log's, off the dealer's thread) or its PHH text, start and end (ISO text), the PHH
  log's path, the event log's path, the event lines (bytes), the next hand's number to mark in
  flight (0: none);
- ``void``: as ``hand`` with the void reason in place of the seats (and the voided hands' log);
- ``mark``: store match id, copy, hand number (the first hand of a table);
- ``close``: the paths of a match's logs (its table has ended).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from arena.engine.phhtext import dumps_hand
from arena.storage.framing import frame, unframe
from arena.storage.phhappend import PhhAppender
from arena.storage.records import HandRecord, SeatResult, VoidHand
from arena.storage.sqlite import SqliteStore

Step = Callable[[], None]
_READ_BYTES = 1 << 20  # a read takes up to this much (what all the tables sent meanwhile)


class _Logs:
    """The open log files of the matches whose hands this child appends."""

    def __init__(self) -> None:
        self._hands: dict[str, PhhAppender] = {}
        self._events: dict[str, int] = {}

    def append(self, hands_path: str, phh_text: str, events_path: str, lines: bytes) -> None:
        appender = self._hands.get(hands_path)
        if appender is None:
            appender = self._hands[hands_path] = PhhAppender(Path(hands_path), fresh=False)
        appender.append(phh_text)
        if lines:
            fd = self._events.get(events_path)
            if fd is None:
                fd = self._events[events_path] = os.open(
                    events_path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
            view = memoryview(lines)
            while view:
                view = view[os.write(fd, view):]

    def close(self, paths: tuple[str, ...]) -> None:
        for path in paths:
            appender = self._hands.pop(path, None)
            if appender is not None:
                appender.close()
            fd = self._events.pop(path, None)
            if fd is not None:
                os.close(fd)

    def close_all(self) -> None:
        self.close((*self._hands, *self._events))


def _phh_fields(value: object) -> dict[str, object]:
    if not isinstance(value, dict) or not all(isinstance(key, str) for key in value):
        raise ValueError(f"a hand's PHH fields are not a table of names: {type(value).__name__}")
    return value


def _run_job(store: SqliteStore, logs: _Logs, job: tuple[Any, ...]) -> Step | None:
    """Write one job in the store (in the current batch); what to log once it is committed."""
    kind = job[0]
    if kind == "mark":
        _kind, _ticket, match_id, copy_index, hand_number = job
        store.mark_in_flight(match_id, copy_index, hand_number)
        return None
    if kind == "close":
        paths = tuple(job[2:])
        return lambda: logs.close(paths)
    if kind not in ("hand", "void"):
        raise ValueError(f"unknown job {kind!r}")
    (_kind, _ticket, match_id, copy_index, hand_number, deal_id, game, small_bet, button, detail,
     phh, started, ended, hands_path, events_path, lines, mark) = job
    phh_text = phh if isinstance(phh, str) else dumps_hand(_phh_fields(phh))
    if kind == "hand":
        store.record_hand(HandRecord(
            match_id=match_id, hand_number=hand_number, copy_index=copy_index, deal_id=deal_id,
            game_code=game, small_bet_chips=small_bet, button_seat=button,
            seats=tuple(SeatResult(*seat) for seat in detail), phh_text=phh_text,
            started_at=datetime.fromisoformat(started), finished_at=datetime.fromisoformat(ended)))
    else:
        store.void_hand(VoidHand(
            match_id=match_id, hand_number=hand_number, copy_index=copy_index, deal_id=deal_id,
            game_code=game, small_bet_chips=small_bet, button_seat=button, reason=detail,
            phh_text=phh_text, started_at=datetime.fromisoformat(started),
            voided_at=datetime.fromisoformat(ended)))
    if mark:
        store.mark_in_flight(match_id, copy_index, mark)
    return lambda: logs.append(hands_path, phh_text, events_path, lines)


def _commit(store: SqliteStore, logs: _Logs, jobs: list[tuple[Any, ...]],
            answer: Callable[[tuple[object, ...]], None]) -> None:
    """Commit ``jobs`` (one transaction; each alone if that fails), log them, answer.

    The writes keep no savepoint of their own (`SqliteStore`'s ``write_savepoints``): a job the
    store refuses fails the whole transaction, and each job is then made again alone."""
    failures: dict[int, str] = {}
    steps: list[tuple[int, Step]] = []
    try:
        with store.batch():
            for job in jobs:
                step = _run_job(store, logs, job)
                if step is not None:
                    steps.append((job[1], step))
    except Exception:
        steps.clear()
        for job in jobs:
            try:
                with store.batch():
                    step = _run_job(store, logs, job)
            except Exception as exc:  # not committed: nor logged
                failures[job[1]] = f"{type(exc).__name__}: {exc}"
                continue
            if step is not None:
                steps.append((job[1], step))
    for ticket, step in steps:
        try:
            step()
        except Exception as exc:  # its table stops, as if the dealer had stopped there
            failures[ticket] = f"writing its logs failed: {type(exc).__name__}: {exc}"
    for ticket in sorted(failures):
        answer(("failed", ticket, failures[ticket]))
    answer(("committed", jobs[-1][1]))


def main(argv: list[str]) -> int:
    # Ctrl-C in a terminal or a service manager's SIGTERM reaches the dealer's whole process
    # group: the dealer stops its tables and hands over what it still has, so the child must
    # live on until the dealer closes its stdin (or dies: end of file all the same).
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    store_path, synchronous = argv
    store = SqliteStore(store_path, synchronous=cast(Any, synchronous), write_savepoints=False)
    logs = _Logs()
    buffer = bytearray()
    batches = 0
    started_cpu = time.process_time()  # after its start-up (imports, the store opened)

    def answer(message: tuple[object, ...]) -> None:
        data = memoryview(frame(message))
        while data:
            data = data[os.write(1, data):]

    scratch = bytearray(_READ_BYTES)  # read into, again and again: os.read would map a fresh
    into = memoryview(scratch)  # megabyte per call and shrink it (mmap, mremap, munmap a batch)
    try:
        while True:
            size = os.readv(0, (scratch,))
            if not size:
                break
            buffer += into[:size]
            jobs = cast(list[tuple[Any, ...]], unframe(buffer))
            if not jobs:
                continue
            batches += 1
            _commit(store, logs, jobs, answer)
        answer(("ended", time.process_time() - started_cpu, batches, started_cpu))
    finally:
        logs.close_all()
        store.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

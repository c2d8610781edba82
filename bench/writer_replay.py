"""The writer process's CPU per hand, offline: one league's jobs replayed through the child.

    python -m bench.writer_replay [--hands 40] [--passes 8] [--against CHECKOUT]

Plays one league of `bench.league` (store and logs on) keeping every message the dealer sent
its writer process, then sends them again, one job at a time awaiting its answer as a table
does, to a fresh ``arena.storage.writer_child`` on a copy of the store as it was before the
league's hands (same leagues, bots and matches). Prints the child's CPU per hand after its
start-up (its own ``process_time``), its wall time per hand and its voluntary switches, pass
by pass; with ``--against`` the passes alternate with that checkout's child (its
``.venv/bin/python``), each pass in the other order, and the medians are compared: both are
then sent each hand's PHH text, made here, as a child before 9cce914 takes it (the dealer
sends the fields, whose text the child writes), so that both do the same work. No dealer, no
bots: the child's own work, its pipe and its fsyncs, without the league's noise.
"""

from __future__ import annotations

import argparse
import marshal
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from unittest import mock

from arena.engine.phh import dumps_hand
from arena.league import procwriter
from arena.storage.framing import frame, unframe
from bench.league import _config, run_with_store


@dataclass(frozen=True, slots=True)
class Pass:
    cpu_ms_per_hand: float
    wall_ms_per_hand: float
    switches_per_hand: float
    commits: int


def capture(hands: int, workdir: Path) -> tuple[list[tuple[object, ...]], Path]:
    """One league's messages to its writer process, and its store with no hand in it."""
    sent: list[tuple[object, ...]] = []

    def keep(message: tuple[object, ...]) -> bytes:
        sent.append(message)
        return frame(message)

    config = _config(workdir / "league", hands=hands, tables_at_once=16)
    (workdir / "league").mkdir()
    with mock.patch.object(procwriter, "frame", keep):
        run_with_store(config)
    assert isinstance(config.store, Path)
    empty = workdir / "empty.sqlite"
    shutil.copy(config.store, empty)
    db = sqlite3.connect(empty, isolation_level=None)
    try:
        for sql in ("DELETE FROM hand_seats", "DELETE FROM hands", "DELETE FROM hands_in_flight",
                    "UPDATE matches SET status = 'running', seed = NULL, finished_at = NULL", "VACUUM"):
            db.execute(sql)
    finally:
        db.close()
    return sent, empty


def _in(logs: Path, job: tuple[object, ...]) -> tuple[object, ...]:
    """``job`` with its log files' paths moved into ``logs``."""
    def moved(path: object) -> str:
        return str(logs / Path(str(path)).name)

    if job[0] in ("hand", "void"):
        return (*job[:13], moved(job[13]), moved(job[14]), *job[15:])
    if job[0] == "close":
        return (*job[:2], *(moved(path) for path in job[2:]))
    return job


def _with_text(job: tuple[object, ...]) -> tuple[object, ...]:
    """A hand's job with its PHH fields replaced by their text."""
    if job[0] in ("hand", "void") and isinstance(job[10], dict):
        return (*job[:10], dumps_hand(job[10]), *job[11:])
    return job


def replay(python: str, jobs: list[tuple[object, ...]], empty: Path, workdir: Path) -> Pass:
    """The jobs through a fresh child of ``python`` on a copy of ``empty``."""
    work = Path(tempfile.mkdtemp(dir=workdir))
    store = work / "store.sqlite"
    shutil.copy(empty, store)
    (work / "logs").mkdir()
    child = subprocess.Popen([python, "-P", "-m", "arena.storage.writer_child", str(store), "FULL"],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert child.stdin is not None and child.stdout is not None
    to_child, from_child = child.stdin.fileno(), child.stdout.fileno()
    answers = bytearray()

    def answered() -> list[tuple[object, ...]]:
        data = os.read(from_child, 1 << 16)
        if not data:
            raise RuntimeError("the writer process ended early")
        answers.extend(data)
        return unframe(answers)

    hands = sum(job[0] in ("hand", "void") for job in jobs)
    started = time.perf_counter()
    for job in jobs:
        os.write(to_child, frame(_in(work / "logs", job)))
        done = False
        while not done:
            for answer in answered():
                if answer[0] == "failed":
                    raise RuntimeError(f"a replayed job failed: {answer}")
                done = done or (answer[0] == "committed" and answer[1] == job[1])
    wall = time.perf_counter() - started
    child.stdin.close()
    ended: tuple[object, ...] = ()
    while not ended:
        ended = next((a for a in answered() if a[0] == "ended"), ())
    _pid, _status, usage = os.wait4(child.pid, 0)
    child.returncode = 0
    child.stdout.close()
    shutil.rmtree(work)
    cpu, commits = ended[1], ended[2]
    assert isinstance(cpu, float) and isinstance(commits, int)
    return Pass(cpu / hands * 1e3, wall / hands * 1e3, usage.ru_nvcsw / hands, commits)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=40, help="hands per match of the captured league")
    parser.add_argument("--passes", type=int, default=8)
    parser.add_argument("--against", type=Path, help="another checkout (with its .venv) to alternate with")
    args = parser.parse_args(argv)
    children = {"this": sys.executable}
    if args.against is not None:
        children["against"] = str(args.against / ".venv" / "bin" / "python")
    workdir = Path(tempfile.mkdtemp(prefix="arena-bench-replay-"))
    try:
        messages, empty = capture(args.hands, workdir)
        jobs = [m for m in messages if m[0] in ("hand", "void", "mark", "close")]
        if args.against is not None:
            jobs = [_with_text(job) for job in jobs]
        hands = sum(job[0] in ("hand", "void") for job in jobs)
        print(f"captured {len(jobs)} jobs ({hands} hands, {len(marshal.dumps(jobs)) / hands / 1024:.1f} "
              f"KB a hand); replayed one job a commit, {args.passes} passes")
        results: dict[str, list[Pass]] = {name: [] for name in children}
        for k in range(args.passes):
            order = list(children) if k % 2 == 0 else list(children)[::-1]
            for name in order:
                done = replay(children[name], jobs, empty, workdir)
                results[name].append(done)
                print(f"pass {k + 1} {name}: child {done.cpu_ms_per_hand:.3f} ms/hand of CPU, "
                      f"{done.wall_ms_per_hand:.3f} ms/hand of wall time, "
                      f"{done.switches_per_hand:.2f} voluntary switches a hand, {done.commits} commits",
                      flush=True)
        medians = {name: statistics.median(p.cpu_ms_per_hand for p in passes)
                   for name, passes in results.items()}
        for name, value in medians.items():
            print(f"median {name}: {value:.3f} ms/hand (min "
                  f"{min(p.cpu_ms_per_hand for p in results[name]):.3f})")
        if "against" in medians:
            print(f"this / against: {medians['this'] / medians['against']:.0%}")
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

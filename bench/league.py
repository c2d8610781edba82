"""League throughput: instant bots over gRPC, 16 tables at once, with the SQLite store and hand
logs on, and the same schedule with them off, in one run.

    python -m bench.league [--hands 40] [--tables-at-once 16] [--rounds 15] [--sync NORMAL]
    python -m bench.league --writer-stages [--hands 20]   # the writer's work alone, per hand

Besides hands/s it reports the CPU per hand of the dealer's thread (where the tables run), of
the whole dealer process, of the store and logs' writer (a thread of the dealer's), from the moment
the server listens until the league has ended, and of the bots' processes; and the same
figures over the play window alone, from the moment the last bot's stream is authenticated
until the league has ended (the bots' start-up, ~1.4 s of imports and connecting in both modes,
and their exit left out: the steady state a long league shows). A short pair of
runs warms the process up first (not counted); the two modes alternate, each round in the
other order; the ratios are the medians over the rounds of each round's pair (on a loaded machine
single runs vary by +-20%: 15 rounds, ~2 minutes, put the median in an interval of ~8-14
points), and the CPU per hand of everything gives the ratio a machine whose every core is busy
would show: hands/s go as 1 / CPU per hand. ``--sync NORMAL`` opens the
store without an fsync at each commit (it still survives SIGKILL, not a power loss): what the
commit's fsync costs, not how a league runs (``FULL``).
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal
from unittest import mock

from arena.engine.phh import dumps_hand
from arena.league.config import LeagueBot, LeagueConfig
from arena.league.runner import LeagueRun
from arena.league.sink import LeagueSink
from arena.match.messages import Notice
from arena.match.records import PlayedHand, phh_fields
from arena.practice import stop_processes
from arena.server.app import serve
from arena.server.config import BotEntry, ServerConfig
from arena.server.eventrecord import LogRecords
from arena.server.service import DealerService
from arena.storage.eventlog import frame
from arena.storage.sqlite import SqliteStore
from bench.median import median_interval
from bench.scratch import scratch_dir

BOT_COUNT = 8


def _config(workdir: Path, *, hands: int, tables_at_once: int) -> LeagueConfig:
    return LeagueConfig(
        name="bench", bots=tuple(LeagueBot(f"bot{k}", f"bench-token-{k:04d}") for k in range(BOT_COUNT)),
        format="multiway", seats_per_table=4, tables=tables_at_once // 4, duplicate=True,
        hands_per_match=hands, tables_at_once=tables_at_once, seed=3, listen="127.0.0.1:0",
        store=workdir / "league.sqlite", log_dir=workdir / "logs", start_timeout_seconds=30)


def _start_bots(address: str, config: LeagueConfig) -> list[subprocess.Popen[bytes]]:
    return [subprocess.Popen([sys.executable, "-m", "arena.cli", "bot", "call", "--server", address,
                              "--token", bot.token, "--name", bot.name],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for bot in config.bots]


@dataclass
class Clocks:
    """Wall time, the dealer thread's CPU and the process's CPU, from when the server listens."""

    wall: float = 0.0
    thread_cpu: float = 0.0
    process_cpu: float = 0.0
    writer_cpu: float = 0.0  # the store and logs' writer, thread or process (logs on)
    commits: int = 0  # the writer's batches (group commits)
    commit_wait: float = 0.0  # from each hand's handing over to its commit, summed (the table waits)
    bots_cpu: float = 0.0  # the bots' processes, counted once they have ended
    play: Clocks | None = None  # the play window's (wall, thread, process and bots' CPU)
    bot_pids: tuple[int, ...] = ()
    connect_spread: float = 0.0  # from the first bot's authenticated stream to the last's

    def start(self) -> None:
        self.wall, self.thread_cpu, self.process_cpu = time.perf_counter(), time.thread_time(), _process_cpu()
        self.bots_cpu = _process_cpu(resource.RUSAGE_CHILDREN)

    def all_connected(self, pids: tuple[int, ...], spread: float) -> None:
        """On the dealer's thread, when the last bot's stream is authenticated: the play
        window starts (the bots' CPU read from /proc while they run)."""
        self.bot_pids, self.connect_spread = pids, spread
        self.play = Clocks(time.perf_counter(), time.thread_time(), _process_cpu(),
                           bots_cpu=_bots_cpu(pids))

    def stop(self) -> Clocks:
        """When the league has ended, before the bots are stopped."""
        play = None
        if self.play is not None:
            play = Clocks(time.perf_counter() - self.play.wall, time.thread_time() - self.play.thread_cpu,
                          _process_cpu() - self.play.process_cpu,
                          bots_cpu=_bots_cpu(self.bot_pids) - self.play.bots_cpu)
        return Clocks(time.perf_counter() - self.wall, time.thread_time() - self.thread_cpu,
                      _process_cpu() - self.process_cpu, bots_cpu=self.bots_cpu, play=play,
                      connect_spread=self.connect_spread)

    def bots_ended(self) -> None:
        """After the bots have been stopped and reaped: their CPU."""
        self.bots_cpu = _process_cpu(resource.RUSAGE_CHILDREN) - self.bots_cpu


def _process_cpu(who: int = resource.RUSAGE_SELF) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


_CLOCK_TICKS_PER_SECOND = os.sysconf("SC_CLK_TCK")


def _bots_cpu(pids: tuple[int, ...]) -> float:
    """User and system CPU seconds of running processes, from /proc/<pid>/stat (fields 14, 15)."""
    ticks = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        ticks += int(fields[11]) + int(fields[12])
    return ticks / _CLOCK_TICKS_PER_SECOND


@contextmanager
def _play_window(procs: list[subprocess.Popen[bytes]], clocks: Clocks) -> Iterator[None]:
    """Starts ``clocks``' play window once every bot's stream is authenticated (the dealer's
    service, interpreted, wrapped for the run)."""
    authenticate = DealerService._authenticate
    first_seconds: list[float] = []
    seen: set[str] = set()

    async def counting(service: DealerService, context: object) -> BotEntry:
        bot = await authenticate(service, context)  # type: ignore[arg-type]
        first_seconds[:] = first_seconds or [time.perf_counter()]
        if bot.bot_id not in seen:
            seen.add(bot.bot_id)
            if len(seen) == BOT_COUNT:
                clocks.all_connected(tuple(p.pid for p in procs), time.perf_counter() - first_seconds[0])
        return bot

    with mock.patch.object(DealerService, "_authenticate", counting):
        yield


def _bots_on_ready(config: LeagueConfig, procs: list[subprocess.Popen[bytes]],
                   clocks: Clocks) -> Callable[[int], None]:
    """When the server listens (on the dealer's thread): start the bots and the clocks."""

    def ready(port: int) -> None:
        procs.extend(_start_bots(f"127.0.0.1:{port}", config))
        clocks.start()

    return ready


def run_with_store(config: LeagueConfig, sync: Literal["FULL", "NORMAL"] = "FULL"
                   ) -> tuple[int, Clocks]:
    assert isinstance(config.store, Path)
    store = SqliteStore(config.store, synchronous=sync)
    run = LeagueRun(config, out=open("/dev/null", "w"), store=store)  # noqa: SIM115
    procs: list[subprocess.Popen[bytes]] = []
    clocks = Clocks()
    ready = _bots_on_ready(config, procs, clocks)

    try:
        with _play_window(procs, clocks):
            run.run(on_ready=ready)
        used = clocks.stop()
    finally:
        stop_processes(procs)
        run.close()
    try:
        done = run.writer
        used.writer_cpu = done.cpu_seconds
        used.commits = done.batches
        used.commit_wait = done.commit_wait_seconds
        hands = sum(1 for _ in run.store.iter_results(1)) // 4
    finally:
        store.close()
    used.bots_ended()
    return hands, used


def run_without_store(config: LeagueConfig) -> tuple[int, Clocks]:
    run = LeagueRun(config, out=open("/dev/null", "w"))  # noqa: SIM115
    try:
        specs = run.prepare().specs
    finally:
        run.close()
    server_config = ServerConfig(listen=config.listen,
                                 bots=tuple(BotEntry(b.name, b.name, b.token) for b in config.bots),
                                 matches=tuple(specs))
    procs: list[subprocess.Popen[bytes]] = []
    clocks = Clocks()
    ready = _bots_on_ready(config, procs, clocks)

    try:
        with _play_window(procs, clocks):
            result = asyncio.run(serve(server_config, on_ready=ready, sink_factory=lambda spec: None,
                                       max_tables_at_once=config.tables_at_once))
        used = clocks.stop()
    finally:
        stop_processes(procs)
    used.bots_ended()
    return sum(s.hands_played for s in result.summaries), used


def writer_stages(hands: int, tables_at_once: int) -> None:
    """One league with store and logs on, keeping every hand the writer got; then the writer's
    work for those hands again on this thread alone (no dealer, no GIL hand-over): the event
    JSON, the PHH text, and the whole of it (the store's queries, 16 hands to a commit)."""
    kept: list[tuple[LeagueSink, PlayedHand, list[tuple[Notice, list[int], float]]]] = []
    hand_finished = LeagueSink.hand_finished

    def keep(sink: LeagueSink, hand: PlayedHand) -> None:
        kept.append((sink, hand, list(sink.event_log._held)))
        hand_finished(sink, hand)

    config = _config(scratch_dir("arena-bench-league-"), hands=hands,
                     tables_at_once=tables_at_once)
    with mock.patch.object(LeagueSink, "hand_finished", keep):
        played, used = run_with_store(config)
    print(f"league: {played} hands, {played / used.wall:.1f} hands/s, writer thread "
          f"{used.writer_cpu / played * 1e3:.2f} ms/hand of CPU")

    def per_hand(work: Callable[[], object]) -> float:
        best = math.inf
        for _ in range(5):
            started = time.thread_time()
            work()
            best = min(best, time.thread_time() - started)
        return best / len(kept) * 1e3

    def records() -> list[bytes]:
        codec = LogRecords()
        return [frame(codec.records(events)) for _, _, events in kept]

    records_ms = per_hand(records)
    phh_ms = per_hand(lambda: [dumps_hand(phh_fields(hand)) for _, hand, _ in kept])
    again = LeagueRun(_config(scratch_dir("arena-bench-league-"), hands=hands,
                              tables_at_once=tables_at_once), out=open("/dev/null", "w"))  # noqa: SIM115
    try:
        sinks = again.prepare().sinks
        now = datetime.now(UTC)
        started = time.thread_time()
        for first in range(0, len(kept), 16):
            with again.store.batch():
                steps = [sinks[sink.scheduled.match_id]._write_hand(hand, events, now, now)
                         for sink, hand, events in kept[first:first + 16]]
                for sink, hand, _ in kept[first:first + 16]:
                    sinks[sink.scheduled.match_id]._mark_in_flight(hand.hand_number + 1)
            for step in steps:
                step()
        whole_ms = (time.thread_time() - started) / len(kept) * 1e3
        for fresh in sinks.values():
            fresh.log.close()
    finally:
        again.close()
    print(f"the writer's work alone, ms/hand: event records {records_ms:.3f}, PHH text "
          f"{phh_ms:.3f}, all of it (store queries and commits, PHH, events, files) {whole_ms:.3f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--tables-at-once", type=int, default=16)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--sync", choices=("FULL", "NORMAL"), default="FULL",
                        help="the store's synchronous mode (NORMAL: no fsync per commit)")
    parser.add_argument("--writer-stages", action="store_true",
                        help="one league (logs on), then the writer's work for its hands alone")
    args = parser.parse_args(argv)
    if args.writer_stages:
        writer_stages(args.hands, args.tables_at_once)
        return 0
    rows: list[tuple[str, int, Clocks]] = []
    # A short pair first, not counted: the first league of a process pays for warming up.
    for runner in (run_with_store, run_without_store):
        runner(_config(scratch_dir("arena-bench-league-"), hands=4,
                       tables_at_once=args.tables_at_once))
    for round_index in range(args.rounds):
        # The order alternates, so that neither mode always runs first in its pair.
        modes = ("store and logs on", "store and logs off")
        for mode in modes if round_index % 2 == 0 else modes[::-1]:
            workdir = scratch_dir("arena-bench-league-")
            config = _config(workdir, hands=args.hands, tables_at_once=args.tables_at_once)
            hands, used = (run_with_store(config, args.sync) if mode.endswith("on")
                           else run_without_store(config))
            rows.append((mode, hands, used))
            print(f"round {round_index + 1} {mode}: {hands} hands in {used.wall:.1f} s, "
                  f"dealer thread {used.thread_cpu / hands * 1e3:.2f} ms/hand, "
                  f"process {used.process_cpu / hands * 1e3:.2f} ms/hand, "
                  f"writer {used.writer_cpu / hands * 1e3:.2f} ms/hand, "
                  f"bots {used.bots_cpu / hands * 1e3:.2f} ms/hand"
                  + (f", {used.commits} commits, {used.commit_wait / hands * 1e3:.1f} ms from "
                     "handing a hand to the writer to its commit" if used.commits else "")
                  + (f"; play window {used.play.wall:.1f} s ({hands / used.play.wall:,.1f} hands/s, "
                     f"bots connected within {used.connect_spread * 1e3:.0f} ms), dealer thread "
                     f"{used.play.thread_cpu / hands * 1e3:.2f}, process "
                     f"{used.play.process_cpu / hands * 1e3:.2f}, bots "
                     f"{used.play.bots_cpu / hands * 1e3:.2f} ms/hand" if used.play else ""),
                  flush=True)
    print("\n| round | mode | hands | seconds | hands/s | dealer-thread CPU ms/hand "
          "| writer CPU ms/hand | process CPU ms/hand | bots CPU ms/hand |")
    print("|---|---|---|---|---|---|---|---|---|")
    for k, (mode, hands, used) in enumerate(rows):
        writer = f"{used.writer_cpu / hands * 1e3:.2f}" if mode.endswith("on") else "-"
        print(f"| {k // 2 + 1} | {mode} | {hands} | {used.wall:.1f} | {hands / used.wall:,.1f} "
              f"| {used.thread_cpu / hands * 1e3:.2f} | {writer} | {used.process_cpu / hands * 1e3:.2f} "
              f"| {used.bots_cpu / hands * 1e3:.2f} |")
    pairs = [(on[1:], off[1:]) for on, off in
             (sorted(rows[k:k + 2], key=lambda row: not row[0].endswith("on"))
              for k in range(0, len(rows) - 1, 2))]

    def per_hand(item: tuple[int, Clocks], value: Callable[[Clocks], float]) -> float:
        return value(item[1]) / item[0] * 1e3

    ratios = [(on[0] / on[1].wall) / (off[0] / off[1].wall) for on, off in pairs]
    thread = [per_hand(on, lambda c: c.thread_cpu) - per_hand(off, lambda c: c.thread_cpu)
              for on, off in pairs]
    process = [per_hand(on, lambda c: c.process_cpu) - per_hand(off, lambda c: c.process_cpu)
               for on, off in pairs]
    bound = [per_hand(off, lambda c: c.process_cpu + c.bots_cpu)
             / per_hand(on, lambda c: c.process_cpu + c.bots_cpu) for on, off in pairs]
    on_rows = [row[1:] for row in rows if row[0].endswith("on")]
    off_rows = [row[1:] for row in rows if not row[0].endswith("on")]

    def pooled(items: list[tuple[int, Clocks]], value: Callable[[Clocks], float]) -> float:
        """``value`` over all rounds of one mode, per hand (ms)."""
        return sum(value(c) for _, c in items) / sum(h for h, _ in items) * 1e3

    print(f"\non/off hands/s, median of {len(pairs)} rounds: {statistics.median(ratios):.0%} "
          f"(rounds: {', '.join(f'{r:.0%}' for r in ratios)}; {_interval(ratios, '.0%')}; "
          "all rounds together: "
          f"{pooled(off_rows, lambda c: c.wall) / pooled(on_rows, lambda c: c.wall):.0%}; "
          "target: >= 90%)")
    print(f"store and logs cost the dealer's thread {statistics.median(thread):.2f} ms/hand "
          f"(rounds: {', '.join(f'{t:.2f}' for t in thread)}; {_interval(thread, '.2f')}; "
          "all rounds together: "
          f"{pooled(on_rows, lambda c: c.thread_cpu) - pooled(off_rows, lambda c: c.thread_cpu):.2f}; "
          f"target: <= 1 ms) and the dealer process {statistics.median(process):.2f} ms/hand "
          "(medians of the rounds' differences)")
    print(f"CPU per hand of dealer, writer and bots, off / on: {statistics.median(bound):.0%} (the "
          "on/off ratio when no core is idle)")
    _print_play_window(pairs)
    return 0


def _interval(values: list[float], spec: str) -> str:
    """The distribution-free interval of the median of the rounds, as text."""
    found = median_interval(values, 0.9)
    if found is None:
        return "too few rounds for a 90% interval of the median"
    low, high, covered = found
    return f"{covered:.1%} interval of the median {low:{spec}} to {high:{spec}}"


def _print_play_window(pairs: list[tuple[tuple[int, Clocks], tuple[int, Clocks]]]) -> None:
    """The same ratios over the play window alone (last bot connected -> league ended)."""
    windows = [((on[0], on[1].play), (off[0], off[1].play)) for on, off in pairs
               if on[1].play is not None and off[1].play is not None]
    if len(windows) < len(pairs):
        print("play window: not every run saw all its bots connect; left out")
        return

    def ms(item: tuple[int, Clocks | None], value: Callable[[Clocks], float]) -> float:
        assert item[1] is not None
        return value(item[1]) / item[0] * 1e3

    def everything(c: Clocks) -> float:
        return c.process_cpu + c.bots_cpu

    ratios = [ms(off, lambda c: c.wall) / ms(on, lambda c: c.wall) for on, off in windows]
    thread = [ms(on, lambda c: c.thread_cpu) - ms(off, lambda c: c.thread_cpu) for on, off in windows]
    added = [ms(on, everything) - ms(off, everything) for on, off in windows]
    bound = [ms(off, everything) / ms(on, everything) for on, off in windows]
    print(f"play window (last bot's stream authenticated -> league ended; bots' start-up and exit "
          f"left out): on/off hands/s median {statistics.median(ratios):.0%} (rounds: "
          f"{', '.join(f'{r:.0%}' for r in ratios)}), the dealer's thread "
          f"+{statistics.median(thread):.2f} ms/hand, CPU per hand off / on "
          f"{statistics.median(bound):.0%}, the store and logs' CPU in all processes "
          f"+{statistics.median(added):.2f} ms/hand (off: "
          f"{statistics.median(ms(off, everything) for _, off in windows):.2f})")


if __name__ == "__main__":
    sys.exit(main())

"""Issue 13 item 4: the league's store commits and logs made by a writer thread, off the dealer's
thread; each hand committed before the next is dealt; the logs replay, verify and read exactly
as those written on the dealer's thread did."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import trio

from arena.host.phhfile import load_file
from arena.league.config import LeagueBot, LeagueConfig
from arena.league.runner import LeagueRun
from arena.match import messages as m
from arena.match.live import LiveTable
from arena.match.lobby import Lobby
from arena.match.records import MatchSummary
from arena.server.convert import event
from arena.server.eventrecord import read_records
from arena.storage.errors import StoreUnavailable
from arena.storage.matchlog import MatchLogPaths, match_seed_for
from arena.storage.records import HandRecord
from arena.storage.sqlstore import Guard
from arena.storage.verify import verify_hand
from arena.storage.writer import Writer
from arena.v1 import arena_pb2 as pb
from arena.v1.eventlog_pb2 import LoggedEvent
from tests.match.scripted import ScriptedBot

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass

BOTS = ("a", "b", "c")
HANDS = 6


def _config(tmp_path: Path) -> LeagueConfig:
    return LeagueConfig(
        name="writer", bots=tuple(LeagueBot(n, f"token-{n}-0001") for n in BOTS),
        format="round_robin", duplicate=True, hands_per_match=HANDS, tables_at_once=8, seed=21,
        listen="127.0.0.1:0", store=tmp_path / "league.sqlite", log_dir=tmp_path / "logs",
        start_timeout_seconds=10)


def _play(run: LeagueRun) -> tuple[list[MatchSummary], dict[str, ScriptedBot], list[str]]:
    """Every table of the league on trio's real clock, scripted bots answering at once; also
    checks, whenever a hand starts, that the previous hand of its table is in the store."""
    prepared = run.prepare()
    problems: list[str] = []
    for spec in prepared.specs:
        sink = prepared.sinks[spec.match_id]
        tap = sink.event_sent

        def checked(seat: int, notice: m.Notice, *, tap=tap, sink=sink) -> None:  # type: ignore[no-untyped-def]
            payload = notice.payload
            if isinstance(payload, m.HandStarted) and seat == 0 and payload.hand_number > 1:
                committed = {h.hand_number for h in run.store.completed_hands(sink.store_match_id)
                             if h.copy_index == sink.scheduled.copy_index}
                if payload.hand_number - 1 not in committed:
                    problems.append(f"{notice.hand_id} dealt before hand {payload.hand_number - 1} "
                                    "was committed")
            tap(seat, notice)

        sink.event_sent = checked

    async def main() -> tuple[list[MatchSummary], dict[str, ScriptedBot]]:
        lobby = Lobby()
        bots = {n: ScriptedBot(lobby, n) for n in BOTS}
        tables = [LiveTable(spec, lobby, sink=prepared.sinks[spec.match_id])
                  for spec in prepared.specs]
        summaries: list[MatchSummary] = []

        async def play(table: LiveTable) -> None:
            summaries.append(await table.run())

        async with trio.open_nursery() as nursery:
            for bot in bots.values():
                bot.attach()
                nursery.start_soon(bot.run)
            async with trio.open_nursery() as games:
                for table in tables:
                    games.start_soon(play, table)
            await trio.sleep(0.5)  # the bots read what is still on its way
            nursery.cancel_scope.cancel()
        return summaries, bots

    summaries, bots = trio.run(main)
    return summaries, bots, problems


def test_the_writer_thread_commits_each_hand_before_the_next_and_logs_as_before(tmp_path: Path) -> None:
    config = _config(tmp_path)
    run = LeagueRun(config)
    dealer_thread = threading.get_ident()
    writers: set[int] = set()
    record = run.store.record_hand

    def recording(hand: HandRecord, *, guard: Guard | None = None) -> bool:
        writers.add(threading.get_ident())
        time.sleep(0.02)  # a slow disk: the table must still wait for the commit
        return record(hand, guard=guard)

    run.store.record_hand = recording  # type: ignore[method-assign]
    try:
        summaries, bots, problems = _play(run)
        assert problems == []
        assert len(summaries) == 6 and not any(s.aborted for s in summaries)
        assert writers and dealer_thread not in writers  # committed on the writer's thread
        for match in run.store.list_matches(1):
            assert len(run.store.completed_hands(match.match_id)) == 2 * HANDS
    finally:
        run.close()
    logs = config.log_dir
    for path in sorted(logs.glob("*.phhs")):
        hands = load_file(str(path))
        assert [h.fields["_hand"] for h in hands] == list(range(1, HANDS + 1)), path
        # Every copy has ended: the seed is revealed and each hand is re-dealt card by card.
        seed = match_seed_for(path)
        assert seed is not None
        for hand in hands:
            assert verify_hand(hand, seed, config.rules)[1] is None
        assert not MatchLogPaths.beside(path).inflight.exists()
    # Each record's event is exactly what the dealer-thread encoding made of the event every
    # seat named in it received (one record per distinct event, in order).
    for path in sorted(logs.glob("*.events.pb")):
        match_id = path.name.removesuffix(".events.pb")
        seats = next(s for s in summaries if s.match_id == match_id).results
        received: dict[int, list[pb.Event]] = {}
        for result in seats:
            received[result.seat] = [
                event(item) for _at, item in bots[result.name].log
                if isinstance(item, m.Notice) and item.match_id == match_id]
        logged: dict[int, list[pb.Event]] = {seat: [] for seat in received}
        for record in read_records(path):
            assert isinstance(record, LoggedEvent), record  # no torn tail
            for seat in record.seats:
                logged[seat].append(record.event)
        assert logged == received


def test_each_hand_is_one_writer_job_with_the_next_hands_in_flight_mark(tmp_path: Path) -> None:
    """A table hands the writer one job per hand: its commit and the next hand's in-flight mark
    (the first hand's mark alone, the last hand's commit at the match's end)."""
    run = LeagueRun(_config(tmp_path))
    submitted: list[int] = []
    submit = run.writer.submit

    def counted(job: Callable[[], object]) -> int:
        submitted.append(1)
        return submit(job)  # type: ignore[arg-type]

    run.writer.submit = counted  # type: ignore[method-assign]
    try:
        summaries, _bots, problems = _play(run)
        assert problems == []
        assert len(summaries) == 6 and not any(s.aborted for s in summaries)
        assert len(submitted) == sum(s.hands_played + 1 for s in summaries) == 6 * (HANDS + 1)
        for match in run.store.list_matches(1):
            assert len(run.store.completed_hands(match.match_id)) == 2 * HANDS
            for copy_index in (0, 1):
                assert run.store.hand_in_flight(match.match_id, copy_index) == HANDS
    finally:
        run.close()


def test_a_failed_commit_stops_its_table_and_loses_nothing_committed(tmp_path: Path) -> None:
    run = LeagueRun(_config(tmp_path))
    record = run.store.record_hand

    def failing(hand: HandRecord, *, guard: Guard | None = None) -> bool:
        if hand.hand_number == 3:
            raise StoreUnavailable("the disk went away")
        return record(hand, guard=guard)

    run.store.record_hand = failing  # type: ignore[method-assign]
    try:
        summaries, _bots, _problems = _play(run)
        assert all(s.aborted for s in summaries)
        for match in run.store.list_matches(1):
            numbers = sorted(h.hand_number for h in run.store.completed_hands(match.match_id))
            assert numbers == [1, 1, 2, 2]  # both copies stopped at their third hand
    finally:
        run.close()
    for path in sorted((tmp_path / "logs").glob("*-c?.phhs")):
        assert len(load_file(str(path))) == 2
        assert not MatchLogPaths.beside(path).result.exists()  # aborted: goes on when resumed


def test_the_writer_runs_jobs_in_order_and_tells_when_they_are_done() -> None:
    commits: list[str] = []
    fail_next_commit = [False]

    @contextlib.contextmanager
    def batch() -> Iterator[None]:
        commits.append("begin")
        yield
        if fail_next_commit[0]:
            fail_next_commit[0] = False
            raise StoreUnavailable("the commit failed")
        commits.append("commit")

    writer = Writer(batch=batch)
    seen: list[str] = []
    gate = threading.Event()

    def job(name: str) -> Callable[[], None]:
        seen.append(name)
        return lambda: seen.append(f"after {name}")

    entered = threading.Event()

    def busy() -> None:
        entered.set()
        gate.wait()

    writer.submit(busy)
    assert entered.wait(10)  # the writer is busy: the next three wait together
    tickets = [writer.submit(lambda k=k: job(str(k))) for k in range(3)]  # type: ignore[misc]
    told: list[int] = []
    assert writer.when_done(tickets[1], lambda: told.append(len(seen)))
    assert not writer.done(tickets[0]) and not writer.wait(tickets[-1], timeout_seconds=0.05)
    gate.set()
    assert writer.wait(tickets[-1], timeout_seconds=10)
    # The three waited together: one commit, then what follows each, in order.
    assert seen == ["0", "1", "2", "after 0", "after 1", "after 2"]
    assert commits == ["begin", "commit", "begin", "commit"] and told == [6]
    assert not writer.when_done(tickets[0], lambda: told.append(-1))  # done already: no call
    fail_next_commit[0] = True
    seen.clear()
    last = writer.submit(lambda: job("x"))
    assert writer.wait(last, timeout_seconds=10)
    assert seen == ["x", "x", "after x"]  # the batch failed to commit: written again on its own
    writer.submit(lambda: (_ for _ in ()).throw(ValueError("a job's own error")))
    last = writer.submit(lambda: job("y"))
    assert writer.wait(last, timeout_seconds=10) and seen[-1] == "after y"  # it ran on
    writer.close()
    with pytest.raises(RuntimeError):
        writer.submit(lambda: None)

"""Issue 13: the league's store commits and logs made by a writer process (`arena league run`):
the same store rows and byte-for-byte the same log files as the writer thread's, each hand
committed before the next is dealt, and a child that fails or answers garbage is a clear error
for the tables waiting on it. (SIGKILL mid-league: `test_league_e2e.py`, through `arena league
run`.)"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import trio

from arena.league.procsink import ProcessSink
from arena.league.procwriter import ProcessWriter
from arena.league.runner import LeagueRun
from arena.league.sink import LeagueSink
from arena.match import messages as m
from arena.match.live import LiveTable
from arena.match.lobby import Lobby
from arena.match.records import MatchSummary, PlayedHand
from arena.storage import writer_child
from arena.storage.framing import WriterProcessError, frame
from arena.storage.records import HandRecord, result_fields
from arena.storage.sqlite import SqliteStore
from tests.league.test_writer import BOTS, HANDS, _config, _play
from tests.match.scripted import ScriptedBot
from tests.storage.test_sqlite_statements import _store
from tests.storage.test_store import make_hand


class _Both:
    """One table's sink calls given to a thread-writer sink and a process-writer sink alike."""

    def __init__(self, thread: LeagueSink, process: LeagueSink) -> None:
        self.sinks = (thread, process)

    def event_sent(self, seat: int, notice: m.Notice) -> None:
        for sink in self.sinks:
            sink.event_sent(seat, notice)

    def hand_started(self, match_id: str, hand_number: int) -> None:
        for sink in self.sinks:
            sink.hand_started(match_id, hand_number)

    async def ready(self) -> None:
        for sink in self.sinks:
            await sink.ready()

    def hand_finished(self, hand: PlayedHand) -> None:
        for sink in self.sinks:
            sink.hand_finished(hand)

    def match_finished(self, summary: MatchSummary) -> None:
        for sink in self.sinks:
            sink.match_finished(summary)


def test_the_writer_process_stores_and_logs_byte_for_byte_as_the_writer_thread(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(time, "time", lambda: 1_790_000_000.123456)  # the same logged_at
    by_thread = LeagueRun(_config(tmp_path / "thread"))
    by_process = LeagueRun(_config(tmp_path / "process"), writer_process=True)
    try:
        assert by_thread.process_writer is None and by_process.process_writer is not None
        thread_sinks = by_thread.prepare().sinks
        prepared = by_process.prepare()
        assert all(isinstance(s, ProcessSink) for s in prepared.sinks.values())

        async def main() -> None:
            lobby = Lobby()
            bots = [ScriptedBot(lobby, n) for n in BOTS]
            async with trio.open_nursery() as nursery:
                for bot in bots:
                    bot.attach()
                    nursery.start_soon(bot.run)
                async with trio.open_nursery() as games:
                    for spec in prepared.specs:
                        both = _Both(thread_sinks[spec.match_id], prepared.sinks[spec.match_id])
                        games.start_soon(LiveTable(spec, lobby, sink=both).run)
                nursery.cancel_scope.cancel()

        trio.run(main)
        for thread_match, process_match in zip(by_thread.store.list_matches(1),
                                               by_process.store.list_matches(1), strict=True):
            hands = by_thread.store.completed_hands(thread_match.match_id)
            assert len(hands) == 2 * HANDS
            assert ([result_fields(h) for h in hands]
                    == [result_fields(h) for h in by_process.store.completed_hands(process_match.match_id)])
            for copy_index in (0, 1):
                assert (by_thread.store.hand_in_flight(thread_match.match_id, copy_index)
                        == by_process.store.hand_in_flight(process_match.match_id, copy_index) == HANDS)
    finally:
        by_thread.close()
        by_process.close()
    written = sorted(p.name for p in (tmp_path / "thread" / "logs").iterdir())
    assert written == sorted(p.name for p in (tmp_path / "process" / "logs").iterdir())
    assert any(name.endswith(".events.jsonl") for name in written)
    for name in written:
        assert ((tmp_path / "thread" / "logs" / name).read_bytes()
                == (tmp_path / "process" / "logs" / name).read_bytes()), name


def test_the_writer_process_commits_each_hand_before_the_next_is_dealt(tmp_path: Path) -> None:
    run = LeagueRun(_config(tmp_path), writer_process=True)
    try:
        summaries, _bots, problems = _play(run)  # checks each hand's commit as the next starts
        assert problems == []
        assert len(summaries) == 6 and not any(s.aborted for s in summaries)
        assert run.process_writer is not None
        for match in run.store.list_matches(1):
            assert len(run.store.completed_hands(match.match_id)) == 2 * HANDS
    finally:
        run.close()
    assert run.process_writer.batches > 0 and run.process_writer.cpu_seconds > 0


def _child(tmp_path: Path, answer: bytes) -> ProcessWriter:
    """A writer whose child answers ``answer`` to its first job, then stops."""
    script = tmp_path / "child.py"
    script.write_text(f"import os\nos.read(0, 1)\nos.write(1, {answer!r})\n")
    return ProcessWriter(tmp_path / "none.sqlite", command=[sys.executable, str(script)])


@pytest.mark.parametrize(("answer", "expected"), [
    (b"\x09\x00\x00\x00abc", "ended in the middle of a message"),
    (b"\x03\x00\x00\x00\xff\xfe\xfd", "cannot be read"),
    (frame(("committed", "one")), "unknown answer"),
    (frame(("committed", 7)), "an answer for ticket 7, expected 1 to 1"),
    (b"\xff\xff\xff\xff", "not a writer's message"),
    (b"", "the writer process ended (exit status"),
])
def test_a_child_answering_garbage_or_ending_fails_the_waiting_tables_clearly(
        tmp_path: Path, answer: bytes, expected: str) -> None:
    writer = _child(tmp_path, answer)
    failures: list[str] = []
    committed: list[int] = []
    try:
        ticket = writer.submit(("mark", 1, 0, 1), on_committed=lambda: committed.append(1),
                               on_failed=failures.append)
        writer.wait(ticket, timeout_seconds=30)
        assert writer.committed(ticket)
    finally:
        writer.close()
    assert committed == []
    assert len(failures) == 1 and expected in failures[0], failures
    assert isinstance(writer.error, WriterProcessError)
    with pytest.raises(WriterProcessError):
        writer.submit(("mark", 1, 0, 2), on_committed=None, on_failed=failures.append)


def test_a_job_the_store_refuses_fails_alone(tmp_path: Path) -> None:
    path = tmp_path / "league.sqlite"
    SqliteStore(path).close()
    writer = ProcessWriter(path)
    failures: list[str] = []
    committed: list[int] = []
    note: Callable[[int], Callable[[], None]] = lambda k: lambda: committed.append(k)  # noqa: E731
    try:
        first = writer.submit(("mark", 99, 0, 1), on_committed=note(1), on_failed=failures.append)
        second = writer.submit(("close", "a.phhs"), on_committed=note(2), on_failed=failures.append)
        writer.wait(second, timeout_seconds=30)
        assert writer.committed(first) and writer.error is None
    finally:
        writer.close()
    assert committed == [2]
    assert len(failures) == 1 and failures[0].startswith("InvalidRecord"), failures


def test_the_child_lives_through_ctrl_c_and_sigterm_sent_to_the_dealers_process_group(
        tmp_path: Path) -> None:
    """The dealer hands over what it still has after SIGINT/SIGTERM; its child must still
    commit it (it ends when the dealer closes its stdin)."""
    path = tmp_path / "league.sqlite"
    SqliteStore(path).close()
    writer = ProcessWriter(path)
    failures: list[str] = []
    try:
        writer.wait(writer.submit(("close", "a.phhs"), on_committed=None, on_failed=failures.append),
                    timeout_seconds=30)  # the child is past its start-up
        os.kill(writer._proc.pid, signal.SIGINT)
        os.kill(writer._proc.pid, signal.SIGTERM)
        time.sleep(0.2)
        ticket = writer.submit(("close", "b.phhs"), on_committed=None, on_failed=failures.append)
        writer.wait(ticket, timeout_seconds=30)
        assert writer.committed(ticket) and writer.error is None
    finally:
        writer.close()
    assert failures == []


def test_a_hand_whose_commit_fails_is_not_logged(monkeypatch: pytest.MonkeyPatch) -> None:
    """When the batch's commit fails, each job is committed alone; one whose commit fails too
    is answered failed and its log step never runs (its hand is dealt again on resume)."""
    logged: list[int] = []

    class FailingCommits:
        @contextlib.contextmanager
        def batch(self) -> Iterator[None]:
            yield
            raise OSError("disk full")

    monkeypatch.setattr(writer_child, "_run_job",
                        lambda store, logs, job: lambda: logged.append(job[1]))
    answers: list[tuple[object, ...]] = []
    writer_child._commit(FailingCommits(), None, [("hand", 1), ("hand", 2)],  # type: ignore[arg-type]
                         answers.append)
    assert logged == []
    assert answers == [("failed", 1, "OSError: disk full"), ("failed", 2, "OSError: disk full"),
                       ("committed", 2)]


def test_a_job_refused_in_a_batch_fails_alone_and_the_others_are_committed(tmp_path: Path) -> None:
    """The child's writes keep no savepoint: a refused one gives the batch up, and each job is
    made again alone (the refused one answered failed, the others committed)."""
    _store(tmp_path / "league.sqlite")[0].close()
    store = SqliteStore(tmp_path / "league.sqlite", write_savepoints=False)
    answers: list[tuple[object, ...]] = []
    try:
        writer_child._commit(store, writer_child._Logs(),
                             [("mark", 1, 1, 0, 2), ("mark", 2, 99, 0, 1), ("mark", 3, 1, 1, 2)],
                             answers.append)
        assert store.hand_in_flight(1, 0) == store.hand_in_flight(1, 1) == 2
    finally:
        store.close()
    assert [a[:2] for a in answers] == [("failed", 2), ("committed", 3)], answers
    assert str(answers[0][2]).startswith("InvalidRecord"), answers


def test_a_hand_whose_next_mark_is_refused_leaves_no_row_of_it_in_the_batch(tmp_path: Path) -> None:
    """A job is a hand and the next hand's mark, all or nothing: when the mark is refused, the
    hand's row written just before it is not committed either, and the job is answered failed
    and not logged; the batch's other hands are committed and logged."""
    store, match_id = _store(tmp_path / "league.sqlite")
    store.close()
    hands = [make_hand(match_id, n, ("bob", "carol", "alice"), (30, -10, -20)) for n in (1, 2, 3)]
    log = tmp_path / "a.phhs"

    def job(ticket: int, hand: HandRecord, mark: int) -> tuple[object, ...]:
        return ("hand", ticket, match_id, hand.copy_index, hand.hand_number, hand.deal_id,
                hand.game_code, hand.small_bet_chips, hand.button_seat,
                tuple(dataclasses.astuple(seat) for seat in hand.seats), hand.phh_text,
                hand.started_at.isoformat(), hand.finished_at.isoformat(), str(log),
                str(tmp_path / "a.jsonl"), b"", mark)

    store = SqliteStore(tmp_path / "league.sqlite", write_savepoints=False)
    answers: list[tuple[object, ...]] = []
    logs = writer_child._Logs()
    try:
        writer_child._commit(store, logs, [job(1, hands[0], 2), job(2, hands[1], -5),
                                           job(3, hands[2], 4)], answers.append)
        logs.close((str(log),))
        assert store.completed_hands(match_id) == [hands[0], hands[2]]
        assert store.hand_in_flight(match_id, hands[0].copy_index) == 4
    finally:
        store.close()
    assert [a[:2] for a in answers] == [("failed", 2), ("committed", 3)], answers
    text = log.read_text()
    assert [line for line in text.splitlines() if line.startswith("_hand")] == [
        "_hand = 1", "_hand = 3"], text


def test_the_child_writes_a_hands_phh_text_from_its_fields_and_fails_a_job_whose_fields_are_not(
        tmp_path: Path) -> None:
    """The dealer hands the child a hand's PHH fields (plain values): the child writes their
    text, the store's copy and the log's, as the dealer's process writes it (`dumps_hand`); a
    job whose fields are not a table of names fails alone, not stored nor logged."""
    from arena.engine.phh import dumps_hand

    store, match_id = _store(tmp_path / "league.sqlite")
    store.close()
    hands = [make_hand(match_id, n, ("bob", "carol", "alice"), (30, -10, -20)) for n in (1, 2, 3)]
    fields: dict[str, object] = {"variant": "FT", "antes": [0, 0, 0], "actions": ["d dh p1 AsKs"],
                                 "_hand": 1, "_rules": {"max_raises": 3, "stud_tie_break": "suit"}}
    log = tmp_path / "a.phhs"

    def job(ticket: int, hand: HandRecord, phh: object) -> tuple[object, ...]:
        return ("hand", ticket, match_id, hand.copy_index, hand.hand_number, hand.deal_id,
                hand.game_code, hand.small_bet_chips, hand.button_seat,
                tuple(dataclasses.astuple(seat) for seat in hand.seats), phh,
                hand.started_at.isoformat(), hand.finished_at.isoformat(), str(log),
                str(tmp_path / "a.jsonl"), b"", 0)

    store = SqliteStore(tmp_path / "league.sqlite", write_savepoints=False)
    answers: list[tuple[object, ...]] = []
    logs = writer_child._Logs()
    try:
        writer_child._commit(store, logs, [job(1, hands[0], fields), job(2, hands[1], ["variant"]),
                                           job(3, hands[2], {1: "FT"})], answers.append)
        logs.close((str(log),))
        stored = store.completed_hands(match_id)
    finally:
        store.close()
    assert [a[:2] for a in answers] == [("failed", 2), ("failed", 3), ("committed", 3)], answers
    assert "not a table of names" in str(answers[0][2]), answers
    assert [hand.hand_number for hand in stored] == [1]
    assert stored[0].phh_text == dumps_hand(fields)
    assert log.read_text() == f"[1]\n{dumps_hand(fields)}"


def test_the_fields_sent_to_the_child_write_the_dealers_own_phh_text() -> None:
    """A played hand's and a voided hand's PHH fields, as the dealer sends them to the writer
    process (through ``marshal``), are written to the very text the dealer's process writes."""
    import marshal

    from arena.engine.phh import dumps_hand
    from arena.league.procsink import writer_fields
    from arena.league.sink import hand_facts
    from tests.match.test_records import _hand

    for hand in (_hand(), _hand(void_reason="the deck was fouled")):
        sent = marshal.loads(marshal.dumps(writer_fields(hand)))
        assert dumps_hand(sent) == hand_facts(hand)[0]
        assert ("_void_reason" in sent) == hand.voided


def test_a_hand_whose_fields_cannot_be_sent_stops_its_table_naming_the_field(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A PHH field the writer process cannot be sent (not a plain value) stops its table at that
    hand, with a message naming the field; the hands before it are committed."""
    from arena.league import procsink

    fields_of = procsink.phh_fields

    def odd(hand: PlayedHand) -> dict[str, object]:
        fields = fields_of(hand)
        if hand.hand_number == 2:
            fields["_odd"] = [m.SeatStatus.ACTIVE]
        return fields

    monkeypatch.setattr(procsink, "phh_fields", odd)
    run = LeagueRun(_config(tmp_path), writer_process=True)
    try:
        summaries, _bots, _problems = _play(run)
        assert summaries and all(s.aborted for s in summaries)
        assert all("the PHH field '_odd' holds a list" in s.abort_reason
                   for s in summaries), [s.abort_reason for s in summaries]
        for match in run.store.list_matches(1):
            assert [h.hand_number for h in run.store.completed_hands(match.match_id)] == [1, 1]
    finally:
        run.close()


def test_a_writer_closed_by_killing_its_child_refuses_further_jobs(tmp_path: Path) -> None:
    script = tmp_path / "child.py"
    script.write_text("import os, time\nwhile os.read(0, 65536):\n    pass\ntime.sleep(30)\n")
    writer = ProcessWriter(tmp_path / "none.sqlite", command=[sys.executable, str(script)])
    failures: list[str] = []
    writer.submit(("mark", 1, 0, 1), on_committed=None, on_failed=failures.append)
    writer.close(timeout_seconds=0.5)
    assert len(failures) == 1 and "was killed" in failures[0], failures
    assert isinstance(writer.error, WriterProcessError)
    with pytest.raises(WriterProcessError):
        writer.submit(("mark", 1, 0, 2), on_committed=None, on_failed=failures.append)

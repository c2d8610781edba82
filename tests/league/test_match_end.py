"""A match's end never blocks the dealer's thread on the store: the table awaits its last hand's
commit (the sink's ``settle``) before its synchronous end, so that every other table (every
trio task) of the dealer's thread runs on while that commit is pending; with the writer thread
and with the writer process alike. The league's results stay what they were."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from pathlib import Path

import pytest
import trio

from arena.league.runner import LeagueRun
from arena.league.sink import LeagueSink
from arena.league.worker import _JobSink
from arena.match.live import LiveTable
from arena.match.lobby import Lobby
from arena.match.records import MatchSink, MatchSummary
from arena.storage.matchlog import MatchLogPaths
from arena.storage.records import HandRecord, MatchStatus
from arena.storage.sqlstore import Guard
from tests.league.test_writer import BOTS, HANDS, _config
from tests.match.scripted import ScriptedBot

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass

HOLD_SECONDS = 10.0  # how long a held commit waits for its release before giving up


def _play_releasing(run: LeagueRun, sink_type: type[LeagueSink], holding: Callable[[], bool],
                    release: Callable[[], None],
                    wrap: Callable[[LeagueSink], MatchSink] = lambda sink: sink
                    ) -> list[MatchSummary]:
    """Every table of the league on one trio run, with one more task beside them: once the store
    holds a match's last commit (``holding``), it releases it (``release``). It can only do so
    if the dealer's thread is free while that match ends. Each table's sink is ``wrap``'s."""
    prepared = run.prepare()
    assert all(type(sink) is sink_type for sink in prepared.sinks.values())

    async def main() -> list[MatchSummary]:
        lobby = Lobby()
        bots = [ScriptedBot(lobby, n) for n in BOTS]
        summaries: list[MatchSummary] = []

        async def play(table: LiveTable) -> None:
            summaries.append(await table.run())

        async def releaser() -> None:
            while not holding():
                await trio.sleep(0.005)
            release()

        async with trio.open_nursery() as nursery:
            for bot in bots:
                bot.attach()
                nursery.start_soon(bot.run)
            nursery.start_soon(releaser)
            async with trio.open_nursery() as games:
                for spec in prepared.specs:
                    games.start_soon(play, LiveTable(spec, lobby,
                                                     sink=wrap(prepared.sinks[spec.match_id])))
            nursery.cancel_scope.cancel()
        return summaries

    return trio.run(main)


def _check_league(run: LeagueRun, summaries: list[MatchSummary]) -> None:
    """Every match played to its end, every hand committed, every result written."""
    assert len(summaries) == 6 and not any(s.aborted for s in summaries)
    for match in run.store.list_matches(1):
        assert len(run.store.completed_hands(match.match_id)) == 2 * HANDS
    for summary in summaries:
        assert MatchLogPaths.of(run.config.log_dir, summary.match_id).result.exists()


def _holding_last_commit(run: LeagueRun) -> tuple[threading.Event, threading.Event, list[str]]:
    """The store holds the first match's last hand's commit until released (or HOLD_SECONDS)."""
    holding, released = threading.Event(), threading.Event()
    outcome: list[str] = []
    record = run.store.record_hand

    def held(hand: HandRecord, *, guard: Guard | None = None) -> bool:
        if hand.hand_number == HANDS and not holding.is_set():  # the first match's last hand
            holding.set()
            outcome.append("released" if released.wait(HOLD_SECONDS) else "timed out")
        return record(hand, guard=guard)

    run.store.record_hand = held  # type: ignore[method-assign]
    return holding, released, outcome


def test_a_workers_table_leaves_the_dealers_thread_free_at_its_end_too(tmp_path: Path) -> None:
    """A worker's sink (`_JobSink`, around the league's) passes the inner sink's ``settle`` on."""
    run = LeagueRun(_config(tmp_path))
    holding, released, outcome = _holding_last_commit(run)
    ended: list[str] = []
    try:
        summaries = _play_releasing(
            run, LeagueSink, holding.is_set, released.set,
            wrap=lambda sink: _JobSink(sink, lambda summary: ended.append(summary.match_id)))
        assert outcome == ["released"]  # without its settle the end blocked: nothing released it
        _check_league(run, summaries)
        assert sorted(ended) == sorted(s.match_id for s in summaries)
    finally:
        run.close()


def test_the_writer_threads_last_commit_of_a_match_leaves_the_dealers_thread_free(
        tmp_path: Path) -> None:
    run = LeagueRun(_config(tmp_path))
    holding, released, outcome = _holding_last_commit(run)
    try:
        summaries = _play_releasing(run, LeagueSink, holding.is_set, released.set)
        assert outcome == ["released"]  # the old end blocked on the commit: nothing released it
        _check_league(run, summaries)
    finally:
        run.close()


def test_a_last_hand_the_writer_cannot_take_at_settle_fails_the_match(tmp_path: Path) -> None:
    """The writer refuses the last hand of one match when its table settles (closed, say): that
    match ends aborted (no results file: it goes on when the league is run again), its deal set
    is not finished one hand short, and the other matches end as played."""
    run = LeagueRun(_config(tmp_path))
    refused: list[str] = []

    def refusing_at_settle(sink: LeagueSink) -> MatchSink:
        if refused:
            return sink
        refused.append(sink.scheduled.match_id)
        real_settle = sink.settle

        async def settle_with_a_closed_writer() -> None:
            def refuse(job: object) -> None:
                raise RuntimeError("the writer is closed")

            sink._submit = refuse  # type: ignore[method-assign]
            await real_settle()

        sink.settle = settle_with_a_closed_writer  # type: ignore[method-assign]
        return sink

    try:
        summaries = _play_releasing(run, LeagueSink, lambda: True, lambda: None,
                                    wrap=refusing_at_settle)
        run.finisher.wait()
        [first_id] = refused
        assert len(summaries) == 6
        paths = {s.match_id: MatchLogPaths.of(run.config.log_dir, s.match_id) for s in summaries}
        assert not paths[first_id].result.exists()
        assert not any(json.loads(p.result.read_text())["aborted"]
                       for match_id, p in paths.items() if match_id != first_id)
        deal_set = next(s.deal_set for s in run.schedule if s.match_id == first_id)
        store_match = run.store.get_match(run._store_ids[deal_set])
        assert store_match.status is MatchStatus.RUNNING  # resumed later, never finished short
    finally:
        run.close()

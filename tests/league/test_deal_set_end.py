"""A deal set's end (its match finished in the store, its seed revealed in every copy's results
file) runs on the league's finisher thread, never on the dealer's: the seed is revealed only
after the finish is committed, and a league stopped in between finishes the deal set when
resumed. With a ``deal_set_observer`` (it may stop the league at once) it stays where it was."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from arena.league.runner import LeagueRun
from arena.storage.matchlog import MatchLogPaths, read_result
from arena.storage.records import MatchStatus
from arena.storage.store import Match
from arena.storage.writer import Job
from tests.league.test_writer import _config, _play

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def _seed_in_results(run: LeagueRun, match_id: str) -> object:
    """The seed in a copy's results file (None: not revealed, or no file yet)."""
    data = read_result(MatchLogPaths.of(run.config.log_dir, match_id).hands)
    return None if data is None else data.get("match_seed")


def _seeds_revealed(run: LeagueRun) -> list[bool]:
    """Whether each copy's results file holds its deal set's seed."""
    return [_seed_in_results(run, s.match_id) == s.seed for s in run.schedule]


def test_a_deal_sets_end_is_written_off_the_dealers_thread_then_its_seed_revealed(
        tmp_path: Path) -> None:
    run = LeagueRun(_config(tmp_path))
    dealer = threading.get_ident()  # trio.run runs the tables on this thread
    finishers: list[int] = []
    unrevealed_at_finish: list[bool] = []
    finish_match = run.store.finish_match

    def finishing(match_id: int, seed: str) -> Match:
        finishers.append(threading.get_ident())
        copies = [s for s in run.schedule if run._store_ids[s.deal_set] == match_id]
        unrevealed_at_finish.append(all(_seed_in_results(run, s.match_id) is None for s in copies))
        return finish_match(match_id, seed)

    run.store.finish_match = finishing  # type: ignore[method-assign]
    try:
        summaries, _bots, problems = _play(run)
        assert problems == [] and not any(s.aborted for s in summaries)
        assert run.wait_deal_set_finished(run.schedule[0].deal_set, 10.0)
        run.finisher.wait()
        assert len(finishers) == 3 and dealer not in finishers
        assert unrevealed_at_finish == [True] * 3  # the seed comes after the finish
        assert all(m.status is MatchStatus.FINISHED for m in run.store.list_matches(1))
        assert all(_seeds_revealed(run))
    finally:
        run.close()


def test_a_league_stopped_before_a_deal_sets_end_was_written_finishes_it_when_resumed(
        tmp_path: Path) -> None:
    run = LeagueRun(_config(tmp_path))
    lost: list[Job] = []

    def killed_first(job: Job) -> int:
        lost.append(job)  # the process died before the finisher ran it
        return 0

    run.finisher.submit = killed_first  # type: ignore[method-assign]
    try:
        summaries, _bots, _problems = _play(run)
        assert len(lost) == 3 and not any(s.aborted for s in summaries)
        assert all(m.status is MatchStatus.RUNNING for m in run.store.list_matches(1))
        assert not any(_seeds_revealed(run))
    finally:
        run.close()
    again = LeagueRun(_config(tmp_path))
    try:
        assert again.prepare().specs == []  # every hand was played: nothing to deal again
        assert all(m.status is MatchStatus.FINISHED for m in again.store.list_matches(1))
        assert all(_seeds_revealed(again))
    finally:
        again.close()


def test_with_an_observer_the_deal_set_ends_before_it_looks_as_before(tmp_path: Path) -> None:
    run = LeagueRun(_config(tmp_path))
    seen: list[tuple[int, MatchStatus]] = []

    def observer(match_id: int) -> bool:
        seen.append((threading.get_ident(), run.store.get_match(match_id).status))
        return False

    run.deal_set_observer = observer
    try:
        _play(run)
        assert seen == [(threading.get_ident(), MatchStatus.FINISHED)] * 3
        assert all(_seeds_revealed(run))
    finally:
        run.close()

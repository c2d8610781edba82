"""A deal set finished by two threads at once (a worker's prepare() for a new job and the dealer's
thread ending the last copy) or by another process: the second finds it finished and goes on."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.league.runner import LeagueRun
from arena.storage.records import MatchStatus
from arena.storage.store import Match
from tests.league.test_writer import _config

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def test_finishing_a_deal_set_someone_finished_meanwhile_is_done(tmp_path: Path) -> None:
    run = LeagueRun(_config(tmp_path))
    try:
        run.prepare()
        deal_set, match_id = next(iter(run._store_ids.items()))
        get_match = run.store.get_match
        stale: list[Match] = []

        def seen_running_first(match_id: int) -> Match:
            match = get_match(match_id)
            if not stale:  # the first read is from before the other thread's commit
                stale.append(match)
                run.store.finish_match(match_id, "1")  # the other thread wins the race
            return match

        run.store.get_match = seen_running_first  # type: ignore[method-assign]
        run._finish_deal_set(deal_set)  # no InvalidRecord "finished already"
        assert stale and stale[0].status is MatchStatus.RUNNING
        assert get_match(match_id).status is MatchStatus.FINISHED
    finally:
        run.close()


def test_a_workers_prepare_finishes_only_the_deal_sets_it_prepares(tmp_path: Path) -> None:
    """A worker prepares a new job while another job's last copy is ending on the dealer's thread
    (its count of copies left just fell to 0, its results file being written): prepare() leaves
    that deal set to the dealer's thread (finishing it too read a results file half written, and
    the worker died of it). A job claimed again counts its copies afresh (not on top of its first
    try's count, which then never reached 0)."""
    run = LeagueRun(_config(tmp_path))
    try:
        first, second = list(dict.fromkeys(s.deal_set for s in run.schedule))[:2]
        finished: list[str] = []
        run._finish_deal_set = lambda deal_set, seed=None: finished.append(deal_set)  # type: ignore[method-assign]
        run._copies_left[first] = 0  # ending on the dealer's thread
        run._copies_left[second] = 1  # left over from the job's first try
        prepared = run.prepare(deal_sets={second})
        copies = [s for s in run.schedule if s.deal_set == second]
        assert finished == []
        assert run._copies_left[second] == len(copies) == len(prepared.specs)
    finally:
        run.close()

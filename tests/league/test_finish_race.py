"""A deal set finished by two threads at once (a worker's prepare() for a new job and the dealer's
thread ending the last copy) or by another process: the second finds it finished and goes on."""

from __future__ import annotations

from pathlib import Path

from arena.league.runner import LeagueRun
from arena.storage.records import MatchStatus
from arena.storage.store import Match
from tests.league.test_writer import _config


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

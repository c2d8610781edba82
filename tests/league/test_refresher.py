"""Issue 8 performance: the metrics' leaderboard (with the luck of the deal sets that ended, seconds
of CPU) is computed on a thread of its own, never on the dealer's thread, requests coalesced."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest
from prometheus_client import generate_latest

from arena.league.refresher import Refresher
from arena.league.runner import LeagueRun
from arena.league.stats import Leaderboard
from arena.metrics import ArenaMetrics
from tests.league.test_writer import BOTS, HANDS, _config, _play

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def test_a_request_returns_at_once_and_requests_made_meanwhile_run_as_one() -> None:
    release = threading.Event()
    started = threading.Event()
    runs: list[list[int]] = []

    def refresh(match_ids: list[int]) -> None:
        runs.append(match_ids)
        started.set()
        assert release.wait(10)

    refresher = Refresher(refresh)
    refresher.request([1])
    assert started.wait(10)
    refresher.request([2])  # the first refresh still runs: these return at once
    refresher.request([3, 2])
    refresher.request([])
    assert not refresher.wait(0.05)
    release.set()
    assert refresher.wait(10)
    assert runs == [[1], [2, 3]] and refresher.runs == 2


def test_a_failed_refresh_is_logged_and_the_next_still_runs(caplog: pytest.LogCaptureFixture) -> None:
    runs: list[list[int]] = []

    def refresh(match_ids: list[int]) -> None:
        runs.append(match_ids)
        if match_ids == [1]:
            raise ValueError("boom")

    refresher = Refresher(refresh)
    refresher.request([1])
    assert refresher.wait(10)
    refresher.request([2])
    assert refresher.wait(10)
    assert runs == [[1], [2]]
    assert "refreshing the leaderboard failed" in caplog.text


def test_a_league_with_metrics_computes_its_leaderboard_off_the_dealers_thread(tmp_path: Path) -> None:
    metrics = ArenaMetrics()
    run = LeagueRun(_config(tmp_path), metrics=metrics)
    dealer = threading.get_ident()
    threads: list[int] = []
    leaderboard = run.leaderboard

    def recorded(*, luck_matches: list[int] | None = None) -> Leaderboard:
        threads.append(threading.get_ident())
        return leaderboard(luck_matches=luck_matches)

    run.leaderboard = recorded  # type: ignore[method-assign]
    try:
        summaries, _bots, problems = _play(run)
        assert problems == [] and not any(s.aborted for s in summaries)
    finally:
        run.close()  # waits for the last refresh
    assert threads and dealer not in threads
    board = metrics.leaderboard._board
    assert isinstance(board, Leaderboard)  # the gauges show the whole league, luck known
    everything = [s for s in board.stats if s.game == "all"]
    pairs = len(BOTS) * (len(BOTS) - 1) // 2
    assert sum(s.hands for s in everything) == pairs * 2 * HANDS * 2  # 2 copies, 2 seats a hand
    assert all(s.luck.hands == s.hands for s in everything)


def test_a_worker_computes_its_leaderboard_only_when_the_metrics_are_read(tmp_path: Path) -> None:
    """``board_on_scrape`` (a worker): no leaderboard while nobody reads /metrics; a read asks for
    one (with the luck of the deal sets that ended here) and gets it on a later read; reads closer
    together than BOARD_MAX_AGE_SECONDS ask nothing more."""
    metrics = ArenaMetrics()
    run = LeagueRun(_config(tmp_path), metrics=metrics, board_on_scrape=True)
    metrics.on_leaderboard_scrape(run.board_wanted)
    asked: list[list[int] | None] = []
    leaderboard = run.leaderboard

    def recorded(*, luck_matches: list[int] | None = None) -> Leaderboard:
        asked.append(luck_matches)
        return leaderboard(luck_matches=luck_matches)

    run.leaderboard = recorded  # type: ignore[method-assign]
    try:
        summaries, _bots, problems = _play(run)
        assert problems == [] and not any(s.aborted for s in summaries)
        assert run._board.wait(10) and asked == []  # nothing computed while nobody reads
        first = generate_latest(metrics.registry).decode()
        assert "arena_leaderboard_mbb_per_hand{" not in first  # asked for; the next read has it
        assert run._board.wait(60)
        second = generate_latest(metrics.registry).decode()  # within BOARD_MAX_AGE_SECONDS
        assert "arena_leaderboard_luck_adjusted_mbb_per_hand{" in second
        assert run._board.wait(10)
    finally:
        run.close()
    pairs = len(BOTS) * (len(BOTS) - 1) // 2
    assert len(asked) == 1 and len(asked[0] or []) == pairs  # every deal set's luck, once

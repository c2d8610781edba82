"""`arena league status` and `arena leaderboard` only read: the README gives them to watch a
league while it runs. Before: `league status` prepared the league as a resume does, voiding
the hand each running table was dealing and rewriting the logs, so those tables failed with
"HandConflict: ... is recorded already as a void hand" and the league ended interrupted."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import arena.storage.tokens as tokens_module
from arena.engine.errors import ConfigError
from arena.league.commands import league_status, show_leaderboard
from arena.league.config import load_league
from arena.league.runner import LeagueRun
from tests.league.test_league_e2e import write_league

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


@pytest.fixture(autouse=True)
def cheap_token_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)


def _files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and p.suffix not in (".sqlite", ".sqlite-wal", ".sqlite-shm")}


def test_status_of_a_running_league_voids_nothing_and_writes_no_log(tmp_path: Path) -> None:
    path = write_league(tmp_path, [("alpha", "call"), ("beta", "call"), ("gamma", "call")],
                        hands_per_match=4)
    run = LeagueRun(load_league(path))
    try:
        prepared = run.prepare()
        # As a running table has it: hand 1 of the first match's first copy dealt, in flight.
        match_id = next(iter(prepared.store_ids.values()))
        run.store.mark_in_flight(match_id, 0, 1)
        schedule_size = len(run.schedule)
    finally:
        run.close()
    logs_before = _files(tmp_path / "logs")

    out = io.StringIO()
    assert league_status(str(path), out=out) == 0
    assert f"0 of {schedule_size * 4} hands played, 0 void" in out.getvalue(), out.getvalue()
    assert f"{schedule_size} of {schedule_size} matches still to play" in out.getvalue()

    run = LeagueRun(load_league(path))
    try:
        assert run.store.void_hands(match_id) == []
        assert run.store.hand_in_flight(match_id, 0) == 1  # the table's mark is still there
    finally:
        run.close()
    assert _files(tmp_path / "logs") == logs_before


def test_status_and_leaderboard_of_a_league_never_run_are_errors_that_create_nothing(
        tmp_path: Path) -> None:
    path = write_league(tmp_path, [("alpha", "call"), ("beta", "call")])
    before = sorted(p.name for p in tmp_path.rglob("*"))
    with pytest.raises(ConfigError, match=r"no results store at .*run it first"):
        league_status(str(path), out=io.StringIO())
    with pytest.raises(ConfigError, match="no results store at"):
        show_leaderboard(str(path), fmt="table", out=io.StringIO())
    assert sorted(p.name for p in tmp_path.rglob("*")) == before

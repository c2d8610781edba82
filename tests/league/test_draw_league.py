"""Issue 42 and leagues: a league ranks by luck-adjusted results, and the luck adjustment has no
chance model for exchanges and wild cards yet (docs/games.md §4), so a league file naming the
new games is refused up front, in words, rather than failing after its matches."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine.errors import ConfigError
from arena.league.config import load_league
from tests.league.test_league_e2e import write_league


@pytest.mark.parametrize("games", ['["F2L3D"]', '["FT", "FES"]', '["F7SW", "FLH/8"]'])
def test_a_league_of_the_new_games_is_refused_with_the_reason(tmp_path: Path, games: str) -> None:
    league = write_league(tmp_path, [("a", "rules"), ("b", "call")], rules=f"games = {games}")
    with pytest.raises(ConfigError, match=r"the luck adjustment does not cover .* yet"):
        load_league(league)


def test_a_horse_league_is_still_accepted(tmp_path: Path) -> None:
    league = write_league(tmp_path, [("a", "rules"), ("b", "call")], rules='games = ["FT", "FR"]')
    assert [str(g) for g in load_league(league).rules.games] == ["FT", "FR"]

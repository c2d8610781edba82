"""Issue 42 and leagues: a league ranks by luck-adjusted results, and the luck adjustment covers
every game the engine deals (docs/house-rules.md §29: wild cards, lowball, exchanges to come),
so a league file may name any of them."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine.games import ALL_VARIANTS
from arena.league.config import load_league
from tests.league.test_league_e2e import write_league

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


@pytest.mark.parametrize("games", ['["F2L3D"]', '["FT", "FES"]', '["F7SW", "FLH/8"]',
                                   '["FLL", "F7SWL", "F7SW/8", "FLH"]', '["NT", "PO", "PT"]'])
def test_a_league_of_the_new_games_is_accepted(tmp_path: Path, games: str) -> None:
    league = write_league(tmp_path, [("a", "rules"), ("b", "call")], rules=f"games = {games}")
    codes = [str(g) for g in load_league(league).rules.games]
    assert codes == games.strip("[]").replace('"', "").split(", ")
    assert set(codes) <= set(ALL_VARIANTS)


def test_a_horse_league_is_still_accepted(tmp_path: Path) -> None:
    league = write_league(tmp_path, [("a", "rules"), ("b", "call")], rules='games = ["FT", "FR"]')
    assert [str(g) for g in load_league(league).rules.games] == ["FT", "FR"]

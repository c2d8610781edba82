"""Tournament levels (docs/house-rules.md §4, §8; seed 003 §3): doubling stakes, by hands or by minutes."""

from __future__ import annotations

import pytest

from arena.engine.errors import ConfigError
from arena.engine.rules import Rules
from arena.tourney.levels import (
    Level,
    LevelClock,
    LevelPlan,
    doubling,
    game_for_level,
    rules_for_level,
)


def test_seed_003_blinds_double_every_level() -> None:
    """Seed 003 §3: 1/2, then 2/4, then 4/8 ..."""
    plan = doubling(Level(1, 2, hands=10))
    assert [(plan.level(k).small_blind, plan.level(k).big_blind) for k in range(4)] == [
        (1, 2), (2, 4), (4, 8), (8, 16)]
    assert plan.level(3).small_bet_chips == 16 and plan.level(3).big_bet_chips == 32


def test_an_explicit_table_is_followed_then_its_last_level_doubles() -> None:
    plan = LevelPlan((Level(5, 10, hands=3), Level(10, 25, ante=5, hands=3)))
    assert plan.level(1).big_blind == 25 and plan.level(1).ante == 5
    assert plan.level(2).big_blind == 50 and plan.level(2).ante == 10


def test_levels_by_hands_change_between_hands() -> None:
    plan = doubling(Level(1, 2, hands=10))
    clock = LevelClock()
    assert clock.advanced(plan, hands_played=9, elapsed_seconds=1e6).index == 0
    clock = clock.advanced(plan, hands_played=10, elapsed_seconds=0)
    assert clock.index == 1 and clock.started_hand == 10
    assert clock.advanced(plan, hands_played=19, elapsed_seconds=0).index == 1
    assert clock.advanced(plan, hands_played=20, elapsed_seconds=0).index == 2


def test_levels_by_minutes_count_from_the_first_deal() -> None:
    """Seed 003 §3: doubled every 10 minutes, timed from the first deal."""
    plan = doubling(Level(1, 2, seconds=600.0))
    clock = LevelClock()
    assert clock.advanced(plan, hands_played=500, elapsed_seconds=599.9).index == 0
    assert clock.advanced(plan, hands_played=5, elapsed_seconds=1250.0).index == 2


def test_a_mixed_tournament_changes_game_with_the_level() -> None:
    games = ("FT", "FO/8", "FR", "F7S", "F7S/8")
    assert [game_for_level(games, k) for k in range(6)] == [*games, "FT"]


def test_rules_of_a_level_carry_stacks_and_the_level_stakes() -> None:
    rules = rules_for_level(Rules(), Level(4, 8, ante=1, bring_in=2, hands=5), "F7S")
    assert rules.games == ("F7S",) and not rules.reset_stacks
    s = rules.stakes
    assert (s.small_blind, s.big_blind, s.small_bet, s.big_bet, s.ante, s.bring_in) == (
        4, 8, 8, 16, 1, 2)


@pytest.mark.parametrize("level", [
    Level(1, 2), Level(0, 2, hands=1), Level(3, 2, hands=1), Level(1, 2, hands=0),
    Level(1, 2, seconds=float("inf")), Level(1, 2, seconds=float("nan")),
    Level(1, 2, ante=-1, hands=1)])
def test_bad_levels_are_refused(level: Level) -> None:
    with pytest.raises(ConfigError):
        LevelPlan((level,))

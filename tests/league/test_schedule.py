"""League schedules: formats, balanced seating, duplicate rotations, determinism."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from arena.engine.errors import ConfigError
from arena.league.schedule import build_schedule, rotations

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def test_round_robin_pairs_everyone_once_with_swapped_duplicate_copies() -> None:
    """docs/house-rules.md §8 duplicate, heads-up: each deal is played twice with the seats swapped."""
    bots = ["a", "b", "c", "d"]
    schedule = build_schedule(bots, fmt="round_robin", seats_per_table=2, duplicate=True,
                              seed=1, tables=1)
    assert len(schedule) == 6 * 2
    pairs = Counter(frozenset(m.seats) for m in schedule)
    assert set(pairs) == {frozenset(p) for p in itertools.combinations(bots, 2)}
    for first, second in zip(schedule[::2], schedule[1::2], strict=True):
        assert first.deal_set == second.deal_set and first.seed == second.seed
        assert second.seats == tuple(reversed(first.seats))
        assert (first.copy_index, second.copy_index) == (0, 1)


def test_multiway_rotations_give_every_bot_every_seat() -> None:
    """docs/house-rules.md §8 duplicate, 3-8 players: the deals are replayed over seat rotations."""
    copies = rotations(["a", "b", "c", "d"])
    assert len(copies) == 4
    for seat in range(4):
        assert {c[seat] for c in copies} == {"a", "b", "c", "d"}


def test_multiway_tables_are_balanced() -> None:
    bots = [f"b{k}" for k in range(8)]
    schedule = build_schedule(bots, fmt="multiway", seats_per_table=4, duplicate=False, seed=3,
                              tables=8)
    plays = Counter(b for m in schedule for b in m.seats)
    assert set(plays.values()) == {4}  # 8 tables x 4 seats / 8 bots
    meets = Counter(frozenset(p) for m in schedule for p in itertools.combinations(m.seats, 2))
    assert max(meets.values()) - min(meets.values()) <= 2
    again = build_schedule(bots, fmt="multiway", seats_per_table=4, duplicate=False, seed=3,
                           tables=8)
    assert again == schedule  # the same file always gives the same schedule (resume)


def test_gauntlet_puts_the_hero_at_every_table() -> None:
    bots = ["hero", "x", "y", "z"]
    schedule = build_schedule(bots, fmt="gauntlet", seats_per_table=2, duplicate=True, seed=1,
                              tables=1, hero="hero")
    assert all("hero" in m.seats for m in schedule)
    assert {b for m in schedule for b in m.seats} == set(bots)
    with pytest.raises(ConfigError, match="hero"):
        build_schedule(bots, fmt="gauntlet", seats_per_table=2, duplicate=False, seed=1, tables=1)


def test_bad_schedules_are_clear_errors() -> None:
    with pytest.raises(ConfigError, match="unknown league format"):
        build_schedule(["a", "b"], fmt="swiss", seats_per_table=2, duplicate=False, seed=1, tables=1)
    with pytest.raises(ConfigError, match="unique"):
        build_schedule(["a", "a"], fmt="round_robin", seats_per_table=2, duplicate=False, seed=1,
                       tables=1)
    with pytest.raises(ConfigError, match="seats_per_table"):
        build_schedule(["a", "b", "c"], fmt="multiway", seats_per_table=5, duplicate=False, seed=1,
                       tables=1)

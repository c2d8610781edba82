"""Golden tests: the 51 real WSOP 2023 Event #43 hands replay to their logged final stacks."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine.phh import iter_replays
from arena.host.phhfile import load_file
from tests.fixtures import WSOP_2023_43 as FIXTURES

FILES = sorted(FIXTURES.glob("*.phh"))


def test_fixture_set_is_complete() -> None:
    """The fixture folder holds 51 hands (FT 7, FO/8 14, FR 10, F7S 13, F7S/8 7)."""
    assert len(FILES) == 51
    counts: dict[str, int] = {}
    for path in FILES:
        variant = load_file(str(path))[0].fields["variant"]
        counts[variant] = counts.get(variant, 0) + 1
    assert counts == {"FT": 7, "FO/8": 14, "FR": 10, "F7S": 13, "F7S/8": 7}


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_fixture_replays_to_finishing_stacks(path: Path) -> None:
    """docs/house-rules.md §3-§5 on real hands: betting, side pots, hi-lo splits, mucks and all-ins."""
    [(hand, state, error)] = list(iter_replays(load_file(str(path))))
    assert error is None, error
    assert state is not None and state.is_over
    assert list(state.stacks) == hand.fields["finishing_stacks"]
    assert sum(state.stacks) == sum(hand.fields["starting_stacks"])

"""Our PHH output is standard: PokerKit 0.7.7 loads it and replays it to the same final stacks."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

pokerkit = pytest.importorskip("pokerkit")

from arena.engine.rules import Rules  # noqa: E402
from arena.match.simulate import simulate  # noqa: E402

# docs/house-rules.md §10: the keys that make our engine play as PokerKit does (docs/testing.md, PokerKit).
POKERKIT_COMPATIBLE = ["uncapped_heads_up=false", "stud_open_pair_big_bet=false", "stud_tie_break=seat"]


class FixedLimitOmahaHiLo(  # docs/testing.md, PokerKit: PokerKit's FO/8 class plays pot-limit unless mixed so
    pokerkit.FixedLimitPokerMixin, pokerkit.FixedLimitOmahaHoldemHighLowSplitEightOrBetter
):
    pass


def pokerkit_final_stacks(text: str) -> list[list[int]]:
    game_types = dict(pokerkit.HandHistory.game_types)
    pokerkit.HandHistory.game_types["FO/8"] = FixedLimitOmahaHiLo
    try:
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for hh in pokerkit.HandHistory.loads_all(text):
                states = list(hh)
                out.append(list(states[-1].stacks))
        return out
    finally:
        pokerkit.HandHistory.game_types.clear()
        pokerkit.HandHistory.game_types.update(game_types)


@pytest.mark.parametrize("policy", ["random", "call"])
def test_pokerkit_replays_our_horse_hands(tmp_path: Path, policy: str) -> None:
    """PHH writer: PokerKit loads every hand and ends at our finishing_stacks (docs/house-rules.md
    §10 keys set)."""
    rules = Rules().with_overrides(POKERKIT_COMPATIBLE)
    hands = 100 if policy == "random" else 40
    simulate(game="horse", players=6, hands=hands, seed=7, out_dir=str(tmp_path), policy=policy,
             rules=rules)
    text = (tmp_path / "hands.phhs").read_text()
    import tomllib

    ours = [h["finishing_stacks"] for h in tomllib.loads(text).values()]
    assert len(ours) == hands
    assert pokerkit_final_stacks(text) == ours


def test_heads_up_hands_load_in_pokerkit(tmp_path: Path) -> None:
    """docs/house-rules.md §2: heads-up the button posts the small blind; PHH reverse-assigns the blinds."""
    rules = Rules().with_overrides(POKERKIT_COMPATIBLE)
    simulate(game="horse", players=2, hands=60, seed=3, out_dir=str(tmp_path), policy="random",
             rules=rules)
    text = (tmp_path / "hands.phhs").read_text()
    import tomllib

    ours = [h["finishing_stacks"] for h in tomllib.loads(text).values()]
    assert pokerkit_final_stacks(text) == ours

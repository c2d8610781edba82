"""Full-ring tables against PokerKit 0.7.7 (docs/house-rules.md §20): hold'em up to 11 seats, Omaha up
to 10, fixed limit, no-limit and pot-limit, many random hands each.

The comparison is the one of ``test_differential`` (fixed limit: FT, FO/8) and
``test_differential_nl`` (NT, PT, PO), decision by decision and stack by stack, with the same
documented divergences; only the seat counts are those the H.O.R.S.E. table never reaches
(9 to 11). Blinds, the button (PHH order: seat 0 left of the button), side pots with many
all-in seats and the one-deck deal of 11 x 2 + 3 burns + 5 board cards are checked at every
size.
"""

from __future__ import annotations

import time

import pytest

pytest.importorskip("pokerkit")

from arena.engine.games import GameCode, variant_for
from arena.engine.state import HandState
from tests.engine import test_differential as fixed
from tests.engine import test_differential_nl as unfixed

FULL_RING_FIXED = {"FT": (9, 10, 11), "FO/8": (9, 10)}


@pytest.mark.parametrize("code", sorted(FULL_RING_FIXED))
def test_fixed_limit_full_ring_agrees(code: str) -> None:
    """docs/house-rules.md §20 with §1-§4: fixed-limit hold'em at 9-11 seats, Omaha hi-lo at 9-10."""
    stats = fixed.Stats()
    started = time.perf_counter()
    seats = FULL_RING_FIXED[code]
    scale = 2 if code == "FT" else 1  # Omaha's showdowns cost PokerKit ten times hold'em's
    plan = ((fixed.folding_policy, 20 * scale), (fixed.passive_policy, 10 * scale),
            (fixed.aggressive_policy, 10 * scale))
    for row, (policy, count) in enumerate(plan):
        for n in seats:
            for i in range(count):
                stats.played += 1
                fixed.play_one(code, n, 7_000_000 + 100_000 * row + 1000 * n + i, policy, stats)
    print(f"\n{code} full ring: {stats.hands[code]} of {stats.played} hands compared to the end, "
          f"{stats.compared_decisions} decisions, {stats.showdowns} showdowns, "
          f"{stats.side_pot_hands} with side pots, {time.perf_counter() - started:.1f}s; "
          f"divergences {dict(stats.divergences)}")
    assert {key for _, key in stats.divergences} <= fixed.DIVERGENCES.keys()
    assert stats.hands[code] > 0.95 * stats.played
    assert stats.side_pot_hands > 0.05 * stats.played
    assert stats.showdowns > 0.25 * stats.played


FULL_RING_UNFIXED = {GameCode.NO_LIMIT_HOLDEM: (9, 10, 11), GameCode.POT_LIMIT_HOLDEM: (9, 10, 11),
                     GameCode.POT_LIMIT_OMAHA: (9, 10)}


@pytest.mark.parametrize("code", sorted(FULL_RING_UNFIXED))
def test_no_limit_and_pot_limit_full_ring_agree(code: GameCode) -> None:
    """docs/house-rules.md §20 with §3b: no-limit and pot-limit hold'em at 9-11 seats, PLO at 9-10."""
    stats = unfixed.Stats()
    for row, (policy, count) in enumerate(((unfixed.random_policy, 50),
                                           (unfixed.all_in_policy, 25))):
        for n in FULL_RING_UNFIXED[code]:
            for i in range(count):
                unfixed.play_one(code, n, 9_000_000 + 100_000 * row + 1000 * n + i, policy, stats)
    print(f"\n{code} full ring: {stats}")
    hands = sum(stats.hands.values())
    assert hands >= 0.9 * 75 * len(FULL_RING_UNFIXED[code])
    assert stats.side_pot_hands > 20 and stats.showdowns > 40
    assert set(k for _, k in stats.divergences) <= set(unfixed.DIVERGENCE_KEYS)
    assert sum(stats.divergences.values()) <= hands // 10, stats.divergences


@pytest.mark.parametrize(("code", "most"), [("FT", 11), ("NT", 11), ("PT", 11), ("FO/8", 10),
                                            ("PO", 10), ("FR", 8), ("F7S", 8), ("F7S/8", 8)])
def test_table_sizes(code: str, most: int) -> None:
    """docs/house-rules.md §20: hold'em seats 2 to 11 [000: "zwei bis maximal elf Personen"], Omaha 2 to
    10 (Decision), stud games 2 to 8 (§2); one more seat is refused by name."""
    state = HandState(variant_for(code), [500] * most, seed=3)
    dealt = [c for cards in state.cards for c in cards]
    assert len(dealt) == len(set(dealt))
    with pytest.raises(ValueError, match=f"2 to {most} seats"):
        HandState(variant_for(code), [500] * (most + 1), seed=3)


def test_eleven_handed_holdem_deals_one_deck_to_the_river() -> None:
    """docs/house-rules.md §1 and §20: 11 x 2 hole cards, 3 burns and 5 board cards come from one
    deck: everyone calls to the river and every card is distinct."""
    state = HandState(variant_for("FT"), [1000] * 11, seed=11)
    while not state.is_over:
        state.check_or_call()
    seen = [c for cards in state.cards for c in cards] + state.board
    assert len(seen) == 27 and len(set(seen)) == 27
    assert state.result is not None and sum(state.stacks) == 11_000

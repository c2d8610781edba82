"""How blinds are posted: the order of the posts and the big blind's seat, cached per blinds tuple."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from arena.engine.games import ForcedBet


@dataclass(frozen=True, slots=True)
class BlindPlan:
    """How a tuple of blinds is posted: (seat, amount, kind) small first, and the big blind seat."""

    posts: tuple[tuple[int, int, ForcedBet], ...]
    big_blind_seat: int


@lru_cache(maxsize=256)  # a few entries per table setup
def blind_plan(blinds: tuple[int, ...]) -> BlindPlan:
    n = len(blinds)
    big = max(blinds)
    # Blinds are posted small first: heads-up the button (seat 1) posts the small blind.
    order = sorted(range(n), key=lambda i: (blinds[i], i))
    return BlindPlan(
        posts=tuple((seat, blinds[seat], ForcedBet.BIG_BLIND if blinds[seat] == big
                     else ForcedBet.SMALL_BLIND) for seat in order if blinds[seat]),
        big_blind_seat=max(range(n), key=lambda i: (blinds[i], i)))

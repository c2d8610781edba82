"""How blinds are posted: the order of the posts and the big blind's seat, cached per blinds tuple."""

from __future__ import annotations

from arena.engine.games import ForcedBet

_CACHE_LIMIT = 256  # the cache below holds a few entries per table setup; cleared when full


class BlindPlan:
    """How a tuple of blinds is posted: (seat, amount, kind) small first, and the big blind seat."""

    __slots__ = ("big_blind_seat", "posts")

    def __init__(self, blinds: tuple[int, ...]) -> None:
        n = len(blinds)
        big = max(blinds)
        # Blinds are posted small first: heads-up the button (seat 1) posts the small blind.
        order = sorted(range(n), key=lambda i: (blinds[i], i))
        self.posts: tuple[tuple[int, int, ForcedBet], ...] = tuple(
            (seat, blinds[seat], ForcedBet.BIG_BLIND if blinds[seat] == big else ForcedBet.SMALL_BLIND)
            for seat in order if blinds[seat]
        )
        self.big_blind_seat = max(range(n), key=lambda i: (blinds[i], i))


_BLIND_PLANS: dict[tuple[int, ...], BlindPlan] = {}


def blind_plan(blinds: tuple[int, ...]) -> BlindPlan:
    plan = _BLIND_PLANS.get(blinds)
    if plan is None:
        if len(_BLIND_PLANS) >= _CACHE_LIMIT:
            _BLIND_PLANS.clear()
        plan = _BLIND_PLANS[blinds] = BlindPlan(blinds)
    return plan

"""Each seat's equity at the replayer's steps, taken as the luck adjustment takes it.

Every game's equity is `arena.engine.equity.equity` with the hand's own showdown keys (the wild
ranks of §23, Low Hole's `low_hole_ace_high` of §24). In the games with exchanges (2-7 triple
draw §21, English Stud §25) each live seat's *plan* says what is still to come to it, as
`arena.engine.drawplans` keeps it for both: a street's exchange round (0, played by the fixed draw policy of
docs/house-rules.md §29) before its cards (English Stud's seventh card only with
`english_seventh_card` and five players or fewer, §25); the discards seen so far go back into the
stub only when it runs short (§21). A replayer step shows no exchange half served, so no card is
ever held back.

The cost is bounded like every replayer equity: at most `EQUITY_SAMPLES` runouts a call (exact
enumeration when there are few), one call per distinct set of known cards (the engine caches
it), so a hand costs a bounded number of calls whatever its game.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from arena.engine.cards import Card
from arena.engine.drawplans import DrawPlans
from arena.engine.equity import equity
from arena.engine.events import CardsExchanged
from arena.engine.games import Variant
from arena.engine.luck import DEFAULT_LUCK_SAMPLES
from arena.engine.rules import Rules

EQUITY_SAMPLES: Final = 1000  # Monte Carlo runouts when more than 2,000 remain (else exact)
EQUITY_DRAW_SAMPLES: Final = DEFAULT_LUCK_SAMPLES
"""Runouts of an equity with exchanges still to come, as many as the luck adjustment's: each
plays the §29 policy for every seat at every exchange, several times the cost of a plain runout
(bench/replayer_equity.py measures a hand's cost beside seven-card stud's)."""
EQUITY_SEED: Final = 0


class SeatPlans(DrawPlans):
    """The seats' plans (:class:`arena.engine.drawplans.DrawPlans`) and the discards seen so
    far, as a replayed hand's events go by."""

    def __init__(self, variant: Variant, rules: Rules, seat_count: int) -> None:
        super().__init__(variant, rules, seat_count)
        self.discards: set[Card] = set()

    def dealt(self, seat: int, street: int, cards: Sequence[Card]) -> None:
        self.take(seat, street, is_deal=True)
        self.discards -= set(cards)  # §21: discards shuffled back in and dealt again

    def exchanged(self, event: CardsExchanged) -> None:
        self.take(event.seat, event.street, is_deal=False)
        self.discards -= set(event.drawn)
        self.discards |= set(event.discarded)


def seat_equities(variant: Variant, rules: Rules, cards: Sequence[Sequence[Card]],
                  board: Sequence[Card], live: Sequence[bool],
                  plans: SeatPlans | None = None) -> list[dict[str, Any] | None]:
    """Each live seat's pot share with every card known so far (exact when few runouts remain
    and no exchange is to come, else seeded Monte Carlo); folded seats' cards are dead. None for
    a folded seat. ``plans``: a game with exchanges, the seats' plans so far."""
    seats = [k for k, is_live in enumerate(live) if is_live]
    out: list[dict[str, Any] | None] = [None] * len(live)
    if len(seats) == 1:
        out[seats[0]] = {"high": 1.0, "low": 0.0, "scoop": 1.0, "total": 1.0, "exact": True}
        return out
    dead = [c for k, is_live in enumerate(live) if not is_live for c in cards[k]]
    seat_plans = None if plans is None else [plans.plan(k) for k in seats]
    drawing = seat_plans is not None and any(0 in p for p in seat_plans)
    result = equity(variant, [cards[k] for k in seats], board=board, dead=dead,
                    samples=EQUITY_DRAW_SAMPLES if drawing else EQUITY_SAMPLES, seed=EQUITY_SEED,
                    wild_ranks=rules.wild_rank_set, low_hole_ace_high=rules.low_hole_ace_high,
                    plans=seat_plans, discards=sorted(plans.discards) if plans else ())
    for k, share in zip(seats, result.seats, strict=True):
        out[k] = {"high": share.high, "low": share.low, "scoop": share.scoop, "total": share.total,
                  "exact": result.is_exact}
    return out

"""What each seat of a hand with exchanges still has to come (docs/house-rules.md §29): the
luck adjustment (:mod:`arena.engine.luck`) and the replayer's equities (``arena/web``) both
follow a hand's events with it, so both run out the same draws."""

from __future__ import annotations

from arena.engine.games import Variant
from arena.engine.rules import Rules


def has_exchanges(variant: Variant) -> bool:
    """Whether the game has exchange rounds (2-7 triple draw §21, English Stud §25)."""
    return any(street.exchange_max_cards for street in variant.streets)


class DrawPlans:
    """Each seat's steps still to come: a street's exchange round (0 cards: played by §29's
    policy) before its cards (English Stud's seventh card only with `english_seventh_card`
    and five players or fewer, §25), and how many of them each seat has taken."""

    def __init__(self, variant: Variant, rules: Rules, seat_count: int) -> None:
        seventh = rules.english_seventh_card and seat_count <= 5  # docs/house-rules.md §25
        steps: list[tuple[int, int, int]] = []  # (street, 0 exchange | 1 cards, cards)
        for k, street in enumerate(variant.streets):
            if street.exchange_max_cards:
                steps.append((k, 0, 0))
            cards = street.down_cards + street.up_cards
            if cards and (seventh or not street.is_optional_card):
                steps.append((k, 1, cards))
        self.steps: tuple[tuple[int, int, int], ...] = tuple(steps)
        self.taken = [0] * seat_count

    def take(self, seat: int, street: int, *, is_deal: bool) -> bool:
        """``seat`` had its cards (``is_deal``) or its exchange of ``street``: its plan moves
        past them. False when no such step was still due to it."""
        kind = 1 if is_deal else 0
        for k in range(self.taken[seat], len(self.steps)):
            if self.steps[k][:2] == (street, kind):
                self.taken[seat] = k + 1
                return True
        return False

    def plan(self, seat: int) -> tuple[int, ...]:
        """What is still to come to ``seat``: the cards of each deal, 0 for each exchange."""
        return tuple(cards for _, _, cards in self.steps[self.taken[seat]:])

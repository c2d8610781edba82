"""Sampled runouts of hands with exchanges still to come (docs/house-rules.md §29).

Each sample deals every hand its plan in turn, hand after hand: a positive step deals that many
cards from a shuffled stub, a 0 step is an exchange the game's fixed policy
(`arena.engine.drawpolicy`) plays with the cards held then, its replacements dealt at once.
The cards still unseen are equally likely in every order, so dealing hand after hand draws
from the same distribution as dealing round by round. When the stub runs out, the discards
seen so far (``discards``) and those of the runout are shuffled into it, never the discards
of the exchange being served (docs/house-rules.md §21).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence

from arena.engine.cards import Card
from arena.engine.drawpolicy import policy_for
from arena.engine.games import Variant

__all__ = ["sample_exchanges"]


class _Stub:
    """One sample's unseen cards, dealt in a random order, and the discards that refill it."""

    __slots__ = ("deck", "pile", "random", "top")

    def __init__(self, stub: Sequence[Card], discards: Sequence[Card],
                 random_: Callable[[], float]) -> None:
        self.deck = list(stub)
        self.pile = list(discards)
        self.random = random_
        self.top = 0

    def draw(self, count: int) -> list[Card]:
        deck = self.deck
        out: list[Card] = []
        for _ in range(count):
            top = self.top
            if top == len(deck):
                if not self.pile:
                    return out  # nothing left at all: the hand is served short
                deck.extend(self.pile)
                self.pile.clear()
            j = top + int(self.random() * (len(deck) - top))
            deck[top], deck[j] = deck[j], deck[top]
            out.append(deck[top])
            self.top = top + 1
        return out


def sample_exchanges(variant: Variant, hands: Sequence[tuple[Card, ...]],
                     plans: Sequence[tuple[int, ...]], stub: Sequence[Card],
                     discards: Sequence[Card], samples: int,
                     seed: int) -> Iterator[list[tuple[Card, ...]]]:
    """``samples`` runouts (``random.Random(seed)``): each hand's cards at the showdown."""
    policy = policy_for(variant)
    random_ = random.Random(seed).random
    for _ in range(samples):
        cards_left = _Stub(stub, discards, random_)
        result = []
        for hand, plan in zip(hands, plans, strict=True):
            cards = list(hand)
            for step in plan:
                if step:
                    cards += cards_left.draw(step)
                    continue
                given = policy(cards)
                if given:
                    kept = [c for c in cards if c not in given]
                    cards = kept + cards_left.draw(len(given))
                    cards_left.pile.extend(given)
            result.append(tuple(cards))
        yield result

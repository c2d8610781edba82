"""Sampled runouts of hands with exchanges still to come (docs/house-rules.md §29).

Each sample plays the hands' plans round by round, as the dealer does: the plans are aligned
at their ends (every hand's last step is the hand's last round), and in each round every hand
with a step there takes it in turn: a positive step deals that many cards, a 0 step is an
exchange the game's fixed policy (`arena.engine.drawpolicy`) plays with the cards held then,
its replacements dealt at once. The cards come from the unseen cards in a random order; when
they cannot serve a step, the discards seen so far (``discards``, and those of the runout's
own exchanges) are shuffled into them first, never the discards of the exchange being served
(docs/house-rules.md §21): those (``held_back``) join the others only once hand
``held_back_hand``'s first step, their replacement cards, is dealt (first in its round: that
exchange is under way).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence

from arena.engine.cards import Card
from arena.engine.drawpolicy import policy_for
from arena.engine.games import Variant
from arena.engine.shuffle import shuffle_steps

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
        if len(deck) - self.top < count:  # §21: the discards are shuffled into the stub first
            deck.extend(self.pile)
            self.pile.clear()
        top = self.top
        end = min(top + count, len(deck))  # short only with no card left at all
        shuffle_steps(deck, top, end, self.random)
        self.top = end
        return deck[top:end]


def sample_exchanges(variant: Variant, hands: Sequence[tuple[Card, ...]],
                     plans: Sequence[tuple[int, ...]], stub: Sequence[Card],
                     discards: Sequence[Card], samples: int, seed: int, *,
                     held_back: Sequence[Card] = (),
                     held_back_hand: int = -1) -> Iterator[list[tuple[Card, ...]]]:
    """``samples`` runouts (``random.Random(seed)``): each hand's cards at the showdown."""
    policy = policy_for(variant)
    random_ = random.Random(seed).random
    rounds = max((len(p) for p in plans), default=0)
    first_of_held = (rounds - len(plans[held_back_hand]), held_back_hand) if held_back else None
    # (round, hand, step) in the dealer's order: round by round, hand after hand, the exchange
    # being served first in its round (it is under way; the others of the round come after it).
    schedule = [(r, h, step) for r, _first, h, step in sorted(
        (rounds - len(plan) + k, (rounds - len(plan) + k, h) != first_of_held, h, step)
        for h, plan in enumerate(plans) for k, step in enumerate(plan))]
    for _ in range(samples):
        cards_left = _Stub(stub, discards, random_)
        cards = [list(h) for h in hands]
        for round_, h, step in schedule:
            if step:
                cards[h] += cards_left.draw(step)
            else:
                given = policy(cards[h])
                if given:
                    kept = [c for c in cards[h] if c not in given]
                    cards[h] = kept + cards_left.draw(len(given))
                    cards_left.pile.extend(given)
            if (round_, h) == first_of_held:
                cards_left.pile.extend(held_back)
        yield [tuple(c) for c in cards]

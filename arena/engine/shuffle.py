"""The deck's lazy shuffle, its inner loop: Fisher-Yates steps over part of the deck."""

from __future__ import annotations

from collections.abc import Callable


def shuffle_steps(cards: list[int], start: int, end: int, random_: Callable[[], float]) -> None:
    """Steps ``start`` to ``end - 1`` of a Fisher-Yates shuffle of ``cards``, in place: step
    ``i`` swaps card ``i`` with one of ``cards[i:]`` picked by the next ``random_()``."""
    size = len(cards)
    for i in range(start, end):
        pick = i + int(random_() * (size - i))
        cards[i], cards[pick] = cards[pick], cards[i]

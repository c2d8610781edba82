"""The H.O.R.S.E. rotation and the button (docs/house-rules.md §2 and §7)."""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine.games import GameCode
from arena.engine.rules import Rules


def game_for_hand(rules: Rules, hand_index: int, starting_seat_count: int) -> GameCode:
    """The game of the ``hand_index``-th hand (from 0): each game for ``hands_per_game`` hands."""
    per_game = rules.hands_per_game or starting_seat_count
    return rules.games[(hand_index // per_game) % len(rules.games)]


def engine_order(button: int, seats: Sequence[int]) -> list[int]:
    """Physical seats in PHH order: first the seat left of the button, the button last.

    ``seats`` are the physical seats dealt in, ascending; the button is one of them.
    """
    k = seats.index(button)
    return [*seats[k + 1 :], *seats[: k + 1]]


def next_button(button: int, eligible: Sequence[int], seat_total: int) -> int:
    """The next seat clockwise from ``button`` that may take the button."""
    for step in range(1, seat_total + 1):
        seat = (button + step) % seat_total
        if seat in eligible:
            return seat
    raise ValueError("no seat may take the button")

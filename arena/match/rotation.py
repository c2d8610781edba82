"""The rotation of games (docs/house-rules.md §7, docs/house-rules.md §27) and the button
(docs/house-rules.md §2)."""

from __future__ import annotations

from collections.abc import Sequence

from arena.engine.games import GameCode
from arena.engine.rules import Rules, Stakes


def rotation_place(rules: Rules, hand_index: int, starting_seat_count: int) -> tuple[int, int]:
    """The ``hand_index``-th hand's (from 0) place in the rotation: the index of its `games`
    entry, and its number (from 0) among that entry's hands in a row. Each game deals
    ``hands_per_game`` hands, or its entry's own `hands` (docs/house-rules.md §27)."""
    if not rules.game_entries:
        per_game = rules.hands_per_game or starting_seat_count
        return (hand_index // per_game) % len(rules.games), hand_index % per_game
    lengths = [rules.hands_for(k, starting_seat_count) for k in range(len(rules.games))]
    rest = hand_index % sum(lengths)
    for entry, length in enumerate(lengths):
        if rest < length:
            return entry, rest
        rest -= length
    raise AssertionError("unreachable: rest < sum(lengths)")


def game_for_hand(rules: Rules, hand_index: int, starting_seat_count: int) -> GameCode:
    """The game of the ``hand_index``-th hand (from 0): each game for its number of hands."""
    return rules.games[rotation_place(rules, hand_index, starting_seat_count)[0]]


def stakes_for_hand(rules: Rules, hand_index: int, starting_seat_count: int) -> Stakes:
    """The stakes of the ``hand_index``-th hand: its game's entry's, else the match's."""
    return rules.stakes_for(rotation_place(rules, hand_index, starting_seat_count)[0])


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

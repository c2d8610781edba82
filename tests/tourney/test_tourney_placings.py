"""Placings by order of elimination (docs/house-rules.md §8; seed 003 §7 for absent bots)."""

from __future__ import annotations

from arena.tourney.placings import Bust, place_busts


def test_busted_in_the_same_hand_the_bigger_starting_stack_places_higher() -> None:
    busts = [Bust("a", 50, True, 1, 9), Bust("b", 120, True, 2, 7), Bust("c", 80, True, 1, 9)]
    places = {e.player: e.place for e in place_busts(busts, players_left=4, round_number=9)}
    assert places == {"b": 5, "c": 6, "a": 7}


def test_an_absent_bot_is_placed_last_among_those_out_in_that_hand() -> None:
    busts = [Bust("absent", 500, False, 1, 3), Bust("here", 10, True, 1, 3)]
    places = {e.player: e.place for e in place_busts(busts, players_left=2, round_number=3)}
    assert places == {"here": 3, "absent": 4}


def test_exactly_equal_busts_share_the_better_place() -> None:
    busts = [Bust("a", 40, True, 1, 2), Bust("b", 40, True, 2, 2), Bust("c", 10, True, 1, 2)]
    places = {e.player: e.place for e in place_busts(busts, players_left=1, round_number=2,
                                                     place_offset=6)}
    assert places == {"a": 8, "b": 8, "c": 10}

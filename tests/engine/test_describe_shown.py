"""Showdown words of the lowball and wild-card games (issue 42): deuce-to-seven (docs/house-rules.md
§21), ace-to-six (§22), wild cards (§23) and Low Hole's own wild rank (§24)."""

from __future__ import annotations

import random
from itertools import combinations

import pytest

from arena.engine.cards import format_card, parse_cards
from arena.engine.describe_wild import SeatWild, seat_wild, wild_high_shown, wild_low_shown
from arena.engine.games import (
    DEUCE_TO_SEVEN_TRIPLE_DRAW,
    LONDON_LOWBALL,
    LOW_HOLE,
    LOW_HOLE_HI_LO,
    STUD_WILD,
    STUD_WILD_HI_LO,
    STUD_WILD_LOW,
)
from arena.engine.lowball import ace_to_six_value, deuce_to_seven_value
from arena.engine.rules import Rules
from arena.engine.shown import ShownValue, shown_value
from arena.engine.wild import wild_high_value, wild_low_value

DEUCES = frozenset({0})


def _low(variant_cards: str, *, ace_low: bool) -> ShownValue:
    variant = LONDON_LOWBALL if ace_low else DEUCE_TO_SEVEN_TRIPLE_DRAW
    return shown_value(variant, parse_cards(variant_cards), [])


@pytest.mark.parametrize(("cards", "words"), [
    # §21: 7-5-4-3-2 of mixed suits is the best hand, named by its two highest cards.
    ("7c5d4h3s2c", "seven-five low: 7-5-4-3-2"),
    # §21: aces are high only, so A-2-3-4-5 is ace high, not a straight.
    ("Ac2d3h4s5c", "ace-five low: A-5-4-3-2"),
    # §21: straights and flushes count against a hand, pairs are bad.
    ("6c5d4h3s2c", "low with a straight, six high: 6-5-4-3-2"),
    ("7c5c4c3c2c", "low with a flush, seven high: 7-5-4-3-2"),
    ("9c9d7h4s2c", "low with a pair of nines: 9-9-7-4-2"),
    ("9c9d4h4s2c", "low with two pair, nines and fours: 9-9-4-4-2"),
    ("9c9d9h4s2c", "low with three nines: 9-9-9-4-2"),
])
def test_deuce_to_seven_words(cards: str, words: str) -> None:
    value = _low(cards, ace_low=False)
    assert value.high_description == "" and value.high_cards == ()
    assert value.low_description == words
    assert sorted(value.low_cards) == sorted(parse_cards(cards))


@pytest.mark.parametrize(("cards", "words", "five"), [
    # §22: ace-to-six, the ace low; the best hand is 6-4-3-2-A of mixed suits.
    ("6c4d3h2sAc", "six-four low: 6-4-3-2-A", "6c4d3h2sAc"),
    # §22: A-2-3-4-5 is a straight and counts against the hand ...
    ("Ac2d3h4s5c", "low with a straight, five high: 5-4-3-2-A", "Ac2d3h4s5c"),
    # ... so from seven cards the best five avoids it: 7-4-3-2-A beats the straight.
    ("Ac2d3h4s5cKd7h", "seven-four low: 7-4-3-2-A", "Ac2d3h4s7h"),
    ("Kc9c7c4c2c", "low with a flush, king high: K-9-7-4-2", "Kc9c7c4c2c"),
])
def test_ace_to_six_words(cards: str, words: str, five: str) -> None:
    value = _low(cards, ace_low=True)
    assert value.low_description == words
    assert sorted(value.low_cards) == sorted(parse_cards(five))


def test_ace_to_six_seven_cards_prefer_no_straight() -> None:
    """§22: from A-2-3-4-5-K-7 the best low is not the straight (A-2-3-4-5): the words and
    cards are of the evaluator's best value."""
    cards = parse_cards("Ac2d3h4s5cKd7h")
    value = _low("Ac2d3h4s5cKd7h", ace_low=True)
    assert ace_to_six_value(value.low_cards) == ace_to_six_value(cards)
    assert "straight" not in value.low_description


def test_random_lowball_fives_make_the_best_value() -> None:
    """The five cards shown have the hand's best value, on random hands of 5 to 7 cards."""
    rng = random.Random(42)
    for _ in range(300):
        cards = rng.sample(range(52), rng.randint(5, 7))
        for ace_low, value_of in ((False, deuce_to_seven_value), (True, ace_to_six_value)):
            shown = shown_value(LONDON_LOWBALL if ace_low else DEUCE_TO_SEVEN_TRIPLE_DRAW, cards, [])
            assert value_of(shown.low_cards) == value_of(cards)
            assert " low: " in shown.low_description or shown.low_description.startswith("low with ")


def test_five_of_a_kind_names_the_wild_cards() -> None:
    """§23: a wild card stands for any card, also one the hand holds: three aces and two deuces
    (deuces wild) are five of a kind, above a straight flush; the words name the wild cards."""
    cards = parse_cards("2s2hAsAdAcKd7c")
    value = shown_value(STUD_WILD, cards, [], wild=SeatWild(high=DEUCES))
    assert value.high_description == "five of a kind, aces (A-A-A-A-A; two wild: 2s 2h)"
    assert sorted(value.high_cards) == sorted(parse_cards("2s2hAsAdAc"))
    assert value.low_description == ""


def test_wild_hand_without_wild_cards_reads_as_natural() -> None:
    value = shown_value(STUD_WILD, parse_cards("KsKhKdQcQd7c5h"), [], wild=SeatWild(high=DEUCES))
    assert value.high_description == "full house, kings over queens (K-K-K-Q-Q)"


def test_wild_straight_flush_and_royal() -> None:
    """§23: the wild card completes a straight flush; with the ace it is a royal flush."""
    value = shown_value(STUD_WILD, parse_cards("2cAhKhQhJh3d4s"), [], wild=SeatWild(high=DEUCES))
    assert value.high_description == "royal flush (one wild: 2c)"
    value = shown_value(STUD_WILD, parse_cards("2c9h8h7h6h3d4s"), [], wild=SeatWild(high=DEUCES))
    assert value.high_description.startswith("straight flush")
    assert value.high_description.endswith("; one wild: 2c)")


def test_wild_low_names_the_wild_card() -> None:
    """§23 Practice: for low a wild card is the lowest rank the hand does not hold (here the
    ace, beside 7-5-3-2)... and the words show the low made and the wild card."""
    rules = Rules(wild_ranks="2")
    cards = parse_cards("2d7c5h3sKdQcJh")
    wild = seat_wild(STUD_WILD_LOW, rules, cards, [False] * 7)
    assert wild == SeatWild(low=DEUCES)
    value = shown_value(STUD_WILD_LOW, cards, [], wild=wild)
    assert value.high_description == ""
    assert value.low_description == "J-7-5-3-A low (one wild: 2d)"
    assert sorted(value.low_cards) == sorted(parse_cards("2d7c5h3sJh"))


def test_wild_hi_lo_eight_or_better() -> None:
    """§23 with §5: the low half needs eight or better; a wild card helps it qualify."""
    cards = parse_cards("2d7c5h3sKdQcKh")
    value = shown_value(STUD_WILD_HI_LO, cards, [], wild=SeatWild(high=DEUCES, low=DEUCES))
    assert value.high_description == "three of a kind, kings (K-K-K-Q-7; one wild: 2d)"
    assert value.low_description == ""  # 7-5-3-A and K: no eight-or-better low
    cards = parse_cards("2d7c5h3s4dQcKh")
    value = shown_value(STUD_WILD_HI_LO, cards, [], wild=SeatWild(high=DEUCES, low=DEUCES))
    assert value.low_description == "7-5-4-3-A low (one wild: 2d)"  # the deuce stands for the ace
    assert wild_low_value(value.low_cards, DEUCES) == wild_low_value(cards, DEUCES, eight_or_better=True)


def test_low_hole_names_the_seats_own_wild_rank() -> None:
    """§24 [002]: with 9-4 down and a 3 up, the fours are wild for that seat alone; the words
    name its wild rank, and the seventh card (down) makes a lower rank wild."""
    rules = Rules()
    cards = parse_cards("9c4d3hKsKdQc8h")
    ups = [False, False, True, True, True, True, True]
    wild = seat_wild(LOW_HOLE, rules, cards[:7], [*ups[:6], False])
    assert wild.high == frozenset({2}) and wild.own  # the 4 (rank index 2) is the lowest down card
    value = shown_value(LOW_HOLE, cards, [], wild=wild)
    assert value.high_description == "three of a kind, kings (K-K-K-Q-9; fours wild: 4d)"
    cards = parse_cards("9c4d3hKsKdQc2h")  # a deuce as the seventh, down card: deuces wild
    wild = seat_wild(LOW_HOLE, rules, cards, [*ups[:6], False])
    assert wild.high == frozenset({0})
    assert shown_value(LOW_HOLE, cards, [], wild=wild).high_description.endswith(
        "; deuces wild: 2h)")


def test_low_hole_hi_lo_aces_wild_for_low_only() -> None:
    """§24 [002]: in hi-lo an ace in the hole makes aces wild for low, not for high."""
    rules = Rules()
    cards = parse_cards("Ac4d3h7s6dQc8h")
    ups = [False, False, True, True, True, True, False]
    wild = seat_wild(LOW_HOLE_HI_LO, rules, cards, ups)
    assert wild.low == frozenset({12}) and wild.high == frozenset({2})
    value = shown_value(LOW_HOLE_HI_LO, cards, [], wild=wild)
    assert "fours wild: 4d" in value.high_description
    assert value.low_description == "7-6-4-3-A low (aces wild: Ac)"


def test_random_wild_words_match_the_evaluator() -> None:
    """On random stud hands with one or two wild ranks, the five cards shown have the hand's
    best value (high and low), hold every wild card they can, and the words count them."""
    rng = random.Random(7)
    for _ in range(200):
        cards = rng.sample(range(52), 7)
        ranks = frozenset(rng.sample(range(13), rng.randint(1, 2)))
        text, five = wild_high_shown(cards, ranks)
        assert wild_high_value(five, ranks) == wild_high_value(cards, ranks)
        wilds = [c for c in five if c >> 2 in ranks]
        assert len(wilds) == min(5, sum(1 for c in cards if c >> 2 in ranks))
        if wilds:
            assert " ".join(format_card(c) for c in wilds) in text
        text, five = wild_low_shown(cards, ranks, eight_or_better=False)
        assert text and wild_low_value(five, ranks) == wild_low_value(cards, ranks)
        assert max(wild_low_value(f, ranks) or -1 for f in combinations(cards, 5)) == \
            wild_low_value(five, ranks)

"""Shown hands (docs/house-rules.md §5): the fast `shown_value` against a plain one that values every
five-card hand in turn, on random hands of every game, words and cards alike."""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from itertools import combinations, product

import pytest

from arena.engine import evaluate as ev
from arena.engine.cards import Card, parse_cards
from arena.engine.games import VARIANTS, GameCode, Showdown, Variant
from arena.engine.shown import ShownValue, shown_value


def _plain_fives(variant: Variant, cards: Sequence[Card],
                 board: Sequence[Card]) -> list[tuple[Card, ...]]:
    if variant.is_omaha:
        return [a + b for a, b in product(combinations(cards, 2), combinations(board, 3))]
    return list(combinations([*cards, *board], 5))


def _first_best(valued: Iterable[tuple[int | None, tuple[Card, ...]]]) -> tuple[int, tuple[Card, ...]] | None:
    best: tuple[int, tuple[Card, ...]] | None = None
    for value, five in valued:
        if value is not None and (best is None or value > best[0]):
            best = (value, five)
    return best


def plain_shown_value(variant: Variant, cards: Sequence[Card], board: Sequence[Card]) -> ShownValue:
    """Every five valued on its own; the first five of the best value is the one shown."""
    fives = _plain_fives(variant, cards, board)
    high_text, low_text = "", ""
    high_cards: tuple[Card, ...] = ()
    low_cards: tuple[Card, ...] = ()
    if variant.showdown is not Showdown.LOW:
        high = _first_best((ev.high_value(five), five) for five in fives)
        if high is not None:
            high_text, high_cards = ev.describe_high(high[0]), high[1]
    if variant.showdown is not Showdown.HIGH:
        value_of = ev.low8_value if variant.showdown is Showdown.HIGH_LOW_8 else ev.low_value
        low = _first_best((value_of(five), five) for five in fives)
        if low is not None:
            low_text, low_cards = ev.describe_low(low[0]), low[1]
    return ShownValue(high_text, high_cards, low_text, low_cards)


def _random_hand(variant: Variant, rng: random.Random) -> tuple[list[Card], list[Card]]:
    # A deck of few ranks or of mostly one suit makes ties, pairs, lows and flushes common,
    # where the choice of which five to show matters most.
    deck = list(range(52))
    shape = rng.randrange(3)
    if shape == 1:
        ranks = rng.sample(range(13), rng.randint(3, 7))
        deck = [card for card in deck if card >> 2 in ranks]
    elif shape == 2:
        suit = rng.randrange(4)
        deck = [card for card in deck if card & 3 == suit or rng.random() < 0.2]
    rng.shuffle(deck)
    if variant.is_omaha:
        return deck[:4], deck[4:4 + rng.randint(3, 5)]
    if variant.is_stud:
        return deck[:rng.randint(5, 7)], []
    return deck[:2], deck[2:2 + rng.randint(3, 5)]


@pytest.mark.parametrize("code", list(VARIANTS))
def test_shown_value_is_the_plain_first_best_five(code: GameCode) -> None:
    """docs/house-rules.md §5: the words and five cards of a shown hand are those of its best five-card
    hand (two hole and three board cards in Omaha), the same as valuing every five in turn."""
    variant = VARIANTS[code]
    rng = random.Random(f"shown {code.value}")
    for _ in range(1500):
        cards, board = _random_hand(variant, rng)
        assert shown_value(variant, cards, board) == plain_shown_value(variant, cards, board), (
            cards, board)


def test_shown_value_with_too_few_cards_is_empty() -> None:
    """Before the flop (a hand won uncontested) no five cards exist: nothing is described."""
    empty = ShownValue("", (), "", ())
    assert shown_value(VARIANTS[GameCode.HOLDEM], parse_cards("AsAh"), parse_cards("2c3d")) == empty
    assert shown_value(VARIANTS[GameCode.OMAHA_HI_LO], parse_cards("As2h3d4c"), []) == empty
    assert shown_value(VARIANTS[GameCode.RAZZ], parse_cards("As2h3d4c"), []) == empty


def test_shown_value_words_and_cards() -> None:
    """docs/house-rules.md §5: a known hi-lo hand, words and the five cards of each half."""
    value = shown_value(VARIANTS[GameCode.OMAHA_HI_LO], parse_cards("As2hKdKc"),
                        parse_cards("3c4d5s9hKs"))
    assert value.high_description == "straight, five high (5-4-3-2-A)"
    assert value.low_description == "5-4-3-2-A"
    assert value.high_cards == value.low_cards == tuple(parse_cards("As2h3c4d5s"))
    stud = shown_value(VARIANTS[GameCode.STUD], parse_cards("KdKcKs9h9c2h3c"), [])
    assert stud.high_description == "full house, kings over nines (K-K-K-9-9)"
    assert stud.high_cards == tuple(parse_cards("KdKcKs9h9c"))
    assert stud.low_cards == ()

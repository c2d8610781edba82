"""docs/house-rules.md §23 (seven-card stud with wild cards) and §24 (Low Hole): the wild-card
evaluator against brute-force substitution of every wild card, and the games dealt.

The brute force replaces each wild card by every one of the 52 cards (duplicates of cards the
hand holds allowed: docs/house-rules.md §23 Decision "also one the hand already holds") and takes the
best five cards of the result; for low, by every rank (suits do not count in ace-to-five).
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence
from itertools import combinations, combinations_with_replacement, product

import pytest

from arena.engine import evaluate as ev
from arena.engine.cards import parse_cards
from arena.engine.errors import ConfigError
from arena.engine.games import variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.engine.wild import (
    _low_five_badness,
    five_high_value,
    low_hole_low_wild_ranks,
    low_hole_wild_ranks,
    wild_high_value,
    wild_low_value,
)

DEUCES = frozenset({0})


def brute_high(cards: Sequence[int], wild: Collection[int]) -> int:
    naturals = [c for c in cards if c >> 2 not in wild]
    wilds = len(cards) - len(naturals)
    best = -1
    for subs in product(range(52), repeat=wilds):
        hand = naturals + list(subs)
        for five in combinations(hand, 5):
            value = five_high_value([c >> 2 for c in five], len({c & 3 for c in five}) == 1)
            best = max(best, value)
    return best


def brute_low(cards: Sequence[int], wild: Collection[int], eight: bool) -> int | None:
    low_rank = [(c >> 2) + 1 if c >> 2 != 12 else 0 for c in cards if c >> 2 not in wild]
    wilds = len(cards) - len(low_rank)
    best: int | None = None
    for subs in product(range(13), repeat=wilds):
        for five in combinations(low_rank + list(subs), 5):
            if eight and (len(set(five)) < 5 or max(five) > 7):
                continue
            value = (1 << 24) - _low_five_badness(sorted(five, reverse=True))
            best = value if best is None else max(best, value)
    return best


def test_five_card_order_is_the_standard_high_order() -> None:
    """docs/house-rules.md §5 high ranking, kept by the wild-card scale for natural hands: the very values
    of the engine's evaluator on random five-card hands (so a hand without wild cards may be
    valued by it)."""
    rng = random.Random(1)
    for _ in range(3000):
        hand = rng.sample(range(52), 5)
        flush = len({c & 3 for c in hand}) == 1
        assert five_high_value([c >> 2 for c in hand], flush) == ev.high_value(hand), hand


def test_low_five_order_is_ace_to_five() -> None:
    """docs/house-rules.md §5 ace-to-five low, kept by the wild-card low scale for natural hands."""
    rng = random.Random(2)
    hands = [rng.sample(range(52), 5) for _ in range(3000)]
    ours = [wild_low_value(h, ()) for h in hands]
    theirs = [ev.low_value(h) for h in hands]
    for i in range(0, 2998):
        assert (ours[i] > ours[i + 1]) == (theirs[i] > theirs[i + 1])  # type: ignore[operator]
        assert (ours[i] == ours[i + 1]) == (theirs[i] == theirs[i + 1])


def test_wild_high_exhaustive_small_cases() -> None:
    """docs/house-rules.md §23: every five-card hand of one or two deuces and naturals from ten cards,
    against brute-force substitution of each deuce by every card."""
    pool = parse_cards("AsKsQsJsTs9h9d5c3d7h")
    count = 0
    for wilds in (parse_cards("2c"), parse_cards("2c2d")):
        for naturals in combinations(pool, 5 - len(wilds)):
            hand = [*naturals, *wilds]
            assert wild_high_value(hand, DEUCES) == brute_high(hand, DEUCES), hand
            count += 1
    assert count == 210 + 120  # C(10, 4) + C(10, 3)


def test_wild_high_random_seven_cards() -> None:
    """docs/house-rules.md §23: random seven-card hands with deuces and one more wild rank (jacks),
    zero to two wild cards, against brute force."""
    rng = random.Random(3)
    wild = frozenset({0, 9})
    checked = 0
    while checked < 12:
        hand = rng.sample(range(52), 7)
        if sum(1 for c in hand if c >> 2 in wild) > 2:
            continue
        assert wild_high_value(hand, wild) == brute_high(hand, wild), hand
        checked += 1


def test_wild_high_tables_against_every_choice_of_naturals() -> None:
    """docs/house-rules.md §23: the value read from the tables (by natural ranks, and by one
    suit's natural ranks for a flush) is the best of every choice of ``5 - wilds`` naturals
    with every rank for each wild card, the wild cards of the naturals' suit when those are
    of one suit: random 5 to 8 cards crowded into one suit, zero to three wild cards."""
    rng = random.Random(8)
    for _ in range(400):
        suit = rng.randrange(4)
        pool = [c for c in range(52) if c & 3 == suit] + rng.sample(range(52), 8)
        hand = list(dict.fromkeys(rng.sample(pool, 9)))[:rng.randint(5, 8)]
        wild = frozenset(rng.sample(range(13), rng.randint(1, 2)))
        naturals = [c for c in hand if c >> 2 not in wild]
        wilds = min(len(hand) - len(naturals), 5)
        if len(hand) < 5 or not 1 <= wilds <= 3:
            continue
        best = -1
        for chosen in combinations(naturals, 5 - wilds):
            flush = len({c & 3 for c in chosen}) <= 1
            for extra in combinations_with_replacement(range(13), wilds):
                best = max(best, five_high_value([*(c >> 2 for c in chosen), *extra], flush))
        assert wild_high_value(hand, wild) == best, (hand, wild)


def test_many_wild_cards() -> None:
    """docs/house-rules.md §23: six to eight wild cards among eight: five aces for high, the
    best low (5-4-3-2-A) for low and eight-or-better."""
    five_aces = wild_high_value(parse_cards("AsAhAdAc2c"), DEUCES)
    wheel = wild_low_value(parse_cards("5c4d3h2sAc"), ())
    for naturals in ("", "Kc", "KcQd"):
        hand = parse_cards("2c2d2h2s3c3d3h3s")[:8 - len(naturals) // 2] + parse_cards(naturals)
        wild = frozenset({0, 1})  # deuces and threes
        assert wild_high_value(hand, wild) == five_aces, hand
        assert wild_low_value(hand, wild) == wheel, hand
        assert wild_low_value(hand, wild, eight_or_better=True) == wheel, hand


def test_wild_low_against_brute_force() -> None:
    """docs/house-rules.md §23 Decision: for low a wild card is the lowest rank the hand does not hold;
    ace-to-five and eight-or-better, random hands of 5 to 7 cards with up to three wild
    cards, against brute force over every rank for every wild card."""
    rng = random.Random(4)
    for _ in range(600):
        hand = rng.sample(range(52), rng.randint(5, 7))
        wild = frozenset(rng.sample(range(13), rng.randint(0, 2)))
        if sum(1 for c in hand if c >> 2 in wild) > 3:
            continue
        assert wild_low_value(hand, wild) == brute_low(hand, wild, False), (hand, wild)
        assert wild_low_value(hand, wild, eight_or_better=True) == brute_low(hand, wild, True)


def test_five_of_a_kind_beats_a_straight_flush_and_wild_ties_natural() -> None:
    """docs/house-rules.md §23 Decision: five of a kind exists and ranks above a straight flush; a hand
    made with a wild card ties the same natural hand."""
    five_aces = wild_high_value(parse_cards("AsAhAdAc2c"), DEUCES)
    royal = wild_high_value(parse_cards("AsKsQsJsTs"), DEUCES)
    assert five_aces > royal
    assert wild_high_value(parse_cards("AsKsQsJs2c"), DEUCES) == royal  # the deuce is the ten
    jacks = frozenset({9})
    assert wild_high_value(parse_cards("AsJc3d4h5s9c"), jacks) == wild_high_value(
        parse_cards("As2c3d4h5s9c"), jacks)  # the jack is the deuce: a five-high straight


def test_wild_ranks_key() -> None:
    """docs/house-rules.md §23: the wild ranks are a key (default deuces); bad values are refused."""
    assert Rules().wild_rank_set == frozenset({0})
    assert Rules.from_mapping({"wild_ranks": "2J"}).wild_rank_set == frozenset({0, 9})
    assert Rules.from_mapping({"wild_ranks": ""}).wild_rank_set == frozenset()
    for bad in ("22", "X", "1"):
        with pytest.raises(ConfigError, match="wild_ranks"):
            Rules.from_mapping({"wild_ranks": bad})


def test_low_hole_wild_rank_is_the_lowest_down_card() -> None:
    """docs/house-rules.md §24, the seed's example [002]: "Wenn Ihre ersten drei Karten 9-4 verdeckt
    und 3 aufgedeckt sind, sind alle Ihre Vieren Wild Cards, es sei denn, Ihre siebte Karte,
    die ebenfalls verdeckt ist, ist eine 3 oder eine 2"."""
    cards = parse_cards("9c4d3h")
    is_up = [False, False, True]
    assert low_hole_wild_ranks(cards, is_up) == frozenset({2})  # fours (rank index 2)
    seven = [*cards, *parse_cards("KcQdJh"), parse_cards("3s")[0]]
    ups = [*is_up, True, True, True, False]
    assert low_hole_wild_ranks(seven, ups) == frozenset({1})  # the seventh card: threes
    seven[-1] = parse_cards("Ks")[0]
    assert low_hole_wild_ranks(seven, ups) == frozenset({2})  # a higher seventh card: fours
    # Decision: for the high game the ace is the highest rank.
    assert low_hole_wild_ranks(parse_cards("AcKd5h"), is_up) == frozenset({11})


def test_low_hole_hi_lo_aces_in_the_hole_are_wild_for_low_only() -> None:
    """docs/house-rules.md §24 [002: "Wenn es als High-Low-Spiel gespielt wird ... und Sie haben ein
    Ass in Ihren Anfangskarten (hole cards), dann werden die Asse zu Wild Cards für niedrige
    Blätter, jedoch nicht für hohe Blätter"]."""
    cards = parse_cards("Ac9d4h5s6c7dKh")
    ups = [False, False, True, True, True, True, False]
    assert low_hole_low_wild_ranks(cards, ups) == frozenset({12})  # aces, for low
    assert low_hole_wild_ranks(cards, ups) == frozenset({7})  # nines, for high (ace high)
    # Low: the wild ace stands for the lowest rank the hand lacks, an ace: 7-6-5-4-A; the
    # same hand with a deuce for it is worse (7-6-5-4-2).
    low = wild_low_value(cards, frozenset({12}), eight_or_better=True)
    assert low == wild_low_value(cards, (), eight_or_better=True)
    assert low > wild_low_value(parse_cards("2c9d4h5s6c7dKh"), (), eight_or_better=True)
    no_ace = [*parse_cards("Tc9d4h5s6c7d"), parse_cards("8h")[0]]
    assert low_hole_low_wild_ranks(no_ace, ups) == frozenset({6})  # eights, as for high


@pytest.mark.parametrize("code", ["F7SW", "F7SWL", "F7SW/8", "FLH", "FLH/8"])
def test_wild_games_play_to_the_end(code: str) -> None:
    """docs/house-rules.md §23/§24: the wild-card stud games deal as stud and settle every pot to the
    best hands by the wild-card evaluator (chips conserved, winners checked)."""
    variant = variant_for(code)
    rules = Rules.from_mapping({"wild_ranks": "2"})
    for seed in range(60):
        state = HandState(variant, [300] * (2 + seed % 7), rules=rules, seed=seed)
        while not state.is_over:
            state.check_or_call()
        assert state.result is not None
        assert sum(state.stacks) == 300 * state.seat_count
        order = state.result.showdown_order
        assert order
        if code in ("F7SW", "FLH"):
            values = {}
            for s in order:
                wild = (low_hole_wild_ranks(state.cards[s], state.is_up[s]) if code == "FLH"
                        else rules.wild_rank_set)
                values[s] = wild_high_value(state.cards[s] + state.board, wild)
            winners = {w for a in state.result.awards for w in a.winners}
            assert winners == {s for s, v in values.items() if v == max(values.values())}


def test_low_hole_ace_high_key() -> None:
    """docs/house-rules.md §24 Decision `low_hole_ace_high` (default true): an ace in the hole
    is the highest rank, so it is never the lowest down card; with false it is the lowest."""
    cards = parse_cards("AcKd5h")
    is_up = [False, False, True]
    assert low_hole_wild_ranks(cards, is_up) == frozenset({11})  # kings
    assert low_hole_wild_ranks(cards, is_up, ace_high=False) == frozenset({12})  # aces
    rules = Rules.from_mapping({"low_hole_ace_high": False})
    assert rules.low_hole_ace_high is False

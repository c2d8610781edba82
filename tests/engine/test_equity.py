"""Equity: exhaustive enumeration by the rules' definitions, Monte Carlo, PokerKit, bad input.

Pot shares follow docs/house-rules.md §5 (hi-lo halves, no qualifying low gives the high hand the whole pot;
razz is won by the best ace-to-five low) and §1 (a stud deck that runs out gets a common card).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from itertools import combinations, product

import pokerkit as pk
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine.cards import Card, parse_cards
from arena.engine.equity import Equity, equity, runout_count
from arena.engine.evaluate import high_value, low8_value, low_value
from arena.engine.games import VARIANTS, Showdown


def p(text: str) -> list[Card]:
    return parse_cards(text)


# ------------------------------------------------------------------ a reference by definition


def _best(fives: Sequence[tuple[Card, ...]], kind: str) -> int | None:
    values: list[int | None]
    if kind == "high":
        values = [high_value(f) for f in fives]
    elif kind == "low":
        values = [low_value(f) for f in fives]
    else:
        values = [low8_value(f) for f in fives]
    qualified = [v for v in values if v is not None]
    return max(qualified) if qualified else None


def _fives(game: str, hand: Sequence[Card], board: Sequence[Card]) -> list[tuple[Card, ...]]:
    if game == "FO/8":
        return [a + b for a, b in product(combinations(hand, 2), combinations(board, 3))]
    return list(combinations([*hand, *board], 5))


def _shares(game: str, hands: Sequence[Sequence[Card]], board: Sequence[Card]) -> list[float]:
    """One runout's pot shares, straight from docs/house-rules.md §5, on every five-card choice."""
    fives = [_fives(game, h, board) for h in hands]
    shares = [0.0] * len(hands)

    def give(values: list[int | None], amount: float) -> None:
        best = max(v for v in values if v is not None)
        winners = [i for i, v in enumerate(values) if v == best]
        for i in winners:
            shares[i] += amount / len(winners)

    if game == "FR":
        give([_best(f, "low") for f in fives], 1.0)
        return shares
    highs = [_best(f, "high") for f in fives]
    if game in ("FO/8", "F7S/8"):
        lows = [_best(f, "low8") for f in fives]
        if any(v is not None for v in lows):
            give(highs, 0.5)
            give(lows, 0.5)
            return shares
    give(highs, 1.0)
    return shares


def _reference(game: str, hands: Sequence[Sequence[Card]], board: Sequence[Card],
               dead: Sequence[Card] = ()) -> list[float]:
    """Average shares over every runout, dealt card by card as a list of complete deals."""
    hole = 7 if game in ("FR", "F7S", "F7S/8") else (4 if game == "FO/8" else 2)
    full_board = 0 if hole == 7 else 5
    used = {*board, *dead, *(c for h in hands for c in h)}
    stub = [c for c in range(52) if c not in used]
    missing = [full_board - len(board), *(hole - len(h) for h in hands)]
    totals = [0.0] * len(hands)
    count = 0

    def deal(k: int, stub: list[Card], dealt: list[tuple[Card, ...]]) -> None:
        nonlocal count
        if k == len(missing):
            b = [*board, *dealt[0]]
            full = [[*h, *d] for h, d in zip(hands, dealt[1:], strict=True)]
            for i, s in enumerate(_shares(game, full, b)):
                totals[i] += s
            count += 1
            return
        for cards in combinations(stub, missing[k]):
            deal(k + 1, [c for c in stub if c not in cards], [*dealt, cards])

    deal(0, stub, [])
    return [t / count for t in totals]


CASES = [
    ("FT", ["AsAh", "KsKh"], "2c7d9hTh", ""),
    ("FT", ["AsKs", "QhQd", "7c2d"], "Ts9s3h4c", "8s"),
    ("FT", ["AhKh", "AdKd"], "2h3d4c5s", ""),  # chops and a possible heart flush
    ("FT", ["AsAh", ""], "KsKhKdQc2d", ""),  # one unknown hand
    ("FO/8", ["As2h3d4c", "KsKhQdQc"], "5c7d9h8s", ""),
    ("FO/8", ["As2h3d4c", "Ad2c3hKs", "QsJsTs9s"], "5s6d7cJh", ""),
    ("FR", ["As2h3d4c5s6c", "2s3h4d5c6s7s"], "", ""),
    ("F7S", ["AsAhKd2c3c4c", "QsQhQd5c6c7c"], "", ""),
    ("F7S/8", ["As2h3d4c8d9d", "KsKhQdQc5h6h"], "", ""),
    ("F7S/8", ["As2h3d4c8d9d", "KsKhQdQc5h6h7h", "7s7d7c2d3s4s5c"], "", "Jh"),
]


@pytest.mark.parametrize(("game", "hands", "board", "dead"), CASES)
def test_exact_equity_equals_enumeration_by_the_rules(
    game: str, hands: list[str], board: str, dead: str
) -> None:
    """docs/house-rules.md §5: every runout enumerated, shares by every five-card choice."""
    hs = [p(h) for h in hands]
    result = equity(game, hs, board=p(board), dead=p(dead))
    assert result.is_exact
    assert result.runouts == runout_count(game, hs, board=p(board), dead=p(dead))
    expected = _reference(game, hs, p(board), p(dead))
    assert result.totals == pytest.approx(expected, abs=1e-12)
    assert sum(result.totals) == pytest.approx(1.0)


def test_known_shares_high_low_and_scoop() -> None:
    """docs/house-rules.md §5: a hi-lo pot halves when a low qualifies, else it goes whole to the high."""
    # The wheel on the river scoops: best low and a straight no other hand can beat here.
    result = equity("FO/8", [p("As2hKdKc"), p("QsQhJdJc")], board=p("3c4d5s9hTd"))
    assert result.is_exact and result.runouts == 1
    first, second = result.seats
    assert (first.high, first.low, first.scoop) == (0.5, 0.5, 1.0)
    assert (second.high, second.low, second.scoop) == (0.0, 0.0, 0.0)
    # No low possible on this board: the high takes the whole pot.
    result = equity("FO/8", [p("As2hKdKc"), p("QsQhJdJc")], board=p("QcJhTs9d9c"))
    assert result.seats[1].high == 1.0 and result.seats[1].scoop == 1.0
    # Razz: the low takes the whole pot and counts as low.
    result = equity("FR", [p("As2h3d4c5s6c7c"), p("KsKhQdQcJhJdTs")])
    assert result.seats[0].low == 1.0 and result.seats[0].high == 0.0
    # A chopped high is no scoop.
    result = equity("FT", [p("AhKh"), p("AdKd")], board=p("2c3d4s9hTs"))
    assert [s.high for s in result.seats] == [0.5, 0.5]
    assert [s.scoop for s in result.seats] == [0.0, 0.0]


def test_monte_carlo_is_seeded_and_close_to_exact() -> None:
    hands = [p("AsAh"), p("KsKh")]
    board = p("2c7d9h")
    exact = equity("FT", hands, board=board)
    assert exact.is_exact
    sampled = equity("FT", hands, board=board, exact_limit=0, samples=4000, seed=7)
    assert not sampled.is_exact and sampled.runouts == 4000
    assert sampled == equity("FT", hands, board=board, exact_limit=0, samples=4000, seed=7)
    assert sampled != equity("FT", hands, board=board, exact_limit=0, samples=4000, seed=8)
    sigma = math.sqrt(exact.totals[0] * (1 - exact.totals[0]) / 4000)
    assert abs(sampled.totals[0] - exact.totals[0]) < 5 * sigma


@pytest.mark.parametrize("game", sorted(VARIANTS))
def test_unknown_hands_are_symmetric(game: str) -> None:
    """With nothing known every seat has the same equity (exchangeable deals)."""
    result = equity(game, [(), (), ()], samples=3000, seed=1)
    for share in result.totals:
        assert abs(share - 1 / 3) < 5 * math.sqrt(2 / 9 / 3000)


def test_stud_deck_running_out_gets_a_common_card() -> None:
    """docs/house-rules.md §1: 8 seats with six cards each leave 4 cards: one common seventh card."""
    deck = list(range(52))
    hands = [deck[6 * i:6 * i + 6] for i in range(8)]
    assert runout_count("F7S", hands) == 4
    result = equity("F7S", hands)
    assert result.is_exact and result.runouts == 4
    assert sum(result.totals) == pytest.approx(1.0)
    # With the common card given, the hand is complete.
    assert runout_count("F7S", hands, board=[48]) == 1


@settings(max_examples=60, deadline=None)
@given(game=st.sampled_from(sorted(VARIANTS)), seats=st.integers(2, 6),
       known=st.integers(0, 7), board=st.integers(0, 5), seed=st.integers(0, 2**32))
def test_shares_are_probabilities_summing_to_one(
    game: str, seats: int, known: int, board: int, seed: int
) -> None:
    variant = VARIANTS[game]
    rng = random.Random(seed)
    deck = rng.sample(range(52), 52)
    hole = min(known, variant.hole_card_count)
    hands = [deck[i * hole:(i + 1) * hole] for i in range(seats)]
    board_cards = [] if variant.is_stud else deck[seats * hole:seats * hole + board]
    result = equity(game, hands, board=board_cards, samples=50, exact_limit=50, seed=seed)
    assert isinstance(result, Equity)
    assert sum(result.totals) == pytest.approx(1.0)
    for s in result.seats:
        assert 0.0 <= s.scoop <= s.total <= 1.0 + 1e-12
        assert s.high >= 0.0 and s.low >= 0.0
        if variant.showdown is not Showdown.LOW:
            assert s.low <= 0.5 + 1e-12


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"game": "XX", "hands": [[0, 1]]}, "unknown game"),
        ({"game": "FT", "hands": [[0, 1], [1, 2]]}, "twice"),
        ({"game": "FT", "hands": [[0, 52]]}, "not a card"),
        ({"game": "FT", "hands": [[0, -1]]}, "not a card"),
        ({"game": "FT", "hands": [[0, 1.0]]}, "not a card"),
        ({"game": "FT", "hands": [[0, True]]}, "not a card"),
        ({"game": "FT", "hands": [[0, 1, 2]]}, "at most 2"),
        ({"game": "FT", "hands": [[0, 1]], "board": [2, 3, 4, 5, 6, 7]}, "at most 5"),
        ({"game": "F7S", "hands": [list(range(8))]}, "at most 7"),
        ({"game": "F7S", "hands": [[0]], "board": [1, 2]}, "common card"),
        ({"game": "FT", "hands": []}, "at least one"),
        ({"game": "FT", "hands": [[]] * 12}, "at most 11 hands in FT"),  # docs/house-rules.md §20
        ({"game": "FO/8", "hands": [[]] * 11}, "at most 10 hands"),
        ({"game": "FT", "hands": [[0, 1]], "samples": 0}, "samples"),
        ({"game": "FT", "hands": [[0, 1]], "samples": float("nan")}, "samples"),
        ({"game": "FT", "hands": [[0, 1]], "samples": 10**9}, "samples"),
        ({"game": "FT", "hands": [[0, 1]], "exact_limit": -1}, "exact_limit"),
        ({"game": "FT", "hands": [[0, 1]], "seed": "1"}, "seed"),
    ],
)
def test_bad_input_is_a_clear_value_error(kwargs: dict[str, object], message: str) -> None:
    game = kwargs.pop("game")
    hands = kwargs.pop("hands")
    with pytest.raises(ValueError, match=message):
        equity(game, hands, **kwargs)  # type: ignore[arg-type]


def test_pokerkit_agrees_where_it_applies() -> None:
    """PokerKit 0.7.7's Monte Carlo `calculate_equities` against our exact enumeration."""
    cases = [
        ("FT", ["AsAh", "KsKh"], "2c7d9hTh", (pk.StandardHighHand,), 2, 5),
        ("FO/8", ["As2h3d4c", "KsKhQdQc"], "5c7d9h8s",
         (pk.OmahaHoldemHand, pk.OmahaEightOrBetterLowHand), 4, 5),
        ("FR", ["As2h3d4c5s6c", "2s3h4d5c6s7s"], "", (pk.RegularLowHand,), 7, 0),
        ("F7S/8", ["As2h3d4c8d9d", "KsKhQdQc5h6h"], "",
         (pk.StandardHighHand, pk.EightOrBetterLowHand), 7, 0),
    ]
    samples = 400
    for game, hands, board, hand_types, hole_count, board_count in cases:
        ours = equity(game, [p(h) for h in hands], board=p(board))
        assert ours.is_exact
        random.seed(11)  # PokerKit samples with the global random module
        theirs = pk.calculate_equities(
            [[list(pk.Card.parse(h))] for h in hands], pk.Card.parse(board), hole_count,
            board_count, pk.Deck.STANDARD, hand_types, sample_count=samples)
        for mine, their in zip(ours.totals, theirs, strict=True):
            sigma = max(math.sqrt(mine * (1 - mine) / samples), 0.5 / math.sqrt(samples) / 4)
            assert abs(mine - their) < 5 * sigma, (game, ours.totals, theirs)

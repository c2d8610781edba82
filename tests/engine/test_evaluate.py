"""Hand evaluator: exact class counts, the seed's Omaha showdowns, known orderings, PokerKit."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable, Sequence
from itertools import combinations, combinations_with_replacement, pairwise, product

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine import evaluate as ev
from arena.engine.cards import format_cards, parse_cards
from arena.engine.evaluate import (
    FLUSH_BITS,
    KEY,
    RANK_KEY,
    RANK_SHIFT,
    SUIT_OFFSET,
    HandClass,
    describe_high,
    describe_low,
    hand_class,
    high_rank_key,
    high_value,
    high_value_from_keys,
    is_flush_value,
    low8_value,
    low_rank_key,
    low_value,
    omaha_high_value,
    omaha_low8_value,
    showing_high_value,
    showing_low_value,
)


def hi(text: str) -> int:
    return high_value(parse_cards(text))


def lo(text: str) -> int:
    return low_value(parse_cards(text))


def lo8(text: str) -> int | None:
    return low8_value(parse_cards(text))


def omaha(hole: str, board: str) -> tuple[int, int | None]:
    h, b = parse_cards(hole), parse_cards(board)
    return omaha_high_value(h, b), omaha_low8_value(h, b)


def show_hi(text: str) -> int:
    return showing_high_value(parse_cards(text))


def show_lo(text: str) -> int:
    return showing_low_value(parse_cards(text))


# --- exhaustive counts -------------------------------------------------------------------------

def test_all_five_card_hands_fall_into_the_standard_class_counts() -> None:
    """docs/house-rules.md §5 High ranking: the 2,598,960 five-card hands by class, and 7,462 distinct values.

    Hands are counted by their key sum in C; every distinct sum is then valued once, which is
    the same as valuing each hand because the value depends on the cards only through the sum
    (for a five-card flush the sum also fixes the cards: five ranks of one suit).
    """
    sums = Counter(map(sum, combinations(KEY, 5)))
    assert sum(sums.values()) == 2_598_960
    by_class: Counter[HandClass] = Counter()
    values: set[int] = set()
    for key_sum, count in sums.items():
        t = key_sum + SUIT_OFFSET
        cards: list[int] = []
        if t & FLUSH_BITS:
            suit = ((t & FLUSH_BITS).bit_length() >> 2) - 1
            rank_key = t >> RANK_SHIFT
            cards = [rank * 4 + suit for rank in range(13) if rank_key // 5**rank % 5]
        value = high_value_from_keys(t, cards)
        by_class[hand_class(value)] += count
        values.add(value)
    assert by_class == {
        HandClass.STRAIGHT_FLUSH: 40,
        HandClass.FOUR_OF_A_KIND: 624,
        HandClass.FULL_HOUSE: 3_744,
        HandClass.FLUSH: 5_108,
        HandClass.STRAIGHT: 10_200,
        HandClass.THREE_OF_A_KIND: 54_912,
        HandClass.TWO_PAIR: 123_552,
        HandClass.ONE_PAIR: 1_098_240,
        HandClass.HIGH_CARD: 1_302_540,
    }
    assert len(values) == 7_462


# --- the two Omaha showdowns of seed 000 -------------------------------------------------------
# The seed describes both showdowns in words (the pictures are not in the text); the boards
# below are the ones its words imply, with suits chosen as it states (four clubs on board one,
# a heart flush K-J-5-4-3 for player 1 in hand two, nobody holding a better flush).

def test_seed_omaha_high_showdown_k9_66_beats_aqj8() -> None:
    """docs/house-rules.md §5 Omaha, exactly two hole and three board cards ([000] Omaha Hi example).

    K-9-6-6 wins with three kings K-K-K-T-9 over A-Q-J-8's two pair K-K-8-8-A. K-9-6-6 has no
    kings full of sixes (that needs K-6-6 from the hand), A-Q-J-8 no straight (that needs A-Q-J),
    and neither has a flush although the board shows four clubs.
    """
    board = "KcKsTc8c2c"
    p1, p1_low = omaha("Kh9c6d6h", board)
    p2, p2_low = omaha("AdQcJh8d", board)
    assert p1 == hi("KhKcKsTc9c")
    assert describe_high(p1) == "three of a kind, kings (K-K-K-T-9)"
    assert p2 == hi("KcKs8c8dAd")
    assert describe_high(p2) == "two pair, kings and eights (K-K-8-8-A)"
    assert p1 > p2
    # The same cards under hold'em rules would make what Omaha forbids.
    assert hand_class(hi("Kh6d6h" + "KcKs")) == HandClass.FULL_HOUSE
    assert hand_class(hi("AdQcJh" + "KcTc")) == HandClass.STRAIGHT
    assert hand_class(hi("9c" + board)) == HandClass.FLUSH
    assert p1_low is None and p2_low is None  # only two low ranks on the board


def test_seed_omaha_hi_lo_showdown_a24k_and_a255_split() -> None:
    """docs/house-rules.md §5 Omaha, Eight or better, Hi-lo split ([000] Omaha Hi-Lo example).

    A-2-4-K wins the low with 5-4-3-2-A; A-2-5-5 has no qualifying low (no five distinct low
    ranks with two hole cards) but wins the high with fives full of jacks over the heart flush
    K-J-5-4-3: the pot is split.
    """
    board = "JhJc5h3h2d"
    p1_high, p1_low = omaha("As2c4hKh", board)
    p2_high, p2_low = omaha("Ad2s5c5s", board)
    assert p1_high == hi("KhJh5h4h3h")
    assert hand_class(p1_high) == HandClass.FLUSH
    assert p2_high == hi("5c5s5hJhJc")
    assert describe_high(p2_high) == "full house, fives over jacks (5-5-5-J-J)"
    assert p2_high > p1_high
    assert p1_low is not None and p1_low == lo("5h4h3h2dAs")
    assert describe_low(p1_low) == "5-4-3-2-A"
    assert p2_low is None


# --- known orderings ---------------------------------------------------------------------------

def test_high_class_order_and_wheel_is_the_lowest_straight() -> None:
    """docs/house-rules.md §5 High ranking: straight flush > quads > ... > high card; A-2-3-4-5 lowest."""
    ladder = ["AsKsQsJsTs", "9h8h7h6h5h", "5d4d3d2dAd", "2c2d2h2s3c", "AcAdAhKsKd", "AhQh9h5h3h",
              "AcKdQhJsTc", "6c5d4h3s2c", "5c4d3h2sAc", "QdQhQs2c5h", "KsKd8h8c4s", "JcJs2d5h9c",
              "Ac9d7h5s3c", "7c5d4h3s2d"]
    values = [hi(hand) for hand in ladder]
    assert values == sorted(values, reverse=True)
    assert len(set(values)) == len(values)
    assert describe_high(hi("5c4d3h2sAc")) == "straight, five high (5-4-3-2-A)"
    assert describe_high(hi("AsKsQsJsTs")) == "royal flush"
    assert hand_class(hi("5d4d3d2dAd")) == HandClass.STRAIGHT_FLUSH
    # A-K-Q-J-T, not a wrap-around K-A-2-3-4.
    assert hand_class(hi("KcAd2h3s4c")) == HandClass.HIGH_CARD


def test_high_kickers_flushes_and_the_board_playing() -> None:
    """docs/house-rules.md §5 High ranking and Hold'em best five of seven; suits never decide."""
    assert hi("AhJh9h5h3h") > hi("KsQsJs9s7s")  # ace-high flush beats king-high
    assert hi("AhKd8c8s4h") > hi("AcQd8h8d4s")  # same pair, second kicker decides
    assert hi("9c9d9h5s2c") > hi("8c8d8sAsKh")  # trips rank before kickers
    assert hi("KcKdKh2s2c") > hi("QcQdQhAsAc")  # full house by its trips
    assert hi("AcAd5c5d3h") > hi("AsAh4c4d2h")  # two pair: second pair decides
    assert hi("AcAd5c5dKh") > hi("AsAh5h5sQh")  # then the kicker
    assert hi("AcKdQhJs9c") == hi("AsKhQcJd9h")  # suits never decide
    board = "AcKdQhJsTc"
    assert hi("2c3d" + board) == hi("4h2s" + board)  # the board plays: a split
    # Two pair on board with a third pair in hand: best two pair plus best kicker.
    assert hi("QcQd" + "AsAh9c9d2h") == hi("AsAhQcQd9c")
    assert hi("2c3d" + "AsAhKcKdQh") == hi("4s5c" + "AsAhKcKdQh")
    # Three pairs: the lowest pair does not play, its rank can still be the kicker.
    assert hi("7c7d6c6d5c5dAh") == hi("7c7d6c6dAh")
    assert hi("7c7d6c6d5c5d4h") == hi("7c7d6c6d5c")
    # Two trips make a full house of the higher over the lower.
    assert describe_high(hi("7c7d7h6c6d6hAs")) == "full house, sevens over sixes (7-7-7-6-6)"
    # Six cards of a suit: the best five of them; a straight flush inside a flush.
    assert hi("AhKh9h7h5h3h2c") == hi("AhKh9h7h5h")
    assert describe_high(hi("9h8h7h6h5h4hAh")) == "straight flush, nine high (9-8-7-6-5)"
    # A flush plus a higher straight in other suits: the flush.
    assert hand_class(hi("9h8h7h6c5h2hTs")) == HandClass.FLUSH


def test_low_ranking_ace_to_five() -> None:
    """docs/house-rules.md §5 Low ranking: aces low, no straights/flushes, pairs bad, highest card first."""
    assert lo("6c5d4h3s2c") > lo("7c4d3h2sAc")  # the rule's own example
    assert lo("7c6d4h2sAc") > lo("7c6d4h3sAc")  # seed: 7-6-4-2-A beats 7-6-4-3-A
    assert lo("5c4c3c2cAc") > lo("6c4d3h2sAc")  # the wheel is the best low, flush ignored
    assert lo("5c4d3h2sAc") == lo("5s4h3d2cAh")
    assert lo("KcQdJhTs8c") > lo("AcAd2h3s4c")  # any five distinct beat a pair
    assert lo("AcAd2h3s4c") > lo("2c2d3h4sAc")  # pair of aces beats pair of deuces
    assert lo("KcKdQhJsTc") > lo("2c2d3h3sAc")  # two pair is worse than any one pair
    assert lo("KcKsKdKhAc") < lo("2c2d2h3s3c")  # quads are the worst
    assert describe_low(lo("7s5d4h2cAc")) == "7-5-4-2-A"
    assert describe_low(lo("AcAd2h3s4c")) == "pair of aces, A-A-4-3-2"
    # Best five of seven: the two highest cards do not play, pairs are skipped.
    assert lo("KcQd7h5s4c2dAh") == lo("7h5s4c2dAh")
    assert lo("AcAd2h2s3c3d4h") == lo("AcAd2h3c4h")  # one pair is the best possible
    # Razz counts everything: K-Q-J-T-9 qualifies as a low (not eight or better).
    assert lo8("KcQdJhTs9c") is None


def test_eight_or_better_qualifies() -> None:
    """docs/house-rules.md §5 Eight or better: five distinct ranks 8 or lower, ace low."""
    eight = lo8("8c7d5h3s2c")
    assert eight is not None and eight == lo("8c7d5h3s2c")
    assert lo8("9c7d5h3s2c") is None  # nine-low does not qualify
    assert lo8("8c7d5h3s3c") is None  # paired: only four distinct low ranks
    # Seven cards with pairs: the pairs are ignored when five distinct low ranks exist.
    low = lo8("AcAd2h2s4c6d8h")
    assert low is not None and low == lo("8h6d4c2hAc")
    assert describe_low(low) == "8-6-4-2-A"
    assert lo8("KcKd8h7s5c3d2h") == lo("8h7s5c3d2h")
    assert lo8("KcKd9h7s5c3d2h") is None
    wheel, eight_six = lo8("5c4d3h2sAc"), lo8("8c6d4h3s2c")
    assert wheel is not None and eight_six is not None and wheel > eight_six


def test_omaha_must_use_exactly_two_hole_cards() -> None:
    """docs/house-rules.md §5 Omaha: exactly two hole and three board cards, separately for high and low."""
    # Four hearts on board and one in hand: no flush.
    high, _ = omaha("AhKcQd2s", "9h7h5h3hJc")
    assert hand_class(high) != HandClass.FLUSH
    high, _ = omaha("AhKhQd2s", "9h7h5h3hJc")
    assert high == hi("AhKh9h7h5h")
    # A board straight does not play: three board cards plus two hole cards.
    high, _ = omaha("AcAdKhKs", "9c8d7h6s5c")
    assert high == hi("AcAd9c8d7h")
    # Four aces in hand make only a pair of aces.
    high, _ = omaha("AcAdAhAs", "KcQd7h5s2c")
    assert hand_class(high) == HandClass.ONE_PAIR
    # Trips on board plus a pocket pair: a full house; a single matching card: quads.
    assert hand_class(omaha("9c9d2h3s", "KcKdKh5s7c")[0]) == HandClass.FULL_HOUSE
    assert hand_class(omaha("Ks9d2h3s", "KcKdKh5s7c")[0]) == HandClass.FOUR_OF_A_KIND
    # Low: two low hole cards are needed, and low and high may use different cards.
    high, low = omaha("As2c3dKd", "KcKh4s5d8h")
    assert hand_class(high) == HandClass.THREE_OF_A_KIND
    assert low == lo("8h5d4sAs2c")
    assert omaha("As2c3dKd", "KcKh4s5d9h")[1] is None  # 9 is not low: two low board cards
    assert omaha("As9c9dKd", "2c3h4s5dQh")[1] is None  # one low hole card only
    assert omaha("As2c3dKd", "2h3h9s5dQh")[1] is None  # board low cards duplicate the hand's
    assert omaha("As2c3d4d", "KsQhJd5d6h")[1] is None  # two low board cards only
    # Flop and turn boards work too (3 or 4 cards).
    assert omaha("AcKc2d3d", "QcJcTc")[0] == hi("AcKcQcJcTc")
    assert omaha("AcKc2d3d", "Qc5h4s6d")[1] == lo("6d5h4sAc2d")


def test_showing_hands_for_stud_action_order() -> None:
    """docs/house-rules.md §3 Stud fourth street and later: pairs, trips, quads count; straights and
    flushes do not; then kickers."""
    ladder = ["AcAdAhAs", "2c2d2hAs", "KcKd5h5s", "3c3d2h2s", "AcAdKhQs", "2c2d4h3s",
              "AsKhQdJc", "AsKs9s8s", "Ks6h5d4c", "9c8d7h6s"]
    values = [show_hi(hand) for hand in ladder]
    assert values == sorted(values, reverse=True) and len(set(values)) == len(values)
    assert show_hi("AcKd") > show_hi("AhQs") > show_hi("KcQd")
    assert show_hi("2c2d") > show_hi("AcKd")
    assert show_hi("9c9dAh") > show_hi("9h9sKc")
    assert show_hi("AsKd") == show_hi("AcKh")  # suits break this tie elsewhere
    assert show_hi("As") > show_hi("Ks")
    assert hand_class(show_hi("2c2d2hAs")) == HandClass.THREE_OF_A_KIND


def test_showing_hands_for_razz_action_order() -> None:
    """docs/house-rules.md §3 Stud fourth street and later (razz): lowest showing hand, ace-to-five."""
    assert show_lo("6c5d") > show_lo("7c2d")  # highest card first
    assert show_lo("2cAd") > show_lo("3c2d")  # the ace is low
    assert show_lo("Ac") > show_lo("2c") and show_lo("Qc") > show_lo("Kc")  # the king is worst
    assert show_lo("KcQd") > show_lo("2c2d")  # unpaired beats paired
    assert show_lo("4c3d2hAs") > show_lo("5c3d2hAs")
    assert show_lo("8c8dKh") > show_lo("9c9d2h")  # lower pair first
    assert show_lo("9c9d2hAs") > show_lo("2c2d3h3s")  # a pair beats two pair
    assert show_lo("5c4d3h2s") > show_lo("6c4d3hAs")  # straights and flushes do not count
    assert show_lo("5c4c3c2c") == show_lo("5d4h3s2c")


def test_fast_variants_match() -> None:
    """docs/house-rules.md §5 High ranking / Low ranking: key-sum entry points agree with the plain ones."""
    rng = random.Random(7)
    for _ in range(500):
        cards = rng.sample(range(52), rng.choice((5, 6, 7)))
        t = sum((KEY[c] for c in cards), SUIT_OFFSET)
        assert high_value_from_keys(t, cards) == high_value(cards)
        rank_key = sum(RANK_KEY[c] for c in cards)
        assert rank_key == t >> RANK_SHIFT


def test_a_values_five_ranks_and_flush_are_those_of_its_five_cards() -> None:
    """docs/house-rules.md §5: every five-card rank multiset, unsuited and (five ranks) of one suit: the
    rank key `high_rank_key` and `low_rank_key` read back from a value is the five's own, and
    `is_flush_value` says whether they are of one suit (how a shown hand finds its five)."""
    fives = 0
    for ranks in combinations_with_replacement(range(13), 5):
        if max(Counter(ranks).values()) > 4:
            continue
        rank_key = sum(RANK_KEY[4 * r] for r in ranks)
        # Suits 0, 1, 2, 3, 0: never five of one suit, and a rank's copies differ in suit.
        splits = [[4 * r + k % 4 for k, r in enumerate(ranks)]]
        if len(set(ranks)) == 5:
            splits.append([4 * r + 2 for r in ranks])
        for five in splits:
            fives += 1
            suited = len({c & 3 for c in five}) == 1
            high = high_value(five)
            assert (high_rank_key(high), is_flush_value(high)) == (rank_key, suited), five
            assert low_rank_key(low_value(five)) == rank_key, five
            low8 = low8_value(five)
            assert low8 is None or low_rank_key(low8) == rank_key, five
    assert fives == 6_175 + 1_287


def test_seven_card_keys_tell_every_rank_multiset_and_flush_apart() -> None:
    """docs/house-rules.md §5 High ranking: the seven-card fast path's keys. Every multiset of 7 ranks
    (at most 4 of each) has its own rank sum, every suit split its flush verdict, and every
    partial sum stays a one-digit CPython int (below 2**30 in size)."""
    rank_sums: set[int] = set()
    multisets = 0
    for ranks in combinations_with_replacement(range(13), 7):
        if max(Counter(ranks).values()) <= 4:
            multisets += 1
            rank_sums.add(sum(ev._RANK7[r] for r in ranks))
    assert multisets == len(rank_sums) == 49_205
    assert max(rank_sums) <= ev._RANK7_MASK
    for counts in product(range(8), repeat=4):
        if sum(counts) == 7:
            cards = [rank * 4 + suit for suit, count in enumerate(counts)
                     for rank in range(count)]
            partial = [sum(ev._K7[c] for c in cards[:k]) for k in range(1, 8)]
            assert all(-(2**30) < p < 2**30 for p in partial)
            assert ev._IS_FLUSH7[partial[-1] >> ev._SHIFT7] == (max(counts) >= 5)
    worst = sorted(ev._K7)
    assert sum(worst[:7]) > -(2**30) and sum(worst[-7:]) < 2**30


def test_filled_tables_hold_every_rank_multiset_and_the_same_values() -> None:
    """docs/house-rules.md §5: filling the tables ahead computes the values first use would."""
    rng = random.Random(11)
    hands = [rng.sample(range(52), 7) for _ in range(300)]
    before = [(high_value(h), low_value(h), low8_value(h)) for h in hands]
    ev.fill_tables()
    assert len(ev._HIGH7) == 49_205
    assert [(high_value(h), low_value(h), low8_value(h)) for h in hands] == before


def test_too_few_cards_is_an_error() -> None:
    """docs/house-rules.md §5 Showdown: a hand is five cards; fewer cannot be valued."""
    with pytest.raises(ValueError):
        high_value(parse_cards("AcKdQh2s"))
    with pytest.raises(ValueError):
        low_value(parse_cards("AcKd"))
    with pytest.raises(ValueError):
        showing_high_value([])


# --- differential against PokerKit -------------------------------------------------------------

def _low_biased_deck() -> list[int]:
    """Mostly ranks A-8 so that lows qualify often, plus a few high cards."""
    return [c for c in range(52) if c >> 2 <= 6 or c >> 2 in (7, 11, 12)]


def _deal(rng: random.Random, count: int, size: int) -> list[list[int]]:
    """Random hands, half from a low-biased deck, plus suit-permuted copies to force ties."""
    low_deck = _low_biased_deck()
    hands = [rng.sample(range(52) if i % 2 else low_deck, size) for i in range(count)]
    for hand in hands[: count // 10]:
        suits = rng.sample(range(4), 4)
        hands.append([c & ~3 | suits[c & 3] for c in hand])
    return hands


def _assert_same_order(
    ours: Sequence[int | None], theirs: Sequence[object], hands: Sequence[Sequence[int]]
) -> None:
    """Sorted by our value, PokerKit's hands must be ascending and tie exactly where ours do."""
    order = sorted(range(len(ours)), key=lambda i: (ours[i] is not None, ours[i] or 0))
    for i, j in pairwise(order):
        a, b = theirs[i], theirs[j]
        context = f"{format_cards(hands[i])} vs {format_cards(hands[j])}"
        if ours[i] is None or ours[j] is None:
            assert (a is None) == (ours[i] is None), context
            assert (b is None) == (ours[j] is None), context
            continue
        assert (ours[i] == ours[j]) == (a == b), context
        assert a <= b, context  # type: ignore[operator]


def _kit_values(
    make: Callable[[str, str], object], hands: Sequence[Sequence[int]], split: int
) -> list[object]:
    return [make(format_cards(h[:split]), format_cards(h[split:])) for h in hands]


def test_differential_high_vs_pokerkit() -> None:
    """docs/house-rules.md §5 High ranking and Hold'em best five of seven, against PokerKit."""
    pokerkit = pytest.importorskip("pokerkit")
    hands = _deal(random.Random(2024), 2_000, 7)
    theirs = _kit_values(pokerkit.StandardHighHand.from_game, hands, 2)
    _assert_same_order([high_value(h) for h in hands], theirs, hands)


def test_differential_razz_low_vs_pokerkit() -> None:
    """docs/house-rules.md §5 Low ranking (razz, pairs included), against PokerKit's RegularLowHand."""
    pokerkit = pytest.importorskip("pokerkit")
    hands = _deal(random.Random(2025), 2_000, 7)
    theirs = _kit_values(pokerkit.RegularLowHand.from_game, hands, 7)
    _assert_same_order([low_value(h) for h in hands], theirs, hands)


def test_differential_eight_or_better_vs_pokerkit() -> None:
    """docs/house-rules.md §5 Eight or better, against PokerKit's EightOrBetterLowHand."""
    pokerkit = pytest.importorskip("pokerkit")
    hands = _deal(random.Random(2026), 2_000, 7)
    theirs = _kit_values(pokerkit.EightOrBetterLowHand.from_game_or_none, hands, 7)
    ours = [low8_value(h) for h in hands]
    assert 0 < sum(v is None for v in ours) < len(ours)
    _assert_same_order(ours, theirs, hands)


def test_differential_omaha_high_vs_pokerkit() -> None:
    """docs/house-rules.md §5 Omaha (high), against PokerKit's OmahaHoldemHand."""
    pokerkit = pytest.importorskip("pokerkit")
    hands = _deal(random.Random(2027), 1_000, 9)
    theirs = _kit_values(pokerkit.OmahaHoldemHand.from_game, hands, 4)
    _assert_same_order([omaha_high_value(h[:4], h[4:]) for h in hands], theirs, hands)


def test_differential_omaha_low_vs_pokerkit() -> None:
    """docs/house-rules.md §5 Omaha and Eight or better, against PokerKit's OmahaEightOrBetterLowHand."""
    pokerkit = pytest.importorskip("pokerkit")
    hands = _deal(random.Random(2028), 1_000, 9)
    theirs = _kit_values(pokerkit.OmahaEightOrBetterLowHand.from_game_or_none, hands, 4)
    ours = [omaha_low8_value(h[:4], h[4:]) for h in hands]
    assert 0 < sum(v is None for v in ours) < len(ours)
    _assert_same_order(ours, theirs, hands)


# --- properties --------------------------------------------------------------------------------

deals = st.permutations(range(52)).map(lambda deck: deck[:9])


@settings(max_examples=150, deadline=None)
@given(deals, st.permutations(range(4)))
def test_suits_never_decide(deal: list[int], suits: list[int]) -> None:
    """docs/house-rules.md §1 Suits never decide who wins: renaming the suits changes no value."""
    renamed = [c & ~3 | suits[c & 3] for c in deal]
    seven, seven_renamed = deal[:7], renamed[:7]
    assert high_value(seven) == high_value(seven_renamed)
    assert low_value(seven) == low_value(seven_renamed)
    assert low8_value(seven) == low8_value(seven_renamed)
    assert omaha_high_value(deal[:4], deal[4:]) == omaha_high_value(renamed[:4], renamed[4:])
    assert omaha_low8_value(deal[:4], deal[4:]) == omaha_low8_value(renamed[:4], renamed[4:])
    assert showing_high_value(deal[:4]) == showing_high_value(renamed[:4])
    assert showing_low_value(deal[:4]) == showing_low_value(renamed[:4])


@settings(max_examples=150, deadline=None)
@given(deals)
def test_values_are_the_best_of_their_five_card_hands(deal: list[int]) -> None:
    """docs/house-rules.md §5 Hold'em/Stud best five of seven, Omaha two plus three: each value is the
    maximum over the allowed five-card hands."""
    seven = deal[:7]
    fives = list(combinations(seven, 5))
    assert high_value(seven) == max(map(high_value, fives))
    assert high_value(seven[:6]) == max(map(high_value, combinations(seven[:6], 5)))
    assert low_value(seven) == max(map(low_value, fives))
    lows = [v for v in map(low8_value, fives) if v is not None]
    assert low8_value(seven) == (max(lows) if lows else None)
    hole, board = deal[:4], deal[4:]
    omaha_fives = [h + b for h in combinations(hole, 2) for b in combinations(board, 3)]
    assert omaha_high_value(hole, board) == max(map(high_value, omaha_fives))
    omaha_lows = [v for v in map(low8_value, omaha_fives) if v is not None]
    assert omaha_low8_value(hole, board) == (max(omaha_lows) if omaha_lows else None)

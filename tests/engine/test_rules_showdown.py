"""docs/house-rules.md §1 (suits) and §4: showdown, hand rankings, hi-lo split, side pots, odd chips and
the show order. Pots are worked out by hand in each test."""

from __future__ import annotations

import pytest

from arena.engine.actions import ActionKind
from arena.engine.cards import parse_cards
from arena.engine.events import HandMucked, HandShown, Pot, PotShare
from arena.engine.games import variant_for
from arena.engine.phh import ScriptedCards
from arena.engine.rules import Rules, Stakes
from arena.engine.state import HandState
from tests.hands import passive, play

F, X, C, B, R = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN,
                 ActionKind.RAISE)


def deal(game: str, holes: list[str], board: str = "", *, stacks: list[int] | None = None,
         rules: Rules | None = None) -> HandState:
    source = ScriptedCards({s: parse_cards(h) for s, h in enumerate(holes)},
                           parse_cards(board), name="showdown")
    return HandState(variant_for(game), stacks or [1000] * len(holes), rules=rules or Rules(),
                     cards=source)






def awards(state: HandState) -> list[tuple[int, PotShare, tuple[int, ...], tuple[int, ...]]]:
    assert state.result is not None
    return [(a.pot_index, a.share, a.winners, a.amounts_chips) for a in state.result.awards]


# --------------------------------------------------------------------------- cards speak


def test_cards_speak_every_remaining_hand_shown() -> None:
    """docs/house-rules.md §5: cards speak: at showdown every remaining hand is shown and evaluated as
    its best possible hand; no hand can be mucked (the losers are shown too)."""
    state = deal("FT", ["AcAd", "KcKd", "7h2s"], "2c7d9hJs4d")
    play(state, (2, C), (0, C), (1, X))
    passive(state)
    shown = [e for e in state.events if isinstance(e, HandShown)]
    assert sorted(e.seat for e in shown) == [0, 1, 2]
    assert not any(isinstance(e, HandMucked) for e in state.events)
    assert {e.seat: e.cards for e in shown}[2] == tuple(parse_cards("7h2s"))
    # seat 2 has two pair (sevens and deuces) and beats the aces: pot 3 x 20 = 60
    assert state.result.net_chips == (-20, -20, 40)


def test_folded_hands_not_shown() -> None:
    """docs/house-rules.md §5: only the remaining hands are shown at showdown."""
    state = deal("FT", ["AcAd", "KcKd", "7h2s"], "2c7d9hJs4d")
    play(state, (2, F), (0, C), (1, X))
    passive(state)
    assert sorted(e.seat for e in state.events if isinstance(e, HandShown)) == [0, 1]


# --------------------------------------------------------------------------- suits


def test_suits_never_decide_a_pot_holdem() -> None:
    """docs/house-rules.md §1/§5: suits never decide who wins a pot: A-K of hearts and A-K of spades
    with no flush are equal hands and split. Pot 40 -> 20 each."""
    state = deal("FT", ["AhKh", "AsKs"], "Qd Jc 9h 5s 2c")
    passive(state)
    assert awards(state) == [(0, PotShare.WHOLE, (0, 1), (20, 20))]
    assert state.result.net_chips == (0, 0)


def test_suits_never_decide_a_pot_stud() -> None:
    """docs/house-rules.md §1/§5: in stud too, equal ranks split regardless of suit (the suit order is
    only for the bring-in and acting order). Pot: 2 x 3 ante + 5 + 5 = 16 -> 8 each."""
    state = deal("F7S", ["AcAd" "Kc" "Qc9d4h" "5h", "AhAs" "Kd" "Qd9s4s" "5d"])
    passive(state)
    assert awards(state) == [(0, PotShare.WHOLE, (0, 1), (8, 8))]


# --------------------------------------------------------------------------- high ranking


@pytest.mark.parametrize(("winner", "loser", "board", "what"), [
    ("QhKh", "9s2c", "9hThJh9c9d", "straight flush beats four of a kind"),
    ("9s2c", "KhKs", "9c9d9hKcQd", "four of a kind beats a full house"),
    ("Ks2c", "AhTh", "2h5h9hKcKd", "full house beats a flush"),
    ("Ah3h", "QcKd", "2h5h9hTcJd", "flush beats a straight"),
    ("8c9c", "Kc2s", "5c6d7hKsKd", "straight beats three of a kind"),
    ("7c7h", "JcQc", "2c7d9hJsQd", "three of a kind beats two pair"),
    ("9c2d", "AcAd", "2c7d9hJsQd", "two pair beats one pair"),
    ("3c3d", "AcKc", "2c7d9hJs4d", "one pair beats high card"),
    ("AcJc", "KdJd", "2c7d9hJs4d", "equal pairs: the kicker decides"),
    ("6s7c", "Ah2d", "3c4d5hKcQs", "A-2-3-4-5 is the lowest straight"),
])
def test_high_ranking(winner: str, loser: str, board: str, what: str) -> None:
    """docs/house-rules.md §5: high ranking: straight flush, four of a kind, full house, flush,
    straight (A-2-3-4-5 the lowest), three of a kind, two pair, pair, high card."""
    for seats in ((winner, loser), (loser, winner)):
        state = deal("FT", list(seats), board)
        passive(state)
        # heads-up check-down: each put 20 in, the winner nets +20
        expected = (20, -20) if seats[0] == winner else (-20, 20)
        assert state.result.net_chips == expected, what


def test_holdem_board_plays_zero_hole_cards() -> None:
    """docs/house-rules.md §5: hold'em uses zero, one or two hole cards; equal hands split: a royal
    flush on the board is everyone's hand. Pot 3 x 20 = 60 -> 20 each."""
    state = deal("FT", ["2c3d", "4h5s", "7c8d"], "AsKsQsJsTs")
    play(state, (2, C), (0, C), (1, X))
    passive(state)
    assert awards(state) == [(0, PotShare.WHOLE, (0, 1, 2), (20, 20, 20))]


def test_holdem_one_hole_card() -> None:
    """docs/house-rules.md §5: hold'em: best five of seven using one hole card: Ah with four hearts on
    the board makes a flush that beats a straight."""
    state = deal("FT", ["Ah2c", "JdTc"], "Kh9h8h3hQs")
    passive(state)
    assert state.result.net_chips == (20, -20)


def test_stud_best_five_of_seven() -> None:
    """docs/house-rules.md §5: stud: the best five of the player's seven cards (the flush uses both
    down cards and the seventh-street card). Pot 16: seat 0's heart flush beats kings up."""
    state = deal("F7S", ["AhKh" "2h" "7h9cTc" "5h", "KcKd" "Ks" "Qc3d4s" "6c"])
    passive(state)
    assert state.result.net_chips == (8, -8)


# --------------------------------------------------------------------------- Omaha


def test_omaha_exactly_two_hole_cards_high() -> None:
    """docs/house-rules.md §5: Omaha: exactly two of the four hole cards and three board cards: one
    heart in hand with four on the board is no flush (it would be a royal flush in hold'em);
    three deuces (2h2d + 2c) win. No low: only A and 2 of the board are 8 or lower."""
    state = deal("FO/8", ["Th3c4d5s", "2h2d9c9s"], "AhKhQhJh2c")
    passive(state)
    assert awards(state) == [(0, PotShare.WHOLE, (1,), (40,))]


def test_omaha_four_suited_hole_cards_need_three_board_cards() -> None:
    """docs/house-rules.md §5: Omaha: a flush needs three suited board cards: four hearts in hand and
    one on the board is no flush; seat 1's three deuces win."""
    state = deal("FO/8", ["AhKhQhJh", "2h2d5c6c"], "Th2c3d7s9c")
    passive(state)
    # seat 1 low: 5 6 from hand + 2 3 7 from the board = 7-6-5-3-2: qualifies; seat 0 has
    # no low cards -> seat 1 scoops: high 20 + low 20
    assert awards(state) == [(0, PotShare.HIGH, (1,), (20,)), (0, PotShare.LOW, (1,), (20,))]


def test_omaha_low_needs_two_low_hole_cards() -> None:
    """docs/house-rules.md §5: Omaha low uses exactly two hole cards: with one low card in hand (4c)
    and A-2-3-8 on the board there is no low (hold'em rules would give 8-4-3-2-A); no hand
    qualifies so the high hand (kings) takes the whole pot."""
    state = deal("FO/8", ["4cKdKsJh", "5h9c9dTh"], "As2d3c8hQd")
    passive(state)
    assert awards(state) == [(0, PotShare.WHOLE, (0,), (40,))]


def test_omaha_low_needs_three_low_board_cards() -> None:
    """docs/house-rules.md §5: Omaha low needs three board cards of 8 or lower: with A-2 only on the
    board, 3-4-5-6 in hand makes no low."""
    state = deal("FO/8", ["3c4d5h6s", "KcKdQcQd"], "As2dKhJdTc")
    passive(state)
    # high: seat 1 has the broadway straight (K-Q + A-J-T) -> the whole pot
    assert awards(state) == [(0, PotShare.WHOLE, (1,), (40,))]


def test_omaha_scoop_both_halves() -> None:
    """docs/house-rules.md §5: one player can win both halves (scoop): 4-5 with A-2-3 is the wheel, a
    straight for high and the best low. Pot 40 -> high 20 + low 20 to seat 0."""
    state = deal("FO/8", ["4c5d9s9h", "KsQc7h7d"], "As2d3cKhQd")
    passive(state)
    assert awards(state) == [(0, PotShare.HIGH, (0,), (20,)), (0, PotShare.LOW, (0,), (20,))]
    assert state.result.net_chips == (20, -20)


# --------------------------------------------------------------------------- low


def test_razz_six_four_beats_seven_four() -> None:
    """docs/house-rules.md §5: ace-to-five low: compared from the highest card down: 6-5-4-3-2 beats
    7-4-3-2-A; straights and flushes do not count (6c5c4c3c2c is a perfect 6-low).
    Razz doors Kd/Qh: Kd brings in. Pot 3 + 3 + 5 + 5 = 16 -> seat 0 +8."""
    state = deal("FR", ["6c5c" "Kd" "4c3c2c" "Ks", "7d4d" "Qh" "3d2dAd" "Qs"])
    assert state.actor == 0
    passive(state)
    assert state.result.net_chips == (8, -8)


def test_razz_wheel_is_the_best_low() -> None:
    """docs/house-rules.md §5: ace-to-five: aces are low and A-2-3-4-5 is the best low although it is
    a straight (and here a flush)."""
    state = deal("FR", ["Ac2c" "Kd" "3c4c5c" "Ks", "2d3d" "Qh" "4d6dAh" "Qs"])
    passive(state)
    # seat 1's best is 6-4-3-2-A, worse than 5-4-3-2-A
    assert state.result.net_chips == (8, -8)


def test_razz_pairs_are_bad() -> None:
    """docs/house-rules.md §5: pairs are bad: J-T-9-8-7 (no pair) beats A-A-2-3-4, which must pair
    (only four distinct ranks among A A 2 2 3 3 4)."""
    state = deal("FR", ["AcAd" "2c" "2d3c3d" "4c", "KhQh" "Jh" "Th9h8h" "7h"])
    passive(state)
    assert state.result.net_chips == (-8, 8)


def test_stud_hilo_nine_low_does_not_qualify() -> None:
    """docs/house-rules.md §5: eight or better: a low qualifies only with five distinct ranks of 8 or
    lower: 9-6-4-3-2 is no low, so the high hand wins the whole pot (16)."""
    state = deal("F7S/8", ["9c6d" "4h" "3s2cKc" "Kd", "QcQd" "Qh" "JcJdTs" "Th"])
    passive(state)
    assert awards(state) == [(0, PotShare.WHOLE, (1,), (16,))]


def test_stud_hilo_split_odd_chip_to_high() -> None:
    """docs/house-rules.md §5: hi-lo split: the pot is halved; an odd chip goes to the high half.

    Doors Ks/3h/Th: 3h (seat 1) brings in 5, seat 2 folds, seat 0 calls 5: pot 3 x 3 antes
    + 5 + 5 = 19 -> high 10 (seat 0, four kings), low 9 (seat 1, 5-4-3-2-A)."""
    state = deal("F7S/8", ["KcKd" "Ks" "Kh9c9d" "Qc", "Ac2d" "3h" "4s5c7d" "Jh", "6h6s" "Th"])
    play(state, (1, B), (2, F), (0, C))
    passive(state)
    assert awards(state) == [(0, PotShare.HIGH, (0,), (10,)), (0, PotShare.LOW, (1,), (9,))]
    assert state.result.net_chips == (2, 1, -3)


def test_omaha_split_between_two_players_odd_chip_high() -> None:
    """docs/house-rules.md §5: hi-lo split: high and low to different players, the odd chip to high.
    Blinds 5/20, seat 0 folds: pot 45. Seat 1: KcKd + Kh = three kings (no low); seat 2:
    6-7 + A-2-3 = 7-6-3-2-A low, high only ace-high -> high 23 to seat 1, low 22 to seat 2."""
    rules = Rules(stakes=Stakes(small_blind=5))
    state = deal("FO/8", ["QsQdJsJd", "KcKd9c9d", "6c7dTsTh"], "As2d3cKhJc", rules=rules)
    play(state, (2, C), (0, F), (1, X))
    passive(state)
    assert awards(state) == [(0, PotShare.HIGH, (1,), (23,)), (0, PotShare.LOW, (2,), (22,))]
    assert state.result.net_chips == (-5, 3, 2)


# --------------------------------------------------------------------------- side pots


def test_side_pot_all_in_wins_only_what_was_matched() -> None:
    """docs/house-rules.md §5: side pots: a player all-in can win only what each opponent matched.

    Seat 0 (30 chips) calls all-in; seats 1 and 2 put 40. Main pot 3 x 30 = 90 (all three),
    side pot 2 x 10 = 20 (seats 1, 2). Aces (seat 0) win the main pot, kings (seat 1) the
    side pot: nets +60, -20, -40."""
    state = deal("FT", ["AcAd", "KcKd", "QcQd"], "2c7d9hJs4d", stacks=[30, 1000, 1000])
    play(state, (2, R, 40), (0, C), (1, C))
    passive(state)
    assert state.result.pots == (Pot(90, (0, 1, 2)), Pot(20, (1, 2)))
    assert awards(state) == [(0, PotShare.WHOLE, (0,), (90,)), (1, PotShare.WHOLE, (1,), (20,))]
    assert state.result.net_chips == (60, -20, -40)


def test_side_pots_split_high_low_separately() -> None:
    """docs/house-rules.md §5: every side pot is awarded and split hi/lo on its own.

    Omaha: seat 0 (30 chips) all in; main pot 90 (0, 1, 2), side pot 20 (1, 2). High: seat 0
    three kings > seat 2 three queens > seat 1 pair of jacks. Low: only seat 1 (4-6 + A-2-3).
    Main: high 45 seat 0, low 45 seat 1; side: high 10 seat 2, low 10 seat 1.
    Nets: 45 - 30 = +15, 55 - 40 = +15, 10 - 40 = -30."""
    state = deal("FO/8", ["KsKd9h9c", "4c6dJhJc", "QsQcTh9s"], "As2d3cKhQd",
                 stacks=[30, 1000, 1000])
    play(state, (2, R, 40), (0, C), (1, C))
    passive(state)
    assert awards(state) == [
        (0, PotShare.HIGH, (0,), (45,)), (0, PotShare.LOW, (1,), (45,)),
        (1, PotShare.HIGH, (2,), (10,)), (1, PotShare.LOW, (1,), (10,)),
    ]
    assert state.result.net_chips == (15, 15, -30)


def test_folded_chips_stay_in_the_pot() -> None:
    """docs/house-rules.md §5: side pots: chips of a folded player stay in the pots they reached.
    Seat 0 (30 chips) all in, seat 1 calls 40 then folds on the flop to a bet; pot 90 + 20:
    main pot 90 (0, 2), side pot 20 (2) returns to seat 2 together with its uncalled bet."""
    state = deal("FT", ["AcAd", "KcKd", "QcQd"], "2c7d9hJs4d", stacks=[30, 1000, 1000])
    play(state, (2, R, 40), (0, C), (1, C))
    play(state, (1, X), (2, R, 20), (1, F))
    passive(state)
    # seat 2's flop bet of 20 is uncalled and returned; seat 0's aces win the main pot 90;
    # seat 2 takes the side pot 20 (its own 10 and seat 1's dead 10)
    assert state.result.net_chips == (60, -40, -20)


# --------------------------------------------------------------------------- odd chips


def test_odd_chips_one_each_from_the_left_of_the_button() -> None:
    """docs/house-rules.md §5: odd chips among tied winners: given one chip at a time starting with the
    first tied winner left of the button; no player gets more than one odd chip.

    Blinds 5/20, four seats: seat 0 (small blind) folds; seats 1, 2, 3 put 20 each: pot 65.
    The board's royal flush ties all three: 65 = 3 x 21 + 2 -> seats 1 and 2 (first left of
    the button among the winners) get 22, seat 3 gets 21."""
    state = deal("FT", ["2c3d", "4h5s", "7c8d", "9c6d"], "AsKsQsJsTs",
                 rules=Rules(stakes=Stakes(small_blind=5)))
    play(state, (2, C), (3, C), (0, F), (1, X))
    passive(state)
    assert awards(state) == [(0, PotShare.WHOLE, (1, 2, 3), (22, 22, 21))]
    assert state.result.net_chips == (-5, 2, 2, 1)


def test_odd_chip_stud_tie_first_winner_left_of_button() -> None:
    """docs/house-rules.md §5: odd chip to the first tied winner left of the button (stud: the button
    fixes the dealing order; seat 0 is first left of it).

    Doors 2h/Kc/Kd/Th: 2h (seat 0) brings in 5, seats 1 and 2 call, seat 3 folds: pot 4 x 3
    + 3 x 5 = 27. Seats 1 and 2 tie with A-A-K-Q-J: 27 = 2 x 13 + 1 -> seat 1 gets 14."""
    state = deal("F7S", ["2c3d" "2h" "7c8d9s" "Jd", "AcAd" "Kc" "QcJc4h" "5h",
                         "AhAs" "Kd" "QdJs4s" "5d", "6c6d" "Th"])
    play(state, (0, B), (1, C), (2, C), (3, F))
    passive(state)
    assert awards(state) == [(0, PotShare.WHOLE, (1, 2), (14, 13))]
    assert state.result.net_chips == (-8, 6, 5, -3)


def test_odd_chip_of_a_split_low_half() -> None:
    """docs/house-rules.md §5: odd chips per half: the low half is split among tied lows on its own.

    Blinds 5/20; seat 0 folds: pot 45 -> high 23, low 22. Seats 1 and 2 both hold 4-5 for
    the wheel (a straight for high and the best low): high 23 -> 12 + 11, low 22 -> 11 + 11."""
    state = deal("FO/8", ["QsQdJsJd", "4c5dKcKd", "4h5sTcTh"], "As2d3cKhJc",
                 rules=Rules(stakes=Stakes(small_blind=5)))
    play(state, (2, C), (0, F), (1, X))
    passive(state)
    assert awards(state) == [(0, PotShare.HIGH, (1, 2), (12, 11)),
                             (0, PotShare.LOW, (1, 2), (11, 11))]


# --------------------------------------------------------------------------- show order


def _shown_order(state: HandState) -> list[int]:
    return [e.seat for e in state.events if isinstance(e, HandShown)]


def test_show_order_last_aggressor_of_final_round() -> None:
    """docs/house-rules.md §5: show order: the last aggressor of the final round shows first, then
    clockwise."""
    state = deal("FT", ["AcAd", "KcKd", "QcQd"], "2c7d9hJs4d")
    play(state, (2, C), (0, C), (1, X))
    for _ in range(2):
        play(state, (0, X), (1, X), (2, X))
    play(state, (0, X), (1, R, 40), (2, C), (0, C))
    assert state.result.showdown_order == (1, 2, 0)
    assert _shown_order(state) == [1, 2, 0]


def test_show_order_last_aggressor_is_the_last_raiser() -> None:
    """docs/house-rules.md §5: the last aggressor is the last to bet or raise in the final round."""
    state = deal("FT", ["AcAd", "KcKd", "QcQd"], "2c7d9hJs4d")
    play(state, (2, C), (0, C), (1, X))
    for _ in range(2):
        play(state, (0, X), (1, X), (2, X))
    play(state, (0, R, 40), (1, C), (2, R, 80), (0, C), (1, C))
    assert state.result.showdown_order == (2, 0, 1)


def test_show_order_first_to_act_when_no_bet() -> None:
    """docs/house-rules.md §5: with no bet in the final round the first to act in it shows first: the
    first active seat left of the button (seat 0 folded -> seat 1)."""
    state = deal("FT", ["AcAd", "KcKd", "QcQd"], "2c7d9hJs4d")
    play(state, (2, C), (0, C), (1, X))
    play(state, (0, R, 20), (1, C), (2, C))  # an earlier round's bet does not count
    play(state, (0, X), (1, R, 40), (2, C), (0, F))
    play(state, (1, X), (2, X))
    assert state.result.showdown_order == (1, 2)


def test_show_order_stud_first_to_act_on_seventh() -> None:
    """docs/house-rules.md §5: stud, no bet on seventh street: the first to act there (the best showing
    hand, seat 1 with K-Q-3-3 up against T-9-7-2) shows first."""
    state = deal("F7S", ["AhKh" "2h" "7h9cTc" "5h", "KcKd" "Ks" "Qc3d3s" "6c"])
    passive(state)
    assert state.result.showdown_order == (1, 0)

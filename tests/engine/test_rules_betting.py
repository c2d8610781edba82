"""docs/house-rules.md §2 (seats, heads-up button) and §3 (fixed-limit betting) for the flop games.

Seats are PHH order: seat 0 is the first seat left of the button, the button is the last seat;
heads-up seat 0 is the big blind and seat 1 the button and small blind. Default stakes: small
bet 20, big bet 40, blinds 10/20. Expected amounts are worked out by hand in the comments.
"""

from __future__ import annotations

import pytest

from arena.engine.actions import ActionKind
from arena.engine.cards import parse_cards
from arena.engine.errors import AmountOutOfRange, IllegalAction
from arena.engine.events import ActionTaken, ForcedBetPosted, UncalledBetReturned
from arena.engine.games import variant_for
from arena.engine.phh import ScriptedCards
from arena.engine.rules import Rules, Stakes
from arena.engine.state import HandState
from arena.match.rotation import engine_order, next_button
from tests.hands import play

F, X, C, R = ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.RAISE

# Hole cards and a board that are irrelevant to the betting; enough for up to 6 seats.
_HOLES = ["AsKs", "QhQd", "7c2d", "9h8h", "5s5c", "JdTc"]
_BOARD = "2c3d4h6s8c"


def flop_hand(stacks: list[int], *, rules: Rules | None = None, game: str = "FT",
              holes: list[str] | None = None, board: str = _BOARD) -> HandState:
    holes = holes or (_HOLES if game == "FT" else [h + h2 for h, h2 in zip(
        _HOLES, ["2h3h", "4c4d", "TsJs", "KcKd", "6h7h", "8d9d"], strict=True)])
    source = ScriptedCards(
        {seat: parse_cards(holes[seat]) for seat in range(len(stacks))},
        parse_cards(board), name="test")
    return HandState(variant_for(game), stacks, rules=rules or Rules(), cards=source)




def check_round(state: HandState) -> None:
    """Everyone checks the current round (no bet pending)."""
    street = state.street_index
    while not state.is_over and state.street_index == street:
        assert state.actor is not None
        state.act(state.actor, X)


# --------------------------------------------------------------------------- §2 seats


@pytest.mark.parametrize("game", ["F7S", "FR", "F7S/8"])
def test_stud_table_seats_two_to_eight(game: str) -> None:
    """docs/house-rules.md §2: a H.O.R.S.E. table seats 2 to 8 players (stud needs at most 8)."""
    HandState(variant_for(game), [100] * 2, seed=1)
    HandState(variant_for(game), [100] * 8, seed=1)  # 8 * 7 = 56 > 52: still allowed
    with pytest.raises(IllegalAction, match="2 to 8"):
        HandState(variant_for(game), [100] * 9, seed=1)
    with pytest.raises(IllegalAction):
        HandState(variant_for(game), [100], seed=1)


@pytest.mark.parametrize("game", ["FT", "FO/8"])
def test_flop_game_needs_two_seats(game: str) -> None:
    """docs/house-rules.md §2: a table seats 2 to 8 players; one seat is not a game."""
    HandState(variant_for(game), [100] * 2, seed=1)
    HandState(variant_for(game), [100] * 8, seed=1)
    with pytest.raises(IllegalAction):
        HandState(variant_for(game), [100], seed=1)


def test_button_moves_one_seat_clockwise_and_skips_ineligible_seats() -> None:
    """docs/house-rules.md §2: the button moves one seat clockwise after every hand; a seat that may not
    take it (absent) is skipped. Engine order starts left of the button, the button last."""
    assert next_button(2, [0, 1, 2, 3], 4) == 3
    assert next_button(3, [0, 1, 2, 3], 4) == 0
    assert next_button(0, [0, 2, 3], 4) == 2  # seat 1 is skipped
    assert engine_order(2, [0, 1, 2, 3]) == [3, 0, 1, 2]
    assert engine_order(1, [0, 1]) == [0, 1]  # heads-up: the button is PHH seat 1


def test_heads_up_button_posts_small_blind_and_acts_first_preflop_last_after() -> None:
    """docs/house-rules.md §2: heads-up flop games: the button posts the small blind and acts first
    before the flop, last after it."""
    state = flop_hand([1000, 1000])
    blinds = [e for e in state.events if isinstance(e, ForcedBetPosted)]
    # seat 1 is the button: it posts 10 (small blind), seat 0 posts 20 (big blind)
    assert {(e.seat, e.kind, e.amount_chips) for e in blinds} == {
        (1, "small blind", 10), (0, "big blind", 20)}
    assert state.bets == [20, 10]
    assert state.actor == 1  # button first pre-flop
    play(state, (1, C), (0, X))
    for _street in ("flop", "turn", "river"):
        assert state.street == _street
        assert state.actor == 0  # big blind first, the button last after the flop
        play(state, (0, X), (1, X))
    assert state.is_over


@pytest.mark.parametrize("game", ["FT", "FO/8"])
def test_first_to_act_preflop_left_of_big_blind_then_left_of_button(game: str) -> None:
    """docs/house-rules.md §3: hold'em/Omaha: pre-flop the first player left of the big blind acts first;
    on later rounds the first active player left of the button."""
    state = flop_hand([1000] * 5, game=game)
    # seat 0 small blind, seat 1 big blind -> seat 2 first pre-flop
    assert state.bets == [10, 20, 0, 0, 0]
    assert state.actor == 2
    play(state, (2, C), (3, C), (4, C), (0, F), (1, X))
    # the small blind (seat 0) folded: the first *active* seat left of the button is seat 1
    assert state.street == "flop"
    assert state.actor == 1
    play(state, (1, X), (2, X), (3, X), (4, X))
    assert state.street == "turn"
    assert state.actor == 1


def test_three_handed_postflop_starts_with_small_blind() -> None:
    """docs/house-rules.md §3: on later rounds the first active player left of the button acts first
    (seat 0, the small blind, when still in)."""
    state = flop_hand([1000] * 3)
    assert state.actor == 2  # the button is left of the big blind three-handed
    play(state, (2, C), (0, C), (1, X))
    assert state.street == "flop" and state.actor == 0


# --------------------------------------------------------------------------- §3 limits


def test_fixed_limit_small_bet_preflop_and_flop_big_bet_turn_and_river() -> None:
    """docs/house-rules.md §3 (stakes table): small bet 20 pre-flop and on the flop, big bet 40 on the
    turn and river; raises are by the same unit."""
    state = flop_hand([1000] * 3)
    legal = state.legal_actions()
    # pre-flop the big blind (20) is the bet: a raise goes to 20 + 20 = 40, only that amount
    assert (legal.raise_min_to, legal.raise_max_to) == (40, 40)
    assert legal.call_to_chips == 20
    play(state, (2, R, 40), (0, C), (1, C))
    assert state.street == "flop"
    legal = state.legal_actions()
    assert legal.can_check and (legal.raise_min_to, legal.raise_max_to) == (20, 20)
    play(state, (0, R, 20))
    assert state.legal_actions().raise_min_to == 40  # raise by one small bet
    play(state, (1, C), (2, C))
    assert state.street == "turn"
    assert state.legal_actions().raise_min_to == 40  # big bet
    play(state, (0, R, 40))
    assert state.legal_actions().raise_min_to == 80  # raise by one big bet
    play(state, (1, C), (2, C))
    assert state.street == "river"
    assert state.legal_actions().raise_min_to == 40
    check_round(state)
    assert state.is_over
    # each put in 40 + 20 + 40 = 100
    assert sum(state.result.pots[i].amount_chips for i in range(len(state.result.pots))) == 300


def test_custom_stakes_from_rules() -> None:
    """docs/house-rules.md §3/§10: `small_bet`, `big_bet`, `small_blind`, `big_blind` set the limits."""
    rules = Rules(stakes=Stakes(small_bet=100, big_bet=200, small_blind=50, big_blind=100))
    state = flop_hand([5000] * 3, rules=rules)
    assert state.bets == [50, 100, 0]
    assert state.legal_actions().raise_min_to == 200  # 100 + 100
    play(state, (2, C), (0, C), (1, X))
    play(state, (0, X), (1, X), (2, X))
    assert state.legal_actions().raise_min_to == 200  # turn: the big bet


def test_wrong_limit_amount_rejected() -> None:
    """docs/house-rules.md §3: fixed limit: only the small/big bet (raise) amount is legal."""
    state = flop_hand([1000] * 3)
    for amount in (30, 39, 41, 60, 1000):
        with pytest.raises(AmountOutOfRange):
            state.act(2, R, amount)
    assert state.actor == 2 and state.bets == [10, 20, 0]


# --------------------------------------------------------------------------- §3 cap


def test_preflop_cap_big_blind_counts_as_the_bet() -> None:
    """docs/house-rules.md §3/§10: one bet and at most three raises with more than two players; the big
    blind is the pre-flop opening bet (`max_raises` note in §9)."""
    state = flop_hand([1000] * 4)
    # bet = big blind 20; raises to 40, 60, 80 -> capped
    play(state, (2, R, 40), (3, R, 60), (0, R, 80))
    legal = state.legal_actions()
    assert state.actor == 1
    assert legal.raise_min_to is None and ActionKind.RAISE not in legal.kinds()
    assert legal.call_to_chips == 80
    with pytest.raises(IllegalAction):
        state.act(1, R, 100)


def test_postflop_cap_bet_and_three_raises() -> None:
    """docs/house-rules.md §3: each betting round allows one bet and at most three raises (bet, raise,
    re-raise, cap) when more than two players were in the hand at the start of the round."""
    state = flop_hand([1000] * 3)
    play(state, (2, C), (0, C), (1, X))
    play(state, (0, R, 20), (1, R, 40), (2, R, 60), (0, R, 80))
    assert state.legal_actions().raise_min_to is None  # seat 1: cap reached
    play(state, (1, C))
    assert state.legal_actions().raise_min_to is None  # seat 2 too
    play(state, (2, C))
    assert state.street == "turn"


def test_cap_counts_players_at_start_of_round_not_after_folds() -> None:
    """docs/house-rules.md §3: players counted are those in the hand when the round starts: a
    three-way round stays capped after one folds."""
    state = flop_hand([1000] * 3)
    play(state, (2, C), (0, C), (1, X))
    play(state, (0, R, 20), (1, F), (2, R, 40), (0, R, 60), (2, R, 80))
    assert state.actor == 0
    assert state.legal_actions().raise_min_to is None  # bet + 3 raises: capped, even 2 left


def test_max_raises_option() -> None:
    """docs/house-rules.md §10: `max_raises` sets the number of raises after the opening bet."""
    state = flop_hand([1000] * 3, rules=Rules(max_raises=1))
    play(state, (2, C), (0, C), (1, X))
    play(state, (0, R, 20), (1, R, 40))  # bet + 1 raise
    assert state.legal_actions().raise_min_to is None


def test_heads_up_raising_unlimited() -> None:
    """docs/house-rules.md §3: when exactly two players were in the hand at the start of the round,
    raising is unlimited (`uncapped_heads_up=true`)."""
    state = flop_hand([2000, 2000])
    # pre-flop: bb 20 is the bet, raises to 40, 60, 80 would cap; go on to 200 (9 raises)
    to = 20
    seat = 1
    for _ in range(9):
        to += 20
        play(state, (seat, R, to))
        seat = 1 - seat
    assert to == 200
    assert state.legal_actions().raise_min_to == 220


def test_uncapped_heads_up_false_caps_two_players() -> None:
    """docs/house-rules.md §10: `uncapped_heads_up=false` applies the cap heads-up as well."""
    state = flop_hand([2000, 2000], rules=Rules(uncapped_heads_up=False))
    play(state, (1, R, 40), (0, R, 60), (1, R, 80))
    assert state.legal_actions().raise_min_to is None
    play(state, (0, C))
    play(state, (0, R, 20), (1, R, 40), (0, R, 60), (1, R, 80))
    assert state.legal_actions().raise_min_to is None


def test_all_in_player_excluded_from_cap_count() -> None:
    """docs/house-rules.md §3: players counted are those neither folded nor all-in when the round
    starts: three players, one all-in pre-flop -> the flop is a heads-up round, uncapped."""
    state = flop_hand([30, 1000, 1000])
    # seat 2 raises to 40; seat 0 (small blind, 30 chips) calls all-in for 30; seat 1 calls
    play(state, (2, R, 40), (0, C), (1, C))
    assert state.stacks[0] == 0
    assert state.street == "flop" and state.actor == 1
    play(state, (1, R, 20), (2, R, 40), (1, R, 60), (2, R, 80), (1, R, 100))
    assert state.legal_actions().raise_min_to == 120  # past the cap: unlimited


# --------------------------------------------------------------------------- §3 re-raise


def test_no_raise_again_unless_someone_raised_after() -> None:
    """docs/house-rules.md §3: a player may not raise again unless another player raised after them
    (here the only later "raise" is an all-in for less than half a bet, which is no raise)."""
    state = flop_hand([1000, 1000, 45])
    play(state, (2, C), (0, C), (1, X))  # seat 2 has 45 - 20 = 25 behind
    play(state, (0, R, 20), (1, C), (2, R, 25))  # all-in: 5 more, less than half of 20
    for seat in (0, 1):
        legal = state.legal_actions()
        assert state.actor == seat
        assert legal.raise_min_to is None
        assert set(legal.kinds()) == {F, C} and legal.call_to_chips == 25
        with pytest.raises(IllegalAction):
            state.act(seat, R, 40)
        play(state, (seat, C))
    assert state.street == "turn"


def test_check_raise_allowed() -> None:
    """docs/house-rules.md §3: check-raise is allowed in all five games."""
    state = flop_hand([1000] * 3)
    play(state, (2, C), (0, C), (1, X))
    play(state, (0, X), (1, R, 20), (2, C))
    legal = state.legal_actions()
    assert state.actor == 0 and legal.raise_min_to == 40
    play(state, (0, R, 40))
    assert state.bets == [40, 20, 20]


def test_big_blind_option_to_raise_when_limped() -> None:
    """docs/house-rules.md §3/§10: the big blind is the pre-flop opening bet, posted without acting, so
    the big blind may still raise when everyone just calls (common casino practice)."""
    state = flop_hand([1000] * 3)
    play(state, (2, C), (0, C))
    legal = state.legal_actions()
    assert state.actor == 1 and legal.can_check and legal.raise_min_to == 40


def test_bettor_may_reraise_after_a_raise_behind() -> None:
    """docs/house-rules.md §3: a player may raise again once another player raised after them."""
    state = flop_hand([1000] * 3)
    play(state, (2, C), (0, C), (1, X))
    play(state, (0, R, 20), (1, R, 40), (2, C))
    assert state.legal_actions().raise_min_to == 60


# --------------------------------------------------------------------------- §3 all-in


def test_all_in_raise_of_half_a_bet_reopens_betting() -> None:
    """docs/house-rules.md §3: an all-in raise of at least half a full bet counts as a full raise and
    reopens the betting. Ambiguity: the next raise goes to the all-in total plus one full
    bet (the all-in counts as a full raise, so the increment starts from it)."""
    state = flop_hand([1000, 1000, 50])
    play(state, (2, C), (0, C), (1, X))  # seat 2 has 50 - 20 = 30 behind
    play(state, (0, R, 20), (1, C), (2, R, 30))  # all-in: +10 over 20 = half a bet
    legal = state.legal_actions()
    assert state.actor == 0  # seat 0 already acted (bet 20) but may raise again
    assert legal.call_to_chips == 30
    assert legal.raise_min_to == 50  # 30 + 20
    play(state, (0, R, 50), (1, C))
    assert state.street == "turn"
    assert state.committed == [70, 70, 50]


def test_all_in_less_than_half_next_player_may_call_fold_or_complete() -> None:
    """docs/house-rules.md §3: after an all-in of less than half a bet, the next player who has not
    acted may call the all-in amount, fold, or complete the bet."""
    state = flop_hand([1000, 45, 1000])
    play(state, (2, C), (0, C), (1, X))  # seat 1 has 25 behind
    play(state, (0, R, 20), (1, R, 25))  # all-in for 5 more than the bet of 20
    legal = state.legal_actions()
    assert state.actor == 2
    assert set(legal.kinds()) == {F, C, R}
    assert legal.call_to_chips == 25
    # completing: the raise is a full raise over the bet 20 -> 40 (not 25 + 20)
    assert (legal.raise_min_to, legal.raise_max_to) == (40, 40)
    play(state, (2, R, 40))
    # seat 0 has acted, but seat 2 made a full raise after it: it may raise again
    legal = state.legal_actions()
    assert state.actor == 0 and legal.raise_min_to == 60


def test_all_in_short_call_is_a_call() -> None:
    """docs/house-rules.md §3/§5: a player with too few chips may call all-in for less; the excess of
    the bettor is returned when nobody else matches it (uncalled chips)."""
    state = flop_hand([30, 2000])  # heads-up: seat 0 big blind with 30
    play(state, (1, R, 40))
    legal = state.legal_actions()
    assert legal.call_to_chips == 30 and legal.call_is_all_in
    play(state, (0, C))
    # seat 1 bet 40, seat 0 could match only 30 -> 10 uncalled go back to seat 1
    returned = [e for e in state.events if isinstance(e, UncalledBetReturned)]
    assert returned == [UncalledBetReturned(1, 10)]
    assert state.is_over  # nobody left to bet: the board is run out
    assert sum(state.result.final_stacks) == 2030


def test_uncalled_bet_returned_when_all_fold() -> None:
    """docs/house-rules.md §3: uncalled chips are returned to the bettor."""
    state = flop_hand([1000] * 3)
    play(state, (2, R, 40), (0, F), (1, F))
    # seat 2 raised to 40, the biggest other bet is the big blind's 20 -> 20 returned;
    # the pot is 10 + 20 + 20 = 50, seat 2 nets +30
    assert [e for e in state.events if isinstance(e, UncalledBetReturned)] == [
        UncalledBetReturned(2, 20)]
    assert state.result.net_chips == (-10, -20, 30)


def test_uncalled_river_bet_returned() -> None:
    """docs/house-rules.md §3: uncalled chips are returned to the bettor (a river bet nobody calls)."""
    state = flop_hand([1000, 1000])
    play(state, (1, C), (0, X))
    check_round(state)
    check_round(state)
    play(state, (0, R, 40), (1, F))
    assert [e for e in state.events if isinstance(e, UncalledBetReturned)] == [
        UncalledBetReturned(0, 40)]
    assert state.result.net_chips == (20, -20)  # only the blinds changed hands


# --------------------------------------------------------------------------- §3 raise-to


def test_amounts_are_raise_to_totals() -> None:
    """docs/house-rules.md §3: amounts are always "raise to" totals for the round, never "raise by"."""
    state = flop_hand([1000] * 3)
    play(state, (2, R, 40), (0, R, 60))
    # the big blind re-raises to 80: a total of 80, 60 more than its posted 20
    with pytest.raises(AmountOutOfRange):
        state.act(1, R, 20)  # "raise by 20" is not an amount
    event = state.act(1, R, 80)
    assert isinstance(event, ActionTaken)
    assert (event.to_chips, event.added_chips) == (80, 60)
    assert state.bets == [60, 80, 40]
    # calls are reported as totals too
    event = state.act(2, C)
    assert (event.to_chips, event.added_chips) == (80, 40)



def test_short_all_in_opening_bet_does_not_reopen_for_checker() -> None:
    """docs/house-rules.md §3: an all-in bet of less than half a bet does not reopen the betting for a
    player who already acted (here: checked): it may only call or fold; the next player who
    has not acted may call, fold or complete to the full bet (20)."""
    state = flop_hand([1000, 25, 1000])
    play(state, (2, C), (0, C), (1, X))  # seat 1 has 5 behind
    play(state, (0, X), (1, R, 5))  # all-in bet of 5 < half of 20
    legal = state.legal_actions()
    assert state.actor == 2
    assert legal.call_to_chips == 5 and legal.raise_min_to == 20
    play(state, (2, C))
    legal = state.legal_actions()
    assert state.actor == 0
    assert set(legal.kinds()) == {F, C} and legal.call_to_chips == 5


@pytest.mark.parametrize(("behind", "reopens"), [(60, True), (59, False)])
def test_half_bet_threshold_on_the_turn(behind: int, reopens: bool) -> None:
    """docs/house-rules.md §3: on the turn the bet is 40: an all-in raise of 20 more (half) reopens the
    betting, 19 more does not. Seat 0 bets 40, seat 1 calls, seat 2 is all in for
    ``behind`` (to 60 or 59)."""
    state = flop_hand([1000, 1000, 20 + behind])
    play(state, (2, C), (0, C), (1, X))
    check_round(state)
    assert state.street == "turn"
    play(state, (0, R, 40), (1, C), (2, R, behind))
    legal = state.legal_actions()
    assert state.actor == 0 and legal.call_to_chips == behind
    if reopens:
        assert legal.raise_min_to == behind + 40  # a full big bet over the all-in
    else:
        assert legal.raise_min_to is None

"""docs/house-rules.md §3 for the stud games: antes, bring-in, completion, the order on 4th street and
later, and the open-pair big bet. Default stakes: ante 3, bring-in 5, small bet 20, big 40.

Scripted cards per seat are in dealing order: two down cards, the door (up) card, then the
fourth, fifth and sixth street up cards and the seventh street down card.
"""

from __future__ import annotations

import random

import pytest

from arena.engine.actions import ActionKind
from arena.engine.cards import parse_cards
from arena.engine.dealing import stud_opener
from arena.engine.errors import AmountOutOfRange, IllegalAction
from arena.engine.events import ActionTaken, ForcedBetPosted
from arena.engine.games import variant_for
from arena.engine.phh import ScriptedCards
from arena.engine.rules import Rules
from arena.engine.state import HandState
from tests.hands import play

F, X, C, B, R = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN,
                 ActionKind.RAISE)

# filler down cards, distinct per seat, unlikely to clash with the up cards used below
_DOWN = ["8s8h", "9s9h", "6s6h", "4s4h", "JcJh"]


def stud(game: str, ups: list[str], *, stacks: int = 1000, rules: Rules | None = None,
         downs: list[str] | None = None) -> HandState:
    """A stud hand; ``ups[seat]`` are the seat's up cards from the door card on (then its
    seventh-street down card, when the test goes that far)."""
    downs = downs or _DOWN
    hole = {seat: parse_cards(downs[seat] + up) for seat, up in enumerate(ups)}
    return HandState(variant_for(game), [stacks] * len(ups), rules=rules or Rules(),
                     cards=ScriptedCards(hole, [], name="stud"))




def finish_street(state: HandState) -> None:
    """Bring in / call / check until the street changes."""
    street = state.street_index
    while not state.is_over and state.street_index == street:
        state.check_or_call()


# --------------------------------------------------------------------------- antes


@pytest.mark.parametrize("game", ["FR", "F7S", "F7S/8"])
def test_every_player_posts_the_ante(game: str) -> None:
    """docs/house-rules.md §3 (stakes table): ante 3 from every player in razz, stud and stud hi-lo;
    no blinds."""
    state = stud(game, ["Kc", "Qd", "5h"])
    forced = [e for e in state.events if isinstance(e, ForcedBetPosted)]
    assert [(e.seat, e.kind, e.amount_chips) for e in forced] == [
        (0, "ante", 3), (1, "ante", 3), (2, "ante", 3)]
    assert state.stacks == [997, 997, 997]
    assert state.bets == [0, 0, 0]  # antes are dead money, not part of the round's bets
    # "after antes": every ante is posted before the first card is dealt
    kinds = [type(e).__name__ for e in state.events]
    assert kinds[:3] == ["ForcedBetPosted"] * 3 and "ForcedBetPosted" not in kinds[3:]


# --------------------------------------------------------------------------- bring-in


@pytest.mark.parametrize("game", ["F7S", "F7S/8"])
def test_stud_bring_in_lowest_up_card_aces_high(game: str) -> None:
    """docs/house-rules.md §3: the lowest up card posts the bring-in in stud and stud hi-lo; aces count
    high (a deuce is the lowest card)."""
    state = stud(game, ["Ac", "2s", "Kd"])
    assert state.actor == 1  # the deuce, even of spades, is below the ace and the king
    legal = state.legal_actions()
    assert legal.bring_in_to_chips == 5


@pytest.mark.parametrize("game", ["F7S", "F7S/8"])
def test_stud_bring_in_tie_by_suit(game: str) -> None:
    """docs/house-rules.md §1/§3: bring-in ties by suit, clubs < diamonds < hearts < spades: of two
    deuces the 2c is the lowest card."""
    state = stud(game, ["2d", "2c", "5h"])
    assert state.actor == 1
    state = stud(game, ["2h", "2s", "2d"])
    assert state.actor == 2  # 2d < 2h < 2s


def test_razz_bring_in_highest_up_card_aces_low() -> None:
    """docs/house-rules.md §3: razz: the highest up card posts the bring-in; aces are low (a king is
    the highest)."""
    state = stud("FR", ["Ah", "Qd", "2c"])
    assert state.actor == 1  # the queen; the ace is the lowest card in razz
    state = stud("FR", ["Ac", "2d"])
    assert state.actor == 1  # a deuce is higher than an ace in razz


def test_razz_bring_in_king_of_spades_worst() -> None:
    """docs/house-rules.md §3: razz bring-in ties by suit: the king of spades is the worst card."""
    state = stud("FR", ["Ks", "Kc", "Kh"])
    assert state.actor == 0
    state = stud("FR", ["Kc", "Kd", "Tc"])
    assert state.actor == 1  # Kd is worse than Kc


@pytest.mark.parametrize("game", ["FR", "F7S", "F7S/8"])
def test_bring_in_seat_may_post_or_complete(game: str) -> None:
    """docs/house-rules.md §3: the bring-in player posts the bring-in or may instead complete to the
    small bet."""
    ups = ["Kc", "Qd", "2h"] if game != "FR" else ["Kc", "2d", "3h"]
    state = stud(game, ups)
    seat = state.actor
    assert seat is not None
    legal = state.legal_actions()
    assert legal.bring_in_to_chips == 5
    assert (legal.raise_min_to, legal.raise_max_to) == (20, 20)
    assert not legal.can_check and legal.call_to_chips is None
    state.act(seat, R, 20)  # completes: a bet of 20
    assert state.bets[seat] == 20
    nxt = state.legal_actions()
    assert nxt.call_to_chips == 20 and nxt.raise_min_to == 40


def test_bare_bring_in_next_players_fold_call_or_complete() -> None:
    """docs/house-rules.md §3: after a bare bring-in the next players may fold, call the bring-in, or
    complete; raising is possible only after a completion."""
    state = stud("F7S", ["2c", "Kd", "Qh", "Js"])
    play(state, (0, B))
    assert state.bets == [5, 0, 0, 0]
    legal = state.legal_actions()
    assert state.actor == 1
    assert set(legal.kinds()) == {F, C, R}
    assert legal.call_to_chips == 5
    assert (legal.raise_min_to, legal.raise_max_to) == (20, 20)  # complete only, no 25
    with pytest.raises(AmountOutOfRange):
        state.act(1, R, 10)  # "raising" the bring-in by a bring-in is not a limit amount
    play(state, (1, C))
    legal = state.legal_actions()
    assert legal.call_to_chips == 5 and legal.raise_min_to == 20  # still only complete
    play(state, (2, R, 20))
    # after the completion raises are by the small bet: 20 + 20 = 40
    assert state.legal_actions().raise_min_to == 40
    play(state, (3, R, 40))
    # the bring-in seat may raise too: a raise came after its bring-in
    legal = state.legal_actions()
    assert state.actor == 0 and legal.call_to_chips == 40 and legal.raise_min_to == 60


def test_bring_in_does_not_count_toward_the_cap() -> None:
    """docs/house-rules.md §3/§10: the bring-in does not count toward the cap; the completion is third
    street's opening bet, then three raises: 5 -> 20 -> 40 -> 60 -> 80 (cap)."""
    state = stud("F7S", ["2c", "Kd", "Qh", "Js", "9d"])
    play(state, (0, B), (1, R, 20), (2, R, 40), (3, R, 60), (4, R, 80))
    legal = state.legal_actions()
    assert state.actor == 0
    assert legal.raise_min_to is None and legal.call_to_chips == 80
    with pytest.raises(IllegalAction):
        state.act(0, R, 100)


def test_bring_in_cannot_fold_or_check() -> None:
    """docs/house-rules.md §3/§6: the bring-in is a forced bet: its seat posts it (or completes)."""
    state = stud("F7S", ["2c", "Kd"])
    with pytest.raises(IllegalAction):
        state.act(0, F)
    with pytest.raises(IllegalAction):
        state.act(0, X)
    assert state.legal_actions().default_action().kind is B


# --------------------------------------------------------------------------- 4th street on


@pytest.mark.parametrize("game", ["F7S", "F7S/8"])
def test_fourth_street_best_showing_high_pairs_count(game: str) -> None:
    """docs/house-rules.md §3: stud and stud hi-lo 4th street and later: the best showing hand acts
    first, by high ranking; pairs count. Doors 2c/Tc/Ah: 2c brings in (seat 0). Fourth:
    seat 0 shows A2, seat 1 TT, seat 2 AK -> the pair of tens acts first."""
    state = stud(game, ["2cAd", "TcTd", "AhKh"])
    assert state.actor == 0
    finish_street(state)
    assert state.street == "fourth" and state.actor == 1


@pytest.mark.parametrize("game", ["F7S", "F7S/8"])
def test_fourth_street_high_card_order(game: str) -> None:
    """docs/house-rules.md §3: stud: without pairs the highest showing cards act first: A-K beats A-Q
    beats A-2 (compared card by card from the highest)."""
    state = stud(game, ["2cAd", "AhQc", "AsKh"])
    finish_street(state)
    assert state.actor == 2


def test_straights_and_flushes_do_not_count_on_board() -> None:
    """docs/house-rules.md §3: stud showing hands: straights and flushes do not count: on sixth street
    5h6h7h8h (four to a straight flush) shows only eight-high, below A-K-9-2."""
    state = stud("F7S", ["5h6h7h8h", "AcKd9s2c", "3c4d7cJd"],
                 downs=["2s2h", "3s3h", "4s4h"])
    for _ in range(3):
        finish_street(state)
    assert state.street == "sixth" and state.actor == 1


def test_razz_lowest_showing_acts_first() -> None:
    """docs/house-rules.md §3: razz 4th street and later: the lowest showing hand by ace-to-five acts
    first. Doors Ac/Kc/Jh: Kc brings in; fourth A-2 (seat 0) beats J-T and K-Q."""
    state = stud("FR", ["Ac2d", "KcQd", "JhTh"])
    assert state.actor == 1
    finish_street(state)
    assert state.actor == 0


def test_razz_pairs_are_bad_on_board() -> None:
    """docs/house-rules.md §3/§5: razz showing hands: pairs are bad, so K-Q acts before 2-2 and K-K.
    Doors 2c/Kc/Ks: the Ks is the worst card and brings in (seat 2)."""
    state = stud("FR", ["2c2d", "KcQd", "KsKd"], downs=["4s4h", "6s6h", "8c8h"])
    assert state.actor == 2
    finish_street(state)
    assert state.actor == 1


def test_stud_tie_by_suit_of_highest_card_higher_suit_first() -> None:
    """docs/house-rules.md §3: stud: equal showing hands are ordered by the suit of the highest card,
    the higher suit acting first. K5 (Kc) vs K5 (Ks): seat 1 with the Ks acts first."""
    state = stud("F7S", ["Kc5d", "Ks5c", "2h3h"])
    assert state.actor == 2  # 2h brings in
    finish_street(state)
    assert state.actor == 1


def test_razz_tie_by_suit_of_highest_card_lower_suit_first() -> None:
    """docs/house-rules.md §3: razz: equal showing hands are ordered by the suit of the highest card,
    the lower suit acting first. 7-3 (7s) vs 7-3 (7c): seat 1 with the 7c acts first."""
    state = stud("FR", ["7s3d", "7c3h", "KhQh"])
    assert state.actor == 2  # Kh brings in
    finish_street(state)
    assert state.actor == 1


@pytest.mark.parametrize(("game", "ups"), [
    ("F7S", ["Kc5d", "Ks5c", "2h3h"]),
    ("FR", ["7s3d", "7c3h", "KhQh"]),
])
def test_stud_tie_break_seat_option(game: str, ups: list[str]) -> None:
    """docs/house-rules.md §10: `stud_tie_break="seat"`: equal showing hands on 4th-7th street are ordered
    by seat, the first seat left of the button (seat 0) first, instead of by suit."""
    state = stud(game, ups, rules=Rules(stud_tie_break="seat"))
    finish_street(state)
    assert state.actor == 0


def test_showing_order_each_street() -> None:
    """docs/house-rules.md §3: the best showing hand acts first on every street from 4th on (the order
    is recomputed as up cards arrive). Fourth: K-3 (seat 0) > Q-J (seat 1); fifth: seat 1
    pairs its queens (Q-J-Q) and acts first; sixth: seat 0 makes two pair (K-3-K-3)."""
    state = stud("F7S", ["Kc3dKd3h", "QcJdQdJh", "2h4c5c6c"],
                 downs=["2s2d", "7s7h", "8s8h"])
    assert state.actor == 2  # 2h brings in
    finish_street(state)
    assert state.actor == 0
    finish_street(state)
    assert state.street == "fifth"
    # seat 0 shows K-3-K (pair of kings) and seat 1 Q-J-Q (pair of queens): kings first
    assert state.actor == 0
    finish_street(state)
    assert state.street == "sixth"
    # K-3-K-3 (two pair) vs Q-J-Q-J (two pair, lower)
    assert state.actor == 0


@pytest.mark.parametrize("tie_break", ["suit", "seat"])
@pytest.mark.parametrize("game", ["F7S", "F7S/8", "FR"])
def test_opener_from_kept_showing_keys_matches_a_rescan(game: str, tie_break: str) -> None:
    """docs/house-rules.md §3 "Stud": with a seeded deck the opener of 4th street on is read from each
    seat's showing key and tie-break card kept while dealing; it is the seat a rescan of every
    up card picks, on every street, with folded seats and 2 to 8 players. (Razz ties that the
    top non-ace breaks are rare: it plays more hands.)"""
    rng = random.Random(7)
    rules = Rules(stud_tie_break=tie_break)
    streets = 0
    for seed in range(1500 if game == "FR" else 300):
        players = 2 + seed % 7
        state = HandState(variant_for(game), [1000] * players, rules=rules, seed=seed)
        assert state._up_key is not None
        street = state.street_index
        while not state.is_over:
            if state.street_index != street:
                street = state.street_index
                kept = stud_opener(state)
                keys, state._up_key = state._up_key, None
                assert stud_opener(state) == kept == state.actor
                state._up_key = keys
                streets += 1
            legal = state.legal_actions()
            if legal.can_fold and rng.random() < 0.1:
                state.act(state.actor, F)  # type: ignore[arg-type]
            else:
                state.check_or_call()
    assert streets > 300


# --------------------------------------------------------------------------- limits


def test_stud_small_bet_third_and_fourth_big_bet_fifth_on() -> None:
    """docs/house-rules.md §3 (stakes table): stud small bet on 3rd and 4th street, big bet on 5th, 6th
    and 7th street."""
    state = stud("F7S", ["2cAd9c7d8c", "KhQc3h4d8d"], downs=["2s2d", "7s7h"])
    assert state.legal_actions().raise_min_to == 20  # complete to the small bet
    finish_street(state)
    assert state.legal_actions().raise_min_to == 20  # 4th, no open pair
    finish_street(state)
    for street in ("fifth", "sixth", "seventh"):
        assert state.street == street
        assert state.legal_actions().raise_min_to == 40
        finish_street(state)
    assert state.is_over


def test_open_pair_on_fourth_allows_big_bet() -> None:
    """docs/house-rules.md §3: stud high: if any player shows an open pair on fourth street, every
    player may bet either the small or the big bet on that street; once a big bet is made,
    further raises are big. Seat 0 shows 9c9d; 2c (seat 1) brings in."""
    state = stud("F7S", ["9c9d", "2cKh"])
    play(state, (1, B), (0, C))
    assert state.street == "fourth" and state.actor == 0
    legal = state.legal_actions()
    assert (legal.raise_min_to, legal.raise_max_to) == (20, 40)
    play(state, (0, R, 40))
    legal = state.legal_actions()
    assert (legal.raise_min_to, legal.raise_max_to) == (80, 80)  # 40 + a big bet
    with pytest.raises(AmountOutOfRange):
        state.act(1, R, 60)
    play(state, (1, R, 80))
    assert state.legal_actions().raise_min_to == 120


def test_open_pair_small_bet_then_small_or_big_raise() -> None:
    """docs/house-rules.md §3: open pair on fourth: after a small bet the next player may raise by the
    small or the big bet (to 40 or 60); after the big raise, further raises are big."""
    state = stud("F7S", ["9c9d", "2cKh"])
    play(state, (1, B), (0, C), (0, R, 20))
    legal = state.legal_actions()
    assert (legal.raise_min_to, legal.raise_max_to) == (40, 60)
    play(state, (1, R, 60))
    legal = state.legal_actions()
    assert (legal.raise_min_to, legal.raise_max_to) == (100, 100)


def test_open_pair_any_player_not_only_opener() -> None:
    """docs/house-rules.md §3: "if any player shows an open pair": the big bet is open to every
    player, also when the opener itself has no pair. Seat 1 (pair of threes) vs seat 0
    (A-K): the pair acts first, checks; seat 0 may then bet 20 or 40."""
    state = stud("F7S", ["AcKd", "3c3d", "2cQh"])
    play(state, (2, B), (0, C), (1, C))
    assert state.actor == 1
    play(state, (1, X))
    legal = state.legal_actions()
    assert (legal.raise_min_to, legal.raise_max_to) == (20, 40)


def test_pair_with_a_down_card_is_not_open() -> None:
    """docs/house-rules.md §3: only an open (face-up) pair allows the big bet on fourth street."""
    state = stud("F7S", ["9c2d", "2cKh"], downs=["9h9s", "7s7h"])
    play(state, (1, B), (0, C))
    legal = state.legal_actions()
    assert (legal.raise_min_to, legal.raise_max_to) == (20, 20)


def test_open_pair_big_bet_only_on_fourth_street() -> None:
    """docs/house-rules.md §3: the open-pair option is a fourth-street rule: on fifth street the big
    bet is the only amount anyway (40), and on third street it does not apply."""
    state = stud("F7S", ["9c9d5c", "2cKh5d"])
    play(state, (1, B), (0, C))
    finish_street(state)
    assert state.street == "fifth"
    legal = state.legal_actions()
    assert (legal.raise_min_to, legal.raise_max_to) == (40, 40)


@pytest.mark.parametrize(("game", "rules"), [
    ("FR", Rules()),
    ("F7S/8", Rules()),
    ("F7S", Rules(stud_open_pair_big_bet=False)),
])
def test_no_open_pair_big_bet_in_razz_hilo_or_when_disabled(game: str, rules: Rules) -> None:
    """docs/house-rules.md §3/§10: the open-pair big bet is stud high only: not in razz, not in stud
    hi-lo, and not with `stud_open_pair_big_bet=false`."""
    state = stud(game, ["9c9d", "2cKh"], rules=rules)
    finish_street(state)
    assert state.street == "fourth"
    legal = state.legal_actions()
    assert (legal.raise_min_to, legal.raise_max_to) == (20, 20)


def test_stud_events_are_raise_to_totals() -> None:
    """docs/house-rules.md §3: amounts are "raise to" totals: completing over a 5 bring-in is "raise to
    20" (15 more for the bring-in seat)."""
    state = stud("F7S", ["2cAd", "KhQc"])
    play(state, (0, B))
    event = state.act(1, R, 20)
    assert isinstance(event, ActionTaken) and (event.to_chips, event.added_chips) == (20, 20)
    event = state.act(0, C)
    assert (event.to_chips, event.added_chips) == (20, 15)


def test_bare_bring_in_called_round_ends_without_option() -> None:
    """docs/house-rules.md §3: the bring-in is not a live blind (common casino practice, §3 "Practice"; the
    seeds only say the bring-in seat may complete when it posts): when every player calls the bare
    bring-in, third street ends without a further option for the bring-in seat."""
    state = stud("F7S", ["2c4c", "Kd5d", "Qh7h"])
    play(state, (0, B), (1, C), (2, C))
    assert state.street == "fourth"
    assert state.committed == [8, 8, 8]  # 3 ante + 5


def test_bring_in_passes_on_when_low_card_is_all_in_for_the_ante() -> None:
    """docs/house-rules.md §3 (ambiguous): the lowest up card posts the bring-in; a seat all in for the
    ante cannot, so (common casino practice) the next seat clockwise that has chips brings
    in. Seat 0 (2c door, 3 chips) is all in after the 3 ante; seat 1 brings in 5."""
    state = HandState(variant_for("F7S"), [3, 100, 100], cards=ScriptedCards(
        {0: parse_cards("AcAd2c"), 1: parse_cards("KcKdQh"), 2: parse_cards("JcJd9h")}, [],
        name="stud"))
    assert state.stacks == [0, 97, 97]
    assert state.actor == 1
    assert state.legal_actions().bring_in_to_chips == 5

"""docs/house-rules.md §3/§6 (engine side): an invalid action (not legal, wrong amount, out of turn,
after the hand) raises a typed error naming the problem and never changes the state; a
malformed hand history (PHH, the log format of §3/§4) raises a typed error naming it."""

from __future__ import annotations

import pytest

from arena.engine.actions import Action, ActionKind
from arena.engine.cards import parse_card, parse_cards
from arena.engine.errors import (
    AmountOutOfRange,
    ArenaError,
    ConfigError,
    HandOver,
    IllegalAction,
    MalformedAction,
    MalformedInput,
    NotYourTurn,
)
from arena.engine.games import variant_for
from arena.engine.phh import ScriptedCards, iter_replays, loads, replay
from arena.engine.state import HandState
from tests.hands import assert_rejected

F, X, C, B, R = (ActionKind.FOLD, ActionKind.CHECK, ActionKind.CALL, ActionKind.BRING_IN,
                 ActionKind.RAISE)


def holdem(stacks: list[int] | None = None) -> HandState:
    source = ScriptedCards({0: parse_cards("AcAd"), 1: parse_cards("KcKd"),
                            2: parse_cards("QcQd")}, parse_cards("2c7d9hJs4d"), name="bad")
    return HandState(variant_for("FT"), stacks or [1000, 1000, 1000], cards=source)


# --------------------------------------------------------------------------- actions


def test_acting_out_of_turn_rejected_state_unchanged() -> None:
    """docs/house-rules.md §6: an action for another decision (out of turn) is rejected with a clear
    error and never changes the state."""
    state = holdem()
    assert state.actor == 2
    assert_rejected(state, 0, C, error=NotYourTurn, match="seat 0 acted but seat 2 is to act")
    assert_rejected(state, 1, R, 40, error=NotYourTurn, match="seat 1")
    assert_rejected(state, 7, F, error=NotYourTurn, match="seat 7")
    assert issubclass(NotYourTurn, IllegalAction)


def test_check_facing_a_bet_rejected() -> None:
    """docs/house-rules.md §6: an action not among the legal actions is rejected: checking while 20 is
    owed."""
    state = holdem()
    assert_rejected(state, 2, X, error=IllegalAction, match="may not check: 20 to call")


def test_call_with_nothing_to_call_rejected() -> None:
    """docs/house-rules.md §6: calling with nothing to call is not a legal action (check instead)."""
    state = holdem()
    state.act(2, C)
    state.act(0, C)
    assert_rejected(state, 1, C, error=IllegalAction, match="nothing to call")


@pytest.mark.parametrize("amount", [20, 30, 41, 60, 0, -40, 10**9])
def test_wrong_raise_amount_rejected(amount: int) -> None:
    """docs/house-rules.md §3/§6: a wrong amount is rejected naming the legal "raise to" amount."""
    state = holdem()
    assert_rejected(state, 2, R, amount, error=AmountOutOfRange, match="raise to 40")


def test_raise_without_amount_rejected() -> None:
    """docs/house-rules.md §3/§6: a raise must carry its "raise to" amount."""
    state = holdem()
    assert_rejected(state, 2, R, None, error=MalformedAction, match="needs a 'raise to' amount")


@pytest.mark.parametrize("kind", [F, X, C, B])
def test_amount_on_non_raise_rejected(kind: ActionKind) -> None:
    """docs/house-rules.md §6: an action with a stray amount is malformed and changes nothing."""
    state = holdem()
    assert_rejected(state, 2, kind, 20, error=MalformedAction, match="takes no amount")


def test_raise_past_cap_rejected() -> None:
    """docs/house-rules.md §3/§6: a raise after the cap is not legal and changes nothing."""
    state = holdem()
    state.act(2, R, 40)
    state.act(0, R, 60)
    state.act(1, R, 80)
    assert_rejected(state, 2, R, 100, error=IllegalAction, match="may not bet or raise")


def test_reraise_after_short_all_in_rejected() -> None:
    """docs/house-rules.md §3/§6: re-raising when only a short all-in came after is rejected."""
    state = holdem([1000, 1000, 45])
    for seat, kind in ((2, C), (0, C), (1, X)):
        state.act(seat, kind)
    state.act(0, R, 20)
    state.act(1, C)
    state.act(2, R, 25)  # all-in for 5 more
    assert_rejected(state, 0, R, 40, error=IllegalAction, match="may not bet or raise")


def test_bring_in_when_none_due_rejected() -> None:
    """docs/house-rules.md §6: posting a bring-in in a flop game (or twice) is not a legal action."""
    state = holdem()
    assert_rejected(state, 2, B, error=IllegalAction, match="no bring-in")
    stud = HandState(variant_for("F7S"), [100, 100], seed=5)
    seat = stud.actor
    assert seat is not None
    stud.act(seat, B)
    assert_rejected(stud, 1 - seat, B, error=IllegalAction, match="no bring-in")


def test_bring_in_seat_fold_rejected() -> None:
    """docs/house-rules.md §3/§6: the bring-in is forced: its seat may not fold or check instead."""
    stud = HandState(variant_for("F7S"), [100, 100], seed=5)
    seat = stud.actor
    assert seat is not None
    assert_rejected(stud, seat, F, error=IllegalAction, match="may not fold")
    assert_rejected(stud, seat, X, error=IllegalAction, match="may not check")


def test_action_after_hand_over_rejected() -> None:
    """docs/house-rules.md §6: an action after the hand is over (stale) is rejected, changing nothing."""
    state = holdem()
    state.act(2, F)
    state.act(0, F)
    assert state.is_over
    assert_rejected(state, 1, X, error=HandOver, match="hand is over")
    with pytest.raises(HandOver):
        state.legal_actions()


@pytest.mark.parametrize(("text", "match"), [
    ("", "empty action"),
    ("shove", "unknown action 'shove'"),
    ("raise", "raise needs one whole"),
    ("raise forty", "raise needs one whole"),
    ("raise -40", "raise needs one whole"),
    ("call 20", "call takes no amount"),
])
def test_action_text_malformed(text: str, match: str) -> None:
    """docs/house-rules.md §6: a malformed action is rejected with a clear error."""
    with pytest.raises(MalformedAction, match=match):
        Action.parse(text)


def test_action_text_parsed() -> None:
    """docs/house-rules.md §3: protocol amounts are "raise to" totals: ``raise 60`` means to 60."""
    assert Action.parse("raise 60") == Action(R, 60)
    assert Action.parse("FOLD") == Action(F)


@pytest.mark.parametrize("text", ["Ax", "1c", "AsK", "10h", "As Kx"])
def test_bad_card_rejected(text: str) -> None:
    """docs/house-rules.md (notation): cards are rank 23456789TJQKA plus suit cdhs; anything else is a
    MalformedInput naming the text."""
    with pytest.raises(MalformedInput, match="not a card"):
        parse_cards(text)


def test_card_notation() -> None:
    """docs/house-rules.md (notation): `Ah`, `Td`, `2c`; suits order clubs < diamonds < hearts <
    spades (the card index encodes it)."""
    assert parse_card("2c") < parse_card("2d") < parse_card("2h") < parse_card("2s")
    assert parse_card("Td") < parse_card("Ah")


def test_bad_table_rejected() -> None:
    """docs/house-rules.md §2: 2 to 8 seats with chips; a bad set-up is a typed error."""
    with pytest.raises(IllegalAction, match="positive stack"):
        HandState(variant_for("FT"), [100, 0], seed=1)
    with pytest.raises(IllegalAction, match="blinds"):
        HandState(variant_for("FT"), [100, 100, 100], seed=1, blinds=[10, 20])
    with pytest.raises(ConfigError, match="'XX'"):
        variant_for("XX")


# --------------------------------------------------------------------------- PHH


_GOOD = """\
variant = "FT"
antes = [0, 0, 0]
blinds_or_straddles = [10, 20, 0]
small_bet = 20
big_bet = 40
starting_stacks = [1000, 1000, 1000]
actions = [
  "d dh p1 AcAd", "d dh p2 KcKd", "d dh p3 QcQd",
  "p3 cc", "p1 cc", "p2 cc",
  "d db 2c7d9h", "p1 cc", "p2 cc", "p3 cc",
  "d db Js", "p1 cc", "p2 cc", "p3 cc",
  "d db 4d", "p1 cc", "p2 cc", "p3 cc",
  "p1 sm AcAd", "p2 sm KcKd", "p3 sm QcQd",
]
finishing_stacks = [1040, 980, 980]
"""


def test_good_phh_replays() -> None:
    """docs/house-rules.md §1/§5: a hand history replays to its result (aces win 3 x 20 = 60)."""
    (hand,) = loads(_GOOD)
    state = replay(hand)
    assert state.is_over and state.stacks == [1040, 980, 980]
    assert [error for _, _, error in iter_replays([hand])] == [None]


@pytest.mark.parametrize(("old", "new", "error", "match"), [
    ('"p3 cc", "p1 cc"', '"p3 xx", "p1 cc"', MalformedInput, r"action 4 'p3 xx'.*unknown"),
    ('"d dh p1 AcAd"', '"d dh p1 AcAx"', MalformedInput, r"action 1.*not a card: 'Ax'"),
    ('"d dh p1 AcAd"', '"d dh p9 AcAd"', MalformedInput, r"no player p9"),
    ('"d db 4d"', '"d zz 4d"', MalformedInput, r"action 15 'd zz 4d': unknown dealer action"),
    ('"p3 cc", "p1 cc"', '"p3 cbr 30", "p1 cc"', AmountOutOfRange, r"action 4 'p3 cbr 30'"),
    ('"p3 cc", "p1 cc"', '"p1 cc", "p3 cc"', NotYourTurn, r"action 4 'p1 cc'"),
    ('"p3 cc", "p1 cc"', '"p3 cbr", "p1 cc"', MalformedInput, r"action 4 'p3 cbr'"),
    ('"p3 cc", "p1 cc"', '17, "p1 cc"', MalformedInput, r"action 4 is not a string"),
    ('variant = "FT"', 'variant = "NS"', ConfigError, r"unknown game 'NS'"),
    ("starting_stacks = [1000, 1000, 1000]", 'starting_stacks = "1000"', MalformedInput,
     r"field 'starting_stacks' should be list"),
    ("small_bet = 20\n", "", MalformedInput, r"missing field 'small_bet'"),
    ('variant = "FT"\n', "", MalformedInput, r"missing field 'variant'"),
    ("blinds_or_straddles = [10, 20, 0]\n", "", MalformedInput,
     r"missing field 'blinds_or_straddles'"),
    ("blinds_or_straddles = [10, 20, 0]", "blinds_or_straddles = [10, 20]", MalformedInput,
     r"'blinds_or_straddles' should be 3 whole numbers"),
])
def test_malformed_phh_rejected_naming_the_problem(old: str, new: str, error: type[Exception],
                                                    match: str) -> None:
    """docs/house-rules.md §3/§5 (logs): a malformed hand history (unknown action, bad card, missing
    field, illegal or out-of-turn action) raises a typed error naming the hand, the action
    and the problem."""
    assert old in _GOOD
    text = _GOOD.replace(old, new, 1)
    (hand,) = loads(text, name="h.phh")
    with pytest.raises(error, match=match) as info:
        replay(hand)
    assert isinstance(info.value, ArenaError)
    assert "h.phh" in str(info.value) or error is ConfigError


def test_missing_actions_field() -> None:
    """docs/house-rules.md §3/§5 (logs): a hand without its actions is rejected naming the field."""
    text = _GOOD[: _GOOD.index("actions =")]
    (hand,) = loads(text, name="h.phh")
    with pytest.raises(MalformedInput, match="missing field 'actions'"):
        replay(hand)


@pytest.mark.parametrize("text", [
    _GOOD.replace("actions = [", "actions = ", 1),
    'variant = "FT\n',
    "variant = FT\n",
    "[1\n",
])
def test_bad_toml_rejected(text: str) -> None:
    """docs/house-rules.md §3/§5 (logs): a file that is not TOML is a MalformedInput naming the file."""
    with pytest.raises(MalformedInput, match=r"h\.phh: not valid TOML"):
        loads(text, name="h.phh")


def test_phh_cards_left_over_rejected() -> None:
    """docs/house-rules.md §1: the history must deal exactly the cards the hand uses."""
    text = _GOOD.replace('"d db 4d"', '"d db 4d5d"', 1)
    (hand,) = loads(text, name="h.phh")
    with pytest.raises(MalformedInput):
        replay(hand)


def test_phh_finishing_stacks_mismatch_reported() -> None:
    """docs/house-rules.md §1: every hand can be re-dealt and verified: a log whose finishing stacks
    differ from the replay is reported."""
    text = _GOOD.replace("[1040, 980, 980]", "[980, 1040, 980]")
    (hand,) = loads(text, name="h.phh")
    ((_, _, error),) = list(iter_replays([hand]))
    assert error is not None and "finishing_stacks differ" in error and "p1" in error


def test_phh_empty_multi_hand_file_rejected() -> None:
    """docs/house-rules.md §3/§5 (logs): a `.phhs` file with a non-hand top-level key is rejected."""
    with pytest.raises(MalformedInput, match="neither a PHH field"):
        loads("x = 1\n", name="h.phhs")
    with pytest.raises(MalformedInput, match="no hands"):
        loads("", name="h.phhs")


def test_timeout_default_action_check_else_fold_bring_in_posted() -> None:
    """docs/house-rules.md §6: a seat out of time checks if checking is legal, otherwise folds; forced
    bets (the bring-in) are posted automatically. Automatic actions are marked."""
    state = holdem()
    assert state.legal_actions().default_action() == Action(F)  # 20 to call
    state.apply(state.legal_actions().default_action(), automatic=True)
    assert state.folded[2] and state.events[-1].is_automatic
    state.act(0, C)
    assert state.legal_actions().default_action() == Action(X)  # big blind may check
    stud = HandState(variant_for("F7S"), [100, 100], seed=5)
    assert stud.legal_actions().default_action() == Action(B)

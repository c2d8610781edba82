"""docs/house-rules.md §21 (2-7 triple draw) and §22 (London Lowball): exchanges, lowball values."""

from __future__ import annotations

import copy
import random

import pytest

from arena.engine.actions import Action, ActionKind
from arena.engine.cards import parse_cards
from arena.engine.describe_lowball import lowball_words
from arena.engine.errors import IllegalAction, MalformedAction, NotYourTurn
from arena.engine.games import variant_for
from arena.engine.lowball import ace_to_six_value, deuce_to_seven_value
from arena.engine.state import HandState

TD = "F2L3D"


def _at_first_exchange(seed: int = 4, seats: int = 3) -> HandState:
    state = HandState(variant_for(TD), [1000] * seats, seed=seed)
    while not state.exchanging:
        state.check_or_call()
    return state


def _snapshot(state: HandState) -> tuple[object, ...]:
    return (copy.deepcopy(state.cards), list(state.stacks), list(state.committed), state.actor,
            list(state.exchanging), len(state.events), len(state.source))


def test_triple_draw_streets_and_limits() -> None:
    """docs/house-rules.md §21: five cards each, four betting rounds with three draws between them,
    small bets for the first two rounds and big bets for the last two, 2 to 6 players."""
    variant = variant_for(TD)
    assert [s.exchange_max_cards for s in variant.streets] == [0, 5, 5, 5]
    assert [s.is_big_bet for s in variant.streets] == [False, False, True, True]
    assert variant.hole_card_count == 5 and variant.max_seats == 6
    with pytest.raises(IllegalAction, match="2 to 6 seats"):
        HandState(variant, [100] * 7, seed=1)


def test_exchange_in_turn_from_the_left_of_the_button() -> None:
    """docs/house-rules.md §21: "drawing in turn from the left of the button" (PHH seat 0 first); every
    live seat exchanges, then the betting round opens left of the button."""
    state = _at_first_exchange(seats=4)
    order = []
    while state.exchanging:
        assert state.actor is not None
        order.append(state.actor)
        state.exchange(state.actor, [])
    assert order == [0, 1, 2, 3]
    assert state.actor == 0 and state.legal_actions().can_check


@pytest.mark.parametrize("why", ["not own card", "twice", "too many", "bet", "not in turn",
                                 "after standing pat", "during betting", "not a card list"])
def test_illegal_exchanges_are_refused_and_change_nothing(why: str) -> None:
    """docs/house-rules.md §6 and §21: an illegal exchange (a card the seat does not hold, the same card
    twice, more than the round allows, a bet in an exchange round, an exchange out of turn or
    after standing pat, an exchange in a betting round) is a typed error naming the cause,
    and the state is unchanged."""
    state = _at_first_exchange()
    seat = state.actor
    assert seat == 0
    own = state.cards[0]
    other = state.cards[1][0]
    if why == "after standing pat":
        state.exchange(0, [])
    elif why == "during betting":
        while state.exchanging:
            assert state.actor is not None
            state.exchange(state.actor, [])
    before = _snapshot(state)
    if why == "not own card":
        with pytest.raises(IllegalAction, match="does not hold"):
            state.exchange(0, [other])
    elif why == "twice":
        with pytest.raises(IllegalAction, match="twice"):
            state.exchange(0, [own[0], own[0]])
    elif why == "too many":
        with pytest.raises(IllegalAction, match="at most 5"):
            state.exchange(0, [*own, other])
    elif why == "bet":
        with pytest.raises(IllegalAction, match="exchange round"):
            state.act(0, ActionKind.CHECK)
        with pytest.raises(IllegalAction, match="exchange round"):
            state.act(0, ActionKind.RAISE, 40)
    elif why == "not in turn":
        with pytest.raises(NotYourTurn):
            state.exchange(1, [state.cards[1][0]])
    elif why == "after standing pat":
        with pytest.raises(NotYourTurn):
            state.exchange(0, [state.cards[0][0]])
    elif why == "during betting":
        with pytest.raises(IllegalAction, match="betting round"):
            state.exchange(0, [state.cards[0][0]])
        with pytest.raises(IllegalAction, match="betting round"):
            state.apply(Action(ActionKind.EXCHANGE, cards=(state.cards[0][0],)))
    else:
        with pytest.raises(MalformedAction):
            state.exchange(0, "7h")  # type: ignore[arg-type]
    assert _snapshot(state) == before


def test_exchange_action_text_and_timeout_default() -> None:
    """docs/house-rules.md §6: the timeout action in an exchange round is to stand pat; the action text
    names the cards given away ("exchange 7h6c"; "exchange" alone stands pat)."""
    state = _at_first_exchange()
    legal = state.legal_actions()
    assert legal.kinds() == (ActionKind.EXCHANGE,)
    assert legal.default_action() == Action(ActionKind.EXCHANGE)
    action = Action.parse("exchange 7h 6c")
    assert action.cards == tuple(parse_cards("7h6c")) and str(action) == "exchange 7h6c"
    assert Action.parse("exchange") == Action(ActionKind.EXCHANGE)
    event = state.apply(legal.default_action(), automatic=True)
    assert event.discarded == () and event.drawn == () and event.is_automatic


def test_the_stub_running_out_reshuffles_the_discards() -> None:
    """docs/house-rules.md §21: "discards are reshuffled when the stub runs out"; the discards of the
    seat exchanging are not among them, folded hands never come back (§1)."""
    state = HandState(variant_for(TD), [10_000] * 6, seed=9)
    seen_reshuffle = False
    while not state.is_over:
        legal = state.legal_actions()
        if legal.can_exchange:
            assert legal.seat is not None
            stub = len(state.source)
            event = state.exchange(legal.seat, legal.exchangeable)  # five new cards each time
            seen_reshuffle |= stub < 5
            assert not set(event.drawn) & set(event.discarded)
            held = [c for cards in state.cards for c in cards]
            assert len(held) == len(set(held)) == 30
        else:
            state.check_or_call()
    assert seen_reshuffle
    assert sum(state.stacks) == 60_000


def test_deuce_to_seven_ranking() -> None:
    """docs/house-rules.md §21: deuce-to-seven low: aces high, straights and flushes count against;
    7-5-4-3-2 unsuited is the best hand, A-2-3-4-5 is ace high (no straight)."""
    order = ["7c5d4h3s2c", "7c6d4h3s2c", "8c5d4h3s2c", "As5d4h3s2c", "2c2d5h4s3c",
             "8c7d6h5s4c", "7c5c4c3c2c"]
    values = [deuce_to_seven_value(parse_cards(h)) for h in order]
    assert values == sorted(values, reverse=True)
    assert lowball_words(values[0], ace_low=False) == "seven-five low: 7-5-4-3-2"
    assert lowball_words(values[-1], ace_low=False) == "low with a flush, seven high: 7-5-4-3-2"
    assert deuce_to_seven_value(parse_cards("7c5d4h3s2c")) == deuce_to_seven_value(
        parse_cards("7d5c4s3h2d"))


def test_ace_to_six_ranking() -> None:
    """docs/house-rules.md §22 [002 London Lowball]: ace-to-six, the ace is low; straights and flushes
    count against (A-2-3-4-5 is a straight, so 6-4-3-2-A is the best hand); best 5 of 7."""
    best = ace_to_six_value(parse_cards("6c4d3h2sAc"))
    wheel = ace_to_six_value(parse_cards("5c4d3h2sAc"))
    assert best > ace_to_six_value(parse_cards("6c5d3h2sAc")) > wheel
    assert ace_to_six_value(parse_cards("KcQdJhTsAc")) > wheel  # no straight: king high
    assert ace_to_six_value(parse_cards("6c4d3h2sAcKdKh")) == best
    assert lowball_words(best, ace_low=True) == "six-four low: 6-4-3-2-A"


def test_deuce_to_seven_agrees_with_pokerkit() -> None:
    """docs/house-rules.md §21 "as PokerKit's": the same order as PokerKit's StandardLowHand on random
    five-card hands, ties included."""
    pokerkit = pytest.importorskip("pokerkit")
    from arena.engine.cards import format_cards

    rng = random.Random(7)
    hands = [rng.sample(range(52), 5) for _ in range(400)]
    ours = [deuce_to_seven_value(h) for h in hands]
    theirs = [pokerkit.StandardLowHand(format_cards(h)) for h in hands]
    for i in range(0, 398, 2):
        a, b = ours[i], ours[i + 1]
        x, y = theirs[i], theirs[i + 1]
        assert (a > b) == (x > y) and (a == b) == (x == y), (hands[i], hands[i + 1])


def test_lowball_tables_agree_with_every_five_cards() -> None:
    """docs/house-rules.md §21, §22: the best of 5 to 8 cards is the best of their five-card
    subsets, flushes included (the five-card tables, one for five of a suit, and the rank-key
    table must agree with the subset search); one suit's five cards (deuce-to-seven) ranked as
    PokerKit's StandardLowHand ranks them."""
    from itertools import combinations

    rng = random.Random(11)
    for _ in range(600):
        suit = rng.randrange(4)
        # Hands crowded into one suit, so that five-card flushes come up often.
        pool = [c for c in range(52) if c & 3 == suit] + rng.sample(range(52), 6)
        hand = list(dict.fromkeys(rng.sample(pool, 8)))[:rng.randint(5, 8)]
        if len(hand) < 5:
            continue
        for value_of in (deuce_to_seven_value, ace_to_six_value):
            best = max(value_of(list(five)) for five in combinations(hand, 5))
            assert value_of(hand) == best, hand
    pokerkit = pytest.importorskip("pokerkit")
    from arena.engine.cards import format_cards

    flushes = [[r * 4 + s for r in rng.sample(range(13), 5)] for s in range(4) for _ in range(50)]
    hands = flushes + [rng.sample(range(52), 5) for _ in range(200)]
    rng.shuffle(hands)
    ours = [deuce_to_seven_value(h) for h in hands]
    theirs = [pokerkit.StandardLowHand(format_cards(h)) for h in hands]
    for i in range(len(hands) - 1):
        a, b = ours[i], ours[i + 1]
        x, y = theirs[i], theirs[i + 1]
        assert (a > b) == (x > y) and (a == b) == (x == y), (hands[i], hands[i + 1])


# --------------------------------------------------------------------------- London Lowball


def test_london_lowball_is_razz_dealt_and_ranked_ace_to_six() -> None:
    """docs/house-rules.md §22 [002: "London Lowball ist ein Stud Poker mit sieben Karten, der nur für
    niedrige Blätter gespielt wird und bei dem die Rangfolge Ass-bis-Sechs verwendet wird"]:
    seven-card stud streets, the highest up card brings in as in razz (Decision), and the
    showdown goes to the best ace-to-six low of each seat's seven cards."""
    variant = variant_for("FLL")
    assert variant.is_stud and variant.bring_in_by_high_card and variant.opens_by_low_showing
    assert variant.streets == variant_for("FR").streets
    rng = random.Random(3)
    showdowns = 0
    for seed in range(300):
        state = HandState(variant, [500] * rng.randint(2, 8), seed=seed)
        while not state.is_over:
            legal = state.legal_actions()
            if legal.bring_in_to_chips is not None:
                state.act(legal.seat, ActionKind.BRING_IN)
            else:
                state.check_or_call()
        assert state.result is not None and sum(state.stacks) == 500 * state.seat_count
        if state.result.showdown_order:
            showdowns += 1
            values = {s: ace_to_six_value(state.cards[s] + state.board)
                      for s in state.result.showdown_order}
            best = max(values.values())
            winners = {w for a in state.result.awards for w in a.winners}
            assert winners == {s for s, v in values.items() if v == best}
    assert showdowns == 300


def test_london_lowball_bring_in_is_the_highest_up_card() -> None:
    """docs/house-rules.md §22 Decision (as razz, §3): the highest up card brings it in, a king the
    highest, an ace the lowest; ties by suit."""
    for seed in range(40):
        state = HandState(variant_for("FLL"), [500] * 5, seed=seed)
        razz = HandState(variant_for("FR"), [500] * 5, seed=seed)
        assert state.cards == razz.cards and state.actor == razz.actor


@pytest.mark.parametrize("code", ["F2L3D", "FLL", "F7SW", "F7SWL", "F7SW/8", "FLH", "FLH/8",
                                  "FES"])
def test_the_new_games_are_accepted_by_a_match(code: str) -> None:
    """docs/games.md §4: the wire carries the new games (issue 42), so a match's `games` key
    accepts them; an unknown code is still refused, naming the known ones."""
    from arena.engine.errors import ConfigError
    from arena.engine.rules import Rules

    assert [str(g) for g in Rules.from_mapping({"games": [code]}).games] == [code]
    with pytest.raises(ConfigError, match=r"unknown game 'F2L4D'.*F2L3D"):
        Rules.from_mapping({"games": ["F2L4D"]})


def test_london_lowball_bring_in_key() -> None:
    """docs/house-rules.md §22 Decision `london_lowball_bring_in`: `"high"` (default, as razz)
    or `"low"` (the lowest up card brings it in, as stud, aces high)."""
    from arena.engine.rules import Rules

    low = Rules.from_mapping({"london_lowball_bring_in": "low"})
    for seed in range(30):
        state = HandState(variant_for("FLL"), [500] * 5, rules=low, seed=seed)
        stud = HandState(variant_for("F7S"), [500] * 5, seed=seed)
        assert state.cards == stud.cards and state.actor == stud.actor
    from arena.engine.errors import ConfigError

    with pytest.raises(ConfigError, match="london_lowball_bring_in"):
        Rules.from_mapping({"london_lowball_bring_in": "middle"})

"""2-7 triple draw (docs/house-rules.md §21) against PokerKit 0.7.7, decision by decision.

Every hand is dealt by our engine (a recording seeded deck) and fed card for card to a
PokerKit ``State`` built as its ``FixedLimitDeuceToSevenLowballTripleDraw`` (five hole cards,
three draws each after a burn, small bets for two rounds, big bets for two, deuce-to-seven
low), with docs/house-rules.md §3's cap (bet + 3 raises; PokerKit does not count the big blind, so 3
completions pre-draw and 4 after) and ``uncapped_heads_up=false`` as in
``test_differential``. At every betting decision both engines must agree on the actor, the
legal actions and amounts, stacks and bets; at every exchange on the seat to exchange and on
its cards; every card dealt (replacements included, after a reshuffle of the discards) must
go to the same seat in the same order; the final stacks must be equal (or differ only by the
documented pot rules of docs/testing.md, recomputed to the chip). PokerKit deals the replacements
after every seat has discarded, we deal each seat's at once: with one deck the card order is
the same.
"""

from __future__ import annotations

import random
import warnings
from collections import Counter
from dataclasses import dataclass, field

import pytest

pytest.importorskip("pokerkit")

from pokerkit import (
    BettingStructure,
    Deck,
    Mode,
    Opening,
    StandardLowHand,
    State,
    Street,
)

from arena.engine.actions import ActionKind, LegalActions
from arena.engine.cards import format_card, format_cards
from arena.engine.events import CardsExchanged
from arena.engine.games import variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState
from tests.engine.pokerkit_oracle import (
    AUTOMATIONS,
    BURN,
    RecordingDeck,
    ours_decision,
    pokerkit_act,
    pokerkit_decision,
    pokerkit_pointless,
    pokerkit_style_stacks,
)
from tests.engine.test_differential import rules_raise_range, short_all_in_streets

CODE = "F2L3D"
RULES = Rules().with_overrides(["uncapped_heads_up=false"])


def pokerkit_state(stacks: list[int], rules: Rules) -> State:
    stakes = rules.stakes
    variant = variant_for(CODE)
    streets = []
    for index, street in enumerate(variant.streets):
        streets.append(Street(
            street.burn, (False,) * street.down_cards, 0, bool(street.exchange_max_cards),
            Opening.POSITION, stakes.big_bet if street.is_big_bet else stakes.small_bet,
            rules.max_raises if index == 0 else rules.max_raises + 1))
    return State(AUTOMATIONS, Deck.STANDARD, (StandardLowHand,), tuple(streets),
                 BettingStructure.FIXED_LIMIT, True, 0, (stakes.small_blind, stakes.big_blind),
                 0, list(stacks), len(stacks), mode=Mode.CASH_GAME)


def feed(pk: State, log: list[tuple[int, int]], pos: int) -> int:
    """Deal to PokerKit what our deck dealt, until it needs a player (a bet or a discard)."""
    while pk.status and not any(pk.standing_pat_or_discarding_statuses):
        if pk.card_burning_status:
            if pos >= len(log):
                break
            seat, card = log[pos]
            assert seat == BURN, f"PokerKit burns, our engine dealt {log[pos]}"
            pk.burn_card(format_card(card))
            pos += 1
        elif any(pk.hole_dealing_statuses):
            if pos >= len(log):
                break
            seat, card = log[pos]
            assert seat != BURN, "our engine burned where PokerKit deals"
            assert pk.hole_dealee_index == seat, (pk.hole_dealee_index, seat, "dealing order")
            pk.deal_hole(format_card(card), seat)
            pos += 1
        else:
            break
    return pos


@dataclass
class Stats:
    hands: int = 0
    decisions: int = 0
    exchanges: int = 0
    cards_exchanged: int = 0
    reshuffles: int = 0
    showdowns: int = 0
    side_pot_hands: int = 0
    divergences: Counter[str] = field(default_factory=Counter)


def choose(rng: random.Random, legal: LegalActions, aggression: float) -> tuple[ActionKind, int | None]:
    r = rng.random()
    if legal.raise_min_to is not None and r < aggression:
        return ActionKind.RAISE, legal.raise_min_to
    if r < aggression + 0.12 and legal.call_to_chips is not None:
        return ActionKind.FOLD, None
    return (ActionKind.CHECK if legal.can_check else ActionKind.CALL), None


def play_one(n: int, seed: int, stats: Stats, aggression: float) -> None:
    rng = random.Random(seed)
    stacks = [rng.choice((rng.randint(5, 60), rng.randint(60, 300), 2000)) for _ in range(n)]
    deck = RecordingDeck(seed)
    ours = HandState(variant_for(CODE), stacks, rules=RULES, cards=deck)
    where = f"{CODE} n={n} seed={seed} stacks={stacks}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # docs/testing.md (oracle): explicit (and recycled) cards warn
        pk = pokerkit_state(stacks, RULES)
        pos = 0
        for _step in range(600):
            pos = feed(pk, deck.log, pos)
            mine, legal = ours_decision(ours)
            if ((legal is None or legal.can_exchange) and pk.actor_index is not None
                    and pokerkit_pointless(pk)):
                pk.check_or_call()  # docs/testing.md (oracle): PokerKit asks a pointless check
                continue
            if legal is not None and legal.can_exchange:
                assert any(pk.standing_pat_or_discarding_statuses), (
                    f"{where}: PokerKit actor {pk.actor_index} street {pk.street_index}, "
                    f"ours {ours.events}")
                assert pk.stand_patter_or_discarder_index == legal.seat, where
                theirs_hole = {repr(c) for c in pk.hole_cards[legal.seat]}
                assert theirs_hole == {format_card(c) for c in ours.cards[legal.seat]}, where
                count = rng.choice((0, 0, 1, 1, 2, 3, 5))
                discards = rng.sample(legal.exchangeable, min(count, legal.exchange_max_cards))
                before = len(deck)
                ours.exchange(legal.seat, discards)
                pk.stand_pat_or_discard(format_cards(discards))
                stats.exchanges += 1
                stats.cards_exchanged += len(discards)
                stats.reshuffles += len(deck) > before
                continue
            theirs = pokerkit_decision(pk)
            may_raise = True
            if mine != theirs:
                # docs/testing.md / test_differential "short_all_in": a short all-in bet or big blind
                # reopens differently in PokerKit; ours must follow docs/house-rules.md §3 to the chip.
                variant = variant_for(CODE)
                same = (mine.actor, mine.can_fold, mine.can_check, mine.call_chips) == (
                    theirs.actor, theirs.can_fold, theirs.can_check, theirs.call_chips)
                assert same and ours.street_index in short_all_in_streets(ours, variant, RULES) \
                    and (mine.raise_min_to, mine.raise_max_to) == rules_raise_range(
                        ours, variant, RULES), (
                    f"{where}: ours={mine} pokerkit={theirs}\n{ours.events}")
                stats.divergences["short_all_in"] += 1
                may_raise = False
            stats.decisions += 1
            if legal is None:
                break
            assert list(ours.stacks) == list(pk.stacks), where
            assert list(ours.bets) == list(pk.bets), where
            kind, amount = choose(rng, legal, aggression)
            if kind is ActionKind.RAISE and not may_raise:
                kind, amount = (ActionKind.CHECK if legal.can_check else ActionKind.CALL), None
            ours.act(legal.seat, kind, amount)
            pokerkit_act(pk, kind, amount)
        assert ours.is_over and not pk.status, where
    assert ours.result is not None
    if list(ours.stacks) != list(pk.stacks):
        keys, theirs_rule = pokerkit_style_stacks(ours)
        assert keys and theirs_rule == list(pk.stacks), (
            f"{where}: ours={ours.stacks} pokerkit={list(pk.stacks)} (their rule {theirs_rule})"
            f"\n{ours.events}")
        stats.divergences.update(keys)
    stats.hands += 1
    stats.showdowns += bool(ours.result.showdown_order)
    stats.side_pot_hands += len(ours.result.pots) > 1


def test_triple_draw_agrees_with_pokerkit() -> None:
    """docs/house-rules.md §21: 2-7 triple draw as PokerKit deals it, 2 to 6 players, many hands."""
    stats = Stats()
    for n in range(2, 7):
        for i in range(120):
            play_one(n, 500_000 + 1000 * n + i, stats, aggression=0.15 if i % 3 else 0.45)
    print(f"\n{CODE}: {stats}")
    assert stats.hands == 600
    assert stats.decisions > 5000 and stats.exchanges > 2000
    assert stats.showdowns > 150 and stats.side_pot_hands > 30
    assert stats.reshuffles > 0  # the stub ran out and the discards were reshuffled
    assert set(stats.divergences) <= {"merged_pots", "odd_chips", "short_all_in"}, stats.divergences


def test_exchange_replaces_the_cards_named() -> None:
    """docs/house-rules.md §21: a seat gives away the cards it names and gets as many new ones; the
    exchange is recorded with the discards and the cards drawn."""
    ours = HandState(variant_for(CODE), [1000] * 3, rules=RULES, seed=4)
    while not ours.exchanging:
        ours.check_or_call()
    seat = ours.actor
    assert seat == 0  # the first seat left of the button exchanges first
    old = list(ours.cards[seat])
    event = ours.exchange(seat, old[1:3])
    assert isinstance(event, CardsExchanged)
    assert event.discarded == tuple(old[1:3]) and len(event.drawn) == 2
    assert ours.cards[seat] == [old[0], *old[3:], *event.drawn]
    assert not set(event.drawn) & set(c for cards in ours.cards[1:] for c in cards)


def test_triple_draw_hand_histories_replay_here_and_in_pokerkit() -> None:
    """docs/house-rules.md §21 and §26: a triple-draw hand's PHH record (every exchange as
    PokerKit's `sd`, the round's replacement cards after its discards) replays to the same
    final stacks in our engine and in PokerKit's own PHH reader."""
    from pokerkit import HandHistory

    from arena.engine.phh import iter_replays, loads_bytes
    from arena.engine.phhtext import dumps_hands, hand_fields, phh_action_lines, phh_actions

    rng = random.Random(11)
    hands = []
    states = []
    for seed in range(40):
        n = 2 + seed % 5
        state = HandState(variant_for(CODE), [rng.choice((60, 400, 2000)) for _ in range(n)],
                          rules=RULES, seed=seed)
        while not state.is_over:
            legal = state.legal_actions()
            if legal.can_exchange:
                k = rng.randint(0, legal.exchange_max_cards)
                state.exchange(legal.seat, rng.sample(legal.exchangeable, k))
            else:
                kind, amount = choose(rng, legal, 0.2)
                state.act(legal.seat, kind, amount)
        assert phh_action_lines(state) == len(phh_actions(state))
        states.append(state)
        hands.append(hand_fields(state, players=[f"b{i}" for i in range(n)]))
    text = dumps_hands(hands)
    assert " sd " in text and "variant = 'F2L3D'" in text
    replayed = list(iter_replays(loads_bytes(text.encode(), name="td.phhs"), RULES))
    assert [error for _, _, error in replayed] == [None] * 40
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for state, fields in zip(states, hands, strict=True):
            one = dumps_hands([fields]).split("\n", 1)[1]
            history = HandHistory.loads(one)
            *_, last = iter(history)
            stacks = list(last.stacks)
            if stacks != list(state.stacks):
                keys, theirs = pokerkit_style_stacks(state)
                assert keys and theirs == stacks, (stacks, state.stacks)

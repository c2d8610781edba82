"""Differential test: no-limit and pot-limit betting against PokerKit 0.7.7 (docs/house-rules.md §4).

No-limit hold'em (NT) against PokerKit's ``NoLimitTexasHoldem``, pot-limit Omaha (PO) against
``PotLimitOmahaHoldem``, pot-limit hold'em (PT) against a class built from PokerKit's own
``PotLimitPokerMixin``, ``TexasHoldemMixin`` and ``UnfixedLimitHoldem`` (PokerKit ships no
pot-limit hold'em class). 2 to 9 players, stacks from a few chips to deep (short all-ins,
side pots), antes none / each / big blind (docs/house-rules.md §4 ``ante_kind``), a random policy
(any legal amount: minimum, pot, all-in or between) and an all-in-heavy one.

At every decision both engines must agree on the actor, fold/check, the call amount, the
min and max "raise to" totals, and every seat's stack and bet; at the end on the final
stacks. Cards are dealt by our engine and fed to PokerKit card by card (docs/house-rules.md §1).

DIVERGENCES (recognised narrowly, counted, printed with ``pytest -s``; anything else fails):

=================  =========  ================================================================
key                docs/house-rules.md   situation
=================  =========  ================================================================
limp_short_all_in  §3b l.107  pre-flop, an all-in raise by less than the big blind over the
                              big blind (no full raise yet) does not reopen the betting for
                              players who already acted (limpers): docs/house-rules.md counts the big
                              blind as the opening bet (§3). PokerKit counts no pre-flop bet,
                              takes the short all-in as a full raise and lets limpers
                              re-raise. Played on without that raise.
merged_pots        §4         as in the fixed-limit differential test (PokerKit merges pots
odd_chips          §4         with the same players and gives odd chips to the lowest seat);
                              final stacks must then equal PokerKit's pot rules exactly.
=================  =========  ================================================================
"""

from __future__ import annotations

import random
import warnings
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

import pytest

pokerkit = pytest.importorskip("pokerkit")

from pokerkit import (  # noqa: E402
    Mode,
    NoLimitTexasHoldem,
    PotLimitOmahaHoldem,
    PotLimitPokerMixin,
    State,
    TexasHoldemMixin,
    UnfixedLimitHoldem,
)

from arena.engine.actions import ActionKind, LegalActions  # noqa: E402
from arena.engine.events import ActionTaken, ForcedBetPosted  # noqa: E402
from arena.engine.games import AnteKind, ForcedBet, GameCode, variant_for  # noqa: E402
from arena.engine.rules import Rules, Stakes  # noqa: E402
from arena.engine.state import HandState  # noqa: E402
from tests.engine.pokerkit_oracle import (  # noqa: E402
    AUTOMATIONS,
    RecordingDeck,
    feed_cards,
    ours_decision,
    pokerkit_act,
    pokerkit_decision,
    pokerkit_pointless,
    pokerkit_style_stacks,
)

SMALL_BLIND, BIG_BLIND = 10, 20


class PotLimitTexasHoldem(PotLimitPokerMixin, TexasHoldemMixin, UnfixedLimitHoldem):
    """Pot-limit hold'em from PokerKit's own parts (PokerKit 0.7.7 has no such class)."""


def pokerkit_state(code: GameCode, state: HandState) -> State:
    n = state.seat_count
    # Our seats are in PHH order, where PokerKit reverses the heads-up blinds and antes.
    antes = list(reversed(state.antes)) if n == 2 else list(state.antes)
    blinds = (SMALL_BLIND, BIG_BLIND)
    stacks = list(state.starting_stacks)
    # Antes each seat posts are its contributions ("trimming": a short ante makes a side pot,
    # docs/house-rules.md §5); a big-blind ante is dead money in the main pot (docs/house-rules.md §4).
    trimming = not state.dead_antes
    if code == GameCode.NO_LIMIT_HOLDEM:
        return NoLimitTexasHoldem.create_state(AUTOMATIONS, trimming, antes, blinds, BIG_BLIND,
                                               stacks, n, mode=Mode.CASH_GAME)
    if code == GameCode.POT_LIMIT_OMAHA:
        return PotLimitOmahaHoldem.create_state(AUTOMATIONS, trimming, antes, blinds, BIG_BLIND,
                                                stacks, n, mode=Mode.CASH_GAME)
    game = PotLimitTexasHoldem(AUTOMATIONS, trimming, antes, blinds, BIG_BLIND,
                               mode=Mode.CASH_GAME)
    return game(stacks, n)


Policy = Callable[[random.Random, LegalActions, HandState], tuple[ActionKind, int | None]]


def _amount(rng: random.Random, legal: LegalActions, state: HandState) -> int:
    low, high = legal.raise_min_to, legal.raise_max_to
    assert low is not None and high is not None
    r = rng.random()
    if r < 0.3:
        return low
    if r < 0.5:
        return high
    if r < 0.7:
        pot_to = 2 * max(state.bets) - state.bets[legal.seat] + sum(state.committed)
        return max(low, min(high, pot_to))
    return rng.randint(low, high)


def random_policy(rng: random.Random, legal: LegalActions,
                  state: HandState) -> tuple[ActionKind, int | None]:
    """Any legal action, any legal amount."""
    r = rng.random()
    if legal.raise_min_to is not None and r < 0.35:
        return ActionKind.RAISE, _amount(rng, legal, state)
    if r < 0.5 and not legal.can_check:
        return ActionKind.FOLD, None
    return (ActionKind.CHECK, None) if legal.can_check else (ActionKind.CALL, None)


def all_in_policy(rng: random.Random, legal: LegalActions,
                  state: HandState) -> tuple[ActionKind, int | None]:
    """Shove or call a lot: short all-ins, several all-ins per hand, side pots."""
    r = rng.random()
    if legal.raise_min_to is not None and r < 0.45:
        assert legal.raise_max_to is not None
        return ActionKind.RAISE, legal.raise_max_to if r < 0.3 else legal.raise_min_to
    if r < 0.6 and not legal.can_check:
        return ActionKind.FOLD, None
    return (ActionKind.CHECK, None) if legal.can_check else (ActionKind.CALL, None)


def random_stacks(rng: random.Random, n: int) -> list[int]:
    out = []
    for _ in range(n):
        r = rng.random()
        if r < 0.15:
            out.append(rng.randint(1, 2 * BIG_BLIND))
        elif r < 0.5:
            out.append(rng.randint(2 * BIG_BLIND, 15 * BIG_BLIND))
        else:
            out.append(rng.randint(15 * BIG_BLIND, 200 * BIG_BLIND))
    return out


@dataclass
class Stats:
    hands: Counter[str] = field(default_factory=Counter)
    decisions: int = 0
    raises_between: int = 0
    short_all_ins: int = 0
    side_pot_hands: int = 0
    showdowns: int = 0
    divergences: Counter[tuple[str, str]] = field(default_factory=Counter)


def limp_short_all_in(state: HandState, mine: object, theirs: object) -> bool:
    """§3b: pre-flop, our actor already acted and only all-in raises by less than the big blind
    over the big blind came since; we refuse a raise that PokerKit offers."""
    if state.street_index != 0 or state.actor is None:
        return False
    acted = False
    short = False
    level = BIG_BLIND
    for event in state.events:
        if not isinstance(event, ActionTaken):
            continue
        if event.seat == state.actor:
            acted = True
        if event.kind is ActionKind.RAISE:
            if event.to_chips - level >= BIG_BLIND:
                return False  # a full raise: the betting is open by both rules
            short = short or event.is_all_in
            level = max(level, event.to_chips)
    return acted and short


def play_one(code: GameCode, n: int, seed: int, policy: Policy, stats: Stats) -> None:
    rng = random.Random(seed)
    ante_kind = rng.choice(list(AnteKind))
    rules = Rules(stakes=Stakes(small_blind=SMALL_BLIND, big_blind=BIG_BLIND,
                                ante=rng.choice((2, 5))), ante_kind=ante_kind)
    stacks = random_stacks(rng, n)
    deck = RecordingDeck(seed)
    ours = HandState(variant_for(code), stacks, rules=rules, cards=deck)
    where = f"{code} n={n} seed={seed} stacks={stacks} antes={ours.antes}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # docs/testing.md, PokerKit: PokerKit warns on explicit cards
        pk = pokerkit_state(code, ours)
        pos = 0
        relaxed: set[str] = set()
        for _step in range(500):
            pos = feed_cards(pk, deck.log, pos, False)
            mine, legal = ours_decision(ours)
            theirs = pokerkit_decision(pk)
            if legal is None and theirs.actor is not None and pokerkit_pointless(pk):
                pk.check_or_call()  # §3: PokerKit asks a check nobody could bet against
                continue
            may_raise = True
            if mine != theirs:
                same_but_raise = (mine.actor, mine.can_fold, mine.can_check, mine.call_chips) == (
                    theirs.actor, theirs.can_fold, theirs.can_check, theirs.call_chips)
                assert (same_but_raise and mine.raise_min_to is None
                        and limp_short_all_in(ours, mine, theirs)), (
                    f"engines disagree: {where} street={ours.street_index} ours={mine} "
                    f"pokerkit={theirs}\nevents: {ours.events}")
                relaxed.add("limp_short_all_in")
                may_raise = False
            if legal is None:
                break
            stats.decisions += 1
            assert list(ours.stacks) == list(pk.stacks), (where, ours.stacks, pk.stacks)
            assert list(ours.bets) == list(pk.bets), (where, ours.bets, pk.bets)
            assert legal.raise_min_to is None or legal.raise_is_range
            kind, amount = policy(rng, legal, ours)
            if kind is ActionKind.RAISE and not may_raise:
                kind, amount = ActionKind.CALL, None
            if amount is not None and legal.raise_min_to is not None:
                stats.raises_between += legal.raise_min_to < amount < (legal.raise_max_to or 0)
            if kind is ActionKind.RAISE and legal.raise_is_all_in and (
                    legal.raise_min_to == legal.raise_max_to):
                stats.short_all_ins += 1  # all in for no more than a minimum raise
            ours.act(legal.seat, kind, amount)
            pokerkit_act(pk, kind, amount)
        else:
            raise AssertionError(f"{where}: no end after 500 steps")
        assert ours.is_over and not pk.status, where
        assert ours.result is not None
        if list(ours.stacks) != list(pk.stacks):
            keys, pokerkit_rule = pokerkit_style_stacks(ours)
            for event in ours.events:  # dead antes are in no seat's committed chips
                if isinstance(event, ForcedBetPosted) and event.kind is ForcedBet.BIG_BLIND_ANTE:
                    pokerkit_rule[event.seat] -= event.amount_chips
            assert keys and pokerkit_rule == list(pk.stacks), (
                f"{where}: final stacks ours={ours.stacks} pokerkit={list(pk.stacks)}")
            relaxed.update(keys)
        for key in relaxed:
            stats.divergences[(code, key)] += 1
        stats.hands[code] += 1
        stats.showdowns += bool(ours.result.showdown_order)
        stats.side_pot_hands += len(ours.result.pots) > 1


PLAN: list[tuple[tuple[int, ...], int, Policy]] = [
    ((2, 3), 120, random_policy),
    ((4, 5, 6), 60, random_policy),
    ((7, 8, 9), 30, random_policy),
    ((2, 3, 4, 5, 6, 7, 8, 9), 40, all_in_policy),
]
DIVERGENCE_KEYS = {"limp_short_all_in": "§3b", "merged_pots": "§4", "odd_chips": "§4"}


@pytest.mark.parametrize("code", [GameCode.NO_LIMIT_HOLDEM, GameCode.POT_LIMIT_OMAHA,
                                  GameCode.POT_LIMIT_HOLDEM])
def test_engines_agree(code: GameCode) -> None:
    """docs/house-rules.md §4 against PokerKit: every decision (actor, legal actions with their "raise
    to" bounds, stacks and bets) and every final stack, 2-9 players."""
    stats = Stats()
    for row, (counts, hands, policy) in enumerate(PLAN):
        for n in counts:
            for i in range(hands):
                play_one(code, n, 1_000_000 * row + 1000 * n + i, policy, stats)
    print(f"\n{code}: {stats}")
    assert sum(stats.hands.values()) >= 800
    assert stats.decisions > 5000 and stats.side_pot_hands > 50 and stats.showdowns > 200
    assert stats.raises_between > 100 and stats.short_all_ins > 10
    assert set(k for _, k in stats.divergences) <= set(DIVERGENCE_KEYS)
    divergent = sum(stats.divergences.values())
    assert divergent <= sum(stats.hands.values()) // 10, stats.divergences

"""Tournaments played in-process with the built-in policies (no network): tests and `--simulate`."""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from arena.engine.cards import derive_seed
from arena.engine.games import variant_for
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.match.policies import Policy, make_policy
from arena.tourney.event import EventSpec, EventState, HandOutcome, HandPlan, RoundReport
from arena.tourney.formats import FormatResult, TournamentFormat, drive, run_format
from arena.tourney.levels import rules_for_level

MAX_ROUNDS = 100_000  # levels double, so real tournaments end long before this


@dataclass(frozen=True, slots=True)
class SimulatedHand:
    plan: HandPlan
    state: HandState


HandObserver = Callable[[SimulatedHand], None]
RoundObserver = Callable[[EventState, RoundReport], None]


def play_hand(plan: HandPlan, *, rules: Rules, policies: Mapping[str, Policy],
              absent: Collection[str] = ()) -> tuple[HandOutcome, HandState]:
    """Deal ``plan``; an absent player posts its forced bets and checks or folds (docs/house-rules.md §6)."""
    hand_rules = rules_for_level(rules, plan.level, plan.game)
    state = HandState(variant_for(plan.game), list(plan.stacks), rules=hand_rules,
                      seed=plan.seed)
    while not state.is_over:
        actor = state.actor
        assert actor is not None
        player = plan.players[actor]
        legal = state.legal_actions()
        if player in absent:
            action = legal.default_action()
            state.act(actor, action.kind, action.raise_to_chips, automatic=True)
        else:
            action = policies[player](legal)
            state.act(actor, action.kind, action.raise_to_chips)
    away = tuple(p for p in plan.players if p in absent)
    return HandOutcome(plan.table, plan.hand, tuple(state.stacks), away), state


def play_events(specs: list[EventSpec], *, rules: Rules, policies: Mapping[str, Policy],
                absent: Collection[str] = (), on_hand: HandObserver | None = None,
                on_round: RoundObserver | None = None) -> list[EventState]:
    """Play a batch of events to their end, round by round."""
    states = [EventState.start(spec) for spec in specs]
    started = time.monotonic()
    for _ in range(MAX_ROUNDS):
        if all(s.is_over for s in states):
            return states
        for state in states:
            for plan in state.plans(elapsed_seconds=time.monotonic() - started):
                outcome, hand = play_hand(plan, rules=rules, policies=policies, absent=absent)
                if on_hand is not None:
                    on_hand(SimulatedHand(plan, hand))
                report = state.record(outcome)
                if report is not None and on_round is not None:
                    on_round(state, report)
    raise RuntimeError(f"tournament did not end within {MAX_ROUNDS} rounds")


def simulate_tournament(fmt: TournamentFormat, *, rules: Rules, policy: str = "random",
                        absent: Collection[str] = (), on_hand: HandObserver | None = None,
                        on_round: RoundObserver | None = None,
                        on_events: Callable[[list[EventState]], None] | None = None
                        ) -> FormatResult:
    policies = {p: make_policy(policy, derive_seed(fmt.seed, "policy", p)) for p in fmt.players}

    def play(batch: list[EventSpec]) -> list[EventState]:
        states = play_events(batch, rules=rules, policies=policies, absent=absent,
                             on_hand=on_hand, on_round=on_round)
        if on_events is not None:
            on_events(states)
        return states

    return drive(run_format(fmt), play)

"""Strategy replies (docs/house-rules.md §19): a bot may answer a decision with a probability
distribution over its legal actions; the dealer validates it and draws the action itself.

Pure: no I/O, no clocks. The draw is a function of (key, hand number, action index) only, so a
replay with the revealed key re-draws every sampled action:

* the key of a match copy is ``HMAC-SHA-256(match seed, "strategy/<copy index>")``
  (`strategy_key`): secret while the match seed is, revealed with it, and a different key for
  every duplicate copy of the same deals (what one copy drew says nothing about another's);
* the uniform number of a decision is ``HMAC-SHA-256(key, "<hand number>/<action index>")``
  (`draw_uniform`), its top 53 bits over 2^53; the action index counts the hand's actions
  (every `ActionTaken`, automatic ones included) before this one;
* the drawn entry is the first positive-weight entry whose running sum of weights exceeds
  ``u x total weight`` (`draw_index`), in the order the bot declared them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from arena.engine.actions import Action, ActionKind, LegalActions
from arena.engine.errors import AmountOutOfRange, IllegalAction, MalformedAction, NotYourTurn
from arena.engine.events import ActionTaken, Event
from arena.engine.seeds import derive_secret

if TYPE_CHECKING:
    from arena.engine.state import HandState

__all__ = [
    "MAX_STRATEGY_ACTIONS",
    "SUM_TOLERANCE",
    "ActionOption",
    "Strategy",
    "StrategyDecision",
    "StrategyDraw",
    "WeightedAction",
    "action_count",
    "draw_index",
    "draw_strategy",
    "draw_uniform",
    "strategy_key",
    "strategy_options",
    "validate_strategy",
]

MAX_STRATEGY_ACTIONS: Final = 64
"""The most entries a strategy may have (a no-limit bot lists a finite set of amounts)."""
SUM_TOLERANCE: Final = 1e-6
"""How far the weights may sum from one; they are then scaled to sum to one exactly."""
_UNIFORM_BITS: Final = 53


@dataclass(frozen=True, slots=True, kw_only=True)
class WeightedAction:
    """One entry of a declared strategy: a legal action and the probability the bot gave it."""

    action: Action
    weight: float  # as declared: finite, >= 0


@dataclass(frozen=True, slots=True, kw_only=True)
class Strategy:
    """A validated strategy: distinct legal actions whose weights sum to one within
    `SUM_TOLERANCE`. ``probabilities`` are the weights divided by their sum."""

    entries: tuple[WeightedAction, ...]

    @property
    def total_weight(self) -> float:
        return math.fsum(e.weight for e in self.entries)

    @property
    def probabilities(self) -> tuple[float, ...]:
        total = self.total_weight
        return tuple(e.weight / total for e in self.entries)


def validate_strategy(entries: Sequence[tuple[ActionKind | None, int | None, float]],
                      legal: LegalActions) -> Strategy:
    """A bot's declared strategy ((kind, raise to or None, weight) per entry) checked against
    the decision's legal actions. Raises `MalformedAction` for a malformed distribution (too
    many entries, a weight that is not a finite non-negative number, weights not summing to
    one) and `IllegalAction` for an action that is not legal now; nothing is changed."""
    count = len(entries)
    if count == 0:
        raise MalformedAction("the strategy lists no action")
    if count > MAX_STRATEGY_ACTIONS:
        raise MalformedAction(f"the strategy lists {count} actions; at most {MAX_STRATEGY_ACTIONS}")
    out: list[WeightedAction] = []
    seen: set[Action] = set()
    for k, (kind, raise_to, weight) in enumerate(entries):
        where = f"strategy entry {k + 1}"
        if type(weight) is not float and type(weight) is not int:
            raise MalformedAction(f"{where}: the weight is not a number")
        weight = float(weight)
        if not math.isfinite(weight):
            raise MalformedAction(f"{where}: the weight {weight} is not finite")
        if weight < 0.0:
            raise MalformedAction(f"{where}: the weight {weight} is negative")
        action = _legal_action(kind, raise_to, legal, where)
        if action in seen:
            raise MalformedAction(f"{where}: {action} is listed twice")
        seen.add(action)
        out.append(WeightedAction(action=action, weight=weight))
    total = math.fsum(e.weight for e in out)
    if abs(total - 1.0) > SUM_TOLERANCE:
        raise MalformedAction(f"the strategy's weights sum to {total!r}, not 1 "
                              f"(within {SUM_TOLERANCE:g})")
    return Strategy(entries=tuple(out))


def _legal_action(kind: ActionKind | None, raise_to: int | None, legal: LegalActions,
                  where: str) -> Action:
    if kind is None:
        raise MalformedAction(f"{where}: no action kind")
    if kind not in legal.kinds():
        allowed = ", ".join(k.value for k in legal.kinds())
        raise IllegalAction(f"{where}: {kind.value} is not legal now (legal: {allowed})")
    if kind is not ActionKind.RAISE:
        return Action(kind)
    if raise_to is None or not legal.is_legal_raise(raise_to):
        low, high = legal.raise_min_to, legal.raise_max_to
        span = (f"any amount from {low} to {high}" if legal.raise_is_range
                else " or ".join(str(a) for a in legal.raise_amounts()))
        raise AmountOutOfRange(f"{where}: raise to {raise_to} is not legal now (raise to {span})")
    return Action(kind, raise_to)


# --------------------------------------------------------------------------- the draw


def strategy_key(match_seed: int | str, copy_index: int) -> int:
    """The 256-bit draw key of one copy of a match (secret until the match seed is revealed)."""
    return derive_secret(match_seed, "strategy", copy_index)


def draw_uniform(key: int, hand_number: int, action_index: int) -> float:
    """The uniform number in [0, 1) of the ``action_index``-th action of hand ``hand_number``."""
    bits = derive_secret(key, hand_number, action_index) >> (256 - _UNIFORM_BITS)
    return bits / float(1 << _UNIFORM_BITS)


def draw_index(strategy: Strategy, uniform: float) -> int:
    """The entry drawn by ``uniform`` (in [0, 1)): never one of weight zero."""
    if not 0.0 <= uniform < 1.0:
        raise ValueError(f"uniform number {uniform} not in [0, 1)")
    target = uniform * strategy.total_weight
    running = 0.0
    last = -1
    for k, entry in enumerate(strategy.entries):
        if entry.weight <= 0.0:
            continue
        running += entry.weight
        last = k
        if target < running:
            return k
    return last  # rounding left the target at the very top: the last positive entry


# --------------------------------------------------------------------------- for the luck terms


@dataclass(frozen=True, slots=True, kw_only=True)
class ActionOption:
    """What one entry of a strategy would do to the acting seat's chips (the action terms of
    the luck adjustment value each option)."""

    probability: float
    added_chips: int
    is_all_in: bool
    is_fold: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class StrategyDecision:
    """A decision answered by a strategy: the seat, each entry's option and the drawn entry."""

    seat: int
    options: tuple[ActionOption, ...]
    drawn: int


def strategy_options(state: HandState, seat: int, strategy: Strategy) -> tuple[ActionOption, ...]:
    """Each entry's effect on ``seat`` in ``state`` (before the action)."""
    legal = state.legal_actions()
    bet = state.bets[seat]
    stack = state.stacks[seat]
    out = []
    for entry, probability in zip(strategy.entries, strategy.probabilities, strict=True):
        kind = entry.action.kind
        if kind is ActionKind.CALL:
            assert legal.call_to_chips is not None
            added = legal.call_to_chips - bet
        elif kind is ActionKind.BRING_IN:
            assert legal.bring_in_to_chips is not None
            added = legal.bring_in_to_chips - bet
        elif kind is ActionKind.RAISE:
            assert entry.action.raise_to_chips is not None
            added = entry.action.raise_to_chips - bet
        else:
            added = 0
        out.append(ActionOption(probability=probability, added_chips=added,
                                is_all_in=added > 0 and added == stack,
                                is_fold=kind is ActionKind.FOLD))
    return tuple(out)


# --------------------------------------------------------------------------- the dealer's step


def action_count(events: Sequence[Event]) -> int:
    """The hand's actions so far (its `ActionTaken` events): the next action's index."""
    return sum(1 for e in events if type(e) is ActionTaken)


@dataclass(frozen=True, slots=True, kw_only=True)
class StrategyDraw:
    """A validated strategy and its draw, before the drawn action is applied."""

    strategy: Strategy
    hand_number: int
    action_index: int
    uniform: float
    drawn: int  # the entry drawn
    decision: StrategyDecision  # the options, for the luck adjustment's action term

    @property
    def action(self) -> Action:
        return self.strategy.entries[self.drawn].action


def draw_strategy(state: HandState, seat: int,
                  entries: Sequence[tuple[ActionKind | None, int | None, float]], *, key: int,
                  hand_number: int) -> StrategyDraw:
    """Validate ``seat``'s declared strategy against ``state`` and draw its action; ``state``
    is not changed (the caller applies ``.action`` through `HandState.act`, the one legality
    path). Raises like `validate_strategy`, or `NotYourTurn`."""
    if state.is_over or state.actor != seat:
        raise NotYourTurn(f"seat {seat} is not the seat to act")
    strategy = validate_strategy(entries, state.legal_actions())
    index = action_count(state.events)
    uniform = draw_uniform(key, hand_number, index)
    drawn = draw_index(strategy, uniform)
    decision = StrategyDecision(seat=seat, options=strategy_options(state, seat, strategy),
                                drawn=drawn)
    return StrategyDraw(strategy=strategy, hand_number=hand_number, action_index=index,
                        uniform=uniform, drawn=drawn, decision=decision)

"""Strategy replies (docs/strategy-replies.md): a bot returns a :class:`Strategy` (a probability
for each of some legal actions) instead of an :class:`~arena_bot.view.Action`, and the dealer
draws the action itself, with a key it reveals after the match (`arena replay` re-draws it).

    def decide(view: SeatView) -> Strategy:
        return Strategy({view.call(): 0.7, view.raise_min(): 0.3})

A strategy is checked twice on the bot's side, each time with an error naming the problem: when
it is made (every probability a finite number >= 0, summing to 1 within the dealer's
:data:`SUM_TOLERANCE`, at most :data:`MAX_STRATEGY_ACTIONS` actions) and, by the SDK, against
the decision before it is sent (every action legal now). Either error takes the SDK's fallback
path: check/fold for the decision, with the error as ``fallback_detail``.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Final, NoReturn

from arena_bot._proto import arena_pb2 as pb
from arena_bot.view import _KINDS, Action, SeatView

# The dealer's limits (arena/engine/strategy.py; tests/server/test_sdk_strategy.py checks them).
SUM_TOLERANCE: Final = 1e-6
"""How far the probabilities may sum from one."""
MAX_STRATEGY_ACTIONS: Final = 64
"""The most actions one strategy may list."""
_BOT_KINDS: Final = (Action.FOLD, Action.CHECK, Action.CALL, Action.BRING_IN, Action.RAISE,
                     Action.CHOOSE_GAME)


class StrategyError(ValueError):
    """A strategy that is not a valid distribution, or not valid for the decision at hand."""


class Strategy(Mapping[Action, float]):
    """A mixed strategy: a mapping from an :class:`Action` to its probability, in the order
    given (the dealer draws in that order). Immutable and hashable.

    ``Strategy({view.call(): 0.7, view.raise_min(): 0.3})`` raises :class:`StrategyError` when
    a probability is not a finite number >= 0, when they do not sum to 1 within
    :data:`SUM_TOLERANCE`, when a key is not an ``Action`` of a bot's kind (a fold, check, call
    or bring-in with an amount, or a raise without one), or for no actions or more than
    :data:`MAX_STRATEGY_ACTIONS`. A probability of 0 is allowed (that action is never drawn).
    """

    __slots__ = ("_entries", "_index")

    _entries: tuple[tuple[Action, float], ...]
    _index: dict[Action, float]

    def __init__(self, probabilities: Mapping[Action, float]) -> None:
        if not isinstance(probabilities, Mapping):
            raise StrategyError(f"a strategy is a mapping from Action to probability, not "
                                f"{type(probabilities).__name__}")
        count = len(probabilities)
        if count == 0:
            raise StrategyError("the strategy lists no action")
        if count > MAX_STRATEGY_ACTIONS:
            raise StrategyError(f"the strategy lists {count} actions; at most "
                                f"{MAX_STRATEGY_ACTIONS}")
        entries: list[tuple[Action, float]] = []
        for k, (action, probability) in enumerate(probabilities.items()):
            where = f"strategy entry {k + 1} ({_label(action)})"
            _check_action(action, where)
            if isinstance(probability, bool) or not isinstance(probability, numbers.Real):
                raise StrategyError(f"{where}: the probability {probability!r} is not a number")
            value = float(probability)
            if not math.isfinite(value):
                raise StrategyError(f"{where}: the probability {value} is not finite")
            if value < 0.0:
                raise StrategyError(f"{where}: the probability {value} is negative")
            entries.append((action, value))
        total = math.fsum(p for _, p in entries)
        if abs(total - 1.0) > SUM_TOLERANCE:
            raise StrategyError(f"the strategy's probabilities sum to {total!r}, not 1 "
                                f"(within {SUM_TOLERANCE:g})")
        object.__setattr__(self, "_entries", tuple(entries))
        object.__setattr__(self, "_index", dict(entries))

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError(f"a Strategy is immutable (cannot set {name!r})")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError(f"a Strategy is immutable (cannot delete {name!r})")

    def __getitem__(self, action: Action) -> float:
        return self._index[action]

    def __iter__(self) -> Iterator[Action]:
        return (action for action, _ in self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __hash__(self) -> int:
        return hash(self._entries)

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Strategy):
            return self._entries == other._entries
        return NotImplemented

    def __repr__(self) -> str:
        inner = ", ".join(f"{a!r}: {p!r}" for a, p in self._entries)
        return f"Strategy({{{inner}}})"

    def check(self, view: SeatView) -> None:
        """Raise :class:`StrategyError` naming the first action that is not legal in ``view``
        (a kind not offered, or a raise to an amount not allowed). The SDK calls it before
        sending the strategy."""
        for k, (action, _) in enumerate(self._entries):
            where = f"strategy entry {k + 1} ({_label(action)})"
            choice = view.choices.get(action.kind)
            if choice is None:
                allowed = ", ".join(view.choices) or "none"
                raise StrategyError(f"{where}: {action.kind} is not legal now (legal: {allowed})")
            if action.kind == Action.CHOOSE_GAME and action.game not in choice.games:
                raise StrategyError(f"{where}: {action.game or 'no game'} is not on the menu "
                                    f"(choose from {', '.join(choice.games)})")
            if action.kind != Action.RAISE:
                continue
            amount = action.raise_to_chips
            low, high = choice.min_to_chips, choice.max_to_chips
            if choice.any_amount:
                if not low <= amount <= high:
                    raise StrategyError(f"{where}: raise to {amount} is not legal now (raise to "
                                        f"any amount from {low} to {high})")
            elif amount not in (low, high):
                span = str(low) if low == high else f"{low} or {high}"
                raise StrategyError(f"{where}: raise to {amount} is not legal now (raise to "
                                    f"{span})")

    def fill_proto(self, message: pb.Strategy) -> None:
        """Add this strategy's entries to an empty ``message``."""
        for action, probability in self._entries:
            entry = message.actions.add()
            action.fill_proto(entry.action)
            entry.probability = probability


def _label(action: object) -> str:
    """``call``, ``raise to 40``, ``choose_game NT``; anything else as its repr."""
    if isinstance(action, Action):
        if action.kind == Action.CHOOSE_GAME:
            return f"choose_game {action.game}"
        return (f"raise to {action.raise_to_chips}" if action.kind == Action.RAISE
                else str(action.kind))
    return repr(action)


def _check_action(action: object, where: str) -> None:
    if not isinstance(action, Action):
        raise StrategyError(f"{where}: a strategy's keys are Actions (view.call(), "
                            f"view.raise_to(40) ...), not {type(action).__name__}")
    if action.kind not in _KINDS or action.kind not in _BOT_KINDS:
        raise StrategyError(f"{where}: {action.kind!r} is not a bot's action; use fold, check, "
                            "call, bring_in, raise or choose_game")
    amount = action.raise_to_chips
    if isinstance(amount, bool) or not isinstance(amount, int):
        raise StrategyError(f"{where}: the amount {amount!r} is not a whole number of chips")
    if action.kind == Action.RAISE and amount <= 0:
        raise StrategyError(f"{where}: a raise needs its \"raise to\" total in chips")
    if action.kind != Action.RAISE and amount != 0:
        raise StrategyError(f"{where}: a {action.kind} has no amount")


@dataclass(frozen=True, slots=True, kw_only=True)
class Drawn:
    """The action the dealer drew from a strategy the bot declared (``play(on_drawn=...)``)."""

    match_id: str
    hand_id: str
    decision_id: str
    seat: int
    strategy: Strategy  # as the bot declared it
    action: Action  # the drawn action (one of ``strategy``'s, never one of probability 0)

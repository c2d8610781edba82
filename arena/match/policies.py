"""Built-in in-process policies for simulations: random and never-fold."""

from __future__ import annotations

import random
from collections.abc import Callable

from arena.engine.actions import Action, ActionKind, LegalActions

Policy = Callable[[LegalActions], Action]

# Actions without an amount are immutable values: share one of each instead of building one
# per decision.
_PLAIN_ACTIONS: dict[ActionKind, Action] = {kind: Action(kind) for kind in ActionKind}
_BRING_IN = _PLAIN_ACTIONS[ActionKind.BRING_IN]
_CHECK = _PLAIN_ACTIONS[ActionKind.CHECK]
_CALL = _PLAIN_ACTIONS[ActionKind.CALL]


def call_policy(legal: LegalActions) -> Action:
    """Never fold: post the bring-in, check, or call."""
    if legal.bring_in_to_chips is not None:
        return _BRING_IN
    if legal.can_check:
        return _CHECK
    return _CALL


def random_policy(rng: random.Random) -> Policy:
    """Uniform over the legal kinds, then over the legal raise amounts."""
    random_ = rng.random

    def choose(legal: LegalActions) -> Action:
        kinds = legal.kinds()
        kind = kinds[int(random_() * len(kinds))]
        if kind is ActionKind.RAISE:
            amounts = legal.raise_amounts()
            return Action(kind, amounts[int(random_() * len(amounts))])
        return _PLAIN_ACTIONS[kind]

    return choose


def make_policy(name: str, seed: int) -> Policy:
    if name == "call":
        return call_policy
    if name == "random":
        return random_policy(random.Random(seed))
    raise ValueError(f"unknown policy {name!r}; known: random, call")

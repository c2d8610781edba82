"""Built-in in-process policies for simulations: random and never-fold."""

from __future__ import annotations

import random
from collections.abc import Callable

from arena.engine.actions import Action, ActionKind, LegalActions

Policy = Callable[[LegalActions], Action]


def call_policy(legal: LegalActions) -> Action:
    """Never fold: post the bring-in, check, or call."""
    if legal.bring_in_to_chips is not None:
        return Action(ActionKind.BRING_IN)
    if legal.can_check:
        return Action(ActionKind.CHECK)
    return Action(ActionKind.CALL)


def random_policy(rng: random.Random) -> Policy:
    """Uniform over the legal kinds, then over the legal raise amounts."""

    def choose(legal: LegalActions) -> Action:
        kinds = legal.kinds()
        kind = kinds[int(rng.random() * len(kinds))]
        if kind is ActionKind.RAISE:
            amounts = legal.raise_amounts()
            return Action(kind, amounts[int(rng.random() * len(amounts))])
        return Action(kind)

    return choose


def make_policy(name: str, seed: int) -> Policy:
    if name == "call":
        return call_policy
    if name == "random":
        return random_policy(random.Random(seed))
    raise ValueError(f"unknown policy {name!r}; known: random, call")

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
_STAND_PAT = _PLAIN_ACTIONS[ActionKind.EXCHANGE]  # an exchange of no cards (house-rules §26)


def call_policy(legal: LegalActions) -> Action:
    """Never fold: post the bring-in, check, or call; stand pat in an exchange round."""
    if legal.can_exchange:
        return _STAND_PAT
    if legal.bring_in_to_chips is not None:
        return _BRING_IN
    if legal.can_check:
        return _CHECK
    return _CALL


def random_policy(rng: random.Random) -> Policy:
    """Uniform over the legal kinds, then over the legal raise amounts; in an exchange round,
    a uniform number of cards (up to the most allowed), chosen at random."""
    random_ = rng.random

    def choose(legal: LegalActions) -> Action:
        if legal.can_exchange:
            count = int(random_() * (legal.exchange_max_cards + 1))
            return Action(ActionKind.EXCHANGE, None, tuple(rng.sample(legal.exchangeable, count)))
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

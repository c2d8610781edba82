"""In-process simulated matches with built-in policies (no network): `arena simulate`."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

from arena.engine.cards import derive_seed
from arena.engine.errors import ConfigError
from arena.engine.games import variant_for
from arena.engine.phh import dumps_hands, hand_fields
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.match.policies import make_policy
from arena.match.rotation import engine_order, game_for_hand, next_button, stakes_for_hand


@dataclass
class SimulationSummary:
    hands: int = 0
    seconds: float = 0.0
    hands_by_game: dict[str, int] = field(default_factory=dict)
    net_chips: list[int] = field(default_factory=list)
    showdowns: int = 0

    @property
    def hands_per_second(self) -> float:
        return self.hands / self.seconds if self.seconds > 0 else 0.0


def rules_for_game(game: str, rules: Rules) -> Rules:
    if game == "horse":
        return rules
    return Rules.from_mapping({**rules.to_mapping(), "games": [game]})


def iter_hands(
    *, rules: Rules, players: int, hands: int, seed: int, policy: str
) -> Iterator[tuple[HandState, list[int], int]]:
    """Play ``hands`` hands; yield each finished state with its physical seat order and index."""
    names = list(range(players))
    policies = [make_policy(policy, derive_seed(seed, "policy", p)) for p in names]
    stacks = [rules.starting_stack] * players
    button = players - 1
    for index in range(hands):
        if rules.reset_stacks:
            stacks = [rules.starting_stack] * players
        in_play = [p for p in names if stacks[p] > 0]
        if len(in_play) < 2:
            return
        if button not in in_play:
            button = next_button(button, in_play, players)
        order = engine_order(button, in_play)
        game = game_for_hand(rules, index, players)
        state = HandState(variant_for(game), [stacks[p] for p in order], rules=rules,
                          stakes=stakes_for_hand(rules, index, players),
                          seed=derive_seed(seed, "hand", index))
        while not state.is_over:
            actor = state.actor
            assert actor is not None
            state.apply(policies[order[actor]](state.legal_actions()))
        for k, p in enumerate(order):
            stacks[p] = state.stacks[k]
        yield state, order, index
        button = next_button(button, [p for p in names if stacks[p] > 0] or names, players)


def simulate(*, game: str, players: int, hands: int, seed: int, out_dir: str | None,
             policy: str = "random", rules: Rules | None = None) -> SimulationSummary:
    rules = rules_for_game(game, rules or Rules())
    if rules.dealers_choice:  # docs/house-rules.md §28: a bot chooses; policies do not
        raise ConfigError("arena simulate deals a fixed rotation with in-process policies; "
                          "dealer's choice needs bots to choose the games (use arena practice "
                          "or arena serve)")
    summary = SimulationSummary(net_chips=[0] * players)
    records = []
    started = time.perf_counter()
    for state, order, index in iter_hands(rules=rules, players=players, hands=hands, seed=seed,
                                          policy=policy):
        assert state.result is not None
        summary.hands += 1
        code = state.variant.code.value
        summary.hands_by_game[code] = summary.hands_by_game.get(code, 0) + 1
        if state.result.showdown_order:
            summary.showdowns += 1
        for k, p in enumerate(order):
            summary.net_chips[p] += state.result.net_chips[k]
        if out_dir is not None:
            records.append(hand_fields(state, players=[f"bot{p}" for p in order],
                                       extra={"_hand": index + 1, "_seed": seed}))
    summary.seconds = time.perf_counter() - started
    if out_dir is not None:
        os.makedirs(out_dir, exist_ok=True)
        with open(os.path.join(out_dir, "hands.phhs"), "w", encoding="utf-8") as fh:
            fh.write(dumps_hands(records))
    return summary

"""In-process hands between bots that play mixed strategies (issue 40), for tests and
``bench.luck``: each bot either declares its strategy to the dealer, which draws the action
(`arena.engine.strategy.draw_strategy`, the live dealer's step), or samples it privately
with its own random numbers. The built-in strategies depend on the bot's cards, like a CFR bot's.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine.actions import Action, ActionKind, LegalActions
from arena.engine.cards import derive_seed, rank_of
from arena.engine.games import variant_for
from arena.engine.phh import hand_fields
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.engine.strategy import StrategyDecision, draw_strategy, strategy_key
from arena.engine.strategy_log import COPY_FIELD, STRATEGIES_FIELD, StrategyRecord, record_of

Entries = list[tuple[ActionKind | None, int | None, float]]
StrategyFn = Callable[[HandState, int, LegalActions], Entries]


@dataclass(frozen=True, slots=True, kw_only=True)
class SimBot:
    """A bot of the simulation: its strategy, and whether it declares it (else it samples it
    privately with ``random.Random(derive_seed(seed, "private", bot index))``)."""

    strategy: StrategyFn
    declares: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class SimHand:
    state: HandState
    order: tuple[int, ...]  # bot index of each engine seat
    hand_number: int  # from 1
    decisions: dict[int, StrategyDecision]  # by action index: the strategy-answered ones
    records: tuple[StrategyRecord, ...] = ()  # the same as the hand log keeps them

    def phh_fields(self, copy_index: int = 0) -> dict[str, Any]:
        """The hand's PHH fields as a match log writes them (``_strategies`` included)."""
        extra: dict[str, Any] = {"_hand": self.hand_number}
        if self.records:
            extra[COPY_FIELD] = copy_index
            extra[STRATEGIES_FIELD] = [r.to_phh() for r in self.records]
        return hand_fields(self.state, extra=extra)


def strength(state: HandState, seat: int) -> float:
    """A cheap 0..1 hand strength from the seat's cards and the board: high cards, pairs."""
    own = [rank_of(c) for c in state.cards[seat]]
    board = [rank_of(c) for c in state.board]
    if not own:
        return 0.5
    high = max(own) / 12.0
    paired = len(own) != len(set(own)) or any(r in board for r in own)
    return min(1.0, 0.25 + 0.45 * high + (0.3 if paired else 0.0))


def mixed(aggression: float) -> StrategyFn:
    """A card-dependent mixed strategy: folds weak hands to a bet, raises strong ones, and
    mixes in between; ``aggression`` (0..1) scales its raising."""

    def choose(state: HandState, seat: int, legal: LegalActions) -> Entries:
        s = strength(state, seat)
        out: Entries = []
        raise_to = legal.raise_min_to
        p_raise = aggression * s * s if raise_to is not None else 0.0
        if legal.bring_in_to_chips is not None:
            return [(ActionKind.BRING_IN, None, 1.0 - p_raise)] + (
                [(ActionKind.RAISE, raise_to, p_raise)] if p_raise > 0 else [])
        if legal.can_check:
            out.append((ActionKind.CHECK, None, 1.0 - p_raise))
        else:
            p_fold = max(0.0, 0.55 - s) * (1.0 - aggression * 0.5)
            out.append((ActionKind.FOLD, None, p_fold))
            out.append((ActionKind.CALL, None, 1.0 - p_fold - p_raise))
        if p_raise > 0:
            out.append((ActionKind.RAISE, raise_to, p_raise))
        return out

    return choose


def sample_privately(entries: Entries, rng: random.Random) -> Action:
    """What a bot that keeps its strategy to itself does: draw with its own generator."""
    target = rng.random() * sum(w for _, _, w in entries)
    running = 0.0
    for kind, amount, weight in entries:
        running += weight
        if weight > 0 and target < running:
            assert kind is not None
            return Action(kind, amount if kind is ActionKind.RAISE else None)
    kind, amount, _ = next(e for e in reversed(entries) if e[2] > 0)
    assert kind is not None
    return Action(kind, amount if kind is ActionKind.RAISE else None)


def play(bots: Sequence[SimBot], *, rules: Rules, game: str, hands: int, seed: int,
         copy_index: int = 0) -> Iterator[SimHand]:
    """Hands of 2 to 6 bots (stacks reset every hand; the seats rotate by one each hand, and
    copy ``k`` of a duplicate match starts rotated by ``k``: heads-up, copy 1 swaps the seats of
    copy 0): the dealer draws for the bots that declare, from the key of this copy of the match."""
    n = len(bots)
    if not 2 <= n <= 6:
        raise ValueError("the simulation seats 2 to 6 bots")
    key = strategy_key(seed, copy_index)
    private = [random.Random(derive_seed(seed, "private", copy_index, b)) for b in range(n)]
    variant = variant_for(game)
    for index in range(hands):
        order = tuple((index + copy_index + k) % n for k in range(n))
        state = HandState(variant, [rules.starting_stack] * n, rules=rules,
                          seed=derive_seed(seed, "hand", index))
        decisions: dict[int, StrategyDecision] = {}
        records: list[StrategyRecord] = []
        while not state.is_over:
            actor = state.actor
            assert actor is not None
            bot = bots[order[actor]]
            entries = bot.strategy(state, actor, state.legal_actions())
            if bot.declares:
                draw = draw_strategy(state, actor, entries, key=key, hand_number=index + 1)
                decisions[draw.action_index] = draw.decision
                records.append(record_of(draw, actor))
                action = draw.action
            else:
                action = sample_privately(entries, private[order[actor]])
            state.act(actor, action.kind, action.raise_to_chips)
        yield SimHand(state=state, order=order, hand_number=index + 1, decisions=decisions,
                      records=tuple(records))

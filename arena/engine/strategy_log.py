"""Strategy replies in hand histories (issue 40): the PHH ``_strategies`` field, read back and
checked by replay, and turned into the luck adjustment's decisions.

A hand with strategy replies has, beside its actions, ``_copy_index`` (the match copy whose key
drew them) and ``_strategies``: one table per strategy-answered decision, in order::

    {action = 2, seat = 0, actions = ['f', 'cc', 'cbr 40'], weights = [0.2, 0.5, 0.3], drawn = 2}

``action`` is the index of the hand's action it answered (its player actions counted from 0),
``seat`` the PHH seat from 0, ``actions`` the declared actions in PHH notation (``cc`` is a
check or a call, whichever was legal), ``weights`` as the bot declared them, ``drawn`` the
entry the dealer drew. Everything is untrusted input: `parse_strategies` bounds and checks it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from arena.engine.actions import Action, ActionKind, LegalActions
from arena.engine.errors import ArenaError, MalformedInput, ReplayMismatch
from arena.engine.events import ActionTaken
from arena.engine.phh import PhhHand, replay
from arena.engine.rules import Rules
from arena.engine.state import HandState
from arena.engine.strategy import (
    MAX_STRATEGY_ACTIONS,
    StrategyDecision,
    StrategyDraw,
    draw_strategy,
)

STRATEGIES_FIELD: Final = "_strategies"
COPY_FIELD: Final = "_copy_index"
MAX_LOGGED_STRATEGIES: Final = 10_000  # more decisions than any hand has


@dataclass(frozen=True, slots=True, kw_only=True)
class StrategyRecord:
    """One logged strategy decision (see the module's docstring)."""

    action_index: int
    seat: int
    actions: tuple[str, ...]
    weights: tuple[float, ...]
    drawn: int

    def to_phh(self) -> dict[str, Any]:
        return {"action": self.action_index, "seat": self.seat, "actions": list(self.actions),
                "weights": list(self.weights), "drawn": self.drawn}


def phh_code(action: Action) -> str:
    """An action in PHH notation: ``f``, ``cc``, ``pb`` or ``cbr <raise to>``."""
    if action.kind is ActionKind.FOLD:
        return "f"
    if action.kind is ActionKind.BRING_IN:
        return "pb"
    if action.kind is ActionKind.RAISE:
        return f"cbr {action.raise_to_chips}"
    return "cc"


def record_of(draw: StrategyDraw, seat: int) -> StrategyRecord:
    """What the log keeps of a dealer's draw for ``seat`` (engine seat)."""
    return StrategyRecord(action_index=draw.action_index, seat=seat,
                          actions=tuple(phh_code(e.action) for e in draw.strategy.entries),
                          weights=tuple(e.weight for e in draw.strategy.entries), drawn=draw.drawn)


def entries_of(record: StrategyRecord,
               legal: LegalActions) -> list[tuple[ActionKind | None, int | None, float]]:
    """The declared entries of a record as a bot sent them (``cc``: check or call, as legal)."""
    out: list[tuple[ActionKind | None, int | None, float]] = []
    for code, weight in zip(record.actions, record.weights, strict=True):
        words = code.split()
        if words == ["f"]:
            out.append((ActionKind.FOLD, None, weight))
        elif words == ["cc"]:
            out.append((ActionKind.CHECK if legal.can_check else ActionKind.CALL, None, weight))
        elif words == ["pb"]:
            out.append((ActionKind.BRING_IN, None, weight))
        elif len(words) == 2 and words[0] == "cbr" and words[1].isdigit() and len(words[1]) < 19:
            out.append((ActionKind.RAISE, int(words[1]), weight))
        else:
            raise MalformedInput(f"strategy of action {record.action_index + 1}: "
                                 f"not an action: {code!r}")
    return out


def parse_strategies(hand: PhhHand) -> list[StrategyRecord]:
    """The hand's ``_strategies`` (none when absent), type- and size-checked."""
    raw = hand.fields.get(STRATEGIES_FIELD)
    if raw is None:
        return []
    where = f"{hand.name}: {STRATEGIES_FIELD}"
    if not isinstance(raw, list) or len(raw) > MAX_LOGGED_STRATEGIES:
        raise MalformedInput(f"{where}: not a list of at most {MAX_LOGGED_STRATEGIES} tables")
    out: list[StrategyRecord] = []
    for k, item in enumerate(raw):
        at = f"{where}[{k}]"
        if not isinstance(item, Mapping) or set(item) != {"action", "seat", "actions", "weights", "drawn"}:
            raise MalformedInput(f"{at}: needs exactly action, seat, actions, weights and drawn")
        ints = [item["action"], item["seat"], item["drawn"]]
        if any(type(v) is not int or v < 0 for v in ints):
            raise MalformedInput(f"{at}: action, seat and drawn must be non-negative integers")
        actions, weights = item["actions"], item["weights"]
        if (not isinstance(actions, list) or not isinstance(weights, list)
                or not 0 < len(actions) <= MAX_STRATEGY_ACTIONS or len(weights) != len(actions)
                or not all(isinstance(a, str) and len(a) <= 32 for a in actions)
                or not all(type(w) is float or type(w) is int for w in weights)):
            raise MalformedInput(f"{at}: actions and weights must be lists of 1 to "
                                 f"{MAX_STRATEGY_ACTIONS} action strings and numbers")
        if out and item["action"] <= out[-1].action_index:
            raise MalformedInput(f"{at}: decisions out of order")
        out.append(StrategyRecord(action_index=item["action"], seat=item["seat"],
                                  actions=tuple(actions), weights=tuple(float(w) for w in weights),
                                  drawn=item["drawn"]))
    return out


def copy_index_of(hand: PhhHand) -> int:
    value = hand.fields.get(COPY_FIELD, 0)
    if type(value) is not int or value < 0:
        raise MalformedInput(f"{hand.name}: {COPY_FIELD} must be a non-negative integer")
    return value


def replay_strategies(hand: PhhHand, rules: Rules | None = None, *, key: int | None = None,
                      hand_number: int = 0) -> tuple[HandState, dict[int, StrategyDecision]]:
    """Replay a logged hand, re-validating each logged strategy against the legal actions of
    its decision and checking that its drawn entry is the action taken; with the match copy's
    ``key`` (revealed with the match seed), also re-draw it and check the draw. Returns the
    final state and the decisions for `arena.engine.luck.hand_luck`. A tampered distribution,
    draw or action is a `ReplayMismatch` (or `MalformedInput`) naming the hand and action."""
    records = {r.action_index: r for r in parse_strategies(hand)}
    decisions: dict[int, StrategyDecision] = {}

    def before_action(state: HandState, seat: int, action_index: int) -> None:
        record = records.get(action_index)
        if record is None:
            return
        if record.seat != seat:
            raise ReplayMismatch(f"the strategy is logged for seat {record.seat + 1}, "
                                 f"the action is seat {seat + 1}'s")
        entries = entries_of(record, state.legal_actions())
        try:
            draw = draw_strategy(state, seat, entries, key=key if key is not None else 0,
                                 hand_number=hand_number)
        except ArenaError as exc:
            raise ReplayMismatch(f"the logged strategy is not valid here: {exc}") from None
        if key is not None and draw.drawn != record.drawn:
            raise ReplayMismatch(f"the key draws entry {draw.drawn + 1} "
                                 f"({record.actions[draw.drawn]}), the log says entry "
                                 f"{record.drawn + 1}")
        if not 0 <= record.drawn < len(entries) or record.weights[record.drawn] <= 0.0:
            raise ReplayMismatch(f"the drawn entry {record.drawn + 1} of {len(entries)} "
                                 "is not one that can be drawn")
        decision = StrategyDecision(seat=seat, options=draw.decision.options, drawn=record.drawn)
        decisions[action_index] = decision

    state = replay(hand, rules, before_action=before_action)
    missing = sorted(set(records) - set(decisions))
    if missing:
        raise ReplayMismatch(f"{hand.name}: a strategy is logged for action {missing[0] + 1}, "
                             "which the hand does not have")
    for index, decision in decisions.items():
        _check_taken(hand.name, state, index, decision, records[index])
    return state, decisions


def _check_taken(name: str, state: HandState, index: int, decision: StrategyDecision,
                 record: StrategyRecord) -> None:
    taken = [e for e in state.events if type(e) is ActionTaken]
    event = taken[index]
    option = decision.options[decision.drawn]
    if (option.is_fold != (event.kind is ActionKind.FOLD) or option.added_chips != event.added_chips
            or option.is_all_in != event.is_all_in):
        raise ReplayMismatch(f"{name}: action {index + 1}: the logged draw "
                             f"({record.actions[record.drawn]}) is not the action taken")


def strategy_share(hands: Sequence[PhhHand]) -> tuple[int, int]:
    """(strategy-answered decisions, all player actions) over logged hands."""
    strategies = actions = 0
    for hand in hands:
        strategies += len(parse_strategies(hand))
        actions += sum(1 for a in hand.fields.get("actions", ()) if isinstance(a, str)
                       and a.split()[:1] != ["d"] and a.split()[1:2] != ["sm"])
    return strategies, actions

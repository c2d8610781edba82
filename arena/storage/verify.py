"""Verify an arena match log: re-deal every hand from the revealed match seed, re-apply the
logged actions through the engine, and compare every card, action and payoff with the log."""

from __future__ import annotations

from collections.abc import Mapping
from itertools import zip_longest
from typing import Any

from arena.engine.actions import ActionKind
from arena.engine.cards import derive_seed, parse_cards
from arena.engine.errors import ArenaError, MalformedInput
from arena.engine.phh import (
    PhhHand,
    forced_bets_of,
    int_list,
    phh_actions,
    stakes_of,
    variant_of,
)
from arena.engine.rules import Rules, hand_rules
from arena.engine.state import HandState
from arena.engine.strategy import strategy_key
from arena.engine.strategy_log import STRATEGIES_FIELD, copy_index_of, replay_strategies

_CODES = {"f": ActionKind.FOLD, "pb": ActionKind.BRING_IN}


def deal_seed(match_seed: int | str, hand_number: int) -> int:
    """The seed hand ``hand_number`` (from 1) of a match was dealt from, given the revealed
    match seed; the luck adjustment derives its Monte Carlo seeds from it too."""
    return derive_seed(match_seed, "hand", hand_number - 1)


def strategy_problem(hand: PhhHand, rules: Rules, match_seed: int | None) -> str | None:
    """Issue 40: why the hand's logged strategy replies do not check out, or None. Each logged
    distribution is re-validated against its decision and its drawn entry must be the action
    taken; with the revealed ``match_seed`` every draw is also re-drawn from the copy's key."""
    if STRATEGIES_FIELD not in hand.fields:
        return None
    try:
        number = hand.fields.get("_hand")
        if not isinstance(number, int) or number < 1:
            raise MalformedInput(f"{hand.name}: missing arena field '_hand'")
        key = None if match_seed is None else strategy_key(match_seed, copy_index_of(hand))
        replay_strategies(hand, rules, key=key, hand_number=number)
    except ArenaError as exc:
        return f"strategy mismatch {exc}"
    return None


def _mismatch(hand: PhhHand, field: str, logged: Any, replayed: Any) -> str:
    return f"{hand.name}: {field}: log {logged!r}, replay {replayed!r}"


def verify_hand(hand: PhhHand, match_seed: int, rules: Rules) -> tuple[HandState | None, str | None]:
    """The hand re-dealt from ``match_seed`` and re-played, and its first difference with the
    log in words (None when there is none)."""
    fields: Mapping[str, Any] = hand.fields
    try:
        variant = variant_of(hand)
        number = fields.get("_hand")
        if not isinstance(number, int) or number < 1:
            raise MalformedInput(f"{hand.name}: missing arena field '_hand'")
        listed = [fields.get(key, []) for key in ("starting_stacks", "actions")]
        if not all(isinstance(value, list) for value in listed):  # the log is untrusted
            raise MalformedInput(f"{hand.name}: starting_stacks and actions must be lists")
        stacks = int_list(hand, "starting_stacks", len(listed[0]))
        stakes = stakes_of(hand, variant, len(stacks))
        blinds, antes, dead_antes = forced_bets_of(hand, variant, len(stacks))
        rules = hand_rules(rules, fields, where=hand.name)  # the rules it was played by
        state = HandState(variant, stacks, rules=rules, stakes=stakes, blinds=blinds,
                          antes=antes, dead_antes=dead_antes, seed=deal_seed(match_seed, number))
    except ArenaError as exc:
        return None, _mismatch(hand, "header", str(exc), None)
    logged = [str(a) for a in listed[1]]
    for k, line in enumerate(logged):
        words = line.split()
        if not words or words[0] == "d" or words[1:2] == ["sm"]:
            continue
        if state.is_over:
            return state, _mismatch(hand, f"actions[{k}]", line, "(hand already over)")
        try:  # the log is untrusted: a line that is not "pN CODE ..." is a mismatch too
            seat, code = int(words[0][1:]) - 1, words[1]
            if code == "cc":
                state.act(seat, ActionKind.CHECK if state.legal_actions().can_check else ActionKind.CALL)
            elif code == "cbr":
                state.act(seat, ActionKind.RAISE, int(words[2]))
            elif code == "sd":  # an exchange; alone: stand pat (docs/house-rules.md §26)
                state.exchange(seat, parse_cards(words[2]) if len(words) > 2 else ())
            else:
                state.act(seat, _CODES[code])
        except (ArenaError, KeyError, IndexError, ValueError) as exc:
            return state, _mismatch(hand, f"actions[{k}]", line, f"illegal on replay: {exc}")
    for k, (a, b) in enumerate(zip_longest(logged, phh_actions(state), fillvalue="(end)")):
        if a != b:
            return state, _mismatch(hand, f"actions[{k}]", a, b)
    if not fields.get("_voided"):
        expected = fields.get("finishing_stacks")
        if list(expected or []) != list(state.stacks):
            return state, _mismatch(hand, "finishing_stacks", expected, list(state.stacks))
    return state, None

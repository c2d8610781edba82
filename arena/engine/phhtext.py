"""Writing PHH hand histories (TOML): a finished hand's fields and their text
(``arena/engine/phh.py`` reads and replays them).

The writer emits what PokerKit 0.7.7's ``HandHistory.loads`` accepts: PHH seat order, stud ``sm``
lines with all of a seat's cards in dealing order, ``finishing_stacks``, and ``_``-prefixed arena
fields. Each field is one ``key = value`` line (lists and tables inline), so a hand's text is
the body of one ``[N]`` table of a ``.phhs`` file (tests/engine/test_phh_writer.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from arena.engine.actions import ActionKind
from arena.engine.cards import format_cards
from arena.engine.events import (
    ActionTaken,
    BoardDealt,
    CardsExchanged,
    HandMucked,
    HandShown,
    HoleCardsDealt,
)
from arena.engine.games import ENGINE_VARIANTS, Betting
from arena.engine.phhext import extension_fields
from arena.engine.rules import play_rules
from arena.engine.state import HandState

BETTING_FIELD: Final = "_betting"  # arena's PHH field for a betting structure PHH has no code for

_PHH_CODE: Final = {
    ActionKind.FOLD: "f",
    ActionKind.CHECK: "cc",
    ActionKind.CALL: "cc",
    ActionKind.BRING_IN: "pb",
}
_PHH_EVENTS: Final = (ActionTaken, HoleCardsDealt, BoardDealt, HandShown, HandMucked, CardsExchanged)


def phh_action_lines(state: HandState) -> int:
    """How many lines the hand's PHH ``actions`` list has so far (:func:`phh_actions`' length,
    without building it)."""
    # An exchange is two lines when it draws cards: its discard and, after the round's
    # discards, its deal.
    return sum([2 if isinstance(event, CardsExchanged) and event.drawn else 1
                for event in state.events if isinstance(event, _PHH_EVENTS)])


def phh_next_line(state: HandState) -> int:
    """The line number (from 1) the next player action will have in the hand's PHH
    ``actions`` (a decision's ``_fault_lines`` entry, docs/faults.md). In an exchange round the
    next exchange's ``sd`` line comes before the round's ``d dh`` lines (:func:`phh_actions`
    writes them after its last exchange), so it is not the line after those."""
    lines = phh_action_lines(state)
    if state.actor is None or not state.legal_actions().can_exchange:
        return lines + 1
    street = state.street_index
    pending = 0
    for event in reversed(state.events):
        if not isinstance(event, CardsExchanged) or event.street != street:
            break
        pending += 1 if event.drawn else 0
    return lines - pending + 1


def phh_actions(state: HandState) -> list[str]:
    """The hand's PHH ``actions`` list, built from its events."""
    out: list[str] = []
    drawn: list[str] = []  # an exchange round's deals, written after its discards (PokerKit)
    round_street = -1
    for event in state.events:
        if drawn and not (isinstance(event, CardsExchanged) and event.street == round_street):
            out += drawn
            drawn = []
        if isinstance(event, CardsExchanged):
            round_street = event.street
            player = f"p{event.seat + 1}"
            out.append(f"{player} sd {format_cards(event.discarded)}".rstrip())
            if event.drawn:
                drawn.append(f"d dh {player} {format_cards(event.drawn)}")
        elif isinstance(event, ActionTaken):
            code = f"cbr {event.to_chips}" if event.kind is ActionKind.RAISE else _PHH_CODE[event.kind]
            out.append(f"p{event.seat + 1} {code}")
        elif isinstance(event, HoleCardsDealt):
            out.append(f"d dh p{event.seat + 1} {format_cards(event.cards)}")
        elif isinstance(event, BoardDealt):
            out.append(f"d db {format_cards(event.cards)}")
        elif isinstance(event, HandShown):
            out.append(f"p{event.seat + 1} sm {format_cards(event.cards)}")
        elif isinstance(event, HandMucked):
            out.append(f"p{event.seat + 1} sm")
    return out + drawn


def _toml_value(value: object) -> str:
    """A field's value as TOML on one line: lists and tables inline, so that a hand is the body
    of one ``[N]`` table of ``key = value`` lines (readers take fields line by line)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(int(value))  # an IntEnum as its number
    if isinstance(value, float):
        return repr(float(value))  # repr: the shortest text that reads back (nan, inf: TOML's)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join([_toml_value(v) for v in value]) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join([f"{k} = {_toml_value(v)}" for k, v in value.items()]) + "}"
    raise TypeError(f"cannot write {type(value).__name__} to PHH")


_BASIC_ESCAPES: Final = {'"': '\\"', "\\": "\\\\", "\n": "\\n", "\t": "\\t", "\r": "\\r",
                         "\b": "\\b", "\f": "\\f"}


def _basic_escape(char: str) -> str:
    escape = _BASIC_ESCAPES.get(char)
    if escape is not None:
        return escape
    if char.isprintable():
        return char
    code = ord(char)  # a control character, or a line break of Python's (U+2028) a reader may split at
    return f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"


def toml_string(value: str) -> str:
    """A TOML string that reads back as ``value``: a literal string when it can be one (no quote,
    nothing unprintable), else a basic string with every unprintable character escaped (a raw
    newline or tab inside quotes would make the whole hand history unreadable, and a U+2028
    would split its line for a reader that takes fields line by line)."""
    if "'" not in value and value.isprintable():
        return f"'{value}'"
    return '"' + "".join([_basic_escape(char) for char in value]) + '"'


def hand_fields(state: HandState, *, extra: Mapping[str, Any] | None = None,
                players: Sequence[str] | None = None) -> dict[str, Any]:
    """The PHH fields of a finished (or running) hand, in the standard's order."""
    n = state.seat_count
    stakes = state.stakes
    variant = state.variant
    # Antes are ordinary contributions (a short ante makes a side pot), which PokerKit calls ante
    # trimming; a big-blind ante is dead money in the main pot (no trimming).
    fields: dict[str, Any] = {"variant": variant.phh_variant,
                              "ante_trimming_status": not state.dead_antes}
    if variant.is_stud:
        fields["antes"] = [stakes.ante] * n
        fields["bring_in"] = stakes.bring_in
    else:
        # PHH order; heads-up PHH (and PokerKit) reverse the first two blinds and antes.
        fields["antes"] = list(reversed(state.antes)) if n == 2 else list(state.antes)
        fields["blinds_or_straddles"] = [stakes.small_blind, stakes.big_blind] + [0] * (n - 2)
    if variant.betting is Betting.FIXED:
        fields["small_bet"] = stakes.small_bet
        fields["big_bet"] = stakes.big_bet
    else:
        fields["min_bet"] = stakes.big_blind  # docs/house-rules.md §4: the smallest bet is the big blind
        if variant.phh_code:  # PHH has no code for it (pot-limit hold'em is written as NT)
            fields[BETTING_FIELD] = variant.betting.value
    fields["starting_stacks"] = list(state.starting_stacks)
    actions = fields["actions"] = phh_actions(state)
    if players is not None:
        fields["players"] = list(players)
    if state.is_over:
        fields["finishing_stacks"] = list(state.stacks)
    if extra:
        for key, value in extra.items():
            fields[key if key.startswith("_") else f"_{key}"] = value
    fields.update(extension_fields(state, actions))  # the new games' `_` fields (docs/hand-logs.md)
    # What a replay plays the hand by (the issue-42 games' own keys too: docs/house-rules.md §22-§25).
    fields["_rules"] = play_rules(state.rules,
                                  game_keys=state.variant.code in ENGINE_VARIANTS)
    return fields


def dumps_hand(fields: Mapping[str, Any]) -> str:
    return "".join([f"{key} = {_toml_value(value)}\n" for key, value in fields.items()])


def dumps_hands(hands: Sequence[Mapping[str, Any]], *, first_index: int = 1) -> str:
    """A ``.phhs`` text: one TOML table per hand, as PokerKit's ``dumps_all``."""
    return "\n".join([f"[{first_index + i}]\n{dumps_hand(h)}" for i, h in enumerate(hands)])

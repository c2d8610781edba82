"""`arena replay --show`: one hand told for people (players, button, streets, showdown, nets)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from arena.engine.actions import ActionKind
from arena.engine.cards import pretty_card
from arena.engine.errors import MalformedInput
from arena.engine.events import (
    ActionTaken,
    BoardDealt,
    CardsExchanged,
    ForcedBetPosted,
    HandMucked,
    HandShown,
    HoleCardsDealt,
    PotAwarded,
    PotShare,
    UncalledBetReturned,
)
from arena.engine.games import ForcedBet, Showdown
from arena.engine.phh import PhhHand
from arena.engine.phhext import extension_fields, wild_summary
from arena.engine.phhtext import phh_actions
from arena.engine.shown import ShownValue, shown_value_in
from arena.engine.state import HandState
from arena.engine.strategy_log import parse_strategies

LEGEND = ("  legend: [A♠] a face-down card (only its owner saw it until the showdown); "
          "A♠ a face-up card; pN = the N-th player in PHH order; "
          "bets N, raises to N, completes to N: N in all this round; calls N: N more; "
          "(timed out), (absent): the dealer checked or folded for the seat; "
          "(SDK fallback): the bot's SDK chose it, its code having failed or its reply refused")

# What a hand log's ``_fault_lines`` entries say, after the action (docs/faults.md).
FAULT_NOTES = {"timeout": "timed out", "absent": "absent", "fallback": "SDK fallback"}
AUTOMATIC_NOTE = "automatic: timed out or absent"  # a log without ``_fault_lines`` entries

_HALVES = {PotShare.WHOLE: "whole pot", PotShare.HIGH: "high half", PotShare.LOW: "low half"}
_BLINDS = (ForcedBet.SMALL_BLIND, ForcedBet.BIG_BLIND)  # bets of the first round (antes are not)
_HI_LO = frozenset({Showdown.HIGH_LOW_8, Showdown.WILD_HIGH_LOW_8, Showdown.LOW_HOLE_HI_LO})


def _cards(cards: Sequence[int]) -> str:
    return " ".join(pretty_card(c) for c in cards)


def _button(fields: Mapping[str, Any], seat_count: int) -> int:
    """The button's index in PHH order: an arena log names its physical seat, else it is last."""
    seats, button = fields.get("_seats"), fields.get("_button_seat")
    if isinstance(seats, list) and button in seats:
        return seats.index(button)
    return seat_count - 1


def low_words(description: str) -> str:
    """A low description as said: ``"7-5-4-2-A low"``; the lowball and wild-card words already
    say "low" (``"seven-five low: 7-5-4-3-2"``, arena.engine.describe_lowball)."""
    return description if "low" in description else f"{description} low"


def _words(value: ShownValue, *, hi_lo: bool) -> str:
    low = low_words(value.low_description) if value.low_description else ("no low" if hi_lo else "")
    return "; ".join(p for p in (value.high_description, low) if p)


def _declared(fields: Mapping[str, Any]) -> dict[int, str]:
    """Issue 40: each strategy-answered action's declared distribution, in words, by action
    index (none when the hand has none or its ``_strategies`` are not readable)."""
    try:
        records = parse_strategies(PhhHand("", dict(fields)))
    except MalformedInput:
        return {}
    return {r.action_index: ", ".join(f"{action} {weight:g}"
                                      for action, weight in zip(r.actions, r.weights, strict=True))
            for r in records}


def describe(state: HandState, players: Sequence[str],
             fields: Mapping[str, Any] | None = None) -> list[str]:
    """The hand for people: who sits where, cards with suit symbols (face-down cards in
    brackets), actions by street, each shown hand in words, who won which pot or half, the
    net of every player, and a legend."""
    fields = fields or {}
    names = [f"{name} (p{k + 1})" for k, name in enumerate(players)]
    button = _button(fields, state.seat_count)
    lines = [f"  {state.variant.name}: " + ", ".join(
        f"{name}{' [button]' if k == button else ''} {stack}"
        for k, (name, stack) in enumerate(zip(names, fields.get("starting_stacks", state.stacks),
                                              strict=False)))]
    wild = wild_summary(extension_fields(state, phh_actions(state)), names)
    if wild:  # docs/house-rules.md §23, §24 (the log's `_wild_ranks`, checked by the replay)
        lines.append(f"  {wild}")
    shown: dict[int, ShownValue] = {}
    hi_lo = state.variant.showdown in _HI_LO
    street = -1
    bet_chips = 0  # the round's bet so far ("raise to" total): 0 before anyone bets
    marks = fault_marks(fields)
    line = 0  # the PHH ``actions`` line of the event (from 1), as ``_fault_lines`` counts
    declared = _declared(fields)
    action_index = -1
    draw_lines = 0  # the `d dh` lines of an exchange round, written after its last exchange
    for event in state.events:
        if draw_lines and not (isinstance(event, CardsExchanged) and event.street == street):
            line += draw_lines
            draw_lines = 0
        if isinstance(event, HoleCardsDealt | BoardDealt | HandShown | HandMucked | ActionTaken
                      | CardsExchanged):  # one line each (an exchange's `d dh` line comes later)
            line += 1
        if isinstance(event, HoleCardsDealt | BoardDealt | ActionTaken | CardsExchanged) \
                and event.street != street:
            if street >= 0:
                bet_chips = 0
            street = event.street
            lines.append(f"  -- {state.variant.streets[street].name}")
        if isinstance(event, ForcedBetPosted):
            all_in = " (all in)" if event.is_all_in else ""
            lines.append(f"    {names[event.seat]} posts the {event.kind} {event.amount_chips}{all_in}")
            if event.kind in _BLINDS:
                bet_chips = max(bet_chips, event.amount_chips)
        elif isinstance(event, UncalledBetReturned):
            lines.append(f"    {event.amount_chips} uncalled returned to {names[event.seat]}")
        elif isinstance(event, HoleCardsDealt):
            lines.append(f"    {names[event.seat]} dealt {_faced(event.cards, event.is_up)}")
        elif isinstance(event, BoardDealt):
            label = "common card" if event.is_stud_common_card else "board"
            lines.append(f"    {label}: {_cards(event.cards)}")
        elif isinstance(event, ActionTaken):
            said = action_words(state, event, bet_chips, marks.get(line))
            action_index += 1
            if action_index in declared:
                said += f" (drawn by the dealer from {declared[action_index]})"
            lines.append(f"    {names[event.seat]} {said}")
            bet_chips = max(bet_chips, event.to_chips)
        elif isinstance(event, CardsExchanged):
            lines.append(f"    {names[event.seat]} "
                         + _noted(exchange_words(event), event.is_automatic, marks.get(line)))
            draw_lines += 1 if event.drawn else 0
        elif isinstance(event, HandShown):
            if not shown:
                lines.append("  -- showdown")
            value = shown_value_in(state, event.seat, event.cards)
            shown[event.seat] = value
            lines.append(f"    {names[event.seat]} shows {_cards(event.cards)}: {_words(value, hi_lo=hi_lo)}")
        elif isinstance(event, HandMucked):
            lines.append(f"    {names[event.seat]} mucks")
        elif isinstance(event, PotAwarded):
            lines.append(_award(event, names, shown))
    result = state.result
    if result is not None:
        lines.append("  nets: " + ", ".join(f"{name} {net:+d}"
                                             for name, net in zip(names, result.net_chips, strict=True)))
    lines.append(LEGEND)
    return lines


def exchange_words(event: CardsExchanged) -> str:
    """docs/house-rules.md §26 in words: ``stands pat``, or ``exchanges [7♥] [K♦] for [2♣]
    [3♦]`` (down cards in brackets, up cards bare), with the price paid, if any."""
    if not event.discarded:
        return "stands pat"
    paid = f", paying {event.price_chips}" if event.price_chips else ""
    return (f"exchanges {_faced(event.discarded, event.is_up)} for "
            f"{_faced(event.drawn, event.is_up)}{paid}")


def _faced(cards: Sequence[int], is_up: Sequence[bool]) -> str:
    """Cards with suit symbols, face-down ones in brackets."""
    return " ".join(pretty_card(c) if up else f"[{pretty_card(c)}]"
                    for c, up in zip(cards, is_up, strict=True))


def action_words(state: HandState, event: ActionTaken, bet_chips: int,
                 fault: str | None = None) -> str:
    """An action in words, as `arena replay --show` and the web replayer both say it, given
    the round's bet before it: "bets 20" opens a round, "raises to 40" (a round total) and
    "calls 20" (what it adds); in stud, "brings in for 5", and the first full bet of third
    street "completes to 20" (with or without a bring-in before it). Then "(all in)", and the
    fault that chose it (a ``_fault_lines`` reason: :data:`FAULT_NOTES`), else "(automatic:
    ...)" for an automatic action a log does not explain."""
    said = _verb(state, event, bet_chips) + (" (all in)" if event.is_all_in else "")
    return _noted(said, event.is_automatic, fault)


def _noted(said: str, automatic: bool, fault: str | None) -> str:
    """Words followed by the fault that chose them, else "automatic" when they were."""
    note = FAULT_NOTES.get(fault or "") or (AUTOMATIC_NOTE if automatic else None)
    return f"{said} ({note})" if note else said


def _verb(state: HandState, event: ActionTaken, bet_chips: int) -> str:
    kind = event.kind
    if kind is ActionKind.RAISE:
        stakes = state.stakes
        completes = state.variant.is_stud and event.street == 0 and stakes.bring_in > 0 \
            and bet_chips < stakes.small_bet
        verb = "completes to" if completes else "raises to" if bet_chips else "bets"
        return f"{verb} {event.to_chips}"
    if kind is ActionKind.CALL:
        return f"calls {event.added_chips}"
    if kind is ActionKind.BRING_IN:
        return f"brings in for {event.to_chips}"
    return "checks" if kind is ActionKind.CHECK else "folds"


def fault_marks(fields: Mapping[str, Any]) -> dict[int, str]:
    """A hand log's ``_fault_lines`` (``[[line, reason], ...]``, docs/faults.md) by line; the
    log is untrusted: entries that are not a positive line and a known reason are skipped."""
    raw = fields.get("_fault_lines")
    return {entry[0]: entry[1] for entry in (raw[:10_000] if isinstance(raw, list) else [])
            if isinstance(entry, list) and len(entry) == 2 and type(entry[0]) is int and entry[0] > 0
            and isinstance(entry[1], str) and entry[1] in FAULT_NOTES}


def _award(event: PotAwarded, names: Sequence[str], shown: Mapping[int, ShownValue]) -> str:
    pot = "main pot" if event.pot_index == 0 else f"side pot {event.pot_index}"
    winners = []
    for seat, amount in zip(event.winners, event.amounts_chips, strict=True):
        value = shown.get(seat)
        why = ""
        if value is not None:
            # A razz pot is whole, won by the best low: its hand has only a low description.
            words = low_words(value.low_description) \
                if event.share is PotShare.LOW or not value.high_description else value.high_description
            why = f" with {words}" if value.low_description or value.high_description else ""
        winners.append(f"{names[seat]} wins {amount}{why}")
    split = " (split)" if len(event.winners) > 1 else ""
    return f"  {pot}, {_HALVES[event.share]} of {event.amount_chips}{split}: {'; '.join(winners)}"

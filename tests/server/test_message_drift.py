"""The dealer's message values (arena/match/messages.py) and the wire contract (the .proto)
cannot drift apart unnoticed (issue 37, "one schema source"): the .proto defines every
message, and the match layer's values are converted to it in one place
(arena/server/convert.py). Two checks, both ways:

- every field of every message the dealer sends is filled from some value the dealer holds
  (a field added to the .proto that nobody fills fails here, unless it is listed below with the
  reason it stays at its zero);
- every field of the dealer's values reaches the wire (a field added to a value that the
  conversion leaves out fails here, unless listed with the reason it stays off the wire).

The values are built with every field set, from their type hints, so a new field is covered
without touching this test.
"""

from __future__ import annotations

import dataclasses
import enum
import types
import typing
from collections.abc import Callable, Mapping
from typing import Any

import pytest
from google.protobuf.message import Message

from arena.engine.actions import ActionKind
from arena.engine.rules import Stakes
from arena.match import messages as m
from arena.match.faults import CloseReason, DecisionClosed
from arena.server import convert
from arena.v1 import arena_pb2 as pb

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass

# Proto fields the dealer's values never fill, each with why (Message.field).
NOT_FILLED: Mapping[str, str] = {
    # docs/house-rules.md §3: a hand's stakes carry only its own game family's forced bets.
    "Stakes.small_blind_chips": "zero in stud games",
    "Stakes.big_blind_chips": "zero in stud games",
    "Stakes.ante_chips": "zero in flop games",
    "Stakes.bring_in_chips": "zero in flop games",
    "Stakes.min_bet_chips": "zero in fixed-limit games",
}
# Fields that only one of the values converting to the same message fills.
NOT_FILLED_BY: Mapping[type, frozenset[str]] = {
    m.HandEnded: frozenset({"HandEnded.actions", "HandEnded.board_cards", "HandEnded.seats"}),
}
# Fields of the dealer's values that stay off the wire, each with why (Class.field).
OFF_THE_WIRE: Mapping[str, str] = {
    "Prompt.trigger_received_at": "the dealer's own statistics (perf_counter of a reply)",
    "ActionTaken.strategy": "the declared strategy is kept in the event log only (§19); "
                                "the wire says that the action was drawn",
}

_NAMES = vars(m) | {"DecisionClosed": DecisionClosed, "CloseReason": CloseReason}
STREET_NAMES = ("flop", "turn")
GAME_CODES = ("FO/8", "FR")
RECORD_KINDS = (m.RecordKind.RAISE, m.RecordKind.CALL)


def _value(hint: Any, name: str, variant: int) -> Any:
    """A value of type ``hint`` for a field called ``name``, different for variants 0 and 1,
    never the type's zero (so a field left out of the conversion shows)."""
    origin = typing.get_origin(hint)
    args = typing.get_args(hint)
    if origin in (typing.Union, types.UnionType):
        (inner,) = [a for a in args if a is not type(None)]
        return _value(inner, name, variant)
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            item = _value(args[0], name, variant)
            if args[0] is int and name.endswith(("cards", "board", "seats", "ranks")):
                return (3 + variant, 9)  # cards, seats and ranks: small numbers, in range
            return (item,)
        return tuple(_value(a, f"{name}[{k}]", variant) for k, a in enumerate(args))
    if origin in (Mapping, dict) or hint is Mapping:
        return {"key": f"value{variant}"}
    if isinstance(hint, type) and issubclass(hint, enum.Enum):
        members = list(hint)
        if hint is m.RecordKind:
            return RECORD_KINDS[variant]
        return members[1 + variant] if len(members) > 2 else members[variant]
    if hint is bool:
        return variant == 0
    if hint is int:
        if name in ("your_seat", "seat", "chooser_seat", "button_seat"):
            return 1 + variant
        return 5 + variant
    if hint is float:
        return 1.5 + variant
    if hint is str:
        if name in ("street",):
            return STREET_NAMES[variant]
        if name in ("game", "previous_game") or name.startswith("games"):
            return GAME_CODES[variant]
        return f"{name}-{variant}"
    if hint is Stakes:
        return Stakes(small_bet=20 + variant, big_bet=40, small_blind=10, big_blind=20, ante=3,
                      bring_in=5)
    if isinstance(hint, type) and dataclasses.is_dataclass(hint):
        return build(hint, variant)
    raise AssertionError(f"no value for {name}: {hint!r}")


def build(cls: type, variant: int = 0, **changes: Any) -> Any:
    hints = typing.get_type_hints(cls, _NAMES)
    values = {f.name: _value(hints[f.name], f.name, variant)
              for f in dataclasses.fields(cls)}
    values.update(changes)
    return cls(**values)


def _unset(message: Message, path: str, exempt: frozenset[str] = frozenset()) -> list[str]:
    """The fields of ``message`` (recursively) left at their zero, but the exempt ones."""
    out = []
    for field in message.DESCRIPTOR.fields:
        where = f"{message.DESCRIPTOR.name}.{field.name}"
        oneof = field.containing_oneof
        if oneof is not None and message.WhichOneof(oneof.name) != field.name:
            continue  # the other members of a oneof
        if where in NOT_FILLED or where in exempt:
            continue
        if field.is_repeated:
            items = getattr(message, field.name)
            if not items:
                out.append(f"{path}.{field.name}")
            elif field.message_type is not None and not field.message_type.GetOptions().map_entry:
                out.extend(_unset(items[0], f"{path}.{field.name}[0]", exempt))
        elif field.message_type is not None:
            if not message.HasField(field.name):
                out.append(f"{path}.{field.name}")
            elif field.message_type.full_name != "google.protobuf.Timestamp":
                out.extend(_unset(getattr(message, field.name), f"{path}.{field.name}", exempt))
        elif getattr(message, field.name) == field.default_value:
            out.append(f"{path}.{field.name}")
    return out


def _prompt(variant: int = 0, **changes: Any) -> m.Prompt:
    legal = (build(m.LegalChoice, variant, kind=ActionKind.CHOOSE_GAME, games=("FT", "FR")),)
    prompt: m.Prompt = build(m.Prompt, variant, **({"legal": legal} | changes))
    return prompt


PAYLOADS: tuple[type, ...] = typing.get_args(m.Payload)
# Each payload converts to one Event; HandSummary is HandEnded with the public record.
EVENT_CLASSES = (*PAYLOADS, m.HandSummary)


def _notice(payload: Any) -> m.Notice:
    return m.Notice(match_id="m", hand_id="h", sequence=3, unix_seconds=1.5, payload=payload)


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda c: c.__name__)
def test_every_event_field_is_filled_from_the_dealers_value(cls: type) -> None:
    event = convert.event(_notice(build(cls)))
    assert _unset(event, cls.__name__, NOT_FILLED_BY.get(cls, frozenset())) == [], (
        "a wire field nothing fills: fill it in arena/server/convert.py, or list it in "
        "NOT_FILLED with the reason")


def test_every_request_field_is_filled_from_the_prompt() -> None:
    request = convert.decision_request(_prompt())
    assert _unset(request, "DecisionRequest") == []


@pytest.mark.parametrize("cls", PAYLOADS, ids=lambda c: c.__name__)
def test_each_event_has_its_wire_name(cls: type) -> None:
    """One name per event in every room (issue 37 item 4): the dealer's payload value is named
    as the wire's ``Event`` payload it becomes."""
    event = convert.event(_notice(build(cls)))
    field = event.WhichOneof("payload")
    assert field is not None
    assert type(getattr(event, field)).__name__ == cls.__name__


def _fields(cls: type) -> list[str]:
    return [f.name for f in dataclasses.fields(cls)]


def _reaches_the_wire(cls: type, encode: Callable[[Any], bytes], make: Callable[..., Any]) -> list[str]:
    """The fields of ``cls`` whose change does not change the bytes ``encode`` makes."""
    lost = []
    base = encode(make(0))
    hints = typing.get_type_hints(cls, _NAMES)
    for name in _fields(cls):
        if f"{cls.__name__}.{name}" in OFF_THE_WIRE:
            continue
        other = _value(hints[name], name, 1)
        if encode(make(0, **{name: other})) == base:
            lost.append(f"{cls.__name__}.{name}")
    return lost


@pytest.mark.parametrize("cls", EVENT_CLASSES, ids=lambda c: c.__name__)
def test_every_field_of_an_event_value_reaches_the_wire(cls: type) -> None:
    lost = _reaches_the_wire(cls, lambda p: convert.event(_notice(p)).SerializeToString(),
                             lambda v, **c: build(cls, v, **c))
    assert lost == [], ("a field the conversion leaves out: carry it in arena/server/convert.py, "
                        "or list it in OFF_THE_WIRE with the reason")


@pytest.mark.parametrize("cls", [m.SeatInfo, m.PotInfo, m.ActionRecord, m.LegalChoice,
                                 m.ShownHand, m.SeatResult, m.PotAward, m.MatchSeatResult,
                                 m.TournamentInfo], ids=lambda c: c.__name__)
def test_every_field_of_a_nested_value_reaches_the_wire(cls: type) -> None:
    """The values inside events and requests: each field, changed in one nested value, changes
    the event or request that carries it."""
    carriers: dict[type, tuple[type, str, bool]] = {
        m.SeatInfo: (m.HandStarted, "seats", True), m.PotInfo: (m.StreetEnded, "pots", True),
        m.ActionRecord: (m.ActionTaken, "action", False),
        m.ShownHand: (m.Showdown, "hands", True),
        m.SeatResult: (m.HandEnded, "results", True),
        m.PotAward: (m.HandEnded, "awards", True),
        m.MatchSeatResult: (m.MatchEnded, "results", True),
        m.TournamentInfo: (m.MatchStarted, "tournament", False),
    }
    if cls is m.LegalChoice:
        def in_request(choice: Any) -> bytes:
            return convert.decision_request(_prompt(legal=(choice,))).SerializeToString()
        kinds = (ActionKind.RAISE, ActionKind.CALL)
        lost = _reaches_the_wire(cls, in_request, lambda v, **c: build(
            cls, v, **({"kind": kinds[v], "games": (GAME_CODES[v],)} | c)))
    else:
        outer, field, many = carriers[cls]

        def in_event(inner: Any) -> bytes:
            payload = build(outer, 0, **{field: (inner,) if many else inner})
            return convert.event(_notice(payload)).SerializeToString()
        lost = _reaches_the_wire(cls, in_event, lambda v, **c: build(cls, v, **c))
    assert lost == []


def test_every_field_of_the_prompt_reaches_the_wire() -> None:
    lost = _reaches_the_wire(m.Prompt, lambda p: convert.decision_request(p).SerializeToString(),
                             lambda v, **c: _prompt(v, **c))
    assert lost == []


def test_every_field_of_a_closed_decision_reaches_the_wire() -> None:
    lost = _reaches_the_wire(DecisionClosed,
                             lambda c: convert.decision_closed(c).SerializeToString(),
                             lambda v, **c: build(DecisionClosed, v, **c))
    assert lost == []
    assert _unset(convert.decision_closed(build(DecisionClosed)), "DecisionClosed") == []


def test_the_exemptions_name_real_fields() -> None:
    """A listed field that no longer exists is a stale reason: remove it."""
    for where in [*NOT_FILLED, *(w for ws in NOT_FILLED_BY.values() for w in ws)]:
        message, field = where.split(".")
        assert field in getattr(pb, message).DESCRIPTOR.fields_by_name, where
    for where in OFF_THE_WIRE:
        cls_name, field = where.split(".")
        assert field in _fields(_NAMES[cls_name]), where

"""quick_init: events built by the cheaper constructor are the same frozen dataclass values."""

from __future__ import annotations

import dataclasses

import pytest

from arena.engine.actions import ActionKind
from arena.engine.events import ActionTaken, BoardDealt, HandResult, Pot
from arena.engine.frozen import quick_init


def test_events_built_positionally_by_keyword_and_with_defaults_are_equal() -> None:
    by_position = ActionTaken(1, 2, ActionKind.CALL, 40, 20, False)
    by_keyword = ActionTaken(seat=1, street=2, kind=ActionKind.CALL, to_chips=40,
                             added_chips=20, is_all_in=False, is_automatic=False)
    assert by_position == by_keyword
    assert hash(by_position) == hash(by_keyword)
    assert by_position.is_automatic is False  # the default
    assert dataclasses.replace(by_position, seat=3).seat == 3
    assert repr(BoardDealt(1, (4, 5, 6))) == (
        "BoardDealt(street=1, cards=(4, 5, 6), is_stud_common_card=False)")
    result = HandResult((Pot(30, (0, 1)),), (), (100, 100), (115, 85), ())
    assert result.net_chips == (15, -15)


def test_events_stay_frozen_and_argument_errors_stay_type_errors() -> None:
    event = ActionTaken(1, 2, ActionKind.CHECK, 0, 0, False)
    with pytest.raises(dataclasses.FrozenInstanceError):
        event.seat = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        ActionTaken(1, 2)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        ActionTaken(1, 2, ActionKind.CHECK, 0, 0, False, nope=1)  # type: ignore[call-arg]


def test_only_plain_slotted_fields_are_accepted() -> None:
    @dataclasses.dataclass(frozen=True, slots=True)
    class WithFactory:
        items: list[int] = dataclasses.field(default_factory=list)

    with pytest.raises(TypeError, match="plain fields"):
        quick_init(WithFactory)

    @dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
    class KeywordOnly:
        a: int

    with pytest.raises(TypeError, match="keyword-only"):
        quick_init(KeywordOnly)

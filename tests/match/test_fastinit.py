"""fast_init: the same construction as a frozen dataclass's own ``__init__``, cheaper."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field

import pytest

from arena.match import messages as m
from arena.match.fastinit import fast_init


@dataclass(frozen=True, slots=True)
class _Plain:
    a: int
    b: str = "x"
    c: tuple[int, ...] = ()


@fast_init
@dataclass(frozen=True, slots=True)
class _Fast:
    a: int
    b: str = "x"
    c: tuple[int, ...] = ()


@fast_init
@dataclass(frozen=True, slots=True, kw_only=True)
class _Keywords:
    a: int
    b: int = 2


@fast_init
@dataclass(frozen=True, slots=True)
class _Child(_Fast):
    d: float = 1.5


def test_same_values_defaults_equality_and_hash() -> None:
    for args, kwargs in (((1,), {}), ((1, "y"), {}), ((1,), {"c": (3,)}), ((), {"a": 4})):
        plain, fast = _Plain(*args, **kwargs), _Fast(*args, **kwargs)
        assert dataclasses.astuple(plain) == dataclasses.astuple(fast)
        assert fast == _Fast(*args, **kwargs)
        assert hash(fast) == hash(_Fast(*args, **kwargs))
    assert dataclasses.replace(_Fast(1), b="z") == _Fast(1, "z")
    assert _Child(1, "q", (), 2.5) == _Child(a=1, b="q", d=2.5)
    assert _Child(1).d == 1.5
    assert _Keywords(a=1).b == 2


def test_still_frozen_and_the_same_errors_for_wrong_calls() -> None:
    fast = _Fast(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.a = 2  # type: ignore[misc]
    with pytest.raises(TypeError):
        _Fast()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Fast(1, "x", (), 4)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        _Keywords(1)  # type: ignore[misc]
    with pytest.raises(TypeError):
        _Fast(1, e=3)  # type: ignore[call-arg]


def test_classes_it_cannot_speed_up_are_left_as_they_are() -> None:
    @dataclass(frozen=True, slots=True)
    class Factory:
        a: list[int] = field(default_factory=list)

    @dataclass(slots=True)
    class Mutable:
        a: int

    for cls in (Factory, Mutable):
        init = cls.__init__
        assert fast_init(cls).__init__ is init


def test_the_messages_construct_as_before() -> None:
    """Every message class, built positionally and by keyword, holds what it was given."""
    for cls in (m.SeatInfo, m.Prompt, m.Reply, m.Notice, m.HandSummary, m.ActionRecord):
        fields = dataclasses.fields(cls)
        values = {f.name: object() for f in fields}
        built = cls(**values)
        assert all(getattr(built, name) is value for name, value in values.items())


class _Sub(_Fast):
    """Not a dataclass: inherits the fast ``__init__`` (the slot setters' path)."""


def test_an_instance_is_its_own_class_after_construction_never_the_twin() -> None:
    assert type(_Fast(1)) is _Fast
    assert type(_Sub(1)) is _Sub and _Sub(1, "y").b == "y"
    assert type(_Child(1)) is _Child
    for cls in (m.Prompt, m.SeatInfo, m.Notice, m.ActionRecord, m.HandSummary):
        values = {f.name: object() for f in dataclasses.fields(cls)}
        built = cls(**values)
        assert type(built) is cls
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(built, dataclasses.fields(cls)[0].name, 1)


def test_a_class_whose_base_is_not_object_sets_each_slot() -> None:
    """``_Child``'s base is ``_Fast``: no twin (its layout would differ), the same values."""
    child = _Child(2, "z", (1,), 0.5)
    assert (child.a, child.b, child.c, child.d) == (2, "z", (1,), 0.5)
    assert "_twin" not in _Child.__init__.__code__.co_freevars
    assert "_twin" in _Fast.__init__.__code__.co_freevars

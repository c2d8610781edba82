"""The messages' explicit constructors (what mypyc compiles natively; interpreted, fast_init
replaces them) and what a compiled class is given besides (arena/match/messages.py): the same
signature as the dataclass fields, the same values, slots, annotations, equality and pickling
either way."""

from __future__ import annotations

import ast
import copy
import dataclasses
import inspect
import pickle
import typing
from collections.abc import Hashable
from pathlib import Path
from typing import Any

import pytest

from arena.engine.actions import ActionKind
from arena.engine.errors import ArenaError
from arena.engine.events import PotShare
from arena.engine.rules import Stakes
from arena.match import messages as m

SOURCE = Path(__file__).resolve().parents[2] / "arena" / "match" / "messages.py"
MESSAGES = m._MESSAGES  # the classes the module finishes


def _source_classes() -> dict[str, ast.ClassDef]:
    tree = ast.parse(SOURCE.read_text(encoding="utf-8"))
    return {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}


def test_every_dataclass_message_is_finished() -> None:
    dataclasses_here = {name for name, value in vars(m).items()
                        if isinstance(value, type) and dataclasses.is_dataclass(value)
                        and value.__module__ == m.__name__}
    assert {kind.__name__ for kind in MESSAGES} == dataclasses_here


def test_each_written_constructor_takes_the_fields_as_the_dataclass_would() -> None:
    """Names, order, keyword-only and defaults: what dataclasses' own ``__init__`` takes."""
    classes = _source_classes()
    for kind in MESSAGES:
        init = next(node for node in classes[kind.__name__].body
                    if isinstance(node, ast.FunctionDef) and node.name == "__init__")
        args = init.args
        written = [a.arg for a in args.args[1:]]
        keywords = [a.arg for a in args.kwonlyargs]
        fields = dataclasses.fields(kind)
        assert written == [f.name for f in fields if not f.kw_only], kind
        assert keywords == [f.name for f in fields if f.kw_only], kind
        defaults = [ast.literal_eval(d) for d in args.defaults] + [
            ast.literal_eval(d) for d in args.kw_defaults if d is not None]
        assert defaults == [f.default for f in fields
                            if f.default is not dataclasses.MISSING], kind
        body = [(s.targets[0].attr, s.value.id) for s in init.body  # type: ignore[attr-defined]
                if isinstance(s, ast.Assign)]
        assert body == [(f.name, f.name) for f in fields], kind
        assert str(inspect.signature(kind)) != "", kind


_SAMPLES: dict[str, Any] = {
    "int": 7, "str": "x", "bool": True, "float": 1.5, "float | None": 2.5,
    "tuple[Card, ...]": (1, 2), "tuple[int, ...]": (0, 3), "SeatStatus": m.SeatStatus.ACTIVE,
    "RecordKind": m.RecordKind.CALL, "AutoReason | None": m.AutoReason.TIMEOUT,
    "ActionKind": ActionKind.CALL, "ActionKind | None": ActionKind.FOLD, "int | None": 40,
    "Stakes": Stakes(), "Mapping[str, str]": {"a": "1"}, "ArenaError": ArenaError("no"),
    "PotShare": next(iter(PotShare)), "TournamentInfo | None": None,
}


def _sample(kind: type, name: str, hint: str) -> Any:
    if hint in _SAMPLES:
        return _SAMPLES[hint]
    if hint == "Payload":
        return m.GameChanged("FT", "FL", 3)
    if hint == "Reply":
        return m.Reply("d-1", 0, ActionKind.CALL, None)
    if hint == "ActionRecord":
        return m.ActionRecord(0, "flop", m.RecordKind.CALL, 0, 20, 20, False)
    if hint.startswith("tuple["):
        return ()
    raise AssertionError(f"no sample for {kind.__name__}.{name}: {hint}")


def _values(kind: type) -> dict[str, Any]:
    annotations = {}
    for base in reversed(kind.__mro__):
        if dataclasses.is_dataclass(base):
            annotations.update(inspect.get_annotations(base))
    return {f.name: _sample(kind, f.name, annotations[f.name]) for f in dataclasses.fields(kind)}


@pytest.mark.parametrize("kind", MESSAGES, ids=lambda kind: kind.__name__)
def test_built_by_keyword_and_position_holds_its_values(kind: type) -> None:
    values = _values(kind)
    built = kind(**values)
    assert type(built) is kind
    assert {name: getattr(built, name) for name in values} == values
    positional = [v for f, v in zip(dataclasses.fields(kind), values.values(), strict=True)
                  if not f.kw_only]
    keywords = {f.name: v for f, v in zip(dataclasses.fields(kind), values.values(), strict=True)
                if f.kw_only}
    again = kind(*positional, **keywords)
    assert [getattr(again, n) for n in values] == [getattr(built, n) for n in values]
    if kind.__dataclass_params__.eq:
        assert again == built
        if all(isinstance(v, Hashable) for v in values.values()):
            assert hash(again) == hash(built)
        assert dataclasses.replace(built) == built  # type: ignore[type-var]
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(built, dataclasses.fields(kind)[0].name, values[dataclasses.fields(kind)[0].name])
    for clone in (pickle.loads(pickle.dumps(built)), copy.copy(built), copy.deepcopy(built)):
        assert type(clone) is kind
        assert [repr(getattr(clone, n)) for n in values] == [repr(v) for v in values.values()]


@pytest.mark.parametrize("kind", MESSAGES, ids=lambda kind: kind.__name__)
def test_slots_and_annotations_are_the_slotted_dataclass_ones(kind: type) -> None:
    own = [node.target.id for node in _source_classes()[kind.__name__].body  # type: ignore[union-attr]
           if isinstance(node, ast.AnnAssign)]
    assert tuple(kind.__dict__["__slots__"]) == tuple(own)
    assert list(kind.__annotations__) == own
    assert all(isinstance(v, str) for v in kind.__annotations__.values())
    assert typing.get_type_hints(kind)  # every annotation resolves in the module

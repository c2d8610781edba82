"""The PHH writer's value spelling (TOML): the common values take a short way by their exact type
and are written byte for byte as the plain recursive writer writes them; the text reads back."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from enum import IntEnum
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from arena.engine.phh import dumps_hand, toml_string


class Level(IntEnum):
    LOW = 1


def plain_toml(value: Any) -> str:
    """The writer as it was before the short way: isinstance checks in order, recursively."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return toml_string(value)
    if isinstance(value, list | tuple):
        return "[" + ", ".join(plain_toml(v) for v in value) + "]"
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {plain_toml(v)}" for k, v in value.items()) + "}"
    raise TypeError(type(value).__name__)


_scalars = (st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
            | st.text(st.characters(blacklist_categories=("Cs",))) | st.just(Level.LOW))
_keys = st.from_regex(r"[a-z]{1,5}", fullmatch=True)
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                       | st.dictionaries(_keys, inner, max_size=3), max_leaves=12)


@given(fields=st.dictionaries(st.from_regex(r"_?[a-z]{1,8}", fullmatch=True), _values, max_size=6))
def test_each_value_is_spelled_as_the_plain_writer_spells_it(fields: dict[str, Any]) -> None:
    assert dumps_hand(fields) == "".join(f"{k} = {plain_toml(v)}\n" for k, v in fields.items())


def test_a_hands_fields_read_back() -> None:
    fields = {"variant": "FT", "ante_trimming_status": True, "antes": [0, 0], "small_bet": 10,
              "actions": ["d dh p1 AsKd", "p1 cbr 20", "p2 f"], "players": ["o'neil", "b\\\"x"],
              "_think_seconds": [0.25, -1.0, 1e-07], "_void_reason": "it's void"}
    assert tomllib.loads(dumps_hand(fields)) == fields


@given(text=st.text(st.characters(blacklist_categories=("Cs",))))
def test_any_text_reads_back_as_itself(text: str) -> None:
    """Names and reasons come from configs and bots: newlines, tabs, quotes and control
    characters must not make the hand history unreadable (TOML 1.0, strings)."""
    assert tomllib.loads(f"x = {toml_string(text)}\n") == {"x": text}


def test_control_characters_are_escaped_not_written_raw() -> None:
    spelled = toml_string("line\nnext\ttab\x00nul\x7fdel 'q' \"dq\" \\")
    assert spelled == '"line\\nnext\\ttab\\u0000nul\\u007Fdel \'q\' \\"dq\\" \\\\"'
    assert dumps_hand({"players": ["a\nb", "c"]}) == "players = [\"a\\nb\", 'c']\n"
    assert toml_string("plain name") == "'plain name'"

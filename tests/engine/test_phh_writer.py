"""The PHH writer's value spelling (TOML): every field is one ``key = value`` line (a hand's text
is the body of one ``[N]`` table of a ``.phhs`` file, and readers take fields line by line), and
the text reads back as the fields."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from enum import IntEnum
from types import MappingProxyType
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from arena.engine.phh import dumps_hand, toml_string


class Level(IntEnum):
    LOW = 1


def as_read(value: Any) -> Any:
    """``value`` as TOML reads it back: tuples as lists, tables as dicts, an IntEnum as its int."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return int(value)
    if isinstance(value, list | tuple):
        return [as_read(v) for v in value]
    if isinstance(value, Mapping):
        return {k: as_read(v) for k, v in value.items()}
    return value


def check_written(fields: Mapping[str, Any]) -> str:
    """``dumps_hand(fields)``, checked: one line per field, in order, reading back as the fields."""
    text = dumps_hand(fields)
    lines = text.splitlines()  # str.splitlines: U+2028 and the like are escaped too
    assert [line.partition(" = ")[0] for line in lines] == list(fields)
    assert text == "".join(f"{line}\n" for line in lines)
    assert tomllib.loads(text) == as_read(fields)
    for line, value in zip(lines, fields.values(), strict=True):
        assert list(tomllib.loads(line).values()) == [as_read(value)]  # each line on its own
    return text


_scalars = (st.booleans() | st.integers() | st.floats(allow_nan=False)
            | st.text(st.characters(blacklist_categories=("Cs",))) | st.just(Level.LOW))
_keys = st.from_regex(r"[a-z]{1,5}", fullmatch=True)
_values = st.recursive(_scalars, lambda inner: st.lists(inner, max_size=4) | st.tuples(inner, inner)
                       | st.dictionaries(_keys, inner, max_size=3)
                       | st.dictionaries(_keys, inner, max_size=3).map(MappingProxyType),
                       max_leaves=12)


@given(fields=st.dictionaries(st.from_regex(r"_?[a-z]{1,8}", fullmatch=True), _values, max_size=6))
def test_each_field_is_one_line_that_reads_back(fields: dict[str, Any]) -> None:
    check_written(fields)


def test_a_hands_fields_read_back() -> None:
    fields = {"variant": "FT", "ante_trimming_status": True, "antes": [0, 0], "small_bet": 10,
              "actions": ["d dh p1 AsKd", "p1 cbr 20", "p2 f"], "players": ["o'neil", "b\\\"x"],
              "_think_seconds": [0.25, -1.0, 1e-07], "_void_reason": "it's void",
              "_rules": MappingProxyType({"max_raises": 4, "stud_tie_break": "suit"})}
    assert check_written(fields).endswith("_rules = {max_raises = 4, stud_tie_break = 'suit'}\n")


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


def test_strings_are_literal_where_they_can_be_and_numbers_plain() -> None:
    assert dumps_hand({"players": ["alice", "o'neil"]}) == "players = ['alice', \"o'neil\"]\n"
    assert dumps_hand({"players": ["alice", 7]}) == "players = ['alice', 7]\n"
    assert dumps_hand({"x": [Level.LOW, True, 0.1, -0.0, float("inf")]}) == \
        "x = [1, true, 0.1, -0.0, inf]\n"

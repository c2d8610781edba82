"""The PHH writer's lists of strings (the actions, the players) in one join when every string
can be a literal string: the same text as string by string (arena/engine/phhtext.py)."""

from __future__ import annotations

import tomllib

from hypothesis import given
from hypothesis import strategies as st

from arena.engine.phh import dumps_hand, toml_string

_strings = st.lists(st.sampled_from(["p1 cc", "d dh p1 AsKd", "o'neil", "tab\there", "", "é",
                                     "\x7f", "x\ny"]) | st.text(max_size=6), max_size=6)


@given(values=_strings)
def test_a_list_of_strings_is_written_as_each_string_is(values: list[str]) -> None:
    text = dumps_hand({"actions": values})
    assert text == "actions = [" + ", ".join(toml_string(v) for v in values) + "]\n"
    assert tomllib.loads(text) == {"actions": values}


def test_a_late_string_that_cannot_be_literal_is_still_quoted() -> None:
    assert dumps_hand({"players": ["alice", "o'neil"]}) == "players = ['alice', \"o'neil\"]\n"
    assert dumps_hand({"players": ["alice", 7]}) == "players = ['alice', 7]\n"

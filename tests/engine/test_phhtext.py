"""The PHH writer (arena/engine/phhtext.py): each field one line that reads back, and the text
replaying to the same hand, for the hands of the shared fixtures and random hands of every
game."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from arena.engine.actions import ActionKind
from arena.engine.games import GameCode, variant_for
from arena.engine.phh import hand_fields, iter_replays, loads, loads_bytes
from arena.engine.rules import Rules
from arena.engine.state import HandState
from tests.engine.test_phh_writer import check_written
from tests.fixtures import WSOP_2023_43 as FIXTURES


def _check(state: HandState, extra: dict[str, Any]) -> str:
    """Written, each field one line that reads back; the text replays to the same hand."""
    players = [f"bot'{k}" if k == 1 else f"bot{k}" for k in range(state.seat_count)]
    try:
        fields = hand_fields(state, players=players, extra=extra)
    except IndexError:  # a history's unknown cards ("??"): they cannot be written
        return ""
    text = check_written(fields)
    ((_, again, error),) = iter_replays(loads(text))
    assert again is not None, error
    assert again.stacks == state.stacks
    assert hand_fields(again, players=players, extra=extra)["actions"] == fields["actions"]
    return text


def _extra(n: int, seed: int) -> dict[str, Any]:
    return {"match_id": f"m-{seed}", "_hand": seed, "_seats": list(range(n)),
            "_action_seconds": [round(0.0007 * k * seed, 4) for k in range(6)] + [0.0, -0.0],
            "_think_seconds": [1e-07, 2.5, float("inf"), 1e16, 123456.789],
            "_void_reason": "it's \"void\"\n", "_flags": [True, False], "_mixed": [1, "a", 2.0]}


def test_the_fixture_hands_are_written_one_field_a_line() -> None:
    paths = sorted(FIXTURES.glob("*.phh"))
    written = 0
    for k, path in enumerate(paths):
        for _hand, state, error in iter_replays(loads_bytes(path.read_bytes(), name=path.name)):
            assert state is not None, error
            written += bool(_check(state, _extra(state.seat_count, k)))
    assert written >= len(paths) // 2


@settings(max_examples=40, deadline=None)
@given(code=st.sampled_from(list(GameCode)), seats=st.integers(2, 6), seed=st.integers(0, 10**6),
       raise_every=st.integers(1, 5))
def test_random_hands_are_written_one_field_a_line(
        code: GameCode, seats: int, seed: int, raise_every: int) -> None:
    state = HandState(variant_for(code), [2000 + 37 * k for k in range(seats)], rules=Rules(),
                      seed=seed)
    step = 0
    while not state.is_over:
        legal = state.legal_actions()
        if ActionKind.RAISE in legal.kinds() and step % raise_every == 0:
            state.act(legal.seat, ActionKind.RAISE, legal.raise_amounts()[-1 if step % 2 else 0])
        elif step % 7 == 6 and ActionKind.FOLD in legal.kinds():
            state.act(legal.seat, ActionKind.FOLD)
        else:
            state.check_or_call()
        step += 1
    assert _check(state, _extra(seats, seed)).startswith("variant = ")

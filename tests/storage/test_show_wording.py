"""`arena replay --show` words each action as people say it: an opening bet "bets", a raise
"raises to" (a round total), a call "calls" what it adds, stud's bring-in "brings in for" and its
completion "completes to" (every bet read "raise to N" before)."""

from __future__ import annotations

from arena.engine.actions import Action
from arena.engine.games import GameCode, variant_for
from arena.engine.rules import Stakes
from arena.engine.state import HandState
from arena.storage.show import describe, fault_marks

PLAYERS = ["a", "b", "c"]


def _play(state: HandState, script: list[str]) -> list[str]:
    """Play ``script`` (``Action.parse`` words), then check or call to the end; the action lines
    of the hand told for people, with the street headers."""
    for text in script:
        state.apply(Action.parse(text))
    while state.actor is not None:
        state.apply(Action.parse("check" if state.legal_actions().can_check else "call"))
    names = tuple(f"{name} (p{k + 1}) " for k, name in enumerate(PLAYERS))
    return [line.strip() for line in describe(state, PLAYERS)
            if line.startswith("  -- ") or (line.strip().startswith(names) and " dealt " not in line)]


def test_holdem_bets_raises_calls_checks_and_folds_in_words() -> None:
    state = HandState(variant_for(GameCode.HOLDEM), [1000] * 3, seed=1)
    lines = _play(state, ["raise 40", "call", "call",  # preflop: the big blind is the bet
                          "check", "raise 20", "raise 40", "fold", "call"])
    assert lines[:12] == [
        "a (p1) posts the small blind 10", "b (p2) posts the big blind 20",
        "-- preflop", "c (p3) raises to 40", "a (p1) calls 30", "b (p2) calls 20",
        "-- flop", "a (p1) checks", "b (p2) bets 20", "c (p3) raises to 40", "a (p1) folds",
        "b (p2) calls 20"], lines
    assert "-- turn" in lines and not any(" raise to " in line or " call to " in line for line in lines)


def _stud(stakes: Stakes | None = None) -> HandState:
    return HandState(variant_for(GameCode.STUD), [1000] * 3, seed=2, stakes=stakes)


def _actions(lines: list[str]) -> list[str]:
    return [line.split(") ", 1)[1] for line in lines if not line.startswith("--") and "posts" not in line]


def test_stud_brings_in_completes_then_raises() -> None:
    lines = _play(_stud(), ["bring_in", "raise 20", "raise 40", "call", "call", "raise 20"])
    assert _actions(lines)[:6] == ["brings in for 5", "completes to 20", "raises to 40", "calls 35",
                                   "calls 20", "bets 20"], lines
    fourth = lines.index("-- fourth")
    assert lines[fourth + 1].endswith(") bets 20"), lines  # the first bet of a later street


def test_stud_bring_in_seat_may_complete_at_once() -> None:
    assert _actions(_play(_stud(), ["raise 20", "raise 40"]))[:2] == ["completes to 20", "raises to 40"]


def test_stud_without_a_bring_in_opens_with_a_bet() -> None:
    stakes = Stakes(bring_in=0)
    assert _actions(_play(_stud(stakes), ["raise 20", "raise 40"]))[:2] == ["bets 20", "raises to 40"]


def test_an_all_in_bet_keeps_its_note() -> None:
    state = HandState(variant_for(GameCode.NO_LIMIT_HOLDEM), [1000, 1000, 300], seed=3)
    lines = _play(state, ["call", "call", "check", "check", "check", "raise 280"])
    assert "c (p3) bets 280 (all in)" in lines, lines


def test_fault_marks_keep_only_a_positive_line_and_a_known_reason() -> None:
    """docs/faults.md: a log's `_fault_lines` is untrusted; what is not ``[line, reason]`` is
    skipped (an unhashable reason once raised TypeError)."""
    fields = {"_fault_lines": [[3, "timeout"], [0, "absent"], [4, ["timeout"]], [5, "late"],
                               [True, "absent"], [6], "7", [8, "fallback"]]}
    assert fault_marks(fields) == {3: "timeout", 8: "fallback"}
    assert fault_marks({"_fault_lines": "nope"}) == {} == fault_marks({})

"""Named time controls (docs/agents.md "Time controls"): the `time_control` key of `[rules]`.

A time control is the pair of clock keys the dealer already keeps (docs/house-rules.md §6):
``decision_seconds``, the time every decision has to itself, and ``time_bank_seconds``, the
seat's budget for the whole match, spent only by the part of a decision that runs over its own
time. When both are gone the dealer acts for the seat as for an absent one (check if legal,
else fold), decision after decision, until the match ends: the budget does not come back.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.engine.errors import ConfigError


@dataclass(frozen=True, slots=True, kw_only=True)
class TimeControl:
    """name: the value of ``time_control``; decision_seconds: each decision's own time;
    time_bank_seconds: the per-match budget past it; use: who it is made for."""

    name: str
    decision_seconds: float
    time_bank_seconds: float
    use: str


PRESETS: dict[str, TimeControl] = {t.name: t for t in (
    TimeControl(name="bot", decision_seconds=2.0, time_bank_seconds=30.0,
                use="programmed bots (the defaults)"),
    TimeControl(name="agent-blitz", decision_seconds=30.0, time_bank_seconds=600.0,
                use="fast tool-using agents and small models"),
    TimeControl(name="agent-rapid", decision_seconds=120.0, time_bank_seconds=1800.0,
                use="language-model agents that reason before each action"),
    TimeControl(name="agent-classical", decision_seconds=300.0, time_bank_seconds=7200.0,
                use="agents that call tools or search during a decision"),
    TimeControl(name="correspondence", decision_seconds=3600.0, time_bank_seconds=86_400.0,
                use="a human-paced or batch agent: an hour a decision, a day of budget"),
)}
CLOCK_KEYS = ("decision_seconds", "time_bank_seconds")


def expand_time_control(values: dict[str, Any], where: str) -> None:
    """Replace a ``time_control`` key of ``values`` by its two clock keys, in place. Naming a
    clock key beside it is an error: which one would win is not obvious."""
    if "time_control" not in values:
        return
    name = values.pop("time_control")
    preset = PRESETS.get(name) if isinstance(name, str) else None
    if preset is None:
        raise ConfigError(f"{where}: unknown time_control {name!r}; known: {', '.join(PRESETS)}")
    clash = [key for key in CLOCK_KEYS if key in values]
    if clash:
        raise ConfigError(f"{where}: give 'time_control' or {' and '.join(map(repr, clash))}, "
                          "not both")
    values.update(decision_seconds=preset.decision_seconds,
                  time_bank_seconds=preset.time_bank_seconds)

"""Named time controls (docs/agents.md "Time controls"): `time_control` sets both clock keys."""

from __future__ import annotations

import pytest

from arena.engine.errors import ConfigError
from arena.engine.rules import Rules
from arena.engine.timecontrol import PRESETS


def test_each_preset_sets_the_decision_time_and_the_match_budget() -> None:
    for name, preset in PRESETS.items():
        rules = Rules.from_mapping({"time_control": name})
        assert (rules.decision_seconds, rules.time_bank_seconds) == (preset.decision_seconds,
                                                                     preset.time_bank_seconds)
    assert Rules.from_mapping({"time_control": "bot"}) == Rules()  # the defaults, by name
    rapid = Rules.from_mapping({"time_control": "agent-rapid"})
    assert (rapid.decision_seconds, rapid.time_bank_seconds) == (120.0, 1800.0)


def test_a_preset_beside_a_clock_key_or_an_unknown_preset_is_an_error() -> None:
    with pytest.raises(ConfigError, match=r"league.toml \[rules\]: give 'time_control' or "
                                          r"'decision_seconds', not both"):
        Rules.from_mapping({"time_control": "agent-rapid", "decision_seconds": 5},
                           where="league.toml [rules]")
    with pytest.raises(ConfigError, match="unknown time_control 'slow'; known: bot, agent-blitz"):
        Rules.from_mapping({"time_control": "slow"})
    with pytest.raises(ConfigError, match="unknown time_control 3"):
        Rules.from_mapping({"time_control": 3})


def test_set_applies_a_preset_then_later_keys() -> None:
    rules = Rules().with_overrides(["time_control=agent-blitz", "decision_seconds=45"])
    assert (rules.decision_seconds, rules.time_bank_seconds) == (45.0, 600.0)
    rules = Rules().with_overrides(["decision_seconds=45", "time_control=correspondence"])
    assert (rules.decision_seconds, rules.time_bank_seconds) == (3600.0, 86_400.0)

"""The `[rules]` table of a match (RULES.md §9): typed, validated, with the documented defaults."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.engine.errors import ConfigError
from arena.engine.games import HORSE, VARIANTS


@dataclass(frozen=True, slots=True)
class Stakes:
    """Fixed-limit stakes of one hand, in chips."""

    small_bet: int = 20
    big_bet: int = 40
    small_blind: int = 10
    big_blind: int = 20
    ante: int = 3
    bring_in: int = 5


@dataclass(frozen=True, slots=True)
class Rules:
    games: tuple[str, ...] = HORSE
    hands_per_game: int | None = None  # None: the number of seats when the match starts
    small_bet: int = 20
    big_bet: int = 40
    small_blind: int = 10
    big_blind: int = 20
    ante: int = 3
    bring_in: int = 5
    starting_stack: int = 2000
    reset_stacks: bool = True
    max_raises: int = 3
    uncapped_heads_up: bool = True
    stud_open_pair_big_bet: bool = True
    stud_tie_break: str = "suit"
    burn_before_hole_cards: bool = False
    decision_seconds: float = 2.0
    time_bank_seconds: float = 30.0
    timeout_action: str = "check_fold"

    @property
    def stakes(self) -> Stakes:
        return Stakes(self.small_bet, self.big_bet, self.small_blind, self.big_blind, self.ante,
                      self.bring_in)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Rules:
        """Build from a TOML `[rules]` table; unknown keys and wrong types are errors."""
        known = {f.name: f for f in dataclasses.fields(cls) if not f.name.startswith("_")}
        kwargs: dict[str, Any] = {}
        for key, value in values.items():
            if key not in known:
                raise ConfigError(f"unknown rules key {key!r}; known keys: {', '.join(sorted(known))}")
            kwargs[key] = _coerce(key, value)
        rules = cls(**kwargs)
        rules.validate()
        return rules

    def with_overrides(self, assignments: Iterable[str]) -> Rules:
        """Apply `KEY=VALUE` strings (values in TOML syntax; bare words are strings)."""
        values = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
                  if not f.name.startswith("_")}
        for assignment in assignments:
            key, sep, raw = assignment.partition("=")
            if not sep:
                raise ConfigError(f"expected KEY=VALUE, got {assignment!r}")
            values[key.strip()] = parse_value(raw.strip())
        return Rules.from_mapping(values)

    def validate(self) -> None:
        for name in ("small_bet", "big_bet", "small_blind", "big_blind", "starting_stack"):
            if getattr(self, name) <= 0:
                raise ConfigError(f"rules key {name!r} must be positive, got {getattr(self, name)}")
        for name in ("ante", "bring_in", "max_raises"):
            if getattr(self, name) < 0:
                raise ConfigError(f"rules key {name!r} must not be negative")
        if not self.games:
            raise ConfigError("rules key 'games' must name at least one game")
        for game in self.games:
            if game not in VARIANTS:
                raise ConfigError(f"unknown game {game!r} in 'games'; known: {', '.join(VARIANTS)}")
        if self.hands_per_game is not None and self.hands_per_game <= 0:
            raise ConfigError("rules key 'hands_per_game' must be positive")
        if self.stud_tie_break not in ("suit", "seat"):
            raise ConfigError("rules key 'stud_tie_break' must be \"suit\" or \"seat\"")
        if self.timeout_action != "check_fold":
            raise ConfigError("rules key 'timeout_action' supports only \"check_fold\"")
        if self.decision_seconds <= 0 or self.time_bank_seconds < 0:
            raise ConfigError("decision_seconds must be positive and time_bank_seconds >= 0")

    def to_mapping(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if not f.name.startswith("_")}
        out["games"] = list(self.games)
        if out["hands_per_game"] is None:
            del out["hands_per_game"]
        return out


_TYPES: dict[str, type] = {
    "small_bet": int, "big_bet": int, "small_blind": int, "big_blind": int, "ante": int,
    "bring_in": int, "starting_stack": int, "max_raises": int, "hands_per_game": int,
    "reset_stacks": bool, "uncapped_heads_up": bool, "stud_open_pair_big_bet": bool,
    "burn_before_hole_cards": bool, "stud_tie_break": str, "timeout_action": str,
    "decision_seconds": float, "time_bank_seconds": float,
}


def _coerce(key: str, value: Any) -> Any:
    if key == "games":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple) or not all(isinstance(g, str) for g in value):
            raise ConfigError(f"rules key 'games' must be a list of game codes, got {value!r}")
        return tuple(value)
    if key == "hands_per_game" and value is None:
        return None
    expected = _TYPES[key]
    if expected is float and isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    if expected is int and isinstance(value, bool):
        raise ConfigError(f"rules key {key!r} must be an integer, got {value!r}")
    if not isinstance(value, expected):
        raise ConfigError(f"rules key {key!r} must be {expected.__name__}, got {value!r}")
    return value


def parse_value(raw: str) -> Any:
    """A TOML value, or the raw text as a string when it is not one (so `stud_tie_break=seat` works)."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw

"""The `[rules]` table of a match (RULES.md §9): typed, validated, with the documented defaults."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.engine.configfile import Check, read_dataclass, require
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
    def from_mapping(cls, values: Mapping[str, Any], *, where: str = "[rules]") -> Rules:
        """Build from a TOML `[rules]` table; unknown keys, wrong types and values out of
        range are errors naming ``where`` (e.g. ``league.toml [rules]``) and the key."""
        values = dict(values)
        if isinstance(values.get("games"), str):
            values["games"] = [values["games"]]
        rules = read_dataclass(cls, values, where=where, checks=CHECKS)
        rules.validate(where)
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
        return Rules.from_mapping(values, where="--set")

    def validate(self, where: str = "[rules]") -> None:
        """The checks across keys (each key's own range is in :data:`CHECKS`)."""
        require(bool(self.games), where, "'games' must name at least one game")
        for game in self.games:
            require(game in VARIANTS, where,
                    f"unknown game {game!r} in 'games'; known: {', '.join(VARIANTS)}")
        require(self.big_bet >= self.small_bet, where,
                f"'big_bet' ({self.big_bet}) must be at least 'small_bet' ({self.small_bet})")

    def to_mapping(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)
               if not f.name.startswith("_")}
        out["games"] = list(self.games)
        if out["hands_per_game"] is None:
            del out["hands_per_game"]
        return out


MAX_CHIPS = 10**12  # stakes and stacks above this are refused (no real table plays them)
MAX_SECONDS = 86_400.0

CHECKS: dict[str, Check] = {
    "hands_per_game": Check(min=1, max=10**6),
    "small_bet": Check(min=1, max=MAX_CHIPS),
    "big_bet": Check(min=1, max=MAX_CHIPS),
    "small_blind": Check(min=1, max=MAX_CHIPS),
    "big_blind": Check(min=1, max=MAX_CHIPS),
    "ante": Check(min=0, max=MAX_CHIPS),
    "bring_in": Check(min=0, max=MAX_CHIPS),
    "starting_stack": Check(min=1, max=MAX_CHIPS),
    "max_raises": Check(min=0, max=1000),
    "stud_tie_break": Check(choices=("suit", "seat")),
    "timeout_action": Check(choices=("check_fold",)),
    "decision_seconds": Check(min=0.001, max=MAX_SECONDS),
    "time_bank_seconds": Check(min=0.0, max=MAX_SECONDS),
}


def parse_value(raw: str) -> Any:
    """A TOML value, or the raw text as a string when it is not one (so `stud_tie_break=seat` works)."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw

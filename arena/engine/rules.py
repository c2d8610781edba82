"""The `[rules]` table of a match (RULES.md §9): typed, validated, with the documented defaults."""

from __future__ import annotations

import dataclasses
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.engine.errors import ConfigError
from arena.engine.games import HORSE, AnteKind, Betting, GameCode, game_with_betting


@dataclass(frozen=True, slots=True)
class Stakes:
    """The stakes of one hand, in chips (RULES.md §3)."""

    small_bet: int = 20
    big_bet: int = 40
    small_blind: int = 10
    big_blind: int = 20
    ante: int = 3
    bring_in: int = 5


_CODES: frozenset[str] = frozenset(GameCode)
STAKES_KEYS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Stakes))


@dataclass(frozen=True, slots=True)
class Rules:
    """A match's rules; the stakes keys of the `[rules]` table are held in one :class:`Stakes`."""

    games: tuple[GameCode, ...] = HORSE
    hands_per_game: int | None = None  # None: the number of seats when the match starts
    stakes: Stakes = Stakes()
    starting_stack: int = 2000
    reset_stacks: bool = True
    max_raises: int = 3
    uncapped_heads_up: bool = True
    stud_open_pair_big_bet: bool = True
    stud_tie_break: str = "suit"
    burn_before_hole_cards: bool = False
    ante_kind: AnteKind = AnteKind.NONE  # antes in the blind games (RULES.md §3b)
    decision_seconds: float = 2.0
    time_bank_seconds: float = 30.0
    timeout_action: str = "check_fold"

    def __post_init__(self) -> None:
        # Known codes given as plain strings become GameCode members (unknown ones are left
        # for validate() to name).
        codes = tuple(GameCode(g) if g in _CODES else g for g in self.games)
        object.__setattr__(self, "games", codes)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any]) -> Rules:
        """Build from a TOML `[rules]` table; unknown keys and wrong types are errors."""
        known = _KEYS
        kwargs: dict[str, Any] = {}
        stakes: dict[str, int] = {}
        for key, value in values.items():
            if key not in known:
                raise ConfigError(f"unknown rules key {key!r}; known keys: {', '.join(sorted(known))}")
            if key in STAKES_KEYS:
                stakes[key] = _coerce(key, value)
            else:
                kwargs[key] = _coerce(key, value)
        rules = cls(stakes=Stakes(**stakes), **kwargs)
        rules.validate()
        return rules

    def with_overrides(self, assignments: Iterable[str]) -> Rules:
        """Apply `KEY=VALUE` strings (values in TOML syntax; bare words are strings)."""
        values = self.to_mapping()
        for assignment in assignments:
            key, sep, raw = assignment.partition("=")
            if not sep:
                raise ConfigError(f"expected KEY=VALUE, got {assignment!r}")
            values[key.strip()] = parse_value(raw.strip())
        return Rules.from_mapping(values)

    def validate(self) -> None:
        values = self.to_mapping()
        for name in ("small_bet", "big_bet", "small_blind", "big_blind", "starting_stack"):
            if values[name] <= 0:
                raise ConfigError(f"rules key {name!r} must be positive, got {values[name]}")
        for name in ("ante", "bring_in", "max_raises"):
            if values[name] < 0:
                raise ConfigError(f"rules key {name!r} must not be negative")
        if not self.games:
            raise ConfigError("rules key 'games' must name at least one game")
        for game in self.games:
            GameCode.parse(game)
        if self.hands_per_game is not None and self.hands_per_game <= 0:
            raise ConfigError("rules key 'hands_per_game' must be positive")
        if self.ante_kind not in _ANTE_KINDS:
            raise ConfigError(f"rules key 'ante_kind' must be one of {', '.join(map(repr, _ANTE_KINDS))}")
        if self.stud_tie_break not in ("suit", "seat"):
            raise ConfigError("rules key 'stud_tie_break' must be \"suit\" or \"seat\"")
        if self.timeout_action != "check_fold":
            raise ConfigError("rules key 'timeout_action' supports only \"check_fold\"")
        if self.decision_seconds <= 0 or self.time_bank_seconds < 0:
            raise ConfigError("decision_seconds must be positive and time_bank_seconds >= 0")

    def to_mapping(self) -> dict[str, Any]:
        """The flat `[rules]` table: the stakes keys beside the others."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "stakes":
                out.update((key, getattr(self.stakes, key)) for key in STAKES_KEYS)
            else:
                out[f.name] = getattr(self, f.name)
        out["games"] = [str(g) for g in self.games]
        if out["hands_per_game"] is None:
            del out["hands_per_game"]
        return out


_KEYS: frozenset[str] = frozenset(
    {f.name for f in dataclasses.fields(Rules) if f.name != "stakes"} | set(STAKES_KEYS))

_TYPES: dict[str, type] = {
    "small_bet": int, "big_bet": int, "small_blind": int, "big_blind": int, "ante": int,
    "bring_in": int, "starting_stack": int, "max_raises": int, "hands_per_game": int,
    "reset_stacks": bool, "uncapped_heads_up": bool, "stud_open_pair_big_bet": bool,
    "burn_before_hole_cards": bool, "stud_tie_break": str, "timeout_action": str, "ante_kind": str,
    "decision_seconds": float, "time_bank_seconds": float,
}


def _coerce(key: str, value: Any) -> Any:
    if key == "games":
        if isinstance(value, str):
            value = [value]
        if not isinstance(value, list | tuple):
            raise ConfigError(f"rules key 'games' must be a list of game codes, got {value!r}")
        try:
            return tuple(_game_entry(g) for g in value)
        except ConfigError as exc:
            raise ConfigError(f"rules key 'games': {exc}") from None
    if key == "ante_kind":
        if value not in _ANTE_KINDS:
            raise ConfigError(f"rules key 'ante_kind' must be one of "
                              f"{', '.join(map(repr, _ANTE_KINDS))}, got {value!r}")
        return AnteKind(value)
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


_ANTE_KINDS: tuple[str, ...] = tuple(k.value for k in AnteKind)
_BETTINGS: tuple[str, ...] = tuple(b.value for b in Betting)


def _game_entry(entry: Any) -> GameCode:
    """A `games` entry (RULES.md §3b): a game code, or a table ``{game = CODE, betting = ...}``."""
    if isinstance(entry, str):
        return GameCode.parse(entry)
    if not isinstance(entry, Mapping):
        raise ConfigError(f"an entry must be a game code or a table {{game, betting}}, got {entry!r}")
    unknown = set(entry) - {"game", "betting"}
    if unknown:
        raise ConfigError(f"unknown key {sorted(unknown)[0]!r} in {entry!r}; known: game, betting")
    game = entry.get("game")
    if not isinstance(game, str):
        raise ConfigError(f"an entry needs a 'game' code, got {entry!r}")
    code = GameCode.parse(game)
    betting = entry.get("betting")
    if betting is None:
        return code
    if betting not in _BETTINGS:
        raise ConfigError(f"'betting' must be one of {', '.join(map(repr, _BETTINGS))}, got {betting!r}")
    return game_with_betting(code, Betting(betting))


def parse_value(raw: str) -> Any:
    """A TOML value, or the raw text as a string when it is not one (so `stud_tie_break=seat` works)."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw

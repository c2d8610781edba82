"""Tournament levels (docs/house-rules.md §4, §8): stakes that rise by a table, levels counted in
hands or minutes.

Pure values: the caller says how many hands a table has played and how much time has passed.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, replace
from typing import Any

from arena.engine.errors import ConfigError
from arena.engine.rules import Rules

MAX_LEVELS = 64  # doubling past this overflows any sensible stack; a config asking more is wrong


@dataclass(frozen=True, slots=True)
class Level:
    """The stakes of one level and how long it lasts (in hands, in seconds, or both: first wins)."""

    small_blind: int
    big_blind: int
    ante: int = 0
    bring_in: int = 1
    small_bet: int = 0  # 0: the big blind (docs/house-rules.md §3: big blind = small bet)
    big_bet: int = 0  # 0: twice the small bet
    hands: int | None = None
    seconds: float | None = None

    @property
    def small_bet_chips(self) -> int:
        return self.small_bet or self.big_blind

    @property
    def big_bet_chips(self) -> int:
        return self.big_bet or 2 * self.small_bet_chips

    def doubled(self) -> Level:
        return replace(self, small_blind=2 * self.small_blind, big_blind=2 * self.big_blind,
                       ante=2 * self.ante, bring_in=2 * self.bring_in,
                       small_bet=2 * self.small_bet, big_bet=2 * self.big_bet)

    def label(self) -> str:
        ante = f" ante {self.ante}" if self.ante else ""
        return f"{self.small_blind}/{self.big_blind}{ante}"


@dataclass(frozen=True, slots=True)
class LevelPlan:
    """An explicit level table; past its end the last level keeps doubling (so a tournament ends)."""

    levels: tuple[Level, ...]

    def __post_init__(self) -> None:
        if not self.levels:
            raise ConfigError("a tournament needs at least one level")
        for k, level in enumerate(self.levels, 1):
            if level.hands is None and level.seconds is None:
                raise ConfigError(f"level {k}: give its length as 'hands' or 'minutes'")
            if level.hands is not None and level.hands <= 0:
                raise ConfigError(f"level {k}: 'hands' must be positive")
            if level.seconds is not None and not 0 < level.seconds < 1e7:
                raise ConfigError(f"level {k}: 'minutes' must be positive and finite")
            if not 0 < level.small_blind <= level.big_blind:
                raise ConfigError(f"level {k}: need 0 < small_blind <= big_blind")
            if level.ante < 0 or level.bring_in <= 0 or level.small_bet < 0 or level.big_bet < 0:
                raise ConfigError(f"level {k}: ante >= 0, bring_in > 0, bets >= 0")

    def level(self, index: int) -> Level:
        """The ``index``-th level (from 0)."""
        if index < len(self.levels):
            return self.levels[index]
        level = self.levels[-1]
        for _ in range(min(index - len(self.levels) + 1, MAX_LEVELS)):
            level = level.doubled()
        return level


def doubling(first: Level) -> LevelPlan:
    """Every level doubles every stake of the one before (seed 003 §3: 1/2, 2/4, 4/8, ...)."""
    return LevelPlan((first,))


def first_level_from_rules(rules: Rules, *, hands: int | None, seconds: float | None) -> Level:
    """The first level from a `[rules]` table's stakes (blinds, bets, ante, bring-in)."""
    s = rules.stakes
    return Level(s.small_blind, s.big_blind, s.ante, s.bring_in, s.small_bet, s.big_bet, hands,
                 seconds)


@dataclass(frozen=True, slots=True)
class LevelClock:
    """Where a table is in the level plan: the level and when (hands, seconds) it began."""

    index: int = 0
    started_hand: int = 0
    started_seconds: float = 0.0

    def advanced(self, plan: LevelPlan, *, hands_played: int, elapsed_seconds: float) -> LevelClock:
        """The clock after ``hands_played`` hands and ``elapsed_seconds``; levels change only
        between hands."""
        clock = self
        for _ in range(MAX_LEVELS * 4):
            level = plan.level(clock.index)
            over = ((level.hands is not None and hands_played - clock.started_hand >= level.hands)
                    or (level.seconds is not None
                        and elapsed_seconds - clock.started_seconds >= level.seconds))
            if not over or clock.index >= MAX_LEVELS:
                return clock
            started_seconds = (clock.started_seconds + level.seconds
                               if level.seconds is not None and level.hands is None
                               else elapsed_seconds)
            clock = LevelClock(clock.index + 1, hands_played, started_seconds)
        return clock

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LevelClock:
        return cls(int(data["index"]), int(data["started_hand"]), float(data["started_seconds"]))


def game_for_level(games: tuple[str, ...], index: int) -> str:
    """A mixed-game tournament changes game with the level (docs/house-rules.md §7 and §8)."""
    return games[index % len(games)]


_RULES_CACHE: dict[tuple[Rules, Level, str], Rules] = {}


def rules_for_level(base: Rules, level: Level, game: str) -> Rules:
    """The `[rules]` of one tournament hand: the level's stakes, one game, stacks carried."""
    key = (base, level, game)
    cached = _RULES_CACHE.get(key)
    if cached is not None:
        return cached
    values = base.to_mapping()
    values.update(games=[game], small_blind=level.small_blind, big_blind=level.big_blind,
                  ante=level.ante, bring_in=level.bring_in, small_bet=level.small_bet_chips,
                  big_bet=level.big_bet_chips, reset_stacks=False)
    values.pop("hands_per_game", None)
    rules = Rules.from_mapping(values)
    if len(_RULES_CACHE) > 512:
        _RULES_CACHE.clear()
    _RULES_CACHE[key] = rules
    return rules

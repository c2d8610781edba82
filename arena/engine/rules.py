"""The `[rules]` table of a match (docs/house-rules.md §10): typed, validated, with the documented
defaults."""

from __future__ import annotations

import dataclasses
import functools
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Final

from arena.engine.cards import RANKS
from arena.engine.configfile import FILLED_BY_CODE, Check, read_dataclass, require
from arena.engine.errors import ConfigError
from arena.engine.games import (
    ALL_VARIANTS,
    HORSE,
    AnteKind,
    Betting,
    GameCode,
    game_with_betting,
)
from arena.engine.timecontrol import expand_time_control


@dataclass(frozen=True, slots=True)
class Stakes:
    """The stakes of one hand, in chips (docs/house-rules.md §3)."""

    small_bet: int = 20
    big_bet: int = 40
    small_blind: int = 10
    big_blind: int = 20
    ante: int = 3
    bring_in: int = 5


_CODES: frozenset[str] = frozenset(GameCode)
STAKES_KEYS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(Stakes))


@dataclass(frozen=True, slots=True, kw_only=True)
class GameEntry:
    """What a `games` entry sets beyond its game (docs/house-rules.md §27, mixed rotations)."""

    hands: int | None = None  # hands dealt before the next game; None: `hands_per_game`
    stakes: Stakes | None = None  # this game's stakes; None: the match's


@dataclass(frozen=True, slots=True)
class Rules:
    """A match's rules; the stakes keys of the `[rules]` table are held in one :class:`Stakes`."""

    games: tuple[GameCode, ...] = HORSE
    hands_per_game: int | None = None  # None: the number of seats when the match starts
    stakes: Stakes = field(default=Stakes(), metadata=FILLED_BY_CODE)  # from the stakes keys
    starting_stack: int = 2000
    reset_stacks: bool = True
    max_raises: int = 3
    uncapped_heads_up: bool = True
    stud_open_pair_big_bet: bool = True
    stud_tie_break: str = "suit"
    burn_before_hole_cards: bool = False
    ante_kind: AnteKind = AnteKind.NONE  # antes in the blind games (docs/house-rules.md §4)
    decision_seconds: float = 2.0
    time_bank_seconds: float = 30.0
    timeout_action: str = "check_fold"
    # docs/house-rules.md §23: the wild ranks of seven-card stud with wild cards, as rank letters
    # (the usual preset: deuces wild). Engine-only so far (issue 42).
    wild_ranks: str = "2"
    # docs/house-rules.md §25 English Stud: the seventh card (down, five players or fewer) and the
    # price of one exchange, paid into the pot (not a bet). Engine-only so far (issue 42).
    english_seventh_card: bool = False
    exchange_price: int = 0
    # docs/house-rules.md §22 London Lowball: who brings it in, `"high"` (the highest up card,
    # as razz) or `"low"` (the lowest, as stud); §24 Low Hole: whether the ace is the highest
    # rank when finding the lowest down card. Engine-only so far (issue 42).
    london_lowball_bring_in: str = "high"
    low_hole_ace_high: bool = True
    # docs/house-rules.md §28 dealer's choice: `games` is the menu, and before each orbit a seat
    # chooses the game from it, within `choice_seconds` (None: `decision_seconds`).
    dealers_choice: bool = False
    choice_seconds: float | None = None
    # Per `games` entry (the same order; empty: none sets anything): its hands and stakes.
    game_entries: tuple[GameEntry | None, ...] = field(default=(), metadata=FILLED_BY_CODE)

    def stakes_for(self, entry: int) -> Stakes:
        """The stakes of the ``entry``-th game of the rotation."""
        settings = self.game_entries[entry] if self.game_entries else None
        return settings.stakes if settings is not None and settings.stakes else self.stakes

    def hands_for(self, entry: int, starting_seats: int) -> int:
        """How many hands the ``entry``-th game of the rotation deals in a row."""
        settings = self.game_entries[entry] if self.game_entries else None
        if settings is not None and settings.hands is not None:
            return settings.hands
        return self.hands_per_game or starting_seats

    @property
    def choice_time_seconds(self) -> float:
        """The time limit of a dealer's-choice decision (docs/house-rules.md §28)."""
        return self.choice_seconds if self.choice_seconds is not None else self.decision_seconds

    @property
    def wild_rank_set(self) -> frozenset[int]:
        """The ranks of :attr:`wild_ranks` (deuce 0 .. ace 12)."""
        return frozenset(RANKS.index(r) for r in self.wild_ranks)

    def __post_init__(self) -> None:
        # Known codes given as plain strings become GameCode members (unknown ones are left
        # for validate() to name).
        codes = tuple(GameCode(g) if g in _CODES else g for g in self.games)
        object.__setattr__(self, "games", codes)

    @classmethod
    def from_mapping(cls, values: Mapping[str, Any], *, where: str = "[rules]") -> Rules:
        """Build from a TOML `[rules]` table; unknown keys, wrong types and values out of
        range are errors naming ``where`` (e.g. ``league.toml [rules]``) and the key."""
        values = dict(values)
        expand_time_control(values, where)
        given: dict[str, Any] = {}
        stakes = read_dataclass(Stakes, {k: v for k, v in values.items() if k in STAKES_KEYS},
                                where=where, checks=CHECKS)
        if "games" in values:
            given["games"], entries = _games(values.pop("games"), where, stakes)
            if any(entry is not None for entry in entries):
                given["game_entries"] = entries
        rules = read_dataclass(cls, values, where=where, checks=CHECKS,
                               skip=frozenset(STAKES_KEYS), stakes=stakes, **given)
        rules.validate(where)
        return rules

    def with_overrides(self, assignments: Iterable[str]) -> Rules:
        """Apply `KEY=VALUE` strings (values in TOML syntax; bare words are strings)."""
        values = self.to_mapping()
        for assignment in assignments:
            key, sep, raw = assignment.partition("=")
            if not sep:
                raise ConfigError(f"expected KEY=VALUE, got {assignment!r}")
            if key.strip() == "time_control":  # sets both clock keys; a later --set may change one
                clocks = {"time_control": parse_value(raw.strip())}
                expand_time_control(clocks, "--set")
                values.update(clocks)
                continue
            values[key.strip()] = parse_value(raw.strip())
        return Rules.from_mapping(values, where="--set")

    def validate(self, where: str = "[rules]") -> None:
        """The checks across keys (each key's own range is in :data:`CHECKS`)."""
        require(bool(self.games), where, "'games' must name at least one game")
        require(not self.game_entries or len(self.game_entries) == len(self.games), where,
                "'game_entries' must have one entry per game")
        for game in self.games:
            # The games of issue 42 are on the wire (docs/house-rules.md §21-§26), logged and
            # replayed; what they still lack is listed in docs/games.md §4.
            require(game in ALL_VARIANTS, where,
                    f"unknown game {game!r} in 'games'; known: {', '.join(ALL_VARIANTS)}")
        require(all(r in RANKS for r in self.wild_ranks)
                and len(set(self.wild_ranks)) == len(self.wild_ranks) and len(self.wild_ranks) < 13,
                where, f"'wild_ranks' must name distinct ranks of {RANKS} (e.g. \"2\" for deuces "
                f"wild, \"\" for none), got {self.wild_ranks[:20]!r}")
        if self.dealers_choice:  # docs/house-rules.md §28: a menu of distinct games
            seen: set[str] = set()
            for game in self.games:
                require(game not in seen, where,
                        f"dealer's choice: 'games' is the menu and names {str(game)!r} twice; list "
                        f"each game once (a bot chooses a game, not an entry)")
                seen.add(game)
            require(all(e is None or e.hands is None for e in self.game_entries), where,
                    "dealer's choice: a chosen game is dealt for the rest of the orbit "
                    "('hands_per_game' hands); a 'games' entry may not set 'hands'")
        stakes = self.stakes
        require(stakes.big_bet >= stakes.small_bet, where,
                f"'big_bet' ({stakes.big_bet}) must be at least 'small_bet' ({stakes.small_bet})")

    def to_mapping(self) -> dict[str, Any]:
        """The flat `[rules]` table: the stakes keys beside the others."""
        out: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            if f.name == "stakes":
                out.update((key, getattr(self.stakes, key)) for key in STAKES_KEYS)
            else:
                out[f.name] = getattr(self, f.name)
        out["games"] = [str(g) for g in self.games]
        del out["game_entries"]
        for k, entry in enumerate(self.game_entries):
            if entry is not None:
                table: dict[str, Any] = {"game": str(self.games[k])}
                if entry.hands is not None:
                    table["hands"] = entry.hands
                if entry.stakes is not None:
                    table.update(dataclasses.asdict(entry.stakes))
                out["games"][k] = table
        out["ante_kind"] = str(self.ante_kind)
        if out["hands_per_game"] is None:
            del out["hands_per_game"]
        if not out["dealers_choice"]:  # as before §28: a fixed rotation's table is unchanged
            del out["dealers_choice"]
        if out["choice_seconds"] is None:
            del out["choice_seconds"]
        return out


# The keys a hand's play depends on beyond what its hand history holds (stakes, stacks, antes
# and blinds are PHH fields): every logged hand records them as ``_rules``, and a replay of
# the hand plays by them (`arena.engine.phh.replay`).
PLAY_KEYS: Final = ("max_raises", "uncapped_heads_up", "stud_open_pair_big_bet", "stud_tie_break",
                    "burn_before_hole_cards", "ante_kind")
# The keys of the games of issue 42 (docs/house-rules.md §22-§25): written to a hand's `_rules`
# only for those games (the other games' logs stay as they were), read back by a replay.
GAME_PLAY_KEYS: Final = ("wild_ranks", "english_seventh_card", "exchange_price",
                         "london_lowball_bring_in", "low_hole_ace_high")


@functools.lru_cache(maxsize=64)
def play_rules(rules: Rules, *, game_keys: bool = False) -> Mapping[str, Any]:
    """The :data:`PLAY_KEYS` of ``rules`` (read-only: one mapping per rules, shared by its hands),
    and with ``game_keys`` the :data:`GAME_PLAY_KEYS` too."""
    values = rules.to_mapping()
    keys = (*PLAY_KEYS, *GAME_PLAY_KEYS) if game_keys else PLAY_KEYS
    return MappingProxyType({key: values[key] for key in keys})


@functools.lru_cache(maxsize=64)
def _with_play_rules(rules: Rules, items: tuple[tuple[str, type, object], ...]) -> Rules:
    """(Each value's type is in the key: ``True == 1``, and a cached ``1`` must not pass for a
    ``true``.)"""
    values = rules.to_mapping()
    values.update((key, value) for key, _, value in items)
    return Rules.from_mapping(values, where="_rules")


def with_play_rules(rules: Rules, logged: object, *, where: str) -> Rules:
    """``rules`` with a logged hand's ``_rules`` in place of theirs: a table of :data:`PLAY_KEYS`
    with plain values (anything else is a :class:`ConfigError` naming ``where``, the hand)."""
    if not isinstance(logged, Mapping):
        raise ConfigError(f"{where}: _rules: expected a table of rules, got {type(logged).__name__}")
    unknown = sorted(str(key)[:40] for key in logged
                     if key not in PLAY_KEYS and key not in GAME_PLAY_KEYS)
    if unknown:
        raise ConfigError(f"{where}: _rules: not a rule a hand is played by: {', '.join(unknown)} "
                          f"(known: {', '.join([*PLAY_KEYS, *GAME_PLAY_KEYS])})")
    items = tuple(sorted((key, type(value), value) for key, value in logged.items()))
    for key, kind, value in items:
        if kind not in (bool, int, str):
            raise ConfigError(f"{where}: _rules: '{key}' must be a plain value, not {kind.__name__}")
        if kind is int and not -(2**63) <= value < 2**63:
            raise ConfigError(f"{where}: _rules: '{key}' is out of range")
    try:
        return _with_play_rules(rules, items)
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None


def hand_rules(rules: Rules, fields: Mapping[str, Any], *, where: str) -> Rules:
    """The rules a logged hand is played by: ``rules`` with its ``_rules`` field, if it has one."""
    if "_rules" not in fields:
        return rules
    return with_play_rules(rules, fields["_rules"], where=where)


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
    "exchange_price": Check(min=0, max=MAX_CHIPS),
    "starting_stack": Check(min=1, max=MAX_CHIPS),
    "max_raises": Check(min=0, max=1000),
    "stud_tie_break": Check(choices=("suit", "seat")),
    "london_lowball_bring_in": Check(choices=("high", "low")),
    "timeout_action": Check(choices=("check_fold",)),
    "decision_seconds": Check(min=0.001, max=MAX_SECONDS),
    "time_bank_seconds": Check(min=0.0, max=MAX_SECONDS),
    "choice_seconds": Check(min=0.001, max=MAX_SECONDS),
}

_BETTINGS: tuple[str, ...] = tuple(b.value for b in Betting)


def _games(value: Any, where: str, stakes: Stakes
           ) -> tuple[tuple[GameCode | str, ...], tuple[GameEntry | None, ...]]:
    """The `games` key: one code, or a list of entries (docs/house-rules.md §4 and §27), and
    what each entry sets beyond its game; unknown codes are left for :meth:`Rules.validate`."""
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list | tuple):
        raise ConfigError(f"{where}: 'games' must be an array of game codes, got {value!r}")
    if len(value) > 1000:
        raise ConfigError(f"{where}: 'games' may list at most 1000 games, got {len(value)}")
    codes = tuple(_game_entry(entry, where) for entry in value)
    return codes, tuple(_entry_settings(entry, where, stakes) for entry in value)


_ENTRY_KEYS = frozenset({"game", "betting", "hands", *STAKES_KEYS})


def _entry_settings(entry: Any, where: str, stakes: Stakes) -> GameEntry | None:
    """The hands and stakes a `games` table sets (its stakes keys over the match's)."""
    if not isinstance(entry, Mapping) or not (_ENTRY_KEYS - {"game", "betting"}) & set(entry):
        return None
    hands = entry.get("hands")
    if hands is not None and (type(hands) is not int or not 1 <= hands <= 10**6):
        raise ConfigError(f"{where}: 'hands' of a 'games' entry must be an integer from 1 to "
                          f"1000000, got {hands!r}")
    given = {k: v for k, v in entry.items() if k in STAKES_KEYS}
    game_stakes = None
    if given:
        game_stakes = read_dataclass(Stakes, {**dataclasses.asdict(stakes), **given},
                                     where=f"{where} 'games' entry {entry.get('game')!r}",
                                     checks=CHECKS)
        require(game_stakes.big_bet >= game_stakes.small_bet, where,
                f"'big_bet' must be at least 'small_bet' in 'games' entry {entry.get('game')!r}")
    return GameEntry(hands=hands, stakes=game_stakes)


def _game_entry(entry: Any, where: str) -> GameCode | str:
    """A `games` entry: a game code, or a table ``{game = CODE, betting = ..., hands = ...,
    small_bet = ..., ...}`` (its stakes keys: :data:`STAKES_KEYS`)."""
    if isinstance(entry, str):
        return entry
    if not isinstance(entry, Mapping):
        raise ConfigError(f"{where}: a 'games' entry must be a game code or a table "
                          f"{{game, betting, hands, stakes keys}}, got {entry!r}")
    unknown = set(entry) - _ENTRY_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown key {sorted(unknown)[0]!r} in 'games' entry "
                          f"{entry!r}; known: game, betting, hands, {', '.join(STAKES_KEYS)}")
    game = entry.get("game")
    if not isinstance(game, str):
        raise ConfigError(f"{where}: a 'games' entry needs a 'game' code, got {entry!r}")
    code = GameCode.parse(game)
    betting = entry.get("betting")
    if betting is None:
        return code
    if betting not in _BETTINGS:
        raise ConfigError(f"{where}: 'betting' must be one of {', '.join(map(repr, _BETTINGS))}, "
                          f"got {betting!r}")
    return game_with_betting(code, Betting(betting))


def parse_value(raw: str) -> Any:
    """A TOML value, or the raw text as a string when it is not one (so `stud_tie_break=seat` works)."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw

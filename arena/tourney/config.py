"""Tournament files (TOML): the bots, the format (freeze-out or the seed-003 preset), levels, sizes."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine.configfile import FILLED_BY_CODE, Check, require
from arena.engine.errors import ConfigError
from arena.engine.rules import Rules
from arena.host.configfile import read_toml
from arena.league.config import LeagueBot, _store_location, _typed, league_from_mapping
from arena.tourney.formats import FORMATS, TournamentFormat
from arena.tourney.levels import Level, LevelPlan, first_level_from_rules

_KEYS = {"name", "format", "seed", "listen", "log_dir", "store", "metrics_port", "start_timeout_seconds",
         "starting_stack", "seats_per_table", "tables", "advance_per_table", "tournaments",
         "tie_break_stack", "levels", "tie_break_levels", "rules", "bots", "max_cpu_share"}
_LEVEL_KEYS = {"small_blind", "big_blind", "ante", "bring_in", "small_bet", "big_bet", "hands",
               "minutes"}
TOURNAMENT_DEFAULTS = {"store": "tournament.sqlite", "log_dir": "tournament-logs"}
LEAGUE_DEFAULTS = {"store": "league.sqlite", "log_dir": "league-logs"}
SEED_003_GAMES = ("NT",)  # seed 003 §1: Texas hold'em, no limit


@dataclass(frozen=True, slots=True)
class TournamentConfig:
    name: str
    bots: tuple[LeagueBot, ...]
    format: TournamentFormat
    rules: Rules
    listen: str = "127.0.0.1:50051"
    log_dir: Path = Path("tournament-logs")
    store: Path | str = Path("tournament.sqlite")  # an SQLite file, or a postgresql:// URL
    metrics_port: int | None = None
    start_timeout_seconds: float = 30.0
    source_toml: str = field(default="", repr=False, metadata=FILLED_BY_CODE)  # the file's text


def load_tournament(path: str | Path, *, league_file: bool = False) -> TournamentConfig:
    """A tournament file, or a league file whose ``format`` is a tournament format (its store
    and logs then default to the league's ``league.sqlite`` and ``league-logs``)."""
    path = Path(path)
    data, text = read_toml(path, what="league" if league_file else "tournament")
    return tournament_from_mapping(data, base_dir=path.parent, where=str(path), source_toml=text,
                                   defaults=LEAGUE_DEFAULTS if league_file else TOURNAMENT_DEFAULTS)


def is_tournament_league(path: str | Path) -> bool:
    """True when a league file asks for a tournament (``format = "seed-003"`` or "freezeout")."""
    data, _ = read_toml(path, what="league")
    return data.get("format") in FORMATS


def _level(entry: Any, where: str, default: Level | None = None) -> Level:
    require(isinstance(entry, dict), where, f"a level is a table of {sorted(_LEVEL_KEYS)}")
    unknown = sorted(set(entry) - _LEVEL_KEYS)
    require(not unknown, where, f"unknown level key(s) {unknown}; known: {sorted(_LEVEL_KEYS)}")
    base = default or Level(0, 0)
    values: dict[str, int] = {}
    for key in ("small_blind", "big_blind", "ante", "bring_in", "small_bet", "big_bet"):
        value = _typed(entry, key, int, getattr(base, key), where)
        require(value is not None and 0 <= value <= 10**12, where,
                f"'{key}' must be a whole number of chips (0 to 10^12)")
        values[key] = value
    hands = _typed(entry, "hands", int, None, where)
    minutes = _typed(entry, "minutes", float, None, where)  # finite, as every number read
    require(minutes is None or 0 < minutes <= 10_000, where,
            "'minutes' must be positive and at most 10000")
    if hands is None and minutes is None:
        hands, seconds = base.hands, base.seconds
    else:
        seconds = minutes * 60.0 if minutes is not None else None
    if values["bring_in"] == 0:
        values["bring_in"] = max(1, values["big_blind"] // 4)
    return Level(hands=hands, seconds=seconds, **values)


def _plan(raw: Any, where: str, default: Level) -> LevelPlan:
    if raw is None:
        return LevelPlan((default,))
    require(isinstance(raw, dict), where, "must be a table")
    table = raw.get("table")
    if table is None:
        return LevelPlan((_level(raw, where, default),))
    require(set(raw) == {"table"} and isinstance(table, list) and 1 <= len(table) <= 200, where,
            "give either one doubling level or 'table' = a list of 1 to 200 levels")
    return LevelPlan(tuple(_level(e, f"{where}.table[{k}]") for k, e in enumerate(table)))


def tournament_from_mapping(data: dict[str, Any], *, base_dir: Path = Path("."),
                            where: str = "tournament file", source_toml: str = "",
                            defaults: dict[str, str] = TOURNAMENT_DEFAULTS) -> TournamentConfig:
    unknown = sorted(set(data) - _KEYS)
    require(not unknown, where, f"unknown key(s) {unknown}; known: {sorted(_KEYS)}")
    fmt_name = _typed(data, "format", str, "freezeout", where)
    require(fmt_name in FORMATS, where, f"unknown format {fmt_name!r}; known: {', '.join(FORMATS)}")
    # The bots and the [rules] table are read as a league file reads them.
    # (and hosted bots' packages capped by 'max_cpu_share', as a league caps them).
    shared = {k: data[k] for k in ("max_cpu_share",) if k in data}
    rules_table = data.get("rules", {})
    require(not (isinstance(rules_table, dict) and rules_table.get("dealers_choice") is True), where,
            "a tournament changes the game with the level (docs/house-rules.md §8); dealer's "
            "choice (§28) is dealt in matches and leagues only")
    league = league_from_mapping({"bots": data.get("bots"), "rules": rules_table, **shared},
                                 base_dir=base_dir, where=where)  # packages: beside the file
    rules = league.rules
    is_seed_003 = fmt_name == "seed-003"
    games = rules.games if "games" in rules_table or not is_seed_003 else SEED_003_GAMES
    stack = _typed(data, "starting_stack", int, 390 if is_seed_003 else rules.starting_stack, where)
    # Seed 003: 1/2, doubled (§3: every 10 minutes; §6, the tie-breaks: every 5 minutes).
    first = Level(1, 2, 0, 1, hands=10) if is_seed_003 else first_level_from_rules(rules, hands=10,
                                                                                 seconds=None)
    tie_first = Level(1, 2, 0, 1, hands=5) if is_seed_003 else first
    counts = {key: _typed(data, key, int, default, where) for key, default in (
        ("seats_per_table", 8), ("tables", 2), ("advance_per_table", 3), ("tournaments", 2))}
    for key, value in counts.items():
        require(1 <= value <= 10_000, where, f"'{key}' must be 1 to 10000")
    seed = _typed(data, "seed", int, None, where)
    require(seed is not None, where,
            "give the tournament a secret 'seed' (an integer); the draw and every deal derive from it")
    fmt = TournamentFormat(
        fmt_name, tuple(b.name for b in league.bots), seed, games,
        _plan(data.get("levels"), f"{where}: [levels]", first), stack,
        max_seats=counts["seats_per_table"], tables=counts["tables"],
        advance_per_table=counts["advance_per_table"], tournaments=counts["tournaments"],
        tie_break_stack=_typed(data, "tie_break_stack", int, 215, where),
        tie_break_plan=_plan(data.get("tie_break_levels"), f"{where}: [tie_break_levels]",
                             tie_first))
    try:
        fmt.validate()
    except ConfigError as exc:
        raise ConfigError(f"{where}: {exc}") from None
    start_timeout = _typed(data, "start_timeout_seconds", float, 30.0, where, Check(min=0, max=86_400))
    return TournamentConfig(
        name=_typed(data, "name", str, "tournament", where), bots=league.bots, format=fmt,
        rules=rules, listen=_typed(data, "listen", str, "127.0.0.1:50051", where),
        log_dir=base_dir / _typed(data, "log_dir", str, defaults["log_dir"], where),
        store=_store_location(_typed(data, "store", str, defaults["store"], where), base_dir),
        metrics_port=_typed(data, "metrics_port", int, None, where),
        start_timeout_seconds=start_timeout, source_toml=source_toml)

"""League files (TOML): the bots, the format, hands per match, duplicate, tables at once."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine.errors import ConfigError
from arena.engine.rules import Rules
from arena.league.schedule import FORMATS
from arena.match.spec import AbsentPolicy

_KEYS = {"name", "format", "seats_per_table", "tables", "rounds", "hero", "hands_per_match",
         "duplicate", "tables_at_once", "seed", "listen", "store", "log_dir", "metrics_port",
         "start_timeout_seconds", "absent", "rules", "bots"}


@dataclass(frozen=True, slots=True)
class LeagueBot:
    name: str
    token: str


@dataclass(frozen=True, slots=True)
class LeagueConfig:
    name: str
    bots: tuple[LeagueBot, ...]
    format: str = "round_robin"
    seats_per_table: int = 2
    tables: int = 1  # multiway: line-ups per round; gauntlet: tables at most
    rounds: int = 1
    hero: str | None = None
    hands_per_match: int = 100
    duplicate: bool = True
    tables_at_once: int = 4
    seed: int = 1
    listen: str = "127.0.0.1:50051"
    store: Path = Path("league.sqlite")
    log_dir: Path = Path("league-logs")
    metrics_port: int | None = None
    start_timeout_seconds: float = 30.0
    absent: AbsentPolicy = AbsentPolicy.WAIT
    rules: Rules = field(default_factory=Rules)
    source_toml: str = ""


def load_league(path: str | Path) -> LeagueConfig:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read league file {path}: {exc}") from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    return league_from_mapping(data, base_dir=path.parent, source_toml=text, where=str(path))


def _typed(data: dict[str, Any], key: str, kind: type, default: Any, where: str) -> Any:
    value = data.get(key, default)
    if kind is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if value is not None and (not isinstance(value, kind) or (kind is int and isinstance(value, bool))):
        raise ConfigError(f"{where}: '{key}' must be {kind.__name__}, got {value!r}")
    return value


def league_from_mapping(data: dict[str, Any], *, base_dir: Path = Path("."), source_toml: str = "",
                        where: str = "league file") -> LeagueConfig:
    unknown = sorted(set(data) - _KEYS)
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {unknown}; known: {sorted(_KEYS)}")
    raw_bots = data.get("bots")
    if not isinstance(raw_bots, list) or len(raw_bots) < 2:
        raise ConfigError(f"{where}: list at least two bots as [[bots]] with name and token")
    bots: list[LeagueBot] = []
    for k, entry in enumerate(raw_bots):
        if not isinstance(entry, dict) or set(entry) - {"name", "token"}:
            raise ConfigError(f"{where}: bots[{k}] must have exactly 'name' and 'token'")
        name, token = entry.get("name"), entry.get("token")
        if not isinstance(name, str) or not name or not isinstance(token, str) or len(token) < 8:
            raise ConfigError(f"{where}: bots[{k}] needs a name and a token of 8+ characters")
        bots.append(LeagueBot(name, token))
    names = [b.name for b in bots]
    if len(set(names)) != len(names):
        raise ConfigError(f"{where}: bot names must be unique")
    if len({b.token for b in bots}) != len(bots):
        raise ConfigError(f"{where}: every bot needs its own token")
    fmt = _typed(data, "format", str, "round_robin", where)
    if fmt not in FORMATS:
        raise ConfigError(f"{where}: unknown format {fmt!r}; known: {', '.join(FORMATS)}")
    rules_table = data.get("rules", {})
    if not isinstance(rules_table, dict):
        raise ConfigError(f"{where}: [rules] must be a table")
    metrics_port = _typed(data, "metrics_port", int, None, where)
    absent = _typed(data, "absent", str, "wait", where)
    if absent not in {p.value for p in AbsentPolicy}:
        raise ConfigError(f"{where}: 'absent' must be one of "
                          f"{', '.join(repr(p.value) for p in AbsentPolicy)}, got {absent!r}")
    config = LeagueConfig(
        name=_typed(data, "name", str, "league", where),
        bots=tuple(bots),
        format=fmt,
        seats_per_table=_typed(data, "seats_per_table", int, 2, where),
        tables=_typed(data, "tables", int, 1, where),
        rounds=_typed(data, "rounds", int, 1, where),
        hero=_typed(data, "hero", str, None, where),
        hands_per_match=_typed(data, "hands_per_match", int, 100, where),
        duplicate=_typed(data, "duplicate", bool, True, where),
        tables_at_once=_typed(data, "tables_at_once", int, 4, where),
        seed=_typed(data, "seed", int, 1, where),
        listen=_typed(data, "listen", str, "127.0.0.1:50051", where),
        store=base_dir / _typed(data, "store", str, "league.sqlite", where),
        log_dir=base_dir / _typed(data, "log_dir", str, "league-logs", where),
        metrics_port=metrics_port,
        start_timeout_seconds=_typed(data, "start_timeout_seconds", float, 30.0, where),
        absent=AbsentPolicy(absent),
        rules=Rules.from_mapping(rules_table),
        source_toml=source_toml,
    )
    timeout = config.start_timeout_seconds
    if not (0 < timeout <= 86_400):  # also refuses NaN
        raise ConfigError(f"{where}: 'start_timeout_seconds' must be more than 0 and at most 86400, "
                          f"got {timeout!r}")
    for key in ("hands_per_match", "tables_at_once", "rounds", "tables"):
        if getattr(config, key) <= 0:
            raise ConfigError(f"{where}: '{key}' must be positive")
    if config.format == "round_robin" and config.seats_per_table != 2:
        raise ConfigError(f"{where}: a round robin is heads-up: seats_per_table must be 2")
    return config

"""`arena serve` configuration: a TOML file with the seats, their tokens, the tables and rules.

See ``deploy/match.toml`` for a commented example. Unknown keys are errors, so a typo never
silently falls back to a default.
"""

from __future__ import annotations

import secrets
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine.cards import derive_seed
from arena.engine.errors import ConfigError
from arena.engine.rules import Rules
from arena.match.spec import MatchSpec, SeatSpec


@dataclass(frozen=True, slots=True)
class BotEntry:
    name: str
    bot_id: str
    token: str


@dataclass(frozen=True, slots=True)
class TlsConfig:
    cert_path: Path
    key_path: Path


@dataclass(frozen=True, slots=True)
class Limits:
    """Per-connection protection of the dealer (issue "bad input")."""

    max_message_bytes: int = 64 * 1024  # larger bot messages are refused by gRPC
    max_queued_messages: int = 4096  # undelivered messages before a non-reading bot is cut
    messages_per_second: float = 1000.0  # sustained inbound rate per stream ...
    message_burst: int = 2000  # ... and the burst above it, before RESOURCE_EXHAUSTED
    hello_timeout_seconds: float = 10.0
    event_flush_seconds: float = 0.1  # batching bots: events wait at most this long
    flush_on_close_seconds: float = 2.0  # time to send what is queued when the server stops


@dataclass(frozen=True, slots=True)
class ServerConfig:
    listen: str
    bots: tuple[BotEntry, ...]
    matches: tuple[MatchSpec, ...]
    log_dir: Path | None = None
    tls: TlsConfig | None = None
    limits: Limits = field(default_factory=Limits)


_TOP_KEYS = {"listen", "log_dir", "hands", "seed", "match_id", "start_timeout_seconds", "tls",
             "limits", "rules", "seats", "tables"}
_TABLE_KEYS = {"id", "seats", "hands", "seed", "rules", "start_timeout_seconds"}


def load_config(path: str | Path, *, listen: str | None = None,
                log_dir: str | Path | None = None) -> ServerConfig:
    """Read a config file; relative paths in it are relative to the file's directory."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ConfigError(f"cannot read config {path}: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: not valid TOML: {exc}") from None
    if listen is not None:
        data["listen"] = listen
    if log_dir is not None:
        data["log_dir"] = str(Path(log_dir).resolve())
    return config_from_mapping(data, base_dir=path.parent)


def config_from_mapping(data: Mapping[str, Any], *, base_dir: Path = Path(".")) -> ServerConfig:
    _check_keys(data, _TOP_KEYS, "the config")
    bots = _bots(data.get("seats"))
    by_name = {b.name: b for b in bots}
    rules = Rules.from_mapping(_table(data, "rules"))
    hands = _int(data, "hands", 100)
    seed = data.get("seed")
    if seed is None:
        seed = secrets.randbits(63)  # secret until the match ends (RULES.md §1)
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ConfigError(f"'seed' must be an integer, got {seed!r}")
    start_timeout = _float(data, "start_timeout_seconds", 30.0)
    tables = data.get("tables")
    matches: list[MatchSpec] = []
    if tables is None:
        match_id = data.get("match_id", "match")
        if not isinstance(match_id, str) or not match_id:
            raise ConfigError("'match_id' must be a non-empty string")
        matches.append(MatchSpec(match_id, tuple(SeatSpec(b.name, b.bot_id) for b in bots), rules,
                                 hands, seed, start_timeout))
    else:
        if not isinstance(tables, list) or not tables:
            raise ConfigError("'tables' must be a non-empty array of tables ([[tables]])")
        for k, table in enumerate(tables):
            if not isinstance(table, dict):
                raise ConfigError(f"tables[{k}] must be a table")
            matches.append(_match(table, k, by_name, rules, hands, seed, start_timeout))
    ids = [mt.match_id for mt in matches]
    if len(set(ids)) != len(ids):
        raise ConfigError(f"table ids must be unique, got {ids}")
    for match in matches:
        if not 2 <= len(match.seats) <= 8:
            raise ConfigError(f"table {match.match_id!r} needs 2 to 8 seats, "
                              f"got {len(match.seats)}")
        if match.hands <= 0:
            raise ConfigError(f"table {match.match_id!r}: 'hands' must be positive")
    listen = data.get("listen", "127.0.0.1:50051")
    if not isinstance(listen, str) or ":" not in listen:
        raise ConfigError(f"'listen' must be HOST:PORT, got {listen!r}")
    log_dir = data.get("log_dir")
    if log_dir is not None and not isinstance(log_dir, str):
        raise ConfigError("'log_dir' must be a path")
    return ServerConfig(
        listen=listen,
        bots=bots,
        matches=tuple(matches),
        log_dir=(base_dir / log_dir).resolve() if log_dir else None,
        tls=_tls(data.get("tls"), base_dir),
        limits=_limits(_table(data, "limits")),
    )


def _match(table: Mapping[str, Any], index: int, by_name: Mapping[str, BotEntry], rules: Rules,
           hands: int, seed: int, start_timeout: float) -> MatchSpec:
    _check_keys(table, _TABLE_KEYS, f"tables[{index}]")
    match_id = table.get("id", f"table-{index + 1}")
    if not isinstance(match_id, str) or not match_id:
        raise ConfigError(f"tables[{index}].id must be a non-empty string")
    names = table.get("seats")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ConfigError(f"table {match_id!r}: 'seats' must be a list of seat names")
    if len(set(names)) != len(names):
        raise ConfigError(f"table {match_id!r}: a bot can have only one seat at a table")
    unknown = [n for n in names if n not in by_name]
    if unknown:
        raise ConfigError(f"table {match_id!r}: unknown seat name(s) {unknown}; "
                          f"known: {sorted(by_name)}")
    overrides = table.get("rules", {})
    if not isinstance(overrides, dict):
        raise ConfigError(f"table {match_id!r}: 'rules' must be a table")
    if overrides:
        rules = Rules.from_mapping({**rules.to_mapping(), **overrides})
    table_seed = table.get("seed", derive_seed(seed, "table", match_id))
    if not isinstance(table_seed, int) or isinstance(table_seed, bool):
        raise ConfigError(f"table {match_id!r}: 'seed' must be an integer")
    return MatchSpec(match_id, tuple(SeatSpec(n, by_name[n].bot_id) for n in names), rules,
                     _int(table, "hands", hands), table_seed,
                     _float(table, "start_timeout_seconds", start_timeout))


def _bots(value: Any) -> tuple[BotEntry, ...]:
    if not isinstance(value, list) or not value:
        raise ConfigError("the config needs [[seats]] entries with a name and a token")
    bots: list[BotEntry] = []
    for k, entry in enumerate(value):
        if not isinstance(entry, dict):
            raise ConfigError(f"seats[{k}] must be a table")
        _check_keys(entry, {"name", "token", "id"}, f"seats[{k}]")
        name, token = entry.get("name"), entry.get("token")
        if not isinstance(name, str) or not name:
            raise ConfigError(f"seats[{k}] needs a 'name'")
        if not isinstance(token, str) or len(token) < 8:
            raise ConfigError(f"seat {name!r} needs a 'token' of at least 8 characters")
        bot_id = entry.get("id", name)
        if not isinstance(bot_id, str) or not bot_id:
            raise ConfigError(f"seat {name!r}: 'id' must be a non-empty string")
        bots.append(BotEntry(name, bot_id, token))
    for what, values in (("name", [b.name for b in bots]), ("token", [b.token for b in bots]),
                         ("id", [b.bot_id for b in bots])):
        if len(set(values)) != len(values):
            raise ConfigError(f"every seat needs its own {what}")
    return tuple(bots)


def _tls(value: Any, base_dir: Path) -> TlsConfig | None:
    if value is None:
        return None
    if not isinstance(value, dict):
        raise ConfigError("[tls] must be a table with 'cert' and 'key'")
    _check_keys(value, {"cert", "key"}, "[tls]")
    cert, key = value.get("cert"), value.get("key")
    if not isinstance(cert, str) or not isinstance(key, str):
        raise ConfigError("[tls] needs both 'cert' and 'key' (PEM file paths)")
    return TlsConfig(base_dir / cert, base_dir / key)


def _limits(values: Mapping[str, Any]) -> Limits:
    defaults = Limits()
    known = {name for name in Limits.__dataclass_fields__}
    _check_keys(values, known, "[limits]")
    kwargs: dict[str, Any] = {}
    for key, value in values.items():
        expected = type(getattr(defaults, key))
        if expected is float and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, expected) or isinstance(value, bool) or value < 0:
            raise ConfigError(f"[limits] {key} must be a non-negative {expected.__name__}")
        kwargs[key] = value
    return Limits(**kwargs)


def _table(data: Mapping[str, Any], key: str) -> dict[str, Any]:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise ConfigError(f"[{key}] must be a table")
    return value


def _check_keys(data: Mapping[str, Any], known: set[str], where: str) -> None:
    unknown = sorted(set(data) - known)
    if unknown:
        raise ConfigError(f"unknown key(s) {unknown} in {where}; known: {sorted(known)}")


def _int(data: Mapping[str, Any], key: str, default: int) -> int:
    value = data.get(key, default)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ConfigError(f"{key!r} must be an integer, got {value!r}")
    return value


def _float(data: Mapping[str, Any], key: str, default: float) -> float:
    value = data.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise ConfigError(f"{key!r} must be a non-negative number, got {value!r}")
    return float(value)

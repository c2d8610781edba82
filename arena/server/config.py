"""`arena serve` configuration: a TOML file with the seats, their tokens, the tables and rules.

See ``deploy/match.toml`` for a commented example. Unknown keys are errors, so a typo never
silently falls back to a default.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine.configfile import Check, check_keys, read_dataclass, require, table, tables
from arena.engine.games import max_seats
from arena.engine.rules import Rules
from arena.engine.seeds import derive_secret
from arena.host.configfile import read_toml
from arena.host.secret import new_secret
from arena.match.spec import AbsentPolicy, MatchSpec, SeatSpec


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
    """Per-connection protection of the dealer: every bot is bounded in memory, bandwidth and CPU."""

    max_message_bytes: int = 64 * 1024  # larger bot messages are refused by gRPC
    max_queued_messages: int = 4096  # undelivered messages before a non-reading bot is cut ...
    max_queued_bytes: int = 4 * 1024 * 1024  # ... or undelivered bytes, whichever comes first
    # Inbound messages per stream: each decision request sent gives one back (answers are free
    # however many seats a stream holds, while at most `message_burst` requests are open at
    # once), and what a bot sends beyond that may reach this sustained rate ...
    messages_per_second: float = 1000.0
    message_burst: int = 200  # ... and the burst above it (a flood is cut within 0.5 s)
    bytes_per_second: float = 1024.0 * 1024.0  # the same for inbound bytes ...
    byte_burst: int = 2 * 1024 * 1024  # ... (a byte flood is cut within milliseconds)
    flood_backoff_seconds: float = 1.0  # a bot cut for flooding waits this long to come back,
    flood_backoff_max_seconds: float = 60.0  # doubling with every cut up to this
    auth_failure_delay_seconds: float = 0.1  # failed authentications per peer address: the
    auth_failure_max_delay_seconds: float = 30.0  # answer is delayed, doubling up to this
    allow_takeover: bool = False  # a second stream with a connected bot's token takes over
    hello_timeout_seconds: float = 10.0
    # Batching bots get events with their next request (one write per decision), at the
    # match's end, or at most this much later (a seat that has folded in a slow hand).
    event_flush_seconds: float = 1.0
    flush_on_close_seconds: float = 2.0  # time to send what is queued when the server stops


@dataclass(frozen=True, slots=True)
class ServerConfig:
    listen: str
    bots: tuple[BotEntry, ...]
    matches: tuple[MatchSpec, ...]
    log_dir: Path | None = None
    tls: TlsConfig | None = None
    limits: Limits = field(default_factory=Limits)
    # Also listen on this Unix socket (plaintext, owner-only directory): hosted bots' sandboxes
    # reach the dealer through it (arena.server.hosted).
    unix_socket: Path | None = None


LIMIT_CHECKS: dict[str, Check] = {
    "max_message_bytes": Check(min=1024, max=64 * 1024 * 1024),
    "max_queued_messages": Check(min=1, max=10**6),
    "max_queued_bytes": Check(min=64 * 1024, max=2**30),
    "messages_per_second": Check(min=1, max=1e9),
    "message_burst": Check(min=1, max=10**9),
    "bytes_per_second": Check(min=1024, max=1e12),
    "byte_burst": Check(min=1024, max=10**12),
    "flood_backoff_seconds": Check(min=0, max=86_400),
    "flood_backoff_max_seconds": Check(min=0, max=86_400),
    "auth_failure_delay_seconds": Check(min=0, max=3600),
    "auth_failure_max_delay_seconds": Check(min=0, max=3600),
    "hello_timeout_seconds": Check(min=0.001, max=3600),
    "event_flush_seconds": Check(min=0, max=60),
    "flush_on_close_seconds": Check(min=0, max=600),
}
MAX_HANDS = 10_000_000  # per match
MAX_ID_CHARS = 64  # match and bot ids (they become file names and decision ids)


@dataclass(frozen=True, slots=True)
class _ServeFile:
    """The top-level keys of a serve config (its tables are read below)."""

    listen: str = "127.0.0.1:50051"
    log_dir: Path | None = None
    hands: int = 100
    seed: int | None = None
    match_id: str = "match"
    start_timeout_seconds: float = 30.0
    absent: AbsentPolicy = AbsentPolicy.CHECK_FOLD  # bots missing at the start timeout


@dataclass(frozen=True, slots=True)
class _SeatEntry:
    name: str
    token: str
    id: str | None = None


@dataclass(frozen=True, slots=True)
class _TableEntry:
    seats: tuple[str, ...]
    id: str | None = None
    hands: int | None = None
    seed: int | None = None
    start_timeout_seconds: float | None = None


_COUNTS = {"hands": Check(min=1, max=MAX_HANDS), "seed": Check(min=0),
           "start_timeout_seconds": Check(min=0, max=86_400)}
_STRUCTURE = frozenset({"tls", "limits", "rules", "seats", "tables"})


def load_config(path: str | Path, *, listen: str | None = None,
                log_dir: str | Path | None = None) -> ServerConfig:
    """Read a config file; relative paths in it are relative to the file's directory."""
    path = Path(path)
    data, _text = read_toml(path, what="match config")
    if listen is not None:
        data["listen"] = listen
    if log_dir is not None:
        data["log_dir"] = str(Path(log_dir).resolve())
    return config_from_mapping(data, base_dir=path.parent, where=str(path))


def config_from_mapping(data: Mapping[str, Any], *, base_dir: Path = Path("."),
                        where: str = "the config") -> ServerConfig:
    top = read_dataclass(_ServeFile, data, where=where, checks=_COUNTS, skip=_STRUCTURE)
    bots = _bots(tables(data, "seats", where), where)
    by_name = {b.name: b for b in bots}
    rules = Rules.from_mapping(table(data, "rules", where), where=f"{where} [rules]")
    seed = top.seed
    if seed is None:
        seed = new_secret()  # secret until the match ends (docs/house-rules.md §1)
    listen = check_listen(top.listen, where)
    matches: list[MatchSpec] = []
    if "tables" not in data:
        match_id = check_id(top.match_id, where, "match_id")
        matches.append(MatchSpec(match_id, tuple(SeatSpec(b.name, b.bot_id) for b in bots), rules,
                                 top.hands, seed, top.start_timeout_seconds))
    else:
        entries = tables(data, "tables", where)
        require(bool(entries), where, "'tables' must be a non-empty array of tables ([[tables]])")
        for k, entry in enumerate(entries):
            matches.append(_match(entry, f"{where} tables[{k}]", k, by_name, rules, top, seed))
    matches = [dataclasses.replace(mt, absent=top.absent) for mt in matches]
    ids = [mt.match_id for mt in matches]
    require(len(set(ids)) == len(ids), where, f"table ids must be unique, got {ids}")
    for match in matches:
        most = max_seats(match.rules.games)  # docs/house-rules.md §20: by the games it deals
        require(2 <= len(match.seats) <= most, where, f"table {match.match_id!r} needs 2 to {most} "
                f"seats for {', '.join(match.rules.games)}, got {len(match.seats)}")
    return ServerConfig(
        listen=listen,
        bots=bots,
        matches=tuple(matches),
        log_dir=(base_dir / top.log_dir).resolve() if top.log_dir else None,
        tls=_tls(data, base_dir, where),
        limits=read_limits(table(data, "limits", where), where=f"{where} [limits]"),
    )


def read_limits(values: Mapping[str, Any], *, where: str) -> Limits:
    limits = read_dataclass(Limits, values, where=where, checks=LIMIT_CHECKS)
    require(limits.byte_burst >= limits.max_message_bytes, where,
            f"'byte_burst' ({limits.byte_burst}) must be at least 'max_message_bytes' "
            f"({limits.max_message_bytes}), or every largest message would be a flood")
    require(limits.flood_backoff_max_seconds >= limits.flood_backoff_seconds, where,
            "'flood_backoff_max_seconds' must be at least 'flood_backoff_seconds'")
    require(limits.auth_failure_max_delay_seconds >= limits.auth_failure_delay_seconds, where,
            "'auth_failure_max_delay_seconds' must be at least 'auth_failure_delay_seconds'")
    return limits


def check_listen(listen: str, where: str, key: str = "listen") -> str:
    """``HOST:PORT`` with a port of 1-65535 (0: any free port)."""
    host, sep, port = listen.rpartition(":")
    require(bool(sep and host and port.isdigit()) and 0 <= int(port) <= 65535, where,
            f"'{key}' must be HOST:PORT with a port from 1 to 65535 (0: any free port), "
            f"got {listen[:80]!r}")
    return listen


def check_id(value: str, where: str, key: str) -> str:
    """A match or bot id (or name): 1 to MAX_ID_CHARS printable characters."""
    require(0 < len(value) <= MAX_ID_CHARS and value.isprintable(), where,
            f"'{key}' must be 1 to {MAX_ID_CHARS} printable characters, got {value[:80]!r}")
    return value


def _match(data: Mapping[str, Any], where: str, index: int, by_name: Mapping[str, BotEntry],
           rules: Rules, top: _ServeFile, seed: int) -> MatchSpec:
    entry = read_dataclass(_TableEntry, data, where=where, checks=_COUNTS, skip=frozenset({"rules"}))
    match_id = check_id(entry.id if entry.id is not None else f"table-{index + 1}", where, "id")
    names = list(entry.seats)
    require(len(set(names)) == len(names), where, "a bot can have only one seat at a table")
    unknown = [n for n in names if n not in by_name]
    require(not unknown, where, f"unknown seat name(s) {unknown}; known: {sorted(by_name)}")
    overrides = table(data, "rules", where)
    if overrides:
        rules = Rules.from_mapping({**rules.to_mapping(), **overrides}, where=f"{where} [rules]")
    table_seed = entry.seed if entry.seed is not None else derive_secret(seed, "table", match_id)
    return MatchSpec(match_id, tuple(SeatSpec(n, by_name[n].bot_id) for n in names), rules,
                     entry.hands if entry.hands is not None else top.hands, table_seed,
                     entry.start_timeout_seconds if entry.start_timeout_seconds is not None
                     else top.start_timeout_seconds)


def _bots(entries: list[dict[str, Any]], where: str) -> tuple[BotEntry, ...]:
    require(bool(entries), where, "the config needs [[seats]] entries with a name and a token")
    bots: list[BotEntry] = []
    for k, data in enumerate(entries):
        entry = read_dataclass(_SeatEntry, data, where=f"{where} seats[{k}]")
        name = check_id(entry.name, f"{where} seats[{k}]", "name")
        require(8 <= len(entry.token) <= 512, where,
                f"seat {name!r} needs a 'token' of at least 8 characters (and at most 512)")
        bot_id = check_id(entry.id if entry.id is not None else name, f"{where} seats[{k}]", "id")
        bots.append(BotEntry(name, bot_id, entry.token))
    for what, values in (("name", [b.name for b in bots]), ("token", [b.token for b in bots]),
                         ("id", [b.bot_id for b in bots])):
        require(len(set(values)) == len(values), where, f"every seat needs its own {what}")
    return tuple(bots)


def _tls(data: Mapping[str, Any], base_dir: Path, where: str) -> TlsConfig | None:
    if "tls" not in data:
        return None
    value = table(data, "tls", f"{where}")
    check_keys(value, {"cert", "key"}, f"{where} [tls]")
    cert, key = value.get("cert"), value.get("key")
    require(isinstance(cert, str) and isinstance(key, str), f"{where} [tls]",
            "needs both 'cert' and 'key' (PEM file paths)")
    return TlsConfig(base_dir / str(cert), base_dir / str(key))

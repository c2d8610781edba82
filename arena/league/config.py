"""League files (TOML): the bots, the format, hands per match, duplicate, tables at once."""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from arena.engine.configfile import (
    FILLED_BY_CODE,
    PORT,
    Check,
    convert,
    read_dataclass,
    require,
    table,
    tables,
)
from arena.engine.errors import ConfigError
from arena.engine.games import max_seats
from arena.engine.luck import DEFAULT_LUCK_EXACT_LIMIT, DEFAULT_LUCK_SAMPLES, LuckSettings, ValueFunction
from arena.engine.rules import Rules
from arena.host.botpackage import BotPackage, load_package
from arena.host.configfile import read_toml
from arena.league.schedule import FORMATS
from arena.match.spec import AbsentPolicy
from arena.server.config import MAX_HANDS, check_id, check_listen

MAX_MATCHES = 100_000  # a schedule larger than this is a typo, not a league


@dataclass(frozen=True, slots=True)
class LeagueBot:
    """A league's bot: a remote one connects with its ``token``; a hosted one is a ``package``
    the league runs itself, a fresh sandboxed instance per match (docs/hosted-bots.md)."""

    name: str
    token: str = ""
    package: BotPackage | None = field(default=None, metadata=FILLED_BY_CODE)

    @property
    def hosted(self) -> bool:
        return self.package is not None


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
    seed: int | None = None  # None: a secret league seed of 256 bits (see arena.league.secret)
    listen: str = "127.0.0.1:50051"
    store: Path | str = Path("league.sqlite")  # an SQLite file, or a postgresql:// URL
    log_dir: Path = Path("league-logs")
    metrics_port: int | None = None
    start_timeout_seconds: float = 30.0
    absent: AbsentPolicy = AbsentPolicy.WAIT
    rules: Rules = field(default_factory=Rules)
    # Stdout and stderr kept per hosted instance and stream (bytes beyond are dropped).
    bot_log_bytes: int = 1024 * 1024
    # The most CPU a hosted instance may have, in cores: a package declaring a larger
    # cpu_share runs with this one (docs/hosted-bots.md "CPU hogs").
    max_cpu_share: float = 1.0
    source_toml: str = field(default="", metadata=FILLED_BY_CODE)  # the file's text, as read
    # The luck adjustment's value function and Monte Carlo runouts: fixed before the league
    # starts (the store keeps each hand's luck under these settings' name).
    luck_value: ValueFunction = ValueFunction.POT_EQUITY
    luck_samples: int = DEFAULT_LUCK_SAMPLES
    # A sequential test per pair (round robin only): stop the league once every pair's
    # luck-adjusted result is significantly above sprt_high_mbb or below sprt_low_mbb.
    stop_when_significant: bool = False
    sprt_low_mbb: float = 0.0
    sprt_high_mbb: float = 100.0
    sprt_alpha: float = 0.05
    sprt_beta: float = 0.05

    @property
    def luck(self) -> LuckSettings:
        return LuckSettings(self.luck_value, self.luck_samples,
                            max(2 * self.luck_samples, DEFAULT_LUCK_EXACT_LIMIT))


CHECKS: dict[str, Check] = {
    "name": Check(),
    "format": Check(choices=FORMATS),
    "seats_per_table": Check(min=2, max=11),  # at most the games' table size (below)
    "tables": Check(min=1, max=10_000),
    "rounds": Check(min=1, max=1_000),
    "hands_per_match": Check(min=1, max=MAX_HANDS),
    "tables_at_once": Check(min=1, max=1_024),
    "seed": Check(min=0),
    "metrics_port": PORT,
    "start_timeout_seconds": Check(min=0.001, max=86_400),
    "bot_log_bytes": Check(min=0, max=1024 * 1024 * 1024),
    "max_cpu_share": Check(min=0.05, max=8.0),  # a package's own cpu_share range
    "luck_samples": Check(min=1, max=100_000),
    "sprt_low_mbb": Check(min=-1e6, max=1e6),
    "sprt_high_mbb": Check(min=-1e6, max=1e6),
    "sprt_alpha": Check(min=0.0001, max=0.4999),
    "sprt_beta": Check(min=0.0001, max=0.4999),
}


def load_league(path: str | Path) -> LeagueConfig:
    path = Path(path)
    data, text = read_toml(path, what="league")
    return league_from_mapping(data, base_dir=path.parent, source_toml=text, where=str(path))


def _typed(data: dict[str, Any], key: str, kind: type, default: Any, where: str,
           check: Check | None = None) -> Any:
    """One value of a table, type-checked by the one config reader (the tournament file reads
    its own keys with it)."""
    value = data.get(key, default)
    return None if value is None else convert(value, kind, key=key, where=where, check=check)


def _token_from_file(value: object, base_dir: Path, where: str) -> str:
    """A token kept apart from the league file (a Kubernetes Secret, a Docker secret)."""
    path: Path = base_dir / convert(value, Path, key="token_file", where=where)
    try:
        data = path.read_bytes()[:4097]
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read token_file {path}: {exc.strerror}") from None
    if len(data) > 4096:
        raise ConfigError(f"{where}: token_file {path} is over 4096 bytes")
    try:
        return data.decode("utf-8").strip()
    except UnicodeDecodeError:
        raise ConfigError(f"{where}: token_file {path} is not UTF-8 text") from None


def _read_bot(entry: dict[str, Any], base_dir: Path, where: str) -> LeagueBot:
    """A ``[[bots]]`` entry; its token may live in a file (``token_file``) instead, or it is a
    hosted bot: a ``package`` directory, relative to the league file."""
    if "package" in entry:
        require("token" not in entry and "token_file" not in entry, where,
                "a hosted bot ('package') has no token: the league gives each instance its own")
        package = load_package(base_dir / convert(entry["package"], Path, key="package", where=where))
        return read_dataclass(LeagueBot, entry, where=where, skip=frozenset({"package"}), package=package)
    if "token_file" not in entry:
        return read_dataclass(LeagueBot, entry, where=where)
    if "token" in entry:
        raise ConfigError(f"{where}: give 'token' or 'token_file', not both")
    return read_dataclass(LeagueBot, entry, where=where, skip=frozenset({"token_file"}),
                          token=_token_from_file(entry["token_file"], base_dir, where))


def _store_location(value: str, base_dir: Path) -> Path | str:
    """A ``postgresql://`` URL stays as written; anything else is a file relative to the league file."""
    if value.startswith(("postgresql://", "postgres://")):
        return value
    return base_dir / value


def league_from_mapping(data: dict[str, Any], *, base_dir: Path = Path("."), source_toml: str = "",
                        where: str = "league file") -> LeagueConfig:
    data = {"name": "league", **data}
    bots = tuple(_read_bot(entry, base_dir, f"{where} bots[{k}]")
                 for k, entry in enumerate(tables(data, "bots", where)))
    store = convert(data.get("store", "league.sqlite"), str, key="store", where=where)
    config = read_dataclass(
        LeagueConfig, data, where=where, checks=CHECKS, bots=bots, source_toml=source_toml,
        skip=frozenset({"store"}),
        rules=Rules.from_mapping(table(data, "rules", where), where=f"{where} [rules]"))
    require(len(bots) >= 2, where, "list at least two bots as [[bots]] with name and token")
    for bot in bots:
        check_id(bot.name, where, "name")
        require(bot.hosted or 8 <= len(bot.token) <= 512, where,
                f"bot {bot.name!r} needs a token of 8 to 512 characters (or a 'package')")
    names = [b.name for b in bots]
    require(len(set(names)) == len(names), where, "bot names must be unique")
    remote = [b for b in bots if not b.hosted]
    require(len({b.token for b in remote}) == len(remote), where, "every bot needs its own token")
    if len(remote) < len(bots):
        config = config if "absent" in data else replace(config, absent=AbsentPolicy.CHECK_FOLD)
        require(config.absent is not AbsentPolicy.WAIT, where,
                "a league with hosted bots ('package') needs absent = \"check_fold\" or "
                "\"forfeit\": the league starts their instances itself, so waiting for one that "
                "cannot start would wait forever")
    config = replace(config, bots=_capped(config.bots, config.max_cpu_share))
    check_listen(config.listen, where)
    require(not (config.rules.dealers_choice and config.duplicate), where,
            "dealer's choice cannot be played duplicate: each copy's chooser is another bot, so "
            "the copies would deal different games (docs/house-rules.md §28); set "
            "duplicate = false")
    most = max_seats(config.rules.games)  # docs/house-rules.md §20: hold'em 11, Omaha 10, stud 8
    require(config.seats_per_table <= most, where,
            f"'seats_per_table' must be 2 to {most} for {', '.join(config.rules.games)}")
    require(config.format != "round_robin" or config.seats_per_table == 2, where,
            "a round robin is heads-up: seats_per_table must be 2")
    if config.stop_when_significant:
        require(config.format == "round_robin" and config.duplicate, where,
                "'stop_when_significant' needs a duplicate round robin (a test per pair)")
        require(config.sprt_low_mbb < config.sprt_high_mbb, where,
                "'sprt_low_mbb' must be below 'sprt_high_mbb'")
    matches = config.rounds * _tables_per_round(config) * (
        config.seats_per_table if config.duplicate else 1)
    require(matches <= MAX_MATCHES, where,
            f"the schedule would have {matches:,} matches (at most {MAX_MATCHES:,}); "
            "check 'rounds', 'tables' and the number of bots")
    return replace(config, store=_store_location(store, base_dir), log_dir=base_dir / config.log_dir)


def _capped(bots: tuple[LeagueBot, ...], max_cpu_share: float) -> tuple[LeagueBot, ...]:
    """Hosted bots' packages with ``cpu_share`` at most the league's ``max_cpu_share``."""
    return tuple(replace(b, package=replace(b.package, cpu_share=max_cpu_share))
                 if b.package is not None and b.package.cpu_share > max_cpu_share else b
                 for b in bots)


def _tables_per_round(config: LeagueConfig) -> int:
    n = len(config.bots)
    if config.format == "round_robin":
        return math.comb(n, 2)
    if config.format == "gauntlet":
        return min(config.tables, math.comb(max(n - 1, 0), config.seats_per_table - 1)) \
            if config.seats_per_table > 2 else n - 1
    return config.tables

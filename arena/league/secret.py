"""The league's deal secret: given by the organizer (``seed``) or 256 random bits, kept in an
owner-only file beside an SQLite store, or in a PostgreSQL store itself so that every worker, on any
machine, deals the same cards; a resumed league deals the same cards too."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from arena.engine.errors import ConfigError
from arena.engine.seeds import SECRET_BITS, commitment
from arena.host.secret import new_secret
from arena.league.config import LeagueConfig
from arena.storage.league_secrets import keep_secret, stored_secret
from arena.storage.matchlog import write_private
from arena.storage.seedcheck import SECRET_FILE  # published when every match has ended
from arena.storage.store import ResultsStore, open_store

COMMITMENT_FILE = "league-commitment.json"  # published when the league starts


@dataclass(frozen=True, slots=True)
class LeagueSecret:
    value: int
    configured: bool  # a seed from the league file: reproducible, and guessable if small
    commitment: str


def secret_path(config: LeagueConfig) -> Path:
    """The file beside an SQLite store (a PostgreSQL league keeps its secret in the database)."""
    if not isinstance(config.store, Path):
        raise ConfigError(f"league {config.name!r}: a league on PostgreSQL keeps its secret in the database")
    return config.store.with_name(config.store.name + ".secret")


def league_secret(config: LeagueConfig, store: ResultsStore | None = None) -> LeagueSecret:
    """The configured seed, else the secret kept beside the SQLite store or in the PostgreSQL
    ``store`` (the league's open store), created on first use: the coordinator creates it when it
    enqueues the league, and every worker reads the same one."""
    if config.seed is not None:
        return LeagueSecret(config.seed, True, commitment(config.seed))
    if not isinstance(config.store, Path):
        if store is None:
            raise ConfigError(f"league {config.name!r}: its secret is in the store; open the store first")
        value = stored_secret(store, config.name)
        if value is None:
            value = keep_secret(store, config.name, new_secret())
        return LeagueSecret(value, False, commitment(value))
    path = secret_path(config)
    try:
        text = path.read_text(encoding="ascii").strip()
    except FileNotFoundError:
        value = new_secret()
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        except FileExistsError:  # another process made it first: use theirs
            return league_secret(config)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(f"{value:064x}\n")
        return LeagueSecret(value, False, commitment(value))
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"cannot read the league secret {path}: {exc}") from None
    try:
        value = int(text, 16)
    except ValueError:
        value = -1
    if len(text) != SECRET_BITS // 4 or value < 0:
        raise ConfigError(f"{path}: not a league secret ({SECRET_BITS // 4} hex digits)")
    return LeagueSecret(value, False, commitment(value))


def existing_league_secret(config: LeagueConfig) -> LeagueSecret | None:
    """The league's secret if it exists (the league has started), without creating it."""
    if config.seed is not None or (isinstance(config.store, Path) and secret_path(config).is_file()):
        return league_secret(config)
    if isinstance(config.store, Path):
        return None
    store = open_store(config.store)
    try:
        value = stored_secret(store, config.name)
    finally:
        store.close()
    return None if value is None else LeagueSecret(value, False, commitment(value))


def describe_secret(secret: LeagueSecret) -> str:
    """How the deals were made, for the leaderboard and the start of a run."""
    if secret.configured:
        return (f"configured seed {secret.value} (reproducible, not secret: anyone who knows "
                "or guesses it can predict every card)")
    return f"secret league seed of {SECRET_BITS} bits, commitment {secret.commitment}"


def publish_commitment(config: LeagueConfig, secret: LeagueSecret) -> Path:
    """Write the commitment into the log directory (once; it never changes)."""
    path = config.log_dir / COMMITMENT_FILE
    if not path.exists():
        write_private(path, json.dumps({"league": config.name, "commitment": secret.commitment,
                                        "configured_seed": secret.configured}, indent=2) + "\n")
    return path


def reveal_league_secret(config: LeagueConfig, secret: LeagueSecret) -> Path:
    """Publish the secret once every match of the league has ended: with it anyone can check
    the commitment and derive every match's seed."""
    path = config.log_dir / SECRET_FILE
    write_private(path, json.dumps({"league": config.name, "secret": str(secret.value),
                                    "commitment": secret.commitment,
                                    "configured_seed": secret.configured}, indent=2) + "\n")
    return path


def without_tokens(text: str, config: LeagueConfig) -> str:
    """The league file as stored: every bot token replaced (the store keeps only hashes)."""
    for bot in config.bots:
        if bot.token:  # a hosted bot has none
            text = text.replace(bot.token, "<token withheld>")
    return text

"""A league's hosted bots (``package = "DIR"``): built once before play, then one sandboxed
instance per match and duplicate copy (:mod:`arena.server.hosted`), and the label of duplicate
results that trust remote bots (docs/hosted-bots.md)."""

from __future__ import annotations

import contextlib
import secrets
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from arena.engine.errors import ConfigError
from arena.host.sandbox import build, probe
from arena.league.config import LeagueBot, LeagueConfig
from arena.match.spec import MatchSpec
from arena.server.config import BotEntry, ServerConfig
from arena.storage.botlogs import bot_log_dir
from arena.storage.store import League, NotFound, ResultsStore

if TYPE_CHECKING:
    from arena.server.hosted import HostedBots

TRUST_LABEL = "trust the remote bots not to link copies"


def register_league(store: ResultsStore, name: str, config_toml: str,
                    bots: Sequence[LeagueBot]) -> League:
    """The league named ``name`` in ``store`` (created when missing) with its bots registered;
    a remote bot's token must be the one it was registered with (a bot keeps its token)."""
    league = store.find_league(name) or store.create_league(name, config_toml or "name = ''\n")
    for bot in bots:
        try:
            store.get_bot(bot.name)
        except NotFound:  # a hosted bot's stored token is never used: its instances have theirs
            store.register_bot(bot.name, bot.token or secrets.token_urlsafe(32))
            continue
        if not bot.hosted and not store.verify_bot_token(bot.name, bot.token):
            raise ConfigError(f"bot {bot.name!r}: the token differs from the one this league "
                              "registered; a bot keeps its token for the whole league")
    return league


def remote_duplicate(config: LeagueConfig) -> list[str]:
    """The remote bots whose duplicate results rest on trust (none unless duplicate)."""
    return [b.name for b in config.bots if not b.hosted] if config.duplicate else []


def trust_note(config: LeagueConfig) -> str:
    """One line for the league's start, ``league status`` and the leaderboard; "" when every
    bot is hosted or the league is not duplicate."""
    remote = remote_duplicate(config)
    if not remote:
        return ""
    return (f"duplicate results {TRUST_LABEL}: {', '.join(remote)} "
            f"{'plays' if len(remote) == 1 else 'play'} every copy of a deal itself and could "
            "remember its cards from one copy to the next (hosted bots get a fresh instance "
            "per copy; docs/hosted-bots.md)")


def instance_id(name: str, match_id: str) -> str:
    """The id a hosted bot's instance has in one match (its seat's ``bot_id``)."""
    return f"{name}@{match_id}"


def seat_id(config: LeagueConfig, name: str, match_id: str) -> str:
    """The ``bot_id`` of ``name``'s seat in ``match_id``: a hosted bot's instance there, else
    the bot itself."""
    hosted = any(b.name == name and b.hosted for b in config.bots)
    return instance_id(name, match_id) if hosted else name


def build_packages(bots: Sequence[LeagueBot], out: TextIO) -> None:
    """Build every hosted bot's package in its sandbox; the first failure is a ConfigError
    with the build's last output."""
    packages = [b for b in bots if b.package is not None]
    if not packages:
        return
    why = probe()
    if why:
        raise ConfigError(f"hosted bots cannot run here: {why}")
    for bot in packages:
        assert bot.package is not None
        result = build(bot.package)
        if not result.ok:
            tail = "\n".join(result.output.strip().splitlines()[-20:])
            raise ConfigError(f"bot {bot.name!r} (package {bot.package.directory}): "
                              f"{result.problem}" + (f"; its output ends:\n{tail}" if tail else ""))
        out.write(f"built {bot.name} ({bot.package.directory})\n")


def describe_ends(hosted: HostedBots | None) -> list[str]:
    """One line per hosted instance that exited before its match ended (each has a log)."""
    if hosted is None:
        return []
    return [f"hosted bot {end.bot} (match {end.match_id}, seat {end.seat}) exited with code "
            f"{end.exit_code} before its match ended; its seat was played by the absent rules "
            f"(its stderr: {bot_log_dir(hosted.log_dir, end.bot)}/)"
            for end in hosted.ends if end.early]


def dealer_config(listen: str, bots: Sequence[LeagueBot], hosted: HostedBots | None,
                  matches: Sequence[MatchSpec] = ()) -> ServerConfig:
    """The dealer of ``bots``: the remote ones' tokens, and the hosted ones' socket."""
    return ServerConfig(listen=listen, matches=tuple(matches),
                        bots=tuple(BotEntry(b.name, b.name, b.token) for b in bots if not b.hosted),
                        unix_socket=hosted.socket if hosted is not None else None)


@contextlib.contextmanager
def hosting(bots: Sequence[LeagueBot], *, log_dir: Path, max_log_bytes: int
            ) -> Iterator[HostedBots | None]:
    """The hosted ones of ``bots`` with a fresh dealer socket in a private directory (removed
    afterwards); None when every bot is remote."""
    from arena.server.hosted import HostedBots  # grpc and trio: only when bots are hosted

    packages = {b.name: b.package for b in bots if b.package is not None}
    if not packages:
        yield None
        return
    run_dir = Path(tempfile.mkdtemp(prefix="arena-dealer-"))  # 0700; short, for the socket's path
    try:
        yield HostedBots(packages, socket=run_dir / "dealer.sock", log_dir=log_dir,
                         max_log_bytes=max_log_bytes)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)

"""`arena practice`: the author's bot against built-in bots on a local dealer, then its faults and
worst hands.

The dealer runs in this process; the author's bot is a separate process (any command, or a
Python ``file.py:function`` / ``module:function`` run through ``arena bot``) whose output is
shown as it comes, each line prefixed with the bot's name (as compose does for its services);
the built-in opponents are the SDK's example bots on the same event loop. At the end, the
bot's faults by cause (:mod:`arena.match.fault_report`), told by the dealer as they happen.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import secrets
import shlex
import shutil
import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from arena.engine.errors import ConfigError
from arena.engine.games import max_seats
from arena.engine.rules import Rules
from arena.host.botpackage import BotPackage, is_package, load_package
from arena.host.phhfile import load_file
from arena.host.sandbox import build, probe
from arena.host.sdk import sdk_module
from arena.league.hosting import instance_id
from arena.match.fault_report import report
from arena.match.faults import BotFault
from arena.match.records import MatchSummary
from arena.match.spec import AbsentPolicy, MatchSpec, SeatSpec
from arena.server.app import DealerServer, serve
from arena.server.config import BotEntry, ServerConfig
from arena.storage.botlogs import bot_log_dir

YOU = "you"
TAIL_LINES = 20  # of the bot's output, repeated when it exits with an error
MAX_LINE_CHARS = 2000
OPPONENTS = ("rules", "call", "random")
MATCH_ID = "practice"


@dataclass(frozen=True, slots=True)
class LosingHand:
    number: int
    game: str
    net_chips: int


@dataclass(frozen=True, slots=True)
class _Played:
    """What :func:`_play` saw: the match's summary (None: the dealer stopped without one), the
    bot process's exit code (None: it was stopped) and the last lines of its output, whether
    the bot connected, and its faults as the dealer told them."""

    summary: MatchSummary | None
    bot_exit: int | None
    bot_err: str
    connected: bool
    faults: tuple[BotFault, ...]


def _bot_words(bot: str) -> list[str]:
    """``--bot`` split as a shell would; empty or unbalanced quotes are a :class:`ConfigError`."""
    try:
        words = shlex.split(bot)
    except ValueError as exc:  # e.g. "No closing quotation"
        raise ConfigError(f"--bot {bot!r}: {exc}") from None
    if not words:
        raise ConfigError("--bot is empty: give a command or file.py:function")
    return words


def bot_command(bot: str, server: str, token: str) -> list[str]:
    """The author's bot as a command line. ``file.py:function`` or ``module:function`` (one word
    with a colon) runs through ``arena bot``; any other command gets ``--server`` and
    ``--token`` appended, unless it names ``{server}`` and ``{token}`` itself."""
    words = _bot_words(bot)
    if len(words) == 1 and ":" in words[0]:
        return [sys.executable, "-m", "arena.cli", "bot", words[0], "--server", server,
                "--token", token, "--name", YOU]
    if "{server}" in bot or "{token}" in bot:
        return [w.replace("{server}", server).replace("{token}", token) for w in words]
    return [*words, "--server", server, "--token", token]


def stop_processes(procs: Sequence[subprocess.Popen[Any]], *, timeout_seconds: float = 10) -> None:
    """Ask every bot process to stop, then kill those still running after ``timeout_seconds``."""
    for proc in procs:
        if proc.poll() is None:
            proc.terminate()
    for proc in procs:
        try:
            proc.wait(timeout=timeout_seconds)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=timeout_seconds)


def worst_hands(phhs: Path, player: str, count: int) -> list[LosingHand]:
    """The ``count`` hands ``player`` lost most in, biggest loss first."""
    losses = []
    for k, hand in enumerate(load_file(str(phhs)), start=1):
        players = list(hand.fields.get("players", []))
        if player not in players:
            continue
        seat = players.index(player)
        net = int(hand.fields["finishing_stacks"][seat]) - int(hand.fields["starting_stacks"][seat])
        if net < 0:
            losses.append(LosingHand(k, str(hand.fields["variant"]), net))
    return sorted(losses, key=lambda h: (h.net_chips, h.number))[:count]


def run_practice(bot: str, *, hands: int, games: Sequence[str] | None, opponents: Sequence[str],
                 seed: int, out_dir: str | None, rule_overrides: Sequence[str],
                 connect_seconds: float, show_worst: int, out: TextIO = sys.stdout) -> int:
    unknown = [o for o in opponents if o not in OPPONENTS]
    if unknown or not 1 <= len(opponents) <= 7:
        raise ConfigError(f"--opponents: 1 to 7 of {', '.join(OPPONENTS)}, got {','.join(opponents)}")
    package = load_package(bot) if is_package(bot) else None
    if package is None:
        _bot_words(bot)  # before anything starts
    rules = Rules().with_overrides(rule_overrides)
    if games:  # --games wins over --set games=...
        rules = Rules.from_mapping({**rules.to_mapping(), "games": list(games)}, where="--games")
    if hands < 1:
        raise ConfigError(f"--hands must be at least 1, got {hands}")
    seats = max_seats(rules.games)  # docs/house-rules.md §20: English Stud and 2-7 triple draw 6
    if len(opponents) + 1 > seats:
        raise ConfigError(f"--opponents: a table dealing {', '.join(rules.games)} seats 2 to {seats}; "
                          f"you and {len(opponents)} opponents would be {len(opponents) + 1}")
    log_dir = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="arena-practice-"))
    log_dir.mkdir(parents=True, exist_ok=True)
    if (log_dir / f"{MATCH_ID}.phhs").exists():
        raise ConfigError(f"{log_dir} already holds a practice match; give another --out")
    names = [YOU] + [f"{kind}-{k + 1}" for k, kind in enumerate(opponents)]
    tokens = {name: secrets.token_hex(16) for name in names}  # never starts with "-"
    your_id = instance_id(YOU, MATCH_ID) if package is not None else YOU
    spec = MatchSpec(MATCH_ID, tuple(SeatSpec(n, your_id if n == YOU else n) for n in names), rules,
                     hands, seed, start_timeout_seconds=connect_seconds, absent=AbsentPolicy.FORFEIT)
    run_dir = Path(tempfile.mkdtemp(prefix="arena-dealer-")) if package is not None else None
    config = ServerConfig(listen="127.0.0.1:0", bots=tuple(
        BotEntry(n, n, tokens[n]) for n in names if package is None or n != YOU),
        matches=(spec,), log_dir=log_dir,
        unix_socket=run_dir / "dealer.sock" if run_dir is not None else None)
    if package is not None:
        _build(package, out)
    out.write(f"practice: {hands} hands of {', '.join(rules.games)}; {YOU} ({bot}) against "
              f"{', '.join(names[1:])}; logs in {log_dir}\n")
    out.flush()
    try:
        played = asyncio.run(_play(config, bot, package, tokens, names, opponents, seed, out))
    finally:
        if run_dir is not None:
            shutil.rmtree(run_dir, ignore_errors=True)
    summary, bot_exit, bot_err = played.summary, played.bot_exit, played.bot_err
    if summary is None or summary.hands_played == 0:
        if bot_exit is not None and not played.connected:  # the dealer stopped when it exited
            out.write("practice: no hand was played.\n")
        else:
            why = summary.abort_reason if summary is not None else "the dealer stopped"
            out.write(f"practice: no hand was played ({why}).\n")
        if bot_exit is not None:
            out.write(f"your bot exited with code {bot_exit} before connecting:\n{bot_err.strip()}\n")
        return 1
    _report(summary, log_dir, show_worst, out)
    if package is not None:
        out.write(f"your bot's stdout and stderr: {bot_log_dir(log_dir, YOU)}\n")
    out.write("\n".join(report(played.faults)) + "\n")
    if bot_exit not in (0, None):
        out.write(f"your bot exited with code {bot_exit}:\n{bot_err.strip()}\n")
    return 0 if not summary.aborted else 3


async def _play(config: ServerConfig, bot: str, package: BotPackage | None, tokens: dict[str, str],
                names: list[str], opponents: Sequence[str], seed: int, out: TextIO) -> _Played:
    """The match on a dealer in this process, the built-in opponents (the SDK's examples) on its
    loop, and the author's bot: a process running ``bot``, or one sandboxed instance of
    ``package`` for the match."""
    hosted = None
    if package is not None:
        from arena.server.hosted import HostedBots

        assert config.unix_socket is not None and config.log_dir is not None
        hosted = HostedBots({YOU: package}, socket=config.unix_socket, log_dir=config.log_dir)
    ready: asyncio.Future[int] = asyncio.get_running_loop().create_future()
    servers: list[DealerServer] = []
    server_task = asyncio.ensure_future(serve(
        config, on_ready=ready.set_result, on_server=servers.append,
        instances=hosted.around if hosted is not None else None))
    port = await asyncio.wait_for(asyncio.shield(ready), 30)
    address = f"127.0.0.1:{port}"
    you = instance_id(YOU, MATCH_ID) if package is not None else YOU
    faults: list[BotFault] = []
    servers[0].lobby.fault_observers.append(
        lambda fault: faults.append(fault) if fault.bot_id in (YOU, you) else None)
    connected = _watch_connection(servers[0], you)
    if hosted is not None:
        async with _built_in(address, tokens, names, opponents, seed):
            result = await server_task
        assert config.log_dir is not None
        err = bot_log_dir(config.log_dir, YOU) / f"{MATCH_ID}.stderr.log"
        text = err.read_bytes()[-4096:].decode(errors="replace") if err.is_file() else ""
        return _Played(result.summaries[0] if result.summaries else None,
                       hosted.ends[-1].exit_code if hosted.ends else None, text, connected(),
                       tuple(faults))
    command = bot_command(bot, address, tokens[YOU])
    try:
        # Unbuffered: a Python bot's lines show as they are printed, not when it exits.
        proc = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.STDOUT,
                                                    env={**os.environ, "PYTHONUNBUFFERED": "1"})
    except OSError as exc:  # no such program, not executable: stop the server, then say so
        # Stopped as on Ctrl-C (its streams and gRPC closed), not cancelled: a cancelled server
        # leaves gRPC's threads to fail at the interpreter's exit.
        servers[0].stop()
        await asyncio.gather(server_task, return_exceptions=True)
        raise ConfigError(f"--bot {bot!r}: cannot start {command[0]!r} ({exc.strerror}); give a "
                          "command (e.g. 'python my_bot.py') or file.py:function") from None
    assert proc.stdout is not None
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    output_task = asyncio.ensure_future(_show_output(proc.stdout, out, tail))
    exited = asyncio.ensure_future(proc.wait())
    try:
        async with _built_in(address, tokens, names, opponents, seed):
            await asyncio.wait((server_task, exited), return_when=asyncio.FIRST_COMPLETED)
            if not server_task.done() and not connected():
                # The bot died before it connected: it never will, so stop now rather than wait
                # out the start timeout (stopped as on Ctrl-C, see above). The built-in bots (this
                # process's SDK) would warn that they lost the dealer; they are cancelled next.
                logging.getLogger("arena_bot").setLevel(logging.ERROR)
                servers[0].stop()
            result = await server_task
    finally:
        stopped = False
        try:  # the bot sees its stream end and exits by itself
            await asyncio.wait_for(proc.wait(), 10)
        except TimeoutError:
            stopped = True
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
        code = await proc.wait()
        await asyncio.gather(output_task, exited, return_exceptions=True)
    return _Played(result.summaries[0] if result.summaries else None, None if stopped else code,
                   "\n".join(tail), connected(), tuple(faults))


@contextlib.asynccontextmanager
async def _built_in(address: str, tokens: dict[str, str], names: list[str],
                    opponents: Sequence[str], seed: int) -> AsyncIterator[None]:
    """The built-in opponents play at ``address`` while the block runs; cancelled after it."""
    examples, play = sdk_module("examples").BOTS, sdk_module("client").play
    tasks = [asyncio.ensure_future(play(examples[kind](seed + k), server=address,
                                        token=tokens[name], name=name))
             for k, (kind, name) in enumerate(zip(opponents, names[1:], strict=True))]
    try:
        yield
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


async def _show_output(stream: asyncio.StreamReader, out: TextIO, tail: deque[str]) -> None:
    """The bot's output (stdout and stderr), line by line as it comes, prefixed with its name;
    the last lines kept in ``tail``. A line is cut at MAX_LINE_CHARS and unprintable
    characters shown as ``?``."""
    prefix = f"{YOU} | "
    while True:
        try:
            data = await stream.readline()
        except ValueError:  # a line over the reader's limit: what came of it
            data = await stream.read(MAX_LINE_CHARS)
        if not data:
            return
        text = data.decode(errors="replace").rstrip("\r\n")
        if len(text) > MAX_LINE_CHARS:
            text = text[:MAX_LINE_CHARS] + "..."
        text = "".join(c if c.isprintable() or c == "\t" else "?" for c in text)
        tail.append(text)
        out.write(f"{prefix}{text}\n")
        out.flush()


def _build(package: BotPackage, out: TextIO) -> None:
    """The package's build in its sandbox; a ConfigError with its output when it fails."""
    if probe():
        raise ConfigError(f"--bot {package.directory}: a bot package needs the sandbox: {probe()}")
    result = build(package)
    if not result.ok:
        raise ConfigError(f"--bot {package.directory}: {result.problem}; its output ends:\n"
                          + "\n".join(result.output.strip().splitlines()[-20:]))
    if package.build.strip():
        out.write(f"built {package.name} in its sandbox\n")


def _watch_connection(server: DealerServer, bot_id: str) -> Callable[[], bool]:
    """A test of whether the bot has connected to ``server`` since now (told by its presence)."""
    presence = server.lobby.presence(bot_id)
    seen = [presence.is_connected]

    def changed() -> None:
        seen[0] = seen[0] or presence.is_connected

    presence.listeners.append(changed)
    return lambda: seen[0]


def _report(summary: MatchSummary, log_dir: Path, show_worst: int, out: TextIO) -> None:
    out.write(f"\n{summary.hands_played} hands played\n")
    for r in sorted(summary.results, key=lambda r: -r.net_chips):
        out.write(f"  {r.name:<10} {r.net_chips:+7d} chips  {r.mbb_per_hand:+9.1f} ± "
                  f"{r.mbb_per_hand_ci95:.1f} mbb/hand (95% CI)\n")
    stats = summary.stats
    out.write(f"decisions: {stats.answered} answered, {stats.timeouts} timed out, "
              f"{stats.rejected} replies rejected, {stats.absent_actions} while absent\n")
    phhs = log_dir / f"{MATCH_ID}.phhs"
    worst = worst_hands(phhs, YOU, show_worst)
    if worst:
        out.write("your biggest losing hands (replay each with the command shown):\n")
        for hand in worst:
            out.write(f"  hand {hand.number} ({hand.game}): {hand.net_chips:+d} chips   "
                      f"arena replay {shlex.quote(str(phhs))} --show --hand {hand.number}\n")
    out.write(f"hand log: {phhs} (verify with: arena replay {shlex.quote(str(phhs))})\n")

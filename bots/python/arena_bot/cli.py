"""`arena-bot BOT --server HOST:PORT --token TOKEN`: run an example bot or your own function.

BOT is an example (random, call, rules, mixed) or your function as ``module:function``
(importable from the current directory) or ``path/to/file.py:function``.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena_bot import __version__, eventloop
from arena_bot.client import BotError, play
from arena_bot.examples import BOTS, random_bot
from arena_bot.session import BotFunction, PlayResult


class LoadError(Exception):
    """The bot named on the command line cannot be loaded (one line for people)."""


def load_bot(spec: str, seed: int | None, *, seed_each_decision: bool = False) -> BotFunction:
    """An example bot by name, or ``module:function`` / ``file.py:function``."""
    if spec == "random" and seed_each_decision:  # the same answers however tables interleave
        return random_bot(seed, per_decision=True)
    if spec in BOTS:
        return BOTS[spec](seed)
    module_name, sep, function_name = spec.rpartition(":")
    if not sep or not module_name or not function_name:
        raise LoadError(f"unknown bot {spec!r}: give one of {', '.join(sorted(BOTS))} "
                        "or your function as module:function or file.py:function")
    module = _import(module_name)
    function = getattr(module, function_name, None)
    if not callable(function):
        raise LoadError(f"{module_name} has no function {function_name!r}")
    return function  # type: ignore[no-any-return]  # a callable the user named; checked above


def _import(module_name: str) -> Any:
    if module_name.endswith(".py"):
        path = Path(module_name)
        if not path.is_file():
            raise LoadError(f"no such file: {path}")
        sys.path.insert(0, str(path.resolve().parent))
        spec = importlib.util.spec_from_file_location(path.stem, path)
        if spec is None or spec.loader is None:
            raise LoadError(f"cannot load {path} as Python")
        module = importlib.util.module_from_spec(spec)
        sys.modules[path.stem] = module
        spec.loader.exec_module(module)
        return module
    sys.path.insert(0, str(Path.cwd()))
    try:
        return importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise LoadError(f"cannot import {module_name!r}: {exc}") from None


def server_address(text: str) -> str:
    """``HOST:PORT`` of a dealer (``[::1]:PORT`` for IPv6), or ``unix:/PATH`` of its Unix socket
    (a hosted bot's sandbox), checked before any dialing: gRPC dials port 443 for a bare host and
    wraps a port above 65535 (argparse makes the error a usage error)."""
    if text.startswith("unix:"):
        if not text.startswith("unix:/") or len(text) > 4096 or "\0" in text:
            raise argparse.ArgumentTypeError(f"a Unix socket must be unix:/ABSOLUTE/PATH, got {text!r}")
        return text
    host, _, port = text.rpartition(":")
    bare = host[1:-1] if host.startswith("[") and host.endswith("]") else host
    if not bare or ("[" in bare or "]" in bare) or (":" in bare and bare == host) \
            or not (port.isascii() and port.isdigit() and 1 <= int(port) <= 65535):
        raise argparse.ArgumentTypeError(
            f"must be HOST:PORT with a port from 1 to 65535 (an IPv6 host in brackets: "
            f"[::1]:50051), got {text!r}")
    return text


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="arena-bot", description=__doc__,
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("bot", metavar="BOT",
                        help=f"an example ({', '.join(sorted(BOTS))}) or module:function "
                             "or file.py:function")
    parser.add_argument("--server", default=None, type=server_address,
                        help="HOST:PORT of the arena dealer ([::1]:PORT for IPv6) or unix:/PATH "
                             "(default: the ARENA_SERVER environment variable, which a hosted "
                             "bot's sandbox sets)")
    parser.add_argument("--token", default=None,
                        help="the bot's token (default: the ARENA_TOKEN environment variable, "
                             "which other users cannot see in the process list)")
    parser.add_argument("--name", default=None, help="display name (default: BOT)")
    parser.add_argument("--tls-ca", default=None, help="PEM root certificate for a TLS server")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random example bot")
    parser.add_argument("--seed-each-decision", action="store_true",
                        help="random bot: seed each decision from --seed and its id, so that its "
                             "answers do not depend on the order in which its tables ask")
    parser.add_argument("--connect-seconds", type=float, default=10.0,
                        help="give up when the dealer cannot be reached at all for this long")
    parser.add_argument("--reconnect-seconds", type=float, default=None,
                        help="after losing a connection, give up after this long without one "
                             "(default: keep trying until stopped)")
    parser.add_argument("--verbose", action="store_true", help="log connects and every rejection")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    token = args.token or os.environ.get("ARENA_TOKEN")
    if not token:
        print("arena-bot: error: give --token or set ARENA_TOKEN", file=sys.stderr)
        return 2
    if args.server is None:
        try:
            args.server = server_address(os.environ.get("ARENA_SERVER", ""))
        except argparse.ArgumentTypeError as exc:
            print(f"arena-bot: error: give --server or set ARENA_SERVER ({exc})", file=sys.stderr)
            return 2
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(asctime)s %(name)s %(levelname)s %(message)s")
    try:
        roots = None
        if args.tls_ca:
            with open(args.tls_ca, "rb") as fh:
                roots = fh.read()
        bot = load_bot(args.bot, args.seed, seed_each_decision=args.seed_each_decision)
        gc.freeze()  # what is loaded by now lives as long as the process: no collection scans it
        result = eventloop.run(play(bot, server=args.server, token=token,
                                    name=args.name or args.bot, version=__version__,
                                    root_certificates=roots, connect_seconds=args.connect_seconds,
                                    reconnect_seconds=args.reconnect_seconds))
    except (BotError, LoadError, eventloop.EventLoopChoiceError, OSError) as exc:
        print(f"arena-bot: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    print(summary_line(args.name or args.bot, result))
    done = result.final_status == "OK" or result.matches_over
    return 0 if result.connections and done else 1


def summary_line(name: str, result: PlayResult) -> str:
    """The line a bot prints when it ends: what it answered, what went wrong, why it ended."""
    ended = result.end_message or f"stream {result.final_status or 'lost'}"
    return (f"arena-bot {name}: {result.decisions} decisions ({result.fallbacks} by the "
            f"check/fold fallback, {result.rejections} rejected, {result.exceptions} raised, "
            f"{result.timeouts} timed out), {len(result.matches_ended)} match(es) ended; {ended}")

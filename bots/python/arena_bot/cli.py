"""`arena-bot KIND --server HOST:PORT --token TOKEN`: run an example bot."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence

from arena_bot import __version__
from arena_bot.client import BotError, play
from arena_bot.examples import BOTS


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="arena-bot", description=__doc__)
    parser.add_argument("kind", choices=sorted(BOTS), help="which example bot to run")
    parser.add_argument("--server", required=True, help="HOST:PORT of the arena dealer")
    parser.add_argument("--token", required=True, help="the bot's token")
    parser.add_argument("--name", default=None, help="display name (default: the kind)")
    parser.add_argument("--tls-ca", default=None, help="PEM root certificate for a TLS server")
    parser.add_argument("--seed", type=int, default=None, help="seed of the random bot")
    parser.add_argument("--reconnect-seconds", type=float, default=30.0)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s %(message)s")
    roots = None
    if args.tls_ca:
        with open(args.tls_ca, "rb") as fh:
            roots = fh.read()
    bot = BOTS[args.kind](args.seed)
    try:
        result = asyncio.run(play(bot, server=args.server, token=args.token,
                                  name=args.name or args.kind, version=__version__,
                                  root_certificates=roots,
                                  reconnect_seconds=args.reconnect_seconds))
    except BotError as exc:
        print(f"arena-bot: refused by the dealer: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130
    print(f"arena-bot {args.kind}: {result.decisions} decisions, "
          f"{len(result.matches_ended)} match(es) ended, stream {result.final_status or 'lost'}")
    return 0 if result.connections else 1

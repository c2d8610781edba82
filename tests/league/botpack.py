"""Several example bots in one process, each on its own gRPC stream (saves processes in tests).

Usage: python -m tests.league.botpack HOST:PORT NAME:KIND ... (token: ``token-NAME-0001``).
KIND ``slow`` is the calling station thinking 0.1 s per decision (it blocks its process: run it
alone), so that a hand is in flight most of the time. With ``ARENA_TEST_RECORD=FILE`` each bot
appends what `MatchEnded` told it of a tournament hand to FILE (JSON lines: bot, hand, place).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from collections.abc import Callable

from arena_bot._proto import arena_pb2 as pb
from arena_bot.client import play
from arena_bot.examples import BOTS
from arena_bot.view import Action, SeatView


def _slow(_seed: int | None) -> Callable[[SeatView], Action]:
    station = BOTS["call"](None)

    def decide(view: SeatView) -> Action:
        time.sleep(0.1)
        return station(view)

    return decide


def _recorder(name: str, path: str) -> Callable[[pb.DealerMessage], None]:
    """Writes each tournament hand's place, as `MatchEnded` tells it, to ``path``."""
    hand = [""]

    def seen(message: pb.DealerMessage) -> None:
        if message.WhichOneof("payload") != "event":
            return
        event = message.event
        kind = event.WhichOneof("payload")
        if kind == "match_started" and event.match_started.HasField("tournament"):
            t = event.match_started.tournament
            hand[0] = f"{t.event_id}-t{t.table}-h{t.table_hand}"
        elif kind == "match_ended" and hand[0]:
            places = [r.place for r in event.match_ended.results if r.name == name]
            with open(path, "a", encoding="utf-8") as fh:
                fh.write(json.dumps({"bot": name, "hand": hand[0], "places": places,
                                     "aborted": event.match_ended.aborted}) + "\n")

    return seen


async def _main(server: str, bots: list[tuple[str, str]]) -> None:
    kinds = {**BOTS, "slow": _slow}
    record = os.environ.get("ARENA_TEST_RECORD")
    await asyncio.gather(*(play(kinds[kind](k), server=server, token=f"token-{name}-0001",
                                name=name, reconnect_seconds=60.0,
                                on_message=_recorder(name, record) if record else None)
                           for k, (name, kind) in enumerate(bots)))


if __name__ == "__main__":
    pairs = [tuple(arg.split(":", 1)) for arg in sys.argv[2:]]
    asyncio.run(_main(sys.argv[1], [(n, k) for n, k in pairs]))

"""Several example bots in one process, each on its own gRPC stream (saves processes in tests).

Usage: python -m tests.league.botpack HOST:PORT NAME:KIND ... (token: ``token-NAME-0001``).
KIND ``slow`` is the calling station thinking 0.1 s per decision (it blocks its process: run it
alone), so that a hand is in flight most of the time.
"""

from __future__ import annotations

import asyncio
import sys
import time
from collections.abc import Callable

from arena_bot.client import play
from arena_bot.examples import BOTS
from arena_bot.view import Action, SeatView


def _slow(_seed: int | None) -> Callable[[SeatView], Action]:
    station = BOTS["call"](None)

    def decide(view: SeatView) -> Action:
        time.sleep(0.1)
        return station(view)

    return decide


async def _main(server: str, bots: list[tuple[str, str]]) -> None:
    kinds = {**BOTS, "slow": _slow}
    await asyncio.gather(*(play(kinds[kind](k), server=server, token=f"token-{name}-0001",
                                name=name, reconnect_seconds=60.0)
                           for k, (name, kind) in enumerate(bots)))


if __name__ == "__main__":
    pairs = [tuple(arg.split(":", 1)) for arg in sys.argv[2:]]
    asyncio.run(_main(sys.argv[1], [(n, k) for n, k in pairs]))

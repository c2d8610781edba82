"""The example bots with a short think time, so that the live league of the web tests lasts long
enough for its spectators to see many updates however fast the dealer becomes.

Loaded by ``arena bot tests/web/paced_bots.py:station`` (and ``:rules``, ``:random``).
"""

from __future__ import annotations

import asyncio

from arena_bot import Action, SeatView
from arena_bot.examples import calling_station, random_bot, rule_based

THINK_SECONDS = 0.010
_random = random_bot(1)


async def station(view: SeatView) -> Action:
    await asyncio.sleep(THINK_SECONDS)
    return calling_station(view)


async def rules(view: SeatView) -> Action:
    await asyncio.sleep(THINK_SECONDS)
    return rule_based(view)


async def random(view: SeatView) -> Action:
    await asyncio.sleep(THINK_SECONDS)
    return _random(view)

"""A bot's code fails: the SDK says so in the bot's log and the dealer logs the fallback reply."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest
from arena_bot import Action, SeatView, play
from arena_bot.examples import calling_station

from tests.server.harness import make_config, running, token_for

pytestmark = pytest.mark.timeout(60)


def broken(view: SeatView) -> Action:
    raise ZeroDivisionError("my strategy divided by zero")


def test_an_exception_in_the_bot_is_logged_by_the_sdk_and_the_dealer(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    config = make_config(tmp_path, ["broken", "station"], hands=2, rules={"games": ["FT"]})
    caplog.set_level(logging.INFO)

    async def scenario() -> int:
        async with running(config) as (server, address):
            result, _ = await asyncio.gather(
                play(broken, server=address, token=token_for("broken"), name="broken"),
                play(calling_station, server=address, token=token_for("station"), name="station"))
            await server.run_until_done()
        return result.fallbacks

    fallbacks = asyncio.run(scenario())
    assert fallbacks >= 2
    sdk = [r for r in caplog.records if r.name == "arena_bot" and "the bot failed on decision" in r.message]
    assert len(sdk) == fallbacks and "falling back to" in sdk[0].message
    assert sdk[0].exc_info is not None and "divided by zero" in str(sdk[0].exc_info[1])
    dealer = [r for r in caplog.records if r.name == "arena.server" and "fallback" in r.message]
    assert len(dealer) == fallbacks
    assert dealer[0].message.startswith("bot broken: decision ")
    assert dealer[0].message.endswith("answered by its SDK's check/fold fallback (the bot's code "
                                      "failed): ZeroDivisionError: my strategy divided by zero")

"""`arena mcp`'s seat link: a lost stream is opened again by the next tool call, and the dealer
re-sends the decision still open; a refused token is said, not retried."""

from __future__ import annotations

import asyncio
from pathlib import Path

import grpc
import pytest
from arena_bot import play
from arena_bot.examples import calling_station

from arena.gateway.mcpserver import SeatLink
from tests.server.harness import make_config, running, token_for

pytestmark = pytest.mark.timeout(60)


def test_a_lost_stream_is_opened_again_and_the_open_decision_comes_back(tmp_path: Path) -> None:
    config = make_config(tmp_path, ["agent", "station"], hands=2,
                         rules={"games": ["FT"], "decision_seconds": 20.0})

    async def scenario() -> None:
        async with running(config) as (_server, address):
            other = asyncio.ensure_future(play(calling_station, server=address,
                                               token=token_for("station"), name="station"))
            refused = SeatLink(address, "token-nobody-0123456789", "nobody")
            text = await refused.wait_for_decision(10)
            assert "UNAUTHENTICATED" in text and "No more decisions." in text
            assert refused.connects == 1  # a refused token is not retried
            await refused.close()

            link = SeatLink(address, token_for("agent"), "agent")
            view = await link.wait_for_decision(20)
            decision = view.split()[1]
            assert view.startswith("decision ") and link.connects == 1
            assert isinstance(link.call, grpc.aio.StreamStreamCall)
            link.call.cancel()  # the connection drops
            assert link.task is not None
            await asyncio.wait_for(link.task, 10)
            assert not link.open and "connects again" in link.ended
            again = await link.wait_for_decision(20)
            assert link.connects == 2 and again.split()[1] == decision
            kinds = "check" if "\n  check\n" in again else "call"
            assert (await link.act(decision, kinds)).startswith("done: seat")
            while "No more decisions." not in (view := await link.wait_for_decision(20)):
                if view.startswith("decision "):
                    reply = "check" if "\n  check\n" in view else "call"
                    await link.act(view.split()[1], reply)
            assert "the dealer ended the stream: OK" in view
            await link.close()
            await asyncio.wait_for(other, 20)


    asyncio.run(scenario())


def test_the_view_shows_the_clock_as_it_stands_when_read() -> None:
    from arena.gateway.mcpserver import clock_now
    from arena.v1 import arena_pb2 as pb

    request = pb.DecisionRequest(decision_time_left_seconds=30.0, time_bank_left_seconds=600.0)
    assert (clock_now(request, 10).decision_time_left_seconds,
            clock_now(request, 10).time_bank_left_seconds) == (20.0, 600.0)
    assert (clock_now(request, 45).decision_time_left_seconds,
            clock_now(request, 45).time_bank_left_seconds) == (0.0, 585.0)
    assert clock_now(request, 9999).time_bank_left_seconds == 0.0
    assert request.decision_time_left_seconds == 30.0  # the request itself is left alone


def test_a_decision_that_timed_out_is_said_once(tmp_path: Path) -> None:
    config = make_config(tmp_path, ["agent", "station"], hands=2,
                         rules={"games": ["FT"], "decision_seconds": 0.3, "time_bank_seconds": 0.0})

    async def scenario() -> None:
        async with running(config) as (_server, address):
            other = asyncio.ensure_future(play(calling_station, server=address,
                                               token=token_for("station"), name="station"))
            link = SeatLink(address, token_for("agent"), "agent")
            first = (await link.wait_for_decision(20)).split()[1]
            while first in link.open:  # the agent thinks too long
                await asyncio.sleep(0.05)
            late = await link.act(first, "fold")
            assert late.startswith("refused: decision") and "is not open" in late
            view = await link.wait_for_decision(20)
            assert view.startswith(f"decision {first} of hand 1 closed without your reply: your "
                                   "time ran out; the dealer chose "), view
            assert f"decision {first} of hand" not in await link.wait_for_decision(0.5)  # once
            await link.close()
            other.cancel()
            await asyncio.gather(other, return_exceptions=True)

    asyncio.run(scenario())

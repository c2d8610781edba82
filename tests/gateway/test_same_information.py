"""The gateway's JSON carries exactly what the gRPC stream carries for the same seat: the same
seeded match is played twice by the same scripted seat, once over gRPC and once through the
gateway, and the dealer messages it received are equal once parsed back from JSON (clock
readings and ids aside, which differ from run to run)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from arena_bot import play
from arena_bot.examples import calling_station
from google.protobuf import json_format
from google.protobuf.message import Message

from arena.v1 import arena_pb2 as pb
from tests.gateway.procs import gateway_running, open_agent, recv
from tests.server.harness import RawBot, make_config, running, token_for

pytestmark = pytest.mark.timeout(120)
VOLATILE = {"server_time", "decision_deadline", "decision_time_left_seconds",
            "time_bank_left_seconds", "session_id", "decision_id", "client_time"}


def scrub(message: Message) -> Message:
    """``message`` with the clock readings and per-run ids cleared, recursively."""
    for descriptor, value in list(message.ListFields()):
        if descriptor.name in VOLATILE:
            message.ClearField(descriptor.name)
        elif descriptor.message_type is not None:
            if descriptor.is_repeated and not descriptor.message_type.GetOptions().map_entry:
                for item in value:
                    scrub(item)
            elif not descriptor.is_repeated:
                scrub(value)
    return message


def choose(request: pb.DecisionRequest) -> pb.Action:
    kinds = {a.kind: a for a in request.legal_actions}
    if request.hand_number % 2 == 0 and pb.ACTION_KIND_RAISE in kinds:
        return pb.Action(kind=pb.ACTION_KIND_RAISE,
                         raise_to_chips=kinds[pb.ACTION_KIND_RAISE].min_raise_to_chips)
    for kind in (pb.ACTION_KIND_CHECK, pb.ACTION_KIND_CALL, pb.ACTION_KIND_BRING_IN):
        if kind in kinds:
            return pb.Action(kind=kind)
    return pb.Action(kind=pb.ACTION_KIND_FOLD)


async def over_grpc(address: str) -> list[pb.DealerMessage]:
    bot = await RawBot(address, token_for("agent"), name="agent").connect()
    got: list[pb.DealerMessage] = []
    while (message := await bot.recv(30)) is not None:
        got.append(message)
        if message.WhichOneof("payload") == "decision_request":
            r = message.decision_request
            await bot.send(pb.BotMessage(action_reply=pb.ActionReply(
                decision_id=r.decision_id, seat=r.your_seat, action=choose(r))))
    await bot.close()
    return got


async def over_gateway(address: str) -> list[pb.DealerMessage]:
    got: list[pb.DealerMessage] = []
    async with gateway_running(address) as url:
        ws = await open_agent(url, token_for("agent"))
        await ws.send(json.dumps({"hello": {"bot_name": "agent", "protocol_version": 1}}))
        while "stream_ended" not in (frame := await recv(ws)):
            message = json_format.ParseDict(frame, pb.DealerMessage())
            got.append(message)
            if message.WhichOneof("payload") == "decision_request":
                r = message.decision_request
                reply = pb.BotMessage(action_reply=pb.ActionReply(
                    decision_id=r.decision_id, seat=r.your_seat, action=choose(r)))
                await ws.send(json.dumps(json_format.MessageToDict(reply)))
        assert frame["stream_ended"]["code"] == "OK"
        await ws.close()
    return got


def run_match(tmp_path: Path, agent: Any) -> list[pb.DealerMessage]:
    config = make_config(tmp_path, ["agent", "station"], hands=10, seed=4141,
                         rules={"decision_seconds": 10.0, "time_bank_seconds": 10.0})

    async def scenario() -> list[pb.DealerMessage]:
        async with running(config) as (_server, address):
            other = asyncio.ensure_future(play(calling_station, server=address,
                                               token=token_for("station"), name="station"))
            got: list[pb.DealerMessage] = await agent(address)
            await asyncio.wait_for(other, 30)
            return got

    return asyncio.run(scenario())


def test_the_same_seat_sees_the_same_messages_over_json_and_grpc(tmp_path: Path) -> None:
    direct = run_match(tmp_path / "grpc", over_grpc)
    relayed = run_match(tmp_path / "json", over_gateway)
    kinds = [m.WhichOneof("payload") for m in direct]
    assert kinds.count("decision_request") > 10 and kinds[0] == "welcome"
    assert [scrub(m) for m in relayed] == [scrub(m) for m in direct]
    # Nothing less, and nothing more: other seats' hidden cards are not in either.
    dealt = [m.event.cards_dealt for m in relayed if m.event.WhichOneof("payload") == "cards_dealt"]
    assert dealt and all(not d.hole_cards for d in dealt if d.seat != _my_seat(relayed, d))


def _my_seat(messages: list[pb.DealerMessage], _dealt: pb.CardsDealt) -> int:
    return next(m.event.match_started.your_seat for m in messages
                if m.event.WhichOneof("payload") == "match_started")

"""The gateway's bounds and lifecycle: tokens, floods, oversized frames, stale replies and
reconnects, each answered as documented in /agent.txt (docs/agents.md)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from arena_bot import play
from arena_bot.examples import calling_station
from websockets.exceptions import ConnectionClosed

from arena.gateway.limits import GatewayLimits
from tests.gateway.procs import flat, gateway_running, open_agent, recv
from tests.server.harness import make_config, running, token_for

pytestmark = pytest.mark.timeout(90)
HELLO = json.dumps({"hello": {"bot_name": "agent", "protocol_version": 1}})


def scenario(tmp_path: Path, body: Any, *, limits: GatewayLimits | None = None,
             hands: int = 4, decision_seconds: float = 20.0) -> None:
    config = make_config(tmp_path, ["agent", "station"], hands=hands,
                         rules={"games": ["FT"], "decision_seconds": decision_seconds,
                                "time_bank_seconds": 0.0})

    async def run() -> None:
        async with running(config) as (_server, address), gateway_running(address, limits) as url:
            other = asyncio.ensure_future(play(calling_station, server=address,
                                               token=token_for("station"), name="station",
                                               reconnect_seconds=5))
            try:
                await body(url)
            finally:
                other.cancel()
                await asyncio.gather(other, return_exceptions=True)

    asyncio.run(run())


async def next_request(ws: Any) -> dict[str, Any]:
    while True:
        for message in flat(await recv(ws)):
            if "decision_request" in message:
                request: dict[str, Any] = message["decision_request"]
                return request


async def until(ws: Any, key: str, inner: str | None = None) -> dict[str, Any]:
    while True:
        for message in flat(await recv(ws)):
            if key in message and (inner is None or inner in message[key]):
                found: dict[str, Any] = message[key]
                return found


def test_no_token_and_an_unknown_token_end_the_stream_unauthenticated(tmp_path: Path) -> None:
    async def body(url: str) -> None:
        ws = await open_agent(url, None)
        ended = await recv(ws)
        assert ended["stream_ended"]["code"] == "UNAUTHENTICATED"
        assert "Authorization: Bearer" in ended["stream_ended"]["message"]
        await asyncio.wait_for(ws.wait_closed(), 10)
        assert ws.close_code == 4016
        ws = await open_agent(url, "token-nobody-0123456789")
        await ws.send(HELLO)
        ended = await recv(ws)
        assert ended["stream_ended"]["code"] == "UNAUTHENTICATED"  # the dealer's own answer
        await asyncio.wait_for(ws.wait_closed(), 10)
        assert ws.close_code == 4016

    scenario(tmp_path, body, limits=GatewayLimits(auth_failure_delay_seconds=0.0,
                                                  auth_failure_max_delay_seconds=0.0))


def test_an_address_whose_token_was_refused_waits_before_the_next_stream(tmp_path: Path) -> None:
    """To the dealer every agent comes from the gateway's address, so the gateway keeps the
    dealer's rule per agent address: after a refused token the address waits, doubling."""
    async def body(url: str) -> None:
        ws = await open_agent(url, "token-nobody-0123456789")
        await ws.send(HELLO)
        assert (await recv(ws))["stream_ended"]["code"] == "UNAUTHENTICATED"
        ws = await open_agent(url, token_for("agent"))  # at once: refused by the gateway
        ended = (await recv(ws))["stream_ended"]
        assert ended["code"] == "UNAVAILABLE"
        assert ended["message"].startswith("1 refused token(s) from your address: connect again in")
        await asyncio.wait_for(ws.wait_closed(), 10)
        assert ws.close_code == 4014
        await asyncio.sleep(0.6)  # the backoff (0.5 s) is over
        ws = await open_agent(url, token_for("agent"))
        await ws.send(HELLO)
        assert (await until(ws, "welcome"))["bot_name"] == "agent"
        await ws.close()

    scenario(tmp_path, body, limits=GatewayLimits(auth_failure_delay_seconds=0.5,
                                                  auth_failure_max_delay_seconds=4.0))


def test_a_flood_of_frames_closes_the_socket_and_the_seat_is_absent(tmp_path: Path) -> None:
    async def body(url: str) -> None:
        ws = await open_agent(url, token_for("agent"))
        await ws.send(HELLO)
        await until(ws, "welcome")
        with pytest.raises(ConnectionClosed):
            for k in range(50):
                await ws.send(json.dumps({"ping": {"nonce": str(k)}}))
            while True:
                await recv(ws, 10)
        assert ws.close_code == 1008 and ws.close_reason.startswith("flood: more than 10 frames")

    scenario(tmp_path, body, limits=GatewayLimits(message_burst=10, messages_per_second=1.0))


def test_oversized_frames_are_refused_then_cut(tmp_path: Path) -> None:
    async def body(url: str) -> None:
        ws = await open_agent(url, token_for("agent"))
        await ws.send(HELLO)
        await until(ws, "welcome")
        await ws.send(json.dumps({"ping": {"nonce": "1"}}) + " " * 2000)
        refused = await until(ws, "error")
        assert refused["code"] == "RESOURCE_EXHAUSTED" and "at most 1024" in refused["message"]
        await ws.send(json.dumps({"ping": {"nonce": "2"}}))
        assert (await until(ws, "pong"))["nonce"] == "2"  # still connected, nothing lost
        with pytest.raises(ConnectionClosed):
            await ws.send("x" * 10_000)
            while True:
                await recv(ws, 10)
        assert ws.close_code == 1009

    scenario(tmp_path, body, limits=GatewayLimits(max_message_bytes=1024, hard_frame_bytes=4096))


def test_a_stale_reply_is_refused_and_a_reconnect_gets_the_open_decision_again(tmp_path: Path
                                                                              ) -> None:
    async def body(url: str) -> None:
        ws = await open_agent(url + "?view=text", token_for("agent"))
        await ws.send(HELLO)
        first = await next_request(ws)
        did = first["decision_id"]
        kinds = {a["kind"] for a in first["legal_actions"]}
        passive = "check" if "ACTION_KIND_CHECK" in kinds else "call"
        await ws.send(json.dumps({"text_reply": {"decision_id": did, "text": passive}}))
        taken = await until(ws, "event", "action_taken")
        assert taken["action_taken"]["decision_id"] == did
        await ws.send(json.dumps({"text_reply": {"decision_id": did, "text": "fold"}}))
        stale = await until(ws, "error")
        assert stale["code"] == "ABORTED" and stale["decision_id"] == did
        await ws.send(json.dumps({"action_reply": {"decision_id": did, "seat": first["your_seat"],
                                                   "action": {"kind": "ACTION_KIND_FOLD"}}}))
        rejected = await until(ws, "action_rejected")
        assert rejected["code"] == "REJECT_CODE_ABORTED" and rejected["retry_allowed"] is False

        second = await next_request(ws)
        await ws.close()  # drops mid-decision ...
        ws = await open_agent(url, token_for("agent"))  # ... and comes back in time
        await ws.send(HELLO)
        welcome = await until(ws, "welcome")
        assert [s["seat"] for s in welcome["seats"]] == [second["your_seat"]]
        again = await next_request(ws)
        assert again["decision_id"] == second["decision_id"]
        await ws.send(json.dumps({"action_reply": {"decision_id": again["decision_id"],
                                                   "seat": again["your_seat"],
                                                   "action": {"kind": "ACTION_KIND_FOLD"}}}))
        taken = await until(ws, "event", "action_taken")
        assert taken["action_taken"]["decision_id"] == again["decision_id"]
        assert taken["action_taken"]["action"]["automatic"] is False
        await ws.close()

    # Long enough to reconnect within a decision on a loaded machine; short enough that the
    # decisions left open when the agent goes for good end soon.
    scenario(tmp_path, body, decision_seconds=5.0)


def test_the_gateway_s_connections_do_not_wait_for_acks() -> None:
    """Nagle's algorithm held a decision request written right after an event until the agent
    acknowledged the event: 40 ms a decision (Linux's delayed ACK). Accepted connections inherit
    TCP_NODELAY from the listening socket."""
    import socket

    from arena.gateway.server import listening_socket

    listener = listening_socket("127.0.0.1", 0)
    listener.setblocking(True)
    with listener, socket.create_connection(listener.getsockname()[:2]) as _client:
        accepted, _ = listener.accept()
        with accepted:
            assert accepted.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY) != 0


def test_streams_not_yet_welcomed_are_bounded_per_address(tmp_path: Path) -> None:
    async def body(url: str) -> None:
        first = await open_agent(url, token_for("agent"))  # no hello yet: not welcomed
        await asyncio.sleep(0.2)
        second = await open_agent(url, token_for("agent"))
        ended = (await recv(second))["stream_ended"]
        assert ended["code"] == "RESOURCE_EXHAUSTED" and "still waiting" in ended["message"]
        await first.send(HELLO)
        assert (await until(first, "welcome"))["bot_name"] == "agent"
        third = await open_agent(url, token_for("station"))  # the first was welcomed: room again
        await third.send(json.dumps({"ping": {"nonce": "3"}}))  # not a hello: the dealer says so
        assert (await recv(third))["stream_ended"]["code"] == "FAILED_PRECONDITION"
        await first.close()

    scenario(tmp_path, body, limits=GatewayLimits(max_pending_per_address=1))

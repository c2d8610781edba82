"""The dealer on a Unix socket (issue 36: hosted bots' only way out of their sandbox)."""

from __future__ import annotations

import asyncio
import dataclasses
import tempfile
from pathlib import Path

import grpc
import pytest

from arena.server.service import MAX_PENDING_FAILURES
from arena.v1 import arena_pb2 as pb
from tests.server.harness import RawBot, make_config, running, token_for

pytestmark = pytest.mark.timeout(90)


async def _status(address: str, token: str) -> grpc.StatusCode:
    async with grpc.aio.insecure_channel(address) as channel:
        play = channel.stream_stream("/arena.v1.Dealer/Play",
                                     request_serializer=pb.BotMessage.SerializeToString,
                                     response_deserializer=pb.DealerMessage.FromString)
        call = play(metadata=(("authorization", f"Bearer {token}"),))
        try:
            async for _ in call:
                pass
        except grpc.aio.AioRpcError as exc:
            return exc.code()
        return grpc.StatusCode.OK


def test_bots_play_over_the_socket_and_bad_tokens_there_lock_out_no_one(tmp_path: Path) -> None:
    """Every hosted instance is the same peer ("unix:"): one flooding wrong tokens made the
    dealer refuse every other instance at once ("too many failed authentications")."""
    # Every failed attempt waits 5 s, not doubling: the flood fills the socket's pending slots
    # for those 5 s (the window the old lock-out needed; the rest are refused at once) and no
    # longer, so the test does not wait out a 30 s doubled delay.
    config = make_config(tmp_path, ["alice", "bob"], hands=2,
                         limits={"auth_failure_delay_seconds": 5.0,
                                 "auth_failure_max_delay_seconds": 5.0})
    with tempfile.TemporaryDirectory(prefix="arena-") as directory:  # a short socket path
        socket_path = Path(directory) / "dealer.sock"
        config = dataclasses.replace(config, unix_socket=socket_path)

        async def scenario() -> None:
            async with running(config) as (_server, _tcp):
                address = f"unix:{socket_path}"
                flood = [asyncio.ensure_future(_status(address, f"wrong-token-{k:04d}"))
                         for k in range(3 * MAX_PENDING_FAILURES)]
                await asyncio.sleep(0.5)  # the wrong ones are waiting out their delays now
                alice = await RawBot(address, token_for("alice"), name="alice").connect()
                bob = await RawBot(address, token_for("bob"), name="bob").connect()
                for bot in (alice, bob):
                    welcome = await bot.expect(lambda m: m.WhichOneof("payload") == "welcome")
                    assert welcome is not None
                codes = await asyncio.gather(*flood)
                assert set(codes) <= {grpc.StatusCode.UNAUTHENTICATED,
                                      grpc.StatusCode.RESOURCE_EXHAUSTED}
                assert grpc.StatusCode.RESOURCE_EXHAUSTED in codes  # the flood itself is cut
                for bot in (alice, bob):
                    await bot.close()

        asyncio.run(scenario())

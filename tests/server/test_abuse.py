"""A bot that floods the dealer or stops reading is cut off alone; other tables never notice."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import pytest
from arena_bot import play
from arena_bot.examples import calling_station

from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc as pb_grpc
from tests.server.harness import RawBot, make_config, running, token_for

pytestmark = pytest.mark.timeout(60)


def test_flooding_and_stalled_bots_are_cut_off_without_slowing_other_tables(
        tmp_path: Path) -> None:
    names = ["calm1", "calm2", "flooder", "partner1", "staller", "partner2", "never", "idle"]
    config = make_config(
        tmp_path, names, hands=40, start_timeout_seconds=60.0,
        # Short clocks: the attackers' tables time out fast (the staller never answers) ...
        rules={"decision_seconds": 0.1, "time_bank_seconds": 1.0},
        # The calm table of calling stations sends ~500-600 replies per bot in 1-1.6 s here: a
        # burst of 1000 holds them however fast the dealer plays (400 cut a calm bot whenever
        # the table took under ~0.9 s); 20,000 pings would have to take 38 s to pass.
        limits={"messages_per_second": 500.0, "message_burst": 1000, "max_queued_messages": 100},
        # ... the calm table's clock no healthy bot misses on a loaded machine (0.1 s could: its
        # ~500 decisions each a little late ran out a 1 s bank): a timeout there means a reply
        # held up for seconds. Its 120 hands' wall time below is what says it was not slowed.
        tables=[{"id": "calm", "seats": ["calm1", "calm2"], "hands": 120,
                 "rules": {"decision_seconds": 10.0, "time_bank_seconds": 10.0}},
                {"id": "flood", "seats": ["flooder", "partner1"]},
                {"id": "stall", "seats": ["staller", "partner2"]},
                # Keeps the server up until the test stops it: "never" never connects.
                {"id": "hold", "seats": ["never", "idle"]}])

    async def scenario() -> None:
        async with running(config) as (server, address):
            # The staller's window is tiny and it never reads: its dealer queue must fill up.
            stall_channel = grpc.aio.insecure_channel(address, options=[
                ("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)])
            stall_call = pb_grpc.DealerStub(stall_channel).Play(
                metadata=(("authorization", f"Bearer {token_for('staller')}"),))
            await stall_call.write(pb.BotMessage(hello=pb.Hello(bot_name="staller")))
            flooder = await RawBot(address, token_for("flooder"), name="flooder").connect()

            ended: dict[str, float] = {}
            all_ended = asyncio.Event()

            def watch(message: pb.DealerMessage) -> None:
                if message.event.WhichOneof("payload") == "match_ended":
                    ended.setdefault(message.event.match_id, time.monotonic())
                    if len(ended) == 3:
                        all_ended.set()

            players = [asyncio.ensure_future(play(calling_station, server=address,
                                                  token=token_for(n), name=n,
                                                  reconnect_seconds=0.5, on_message=watch))
                       for n in ("calm1", "calm2", "partner1", "partner2", "idle")]
            started = time.monotonic()
            ping = pb.BotMessage(ping=pb.Ping(nonce=7))
            for _ in range(20_000):
                try:
                    await flooder.send(ping)
                except (grpc.aio.AioRpcError, asyncio.InvalidStateError):
                    break
            await flooder.drain(20.0)
            # A client still writing when its stream is cut may see its own write fail first
            # (INTERNAL); otherwise it sees the dealer's status.
            assert flooder.status in (grpc.StatusCode.RESOURCE_EXHAUSTED,
                                      grpc.StatusCode.INTERNAL), flooder.details
            if flooder.status == grpc.StatusCode.RESOURCE_EXHAUSTED:
                assert "messages" in flooder.details
            await asyncio.wait_for(all_ended.wait(), 40)
            # Reading now, the staller finds the status the dealer ended its stream with.
            with pytest.raises(grpc.aio.AioRpcError) as info:
                async for _ in stall_call:
                    pass
            assert info.value.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "not reading" in (info.value.details() or "")
            await stall_channel.close()
            await flooder.close()
            server.stop()
            await server.run_until_done()
            await asyncio.gather(*players)
        assert server.service.stats.ended["RESOURCE_EXHAUSTED"] == 2  # flooder and staller
        by_id = {s.match_id: s for s in server.summaries()}
        calm = by_id["calm"]
        assert calm.hands_played == 120 and not calm.aborted
        assert calm.stats.timeouts == 0 and calm.stats.absent_actions == 0
        assert ended["calm"] - started < 15.0
        for table in ("flood", "stall"):
            assert by_id[table].hands_played == 40 and not by_id[table].aborted
        assert by_id["stall"].stats.absent_actions > 0  # cut off, then played for as absent
        assert by_id["flood"].stats.absent_actions > 0

    asyncio.run(scenario())

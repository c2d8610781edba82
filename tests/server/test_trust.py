"""Issue 7 over real gRPC: bots bounded in bytes and rate, true statuses, guarded tokens and
clamped think times. Each test names the defect it guards against."""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import stat
import time
from pathlib import Path
from typing import Any

import grpc
import pytest

from arena.host.phhfile import load_file
from arena.server import convert
from arena.server.config import Limits
from arena.v1 import arena_pb2 as pb
from tests.server.harness import RawBot, make_config, running, token_for

pytestmark = pytest.mark.timeout(90)


async def _ended(bot: RawBot, timeout: float = 10.0) -> tuple[grpc.StatusCode | None, str]:
    await bot.drain(timeout)
    return bot.status, bot.details


async def _raw_call(address: str, token: str, frames: list[bytes]) -> tuple[grpc.StatusCode, str]:
    """Send raw bytes as Play messages (no protobuf encoding) and return the final status."""
    async with grpc.aio.insecure_channel(address) as channel:
        play = channel.stream_stream("/arena.v1.Dealer/Play",
                                     request_serializer=lambda b: b,
                                     response_deserializer=lambda b: b)
        call = play(metadata=(("authorization", f"Bearer {token}"),))
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
            for frame in frames:
                await call.write(frame)
        with contextlib.suppress(grpc.aio.AioRpcError):
            async for _ in call:
                pass
        return await call.code(), await call.details() or ""


def test_garbage_bytes_end_the_stream_with_invalid_argument(tmp_path: Path) -> None:
    """Before: bytes that are not a BotMessage ended the stream OK with empty details, so the
    SDK quit as if the match were over. Garbage also earns the flood backoff."""
    config = make_config(tmp_path, ["alice", "bob"], hands=1,
                         limits={"flood_backoff_seconds": 0.5})
    hello = pb.BotMessage(hello=pb.Hello(bot_name="alice", protocol_version=1))

    async def scenario() -> None:
        async with running(config) as (server, address):
            garbage = b"\xff\xff\xff\xff\x0f garbage"
            code, details = await _raw_call(address, token_for("alice"), [garbage])
            assert code == grpc.StatusCode.INVALID_ARGUMENT
            assert "not a BotMessage" in details
            code, details = await _raw_call(address, token_for("alice"), [garbage])
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "come back in" in details
            await asyncio.sleep(1.1)  # 0.5 s, then 1 s after the second strike
            code, details = await _raw_call(address, token_for("alice"),
                                            [hello.SerializeToString(), garbage])
            assert code == grpc.StatusCode.INVALID_ARGUMENT
            assert "not a BotMessage" in details
            assert server.service.stats.ended["INVALID_ARGUMENT"] == 2

    asyncio.run(scenario())


def test_second_stream_is_refused_unless_takeover_is_allowed(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Before: a second stream with a seat's token silently took the seats over."""

    async def scenario(takeover: bool) -> None:
        config = make_config(tmp_path, ["alice", "bob"], hands=1,
                             limits={"allow_takeover": takeover})
        async with running(config) as (_server, address):
            first = await RawBot(address, token_for("alice"), name="first").connect()
            await first.expect(lambda m: m.WhichOneof("payload") == "welcome")
            second = await RawBot(address, token_for("alice"), name="second").connect()
            if takeover:
                await second.expect(lambda m: m.WhichOneof("payload") == "welcome")
                assert (await _ended(first))[0] == grpc.StatusCode.ALREADY_EXISTS
            else:
                status, details = await _ended(second)
                assert status == grpc.StatusCode.ALREADY_EXISTS
                assert "must drop first" in details
                await first.send(pb.BotMessage(ping=pb.Ping(nonce=5)))
                await first.expect(lambda m: m.WhichOneof("payload") == "pong")
                # Once the first stream has dropped, the seat's token connects again.
                await first.close()
                await asyncio.sleep(0.3)
                third = await RawBot(address, token_for("alice"), name="third").connect()
                await third.expect(lambda m: m.WhichOneof("payload") == "welcome")
                await third.close()
            await first.close()
            await second.close()

    with caplog.at_level("WARNING", logger="arena.server"):
        asyncio.run(scenario(False))
    assert any("second stream" in r.getMessage() for r in caplog.records)
    caplog.clear()
    with caplog.at_level("WARNING", logger="arena.server"):
        asyncio.run(scenario(True))
    assert any("takes over" in r.getMessage() for r in caplog.records)


def test_a_huge_decision_id_is_refused_as_malformed_without_echo(tmp_path: Path) -> None:
    """Before: a 60 KB decision id was repeated twice in the refusal (id and message), so a
    bot that never read made the dealer hold about 470 MiB."""
    config = make_config(tmp_path, ["alice", "bob"], hands=1)
    observed: list[str] = []

    async def scenario() -> None:
        async with running(config) as (server, address):
            server.lobby.rejection_observers.append(
                lambda bot, error: observed.append(f"{bot} {type(error).__name__}"))
            bot = await RawBot(address, token_for("alice"), name="alice").connect()
            big_id = "d" * 60_000
            await bot.reply(big_id, 0, pb.ACTION_KIND_CALL)
            message = await bot.expect(lambda m: m.WhichOneof("payload") == "action_rejected")
            assert message.action_rejected.code == pb.REJECT_CODE_INVALID_ARGUMENT
            assert "malformed decision id" in message.action_rejected.message
            assert message.action_rejected.decision_id == "d" * 16 + "..."
            assert message.ByteSize() < 300
            # Issue 39: counted as every refusal is (before: counted nowhere), and told to the
            # lobby's observers (the league's metrics: arena_invalid_actions_total "malformed").
            assert server.lobby.refused_unknown == {"alice": 1}
            assert sum(server.lobby.refused_unknown_by_match.values()) == 1
            assert observed == ["alice MalformedInput"]
            await bot.close()

    asyncio.run(scenario())


def test_a_bot_that_never_reads_is_cut_by_queued_bytes(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """Before: the outbox was bounded in messages only, whatever their size."""

    async def scenario() -> None:
        async with running(config) as (server, address):
            channel = grpc.aio.insecure_channel(address, options=[
                ("grpc.http2.lookahead_bytes", 1024), ("grpc.http2.bdp_probe", 0)])
            play = channel.stream_stream("/arena.v1.Dealer/Play",
                                         request_serializer=lambda b: b,
                                         response_deserializer=lambda b: b)
            call = play(metadata=(("authorization", f"Bearer {token_for('alice')}"),))
            await call.write(pb.BotMessage(hello=pb.Hello(bot_name="a")).SerializeToString())
            ping = pb.BotMessage(ping=pb.Ping(nonce=1)).SerializeToString()
            # Every ping is answered by a pong: the answers pile up in the dealer's queue. Writing
            # stops once the dealer has cut the stream (a later write would wait for the flow
            # control of a stream nobody reads).
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                for _ in range(200):
                    if server.service.stats.ended.get("RESOURCE_EXHAUSTED"):
                        break
                    for _ in range(400):
                        await call.write(ping)
                    await asyncio.sleep(0.1)
            with pytest.raises(grpc.aio.AioRpcError) as info:
                async for _ in call:
                    pass
            # A client still writing when its stream is cut may see its own write fail first.
            assert info.value.code() in (grpc.StatusCode.RESOURCE_EXHAUSTED,
                                         grpc.StatusCode.INTERNAL)
            assert server.service.stats.ended["RESOURCE_EXHAUSTED"] == 1
            await channel.close()

    config = make_config(tmp_path, ["alice", "bob"], hands=1,
                         limits={"max_queued_bytes": 64 * 1024, "max_queued_messages": 100_000,
                                 "messages_per_second": 1_000_000.0,
                                 "message_burst": 1_000_000})
    with caplog.at_level("WARNING", logger="arena.server"):
        asyncio.run(scenario())
    assert any("bytes could not be delivered" in r.getMessage() for r in caplog.records)


async def _flood(address: str, token: str, frame: bytes, *,
                 per_second: float | None = None) -> float:
    """Flood one stream with ``frame`` (as fast as possible, or paced to ``per_second`` on
    average) from just after the welcome; returns the seconds until the stream was cut."""
    async with grpc.aio.insecure_channel(address) as channel:
        play = channel.stream_stream("/arena.v1.Dealer/Play",
                                     request_serializer=lambda b: b,
                                     response_deserializer=lambda b: b)
        call = play(metadata=(("authorization", f"Bearer {token}"),))
        await call.write(pb.BotMessage(hello=pb.Hello(bot_name="flood")).SerializeToString())
        assert await call.read() is not grpc.aio.EOF  # the welcome
        started = time.monotonic()
        sent = 0
        with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
            while time.monotonic() - started < 5.0 and not call.done():
                due = 10**9 if per_second is None else \
                    int((time.monotonic() - started) * per_second) + 1
                while sent < due and sent < 100_000:
                    await call.write(frame)
                    sent += 1
                await asyncio.sleep(0.005)
        with contextlib.suppress(grpc.aio.AioRpcError):
            while await call.read() is not grpc.aio.EOF:
                pass
        return time.monotonic() - started


def test_floods_are_cut_at_the_rate_limit(tmp_path: Path) -> None:
    """Before: a burst of 2,000 messages let a ping flood run about 0.35 s on an idle machine
    (and a flood at 3,000 messages/s for 1 s); issue 7 asks for a cut within 0.5 s of a flood
    above 1,400 messages/s with the default limits, which `bench.trust` measures (docs/security.md).
    Here without the machine's speed, which a loaded machine changes: every flood is cut, and by
    then the dealer has read no more than the burst plus the rate over the flood's own time
    (from its first message to the end of the stream), in messages and in bytes."""
    config = make_config(tmp_path, ["bytes", "pings", "paced", "bob"], hands=1,
                         limits={"flood_backoff_seconds": 0.0})
    big = pb.BotMessage(hello=pb.Hello(bot_name="x" * 60_000)).SerializeToString()
    ping = pb.BotMessage(ping=pb.Ping(nonce=1)).SerializeToString()
    limits = Limits()

    async def scenario() -> None:
        async with running(config) as (server, address):
            stats = server.service.stats

            async def flood(name: str, frame: bytes, per_second: float | None = None) -> None:
                messages, size = stats.messages_in, stats.bytes_in
                seconds = await _flood(address, token_for(name), frame, per_second=per_second)
                messages, size = stats.messages_in - messages, stats.bytes_in - size
                assert seconds < 5.0, (name, seconds)  # cut, not run out (the flood's own end)
                # The hello and the message over the limit beside the burst and the rate:
                assert messages <= limits.message_burst + limits.messages_per_second * seconds + 2, \
                    (name, messages, seconds)
                assert size <= limits.byte_burst + limits.bytes_per_second * seconds + 2 * len(frame) \
                    + 100, (name, size, seconds)

            await flood("bytes", big)
            await flood("pings", ping)
            await flood("paced", ping, per_second=3000.0)
            assert stats.ended["RESOURCE_EXHAUSTED"] == 3, stats.ended
            assert stats.bytes_in < 4 * 1024 * 1024

    asyncio.run(scenario())


def test_a_byte_flood_is_refused_and_backs_off(tmp_path: Path) -> None:
    """Before: only messages were counted: 2,000 messages of 60 KB (120 MB) passed at once,
    and a bot cut for flooding could come straight back."""
    config = make_config(tmp_path, ["alice", "bob"], hands=1,
                         limits={"flood_backoff_seconds": 1.0})
    big = pb.BotMessage(hello=pb.Hello(bot_name="x" * 60_000)).SerializeToString()

    async def scenario() -> None:
        async with running(config) as (server, address):
            hello = pb.BotMessage(hello=pb.Hello(bot_name="alice")).SerializeToString()
            code, details = await _raw_call(address, token_for("alice"), [hello] + [big] * 2000)
            assert code == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "bytes at once" in details
            assert server.service.stats.bytes_in < 4 * 1024 * 1024
            # Straight back: refused, with the time to wait.
            again = await RawBot(address, token_for("alice"), name="again").connect()
            status, details = await _ended(again)
            assert status == grpc.StatusCode.RESOURCE_EXHAUSTED
            assert "cut for flooding" in details
            await again.close()
            await asyncio.sleep(1.1)
            later = await RawBot(address, token_for("alice"), name="later").connect()
            await later.expect(lambda m: m.WhichOneof("payload") == "welcome")
            await later.close()

    asyncio.run(scenario())


async def _welcomed_at_once(address: str, name: str, delayed_seconds: float) -> None:
    """``name``'s bot is welcomed sooner than the address's next refusal would wait
    (``delayed_seconds``): its right token is not delayed (a bound from the limits, not from
    the machine's speed)."""
    started = time.monotonic()
    ok = await RawBot(address, token_for(name), name=name).connect()
    await ok.expect(lambda m: m.WhichOneof("payload") == "welcome")
    assert time.monotonic() - started < delayed_seconds
    await ok.close()


def test_failed_authentications_wait_longer_and_longer(tmp_path: Path) -> None:
    """Before: a wrong token was answered at once, as fast as a bot could guess."""
    config = make_config(tmp_path, ["alice", "bob"], hands=1,
                         limits={"auth_failure_delay_seconds": 0.05,
                                 "auth_failure_max_delay_seconds": 5.0})

    async def scenario() -> None:
        async with running(config) as (_server, address):
            waits: list[float] = []
            for k in range(6):
                started = time.monotonic()
                status, _ = await _ended(await RawBot(address, f"guess-{k:012d}").connect())
                waits.append(time.monotonic() - started)
                assert status == grpc.StatusCode.UNAUTHENTICATED
            # 0.05, 0.1, 0.2, 0.4, 0.8, 1.6 s: each wait at least the doubled delay.
            for k, wait in enumerate(waits):
                assert wait >= 0.05 * 2 ** k * 0.9, waits
            assert waits[-1] > 4 * waits[1]
            # Many guesses at once: beyond a few delayed ones, refused unchecked.
            guesses = [RawBot(address, f"many-{k:012d}") for k in range(20)]
            await asyncio.gather(*(g.connect() for g in guesses))
            statuses = await asyncio.gather(*(_ended(g, 20.0) for g in guesses))
            busy = [d for s, d in statuses if s == grpc.StatusCode.RESOURCE_EXHAUSTED]
            assert len(busy) >= 10 and all("failed authentications" in d for d in busy)
            for g in guesses:
                await g.close()
            # The right token from the same address is not delayed (the next failure: 5 s).
            await _welcomed_at_once(address, "alice", 5.0)

    asyncio.run(scenario())


def test_a_client_retrying_after_a_cut_waits_longer_and_longer(tmp_path: Path) -> None:
    """Before: a stream refused for flooding (or garbage) was answered at once, so a client
    reconnecting in a loop made the dealer refuse streams as fast as it could (about 0.5 ms
    of the dealer's CPU each, some 900 a second from one client). Now each refusal from an
    address waits like a failed authentication."""
    config = make_config(tmp_path, ["alice", "bob"], hands=1,
                         limits={"flood_backoff_seconds": 60.0,
                                 "auth_failure_delay_seconds": 0.05,
                                 "auth_failure_max_delay_seconds": 5.0})
    hello = pb.BotMessage(hello=pb.Hello(bot_name="alice")).SerializeToString()

    async def scenario() -> None:
        async with running(config) as (_server, address):
            code, _ = await _raw_call(address, token_for("alice"), [b"\xff\xff garbage"])
            assert code == grpc.StatusCode.INVALID_ARGUMENT  # and 60 s of flood backoff
            waits: list[float] = []
            for _ in range(5):
                started = time.monotonic()
                code, details = await _raw_call(address, token_for("alice"), [hello])
                waits.append(time.monotonic() - started)
                assert code == grpc.StatusCode.RESOURCE_EXHAUSTED and "come back in" in details
            # 0.1, 0.2, 0.4, 0.8, 1.6 s (the garbage was the first strike of the address).
            for k, wait in enumerate(waits):
                assert wait >= 0.05 * 2 ** (k + 1) * 0.9, waits
            # Another bot from the same address that is not refused is not delayed (the next
            # refusal: 3.2 s).
            await _welcomed_at_once(address, "bob", 3.2)

    asyncio.run(scenario())


@pytest.mark.parametrize(("reported", "wire", "expected"), [
    (math.inf, 0.5, None), (math.nan, 0.5, None), (-1.0, 0.5, None), (0.0, 0.5, None),
    (0.2, 0.5, 0.2), (9.0, 0.5, 0.5), (1e300, None, convert.MAX_THINK_SECONDS),
])
@pytest.mark.no_dealer
def test_think_seconds_are_clamped(reported: float, wire: float | None,
                                   expected: float | None) -> None:
    """Before: one reply with think_seconds = inf made a Prometheus sum +Inf for good."""
    assert convert.think_seconds(reported, wire) == expected


def test_an_infinite_think_time_never_reaches_the_logs(tmp_path: Path) -> None:
    config = make_config(tmp_path, ["alice", "bob"], hands=1, rules={"games": ["FT"]})

    async def play_out(bot: RawBot) -> None:
        while (message := await bot.recv(20.0)) is not None:
            if message.WhichOneof("payload") == "decision_request":
                req = message.decision_request
                kinds = {la.kind for la in req.legal_actions}
                kind = pb.ACTION_KIND_CHECK if pb.ACTION_KIND_CHECK in kinds \
                    else pb.ACTION_KIND_CALL
                await bot.send(pb.BotMessage(action_reply=pb.ActionReply(
                    decision_id=req.decision_id, seat=req.your_seat,
                    action=pb.Action(kind=kind), think_seconds=math.inf)))

    async def scenario() -> None:
        async with running(config) as (server, address):
            bots = [await RawBot(address, token_for(n), name=n).connect() for n in ("alice", "bob")]
            await asyncio.gather(*(play_out(b) for b in bots))
            await server.run_until_done()

    asyncio.run(scenario())
    (hand,) = load_file(str(tmp_path / "logs" / "match.phhs"))
    think: list[Any] = hand.fields["_think_seconds"]
    took: list[Any] = hand.fields["_action_seconds"]
    assert think and all(math.isfinite(t) and t < 60 for t in think)
    assert all(t <= a + 1e-4 for t, a in zip(think, took, strict=True))


def test_an_aborted_match_never_reveals_its_seed(tmp_path: Path) -> None:
    """Before: an interrupted match sent its seed in MatchEnded (and wrote it to the results)
    although a resumed match goes on with the same seed."""
    config = make_config(tmp_path, ["alice", "bob"], hands=1000)

    async def scenario() -> None:
        async with running(config) as (server, address):
            bots = [await RawBot(address, token_for(n), name=n).connect() for n in ("alice", "bob")]
            waits = [asyncio.ensure_future(b.request()) for b in bots]
            _, pending = await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            server.stop()
            await server.run_until_done()
            for bot in bots:
                with contextlib.suppress(AssertionError):
                    await bot.drain(10.0)
                ended = [x.event.match_ended for x in bot.received
                         if x.WhichOneof("payload") == "event"
                         and x.event.WhichOneof("payload") == "match_ended"]
                assert len(ended) == 1 and ended[0].aborted and ended[0].match_seed == ""
                await bot.close()

    asyncio.run(scenario())
    result = json.loads((tmp_path / "logs" / "match.result.json").read_text())
    assert result["aborted"] and result["match_seed"] is None


@pytest.mark.no_dealer
def test_the_event_log_holds_a_hand_until_it_is_over(tmp_path: Path) -> None:
    """Before: each event line went to the file as the next one came, so the log on disk held
    the hole cards of the hand being played."""
    from arena.match import messages as m
    from arena.server.eventrecord import LogRecords, read_events
    from arena.storage.eventlog import EventLog

    log = EventLog(tmp_path / "x.events.pb", LogRecords())
    for k in range(50):
        log.sent(0, m.Notice(match_id="x", hand_id="x-h1", sequence=k + 1, unix_seconds=0.0,
                             payload=m.GameChanged(game="FT", previous_game="", first_hand_number=1)))
    assert not log.path.exists()
    log.flush()
    assert len(list(read_events(log.path))) == 50
    assert stat.S_IMODE(log.path.stat().st_mode) == 0o600
    log.close()

"""Bad input over real gRPC: every refusal has its code and changes no state and no chips."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path

import grpc
import pytest

from arena.engine.phh import iter_replays
from arena.host.phhfile import load_file
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc as pb_grpc
from tests.server.harness import RawBot, events, make_config, running, token_for

pytestmark = pytest.mark.timeout(60)


async def _first_request(bots: list[RawBot]) -> tuple[RawBot, RawBot, pb.DecisionRequest]:
    tasks = {asyncio.ensure_future(b.request()): b for b in bots}
    done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
    for task in pending:
        task.cancel()
    await asyncio.gather(*pending, return_exceptions=True)
    task = done.pop()
    actor = tasks[task]
    other = bots[1] if actor is bots[0] else bots[0]
    return actor, other, task.result()


async def _play_out(bot: RawBot) -> None:
    """Check or call every request until the stream ends."""
    while True:
        message = await bot.recv(20.0)
        if message is None:
            return
        if message.WhichOneof("payload") != "decision_request":
            continue
        req = message.decision_request
        kinds = {la.kind for la in req.legal_actions}
        kind = pb.ACTION_KIND_CHECK if pb.ACTION_KIND_CHECK in kinds else pb.ACTION_KIND_CALL
        await bot.reply(req.decision_id, req.your_seat, kind)


def test_invalid_replies_are_rejected_in_stream_and_change_nothing(tmp_path: Path) -> None:
    config = make_config(tmp_path, ["alice", "bob"], hands=1,
                         rules={"games": ["FT"], "decision_seconds": 30.0,
                                "time_bank_seconds": 0.0})

    async def scenario() -> None:
        async with running(config) as (server, address):
            bots = [await RawBot(address, token_for(n), name=n).connect() for n in ("alice", "bob")]
            actor, other, req = await _first_request(bots)
            seat, did = req.your_seat, req.decision_id
            legal = {la.kind: la for la in req.legal_actions}
            assert set(legal) == {pb.ACTION_KIND_FOLD, pb.ACTION_KIND_CALL, pb.ACTION_KIND_RAISE}
            assert legal[pb.ACTION_KIND_RAISE].min_raise_to_chips == 40
            before = [(s.stack_chips, s.bet_chips) for s in req.seats]
            assert req.pot_total_chips == 30

            cases: list[tuple[str, int, int | None, int, int]] = [
                (did, seat, None, 0, pb.REJECT_CODE_INVALID_ARGUMENT),  # no action at all
                (did, seat, pb.ACTION_KIND_UNSPECIFIED, 0, pb.REJECT_CODE_INVALID_ARGUMENT),
                (did, seat, pb.ACTION_KIND_POST_BIG_BLIND, 20, pb.REJECT_CODE_INVALID_ARGUMENT),
                (did, seat, 99, 0, pb.REJECT_CODE_INVALID_ARGUMENT),  # unknown enum value
                (did, seat, pb.ACTION_KIND_CHECK, 0, pb.REJECT_CODE_FAILED_PRECONDITION),
                (did, seat, pb.ACTION_KIND_BRING_IN, 0, pb.REJECT_CODE_FAILED_PRECONDITION),
                (did, seat, pb.ACTION_KIND_RAISE, 35, pb.REJECT_CODE_OUT_OF_RANGE),
                (did, seat, pb.ACTION_KIND_RAISE, 0, pb.REJECT_CODE_OUT_OF_RANGE),
                (did, 1 - seat, pb.ACTION_KIND_CALL, 0, pb.REJECT_CODE_PERMISSION_DENIED),
                ("no-such-decision", seat, pb.ACTION_KIND_CALL, 0, pb.REJECT_CODE_ABORTED),
            ]
            for decision_id, reply_seat, kind, amount, code in cases:
                await actor.reply(decision_id, reply_seat, kind, amount)
                rejected = await actor.reject()
                assert (rejected.decision_id, rejected.code) == (decision_id, code), rejected
                assert rejected.retry_allowed == (code != pb.REJECT_CODE_ABORTED)
                assert rejected.message
                if rejected.retry_allowed:
                    assert 0 < rejected.time_left_seconds <= 30.0
            # Another bot cannot answer this decision: for it the id is unknown.
            await other.reply(did, seat, pb.ACTION_KIND_FOLD)
            assert (await other.reject()).code == pb.REJECT_CODE_ABORTED

            # Nothing changed: no action was taken, so the decision is still open. Answer it.
            await actor.reply(did, seat, pb.ACTION_KIND_CALL)
            taken = await actor.expect(lambda m: m.event.WhichOneof("payload") == "action_taken"
                                       and m.event.action_taken.decision_id == did)
            action = taken.event.action_taken
            assert action.action.kind == pb.ACTION_KIND_CALL and not action.action.automatic
            assert action.stack_after_chips == before[seat][0] - (20 - before[seat][1])
            assert action.pot_total_after_chips == 40
            # The same decision answered twice: the second reply is stale.
            await actor.reply(did, seat, pb.ACTION_KIND_CALL)
            stale = await actor.reject()
            assert stale.code == pb.REJECT_CODE_ABORTED and not stale.retry_allowed

            await asyncio.gather(_play_out(actor), _play_out(other))
            for bot in bots:
                assert bot.status == grpc.StatusCode.OK, bot.details
                taken_ids = [e.decision_id for e in events(bot.received, "action_taken")]
                assert taken_ids.count(did) == 1
                await bot.close()
            await server.run_until_done()
        (summary,) = server.summaries()
        # Issue 7, counts that add up: the 8 engine refusals and the lobby's refusal of a reply
        # for another seat count in the match; replies to no open decision (the unknown id, the
        # other bot's, the stale second answer) per bot and in the match's results.
        assert summary.stats.rejected == 9
        assert server.lobby.refused_unknown == {"alice": 2, "bob": 1} or \
            server.lobby.refused_unknown == {"alice": 1, "bob": 2}
        assert summary.stats.rejected_no_open_decision == 3
        written = json.loads((tmp_path / "logs" / "match.result.json").read_text())
        assert written["decisions"]["rejected_no_open_decision"] == 3
        assert sum(r.net_chips for r in summary.results) == 0
        hands = load_file(str(tmp_path / "logs" / "match.phhs"))
        (replayed,) = list(iter_replays(hands))
        _, state, error = replayed
        assert error is None and state is not None
        first_actor_line = next(a for a in hands[0].fields["actions"] if not a.startswith("d "))
        assert first_actor_line.endswith(" cc")  # exactly one action: the accepted call
        assert sum(state.stacks) == 4000

    asyncio.run(scenario())


def test_stream_level_refusals(tmp_path: Path) -> None:
    config = make_config(tmp_path, ["alice", "bob"], hands=1, limits={"max_message_bytes": 4096})

    async def status_of(bot: RawBot, first: pb.BotMessage | None = None) -> grpc.StatusCode:
        await bot.connect()
        if first is not None:
            # The server may end the call before the write completes.
            with contextlib.suppress(grpc.aio.AioRpcError, asyncio.InvalidStateError):
                await bot.send(first)
        await bot.drain(10.0)
        await bot.close()
        assert bot.status is not None
        return bot.status

    async def scenario() -> None:
        async with running(config) as (_server, address):
            unauthenticated = grpc.StatusCode.UNAUTHENTICATED
            assert await status_of(RawBot(address, None)) == unauthenticated
            assert await status_of(RawBot(address, "not-a-known-token")) == unauthenticated
            # Metadata with a wrong scheme.
            async with grpc.aio.insecure_channel(address) as channel:
                call = pb_grpc.DealerStub(channel).Play(
                    metadata=(("authorization", f"Basic {token_for('alice')}"),))
                with pytest.raises(grpc.aio.AioRpcError) as info:
                    await call.read()
                assert info.value.code() == unauthenticated
            # The first message must be hello, with a protocol version the server speaks.
            first_ping = RawBot(address, token_for("alice"), hello=False)
            ping = pb.BotMessage(ping=pb.Ping(nonce=1))
            assert await status_of(first_ping, ping) == grpc.StatusCode.FAILED_PRECONDITION
            future = RawBot(address, token_for("alice"), hello=False)
            hello = pb.BotMessage(hello=pb.Hello(bot_name="x", protocol_version=99))
            assert await status_of(future, hello) == grpc.StatusCode.FAILED_PRECONDITION
            # Oversized messages are refused by gRPC before they reach the dealer.
            huge = RawBot(address, token_for("alice"), hello=False)
            big = pb.BotMessage(hello=pb.Hello(bot_name="x" * 10_000))
            assert await status_of(huge, big) == grpc.StatusCode.RESOURCE_EXHAUSTED
            # GetInfo needs no token; pings are answered in-stream.
            async with grpc.aio.insecure_channel(address) as channel:
                info = await pb_grpc.DealerStub(channel).GetInfo(pb.GetInfoRequest())
                assert info.protocol_version == 1 and info.server_version
            ok = await RawBot(address, token_for("bob"), name="bob").connect()
            welcome = await ok.expect(lambda m: m.WhichOneof("payload") == "welcome")
            assert welcome.welcome.bot_id == "bob"
            assert [(s.match_id, s.seat) for s in welcome.welcome.seats] == [("match", 1)]
            await ok.send(pb.BotMessage(ping=pb.Ping(nonce=42)))
            pong = await ok.expect(lambda m: m.WhichOneof("payload") == "pong")
            assert pong.pong.nonce == 42
            # A second stream with the same token is refused ALREADY_EXISTS while the first is
            # open (issue 7: no silent takeover); the first goes on. See test_trust.py.
            again = await RawBot(address, token_for("bob"), name="bob2").connect()
            await again.drain(10.0)
            assert again.status == grpc.StatusCode.ALREADY_EXISTS
            await ok.send(pb.BotMessage(ping=pb.Ping(nonce=43)))
            pong = await ok.expect(lambda m: m.WhichOneof("payload") == "pong")
            assert pong.pong.nonce == 43
            await ok.close()
            await again.close()

    asyncio.run(scenario())

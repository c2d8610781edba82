"""Real time over gRPC: a timeout, a late reply, and a bot that drops mid-decision and comes back."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

import grpc
import pytest
from arena_bot import Action, SeatView, play
from arena_bot.examples import calling_station

from arena.engine.phh import iter_replays
from arena.host.phhfile import load_file
from arena.v1 import arena_pb2 as pb
from tests.server.harness import RawBot, make_config, running, token_for

pytestmark = pytest.mark.timeout(60)
# The decision clock: long enough for a reconnect (a new channel, hello, welcome, the decision
# sent again) and a reply within it on a loaded machine; step 1 waits it out once (plus the bank).
DECISION_SECONDS = 3.0
BANK_SECONDS = 0.5


def passive_kind(req: pb.DecisionRequest) -> int:
    kinds = {la.kind for la in req.legal_actions}
    for kind in (pb.ACTION_KIND_BRING_IN, pb.ACTION_KIND_CHECK, pb.ACTION_KIND_CALL):
        if kind in kinds:
            return kind
    return pb.ACTION_KIND_FOLD


def taken(messages: list[pb.DealerMessage], decision_id: str) -> pb.ActionTaken | None:
    for message in messages:
        event = message.event
        if event.WhichOneof("payload") == "action_taken" and \
                event.action_taken.decision_id == decision_id:
            return event.action_taken
    return None


def test_timeout_late_reply_and_reconnect(tmp_path: Path) -> None:
    config = make_config(tmp_path, ["a", "b"], hands=8,
                         rules={"games": ["FT"], "decision_seconds": DECISION_SECONDS,
                                "time_bank_seconds": BANK_SECONDS})

    async def scenario() -> None:
        async with running(config) as (server, address):
            seen_by_b: list[pb.DealerMessage] = []
            arrived = asyncio.Event()
            # b answers while this is set: cleared while a stays away (step 3), so that the
            # hands cannot all be played (a absent) before a comes back.
            a_around = asyncio.Event()
            a_around.set()

            async def station(view: SeatView) -> Action:
                await a_around.wait()
                return calling_station(view)

            def watch(message: pb.DealerMessage) -> None:
                seen_by_b.append(message)
                arrived.set()

            b = asyncio.ensure_future(play(station, server=address, token=token_for("b"),
                                           name="b", reconnect_seconds=2.0, on_message=watch))
            a = await RawBot(address, token_for("a"), name="a").connect()

            # 1. Silence: the dealer waits decision time + bank, then checks or folds.
            r1 = await a.request()
            asked = time.monotonic()
            assert (r1.decision_time_left_seconds, r1.time_bank_left_seconds) == (
                DECISION_SECONDS, BANK_SECONDS)
            t1 = await a.expect(lambda m: m.event.action_taken.decision_id == r1.decision_id)
            waited = time.monotonic() - asked
            # Never before; how much later is the machine's load.
            assert waited > DECISION_SECONDS + BANK_SECONDS - 0.1, waited
            record = t1.event.action_taken.action
            assert record.automatic and record.automatic_reason == pb.AUTOMATIC_REASON_TIMEOUT
            assert record.kind == (pb.ACTION_KIND_CHECK if pb.ACTION_KIND_CHECK in
                                   {la.kind for la in r1.legal_actions} else pb.ACTION_KIND_FOLD)
            await a.reply(r1.decision_id, r1.your_seat, passive_kind(r1))  # too late
            # The next request may come before the refusal: kept (skipped, it would time out).
            next_request: pb.DecisionRequest | None = None
            while True:
                message = await a.expect(lambda m: m.WhichOneof("payload") in (
                    "action_rejected", "decision_request"))
                if message.WhichOneof("payload") == "action_rejected":
                    break
                next_request = message.decision_request
            late = message.action_rejected
            assert late.code == pb.REJECT_CODE_ABORTED and not late.retry_allowed

            # 2. Drop mid-decision and come back in time: the open decision is sent again.
            r2 = next_request if next_request is not None else await a.request()
            assert r2.time_bank_left_seconds == 0.0  # the timeout spent the bank
            seat = r2.your_seat
            await a.close()
            a = await RawBot(address, token_for("a"), name="a").connect()
            welcome = await a.expect(lambda m: m.WhichOneof("payload") == "welcome")
            assert [(s.match_id, s.seat) for s in welcome.welcome.seats] == [("match", seat)]
            again = await a.request()
            assert again.decision_id == r2.decision_id
            assert again.decision_time_left_seconds < r2.decision_time_left_seconds
            await a.reply(again.decision_id, seat, passive_kind(again))
            t2 = await a.expect(lambda m: m.event.action_taken.decision_id == r2.decision_id)
            assert not t2.event.action_taken.action.automatic

            # 3. Drop and stay away: the seat is checked or folded as absent, then resumed.
            r3 = await a.request()
            a_around.clear()
            await a.close()
            while taken(seen_by_b, r3.decision_id) is None:  # at r3's deadline
                arrived.clear()
                await asyncio.wait_for(arrived.wait(), 30.0)
            t3 = taken(seen_by_b, r3.decision_id)
            assert t3 is not None and t3.action.automatic
            assert t3.action.automatic_reason == pb.AUTOMATIC_REASON_ABSENT
            a = await RawBot(address, token_for("a"), name="a").connect()
            a_around.set()
            resumed = 0
            while True:
                message = await a.recv(20.0)
                if message is None:
                    break
                if message.WhichOneof("payload") == "decision_request":
                    req = message.decision_request
                    await a.reply(req.decision_id, req.your_seat, passive_kind(req))
                    resumed += 1
            assert a.status == grpc.StatusCode.OK
            assert resumed > 0
            await a.close()
            result = await asyncio.wait_for(b, 10)
            assert result.final_status == "OK"
            await server.run_until_done()
        (summary,) = server.summaries()
        assert summary.hands_played == 8 and not summary.aborted
        assert summary.stats.timeouts >= 1 and summary.stats.absent_actions >= 1
        hands = load_file(str(tmp_path / "logs" / "match.phhs"))
        assert all(error is None for _, _, error in iter_replays(hands))
        assert sum(sum(h.fields["_timeouts"]) for h in hands) == summary.stats.timeouts
        assert sum(sum(h.fields["_absent"]) for h in hands) == summary.stats.absent_actions

    asyncio.run(scenario())

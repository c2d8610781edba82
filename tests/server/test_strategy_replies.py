"""Strategy replies over real gRPC (issue 40, docs/house-rules.md §19): malformed strategies are
refused with a clear status and change nothing; the dealer draws the action, tells the seat it
drew it, logs the distribution and the draw (PHH ``_strategies``, event log), and `arena replay`
re-draws every sampled action and catches a tampered distribution."""

from __future__ import annotations

import asyncio
import io
import json
import math
from pathlib import Path

import grpc
import pytest

from arena.engine.rules import Rules
from arena.engine.strategy import strategy_key
from arena.engine.strategy_log import parse_strategies, replay_strategies
from arena.host.phhfile import load_file
from arena.match import messages as m
from arena.server.convert import event
from arena.server.eventrecord import LogRecords, read_events
from arena.storage.eventlog import EventLog
from arena.storage.replay import replay_paths
from arena.v1 import arena_pb2 as pb
from tests.server.harness import RawBot, events, make_config, running, token_for

pytestmark = pytest.mark.timeout(60)


def strategy(*entries: tuple[int, int, float]) -> pb.Strategy:
    return pb.Strategy(actions=[pb.WeightedAction(action=pb.Action(kind=k, raise_to_chips=r),
                                                  probability=p) for k, r, p in entries])


async def send_strategy(bot: RawBot, req: pb.DecisionRequest, value: pb.Strategy, *,
                        with_action: bool = False) -> None:
    reply = pb.ActionReply(decision_id=req.decision_id, seat=req.your_seat, strategy=value)
    if with_action:
        reply.action.CopyFrom(pb.Action(kind=pb.ACTION_KIND_CALL))
    await bot.send(pb.BotMessage(action_reply=reply))


def mixed_for(req: pb.DecisionRequest) -> pb.Strategy:
    """Half passive (check or call), half raise when a raise is legal; else all passive."""
    legal = {la.kind: la for la in req.legal_actions}
    passive = pb.ACTION_KIND_CHECK if pb.ACTION_KIND_CHECK in legal else pb.ACTION_KIND_CALL
    if pb.ACTION_KIND_BRING_IN in legal:
        passive = pb.ACTION_KIND_BRING_IN
    if pb.ACTION_KIND_RAISE in legal:
        return strategy((passive, 0, 0.5), (pb.ACTION_KIND_RAISE,
                                            legal[pb.ACTION_KIND_RAISE].min_raise_to_chips, 0.5))
    return strategy((passive, 0, 1.0))


async def play_out_with_strategies(bot: RawBot) -> None:
    while True:
        message = await bot.recv(20.0)
        if message is None:
            return
        if message.WhichOneof("payload") == "decision_request":
            await send_strategy(bot, message.decision_request, mixed_for(message.decision_request))


def test_malformed_strategies_are_refused_and_a_valid_one_is_drawn(tmp_path: Path) -> None:
    config = make_config(tmp_path, ["alice", "bob"], hands=1,
                         rules={"games": ["FT"], "decision_seconds": 30.0, "time_bank_seconds": 0.0})

    async def scenario() -> None:
        async with running(config) as (server, address):
            bots = [await RawBot(address, token_for(n), name=n).connect() for n in ("alice", "bob")]
            tasks = {asyncio.ensure_future(b.request()): b for b in bots}
            done, pending = await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            first = done.pop()
            actor, req = tasks[first], first.result()
            other = bots[1] if actor is bots[0] else bots[0]
            fold, call, raise_ = pb.ACTION_KIND_FOLD, pb.ACTION_KIND_CALL, pb.ACTION_KIND_RAISE
            invalid, illegal = pb.REJECT_CODE_INVALID_ARGUMENT, pb.REJECT_CODE_FAILED_PRECONDITION
            cases = [
                (strategy((call, 0, 1.0)), True, invalid, "both an action and a strategy"),
                (strategy(), False, invalid, "no action"),
                (strategy((fold, 0, math.nan), (call, 0, 1.0)), False, invalid, "not finite"),
                (strategy((fold, 0, math.inf), (call, 0, 1.0)), False, invalid, "not finite"),
                (strategy((fold, 0, -0.5), (call, 0, 1.5)), False, invalid, "negative"),
                (strategy((fold, 0, 0.3), (call, 0, 0.3)), False, invalid, "sum to"),
                (strategy((call, 0, 0.5), (call, 0, 0.5)), False, invalid, "twice"),
                (strategy(*[(fold, 0, 1 / 65)] * 65), False, invalid, "at most 64"),
                (strategy((pb.ACTION_KIND_CHECK, 0, 1.0)), False, illegal, "check is not legal"),
                (strategy((pb.ACTION_KIND_UNSPECIFIED, 0, 1.0)), False, invalid, "no action kind"),
                (strategy((raise_, 35, 1.0)), False, pb.REJECT_CODE_OUT_OF_RANGE, "raise to 35"),
            ]
            for value, with_action, code, words in cases:
                await send_strategy(actor, req, value, with_action=with_action)
                rejected = await actor.reject()
                assert rejected.code == code, (words, rejected)
                assert words in rejected.message and rejected.retry_allowed
            # Nothing was drawn or taken: the decision is still open. A valid strategy is.
            await send_strategy(actor, req, strategy((fold, 0, 0.0), (call, 0, 0.25),
                                                     (raise_, 40, 0.75)))
            taken = await actor.expect(lambda m: m.event.WhichOneof("payload") == "action_taken"
                                       and m.event.action_taken.decision_id == req.decision_id)
            action = taken.event.action_taken
            assert action.drawn_from_strategy
            assert action.action.kind in (call, raise_)  # weight 0: never a fold
            await asyncio.gather(play_out_with_strategies(actor), play_out_with_strategies(other))
            for bot in bots:
                assert bot.status == grpc.StatusCode.OK, bot.details
                drawn = [e for e in events(bot.received, "action_taken") if e.drawn_from_strategy]
                assert drawn and all(e.decision_id for e in drawn)
                await bot.close()
            await server.run_until_done()
        (summary,) = server.summaries()
        assert summary.stats.rejected == len(cases)
        assert summary.stats.strategy_replies == summary.stats.answered > 0

    asyncio.run(scenario())
    logs = tmp_path / "logs"
    result = json.loads((logs / "match.result.json").read_text())
    assert result["decisions"]["strategy_replies"] == result["decisions"]["answered"]
    hands = load_file(str(logs / "match.phhs"))
    records = parse_strategies(hands[0])
    assert records and records[0].weights == (0.0, 0.25, 0.75)
    assert records[0].actions == ("f", "cc", "cbr 40")
    assert len(records) == result["decisions"]["strategy_replies"] or len(hands) == 1
    # The draws re-drawn from the revealed seed's key for copy 0.
    key = strategy_key(int(result["match_seed"]), 0)
    _state, decisions = replay_strategies(hands[0], Rules(), key=key, hand_number=1)
    assert sorted(decisions) == [r.action_index for r in records]
    out = io.StringIO()
    assert replay_paths([str(logs / "match.phhs")], rules=Rules(), show=True, hand_id=None,
                        out=out) == 0, out.getvalue()
    assert "(drawn by the dealer from f 0, cc 0.25, cbr 40 0.75)" in out.getvalue()
    # A tampered distribution, still valid, under which the key draws the other entry: caught
    # by the re-draw.
    text = (logs / "match.phhs").read_text()
    other = "[0.0, 1.0, 0.0]" if records[0].drawn == 2 else "[0.0, 0.0, 1.0]"
    tampered = text.replace("weights = [0.0, 0.25, 0.75]", f"weights = {other}", 1)
    assert tampered != text
    (logs / "match.phhs").write_text(tampered)
    out = io.StringIO()
    assert replay_paths([str(logs / "match.phhs")], rules=Rules(), show=False, hand_id=None,
                        out=out) == 1
    assert "strategy mismatch" in out.getvalue() and "the key draws entry" in out.getvalue()
    # One that is not a distribution any more: caught by the validation.
    (logs / "match.phhs").write_text(text.replace("weights = [0.0, 0.25, 0.75]",
                                                  "weights = [0.0, 0.5, 0.6]", 1))
    out = io.StringIO()
    assert replay_paths([str(logs / "match.phhs")], rules=Rules(), show=False, hand_id=None,
                        out=out) == 1
    assert "strategy mismatch" in out.getvalue() and "sum to" in out.getvalue()


@pytest.mark.no_dealer
def test_the_event_log_keeps_the_declared_distribution_with_its_action(tmp_path: Path) -> None:
    record = m.ActionRecord(seat=0, street="preflop", kind=m.RecordKind.RAISE, raise_to_chips=40,
                            amount_chips=30, round_bet_chips=40, is_all_in=False)
    declared = (("f", 0.0), ("cc", 0.25), ("cbr 40", 0.75))
    notice = m.Notice(match_id="r1", hand_id="r1-h1", sequence=7, unix_seconds=1763840000.25,
                      payload=m.ActionTaken(action=record, stack_after_chips=960,
                                                pot_total_after_chips=60, decision_id="r1-h1-d1",
                                                strategy=declared))
    plain_action = m.Notice(match_id="r1", hand_id="r1-h1", sequence=8, unix_seconds=1763840000.5,
                            payload=m.ActionTaken(action=record, stack_after_chips=960,
                                                      pot_total_after_chips=60, decision_id=""))
    log = EventLog(tmp_path / "r1.events.pb", LogRecords())
    log.write([(notice, [0, 1], 1763840000.3), (plain_action, [0, 1], 1763840000.6)])
    log.close()
    drawn, plain = read_events(log.path)
    # The record beside the event: the declared entries, in order, with their weights.
    assert drawn["strategy"] == [{"action": "f", "weight": 0.0}, {"action": "cc", "weight": 0.25},
                                 {"action": "cbr 40", "weight": 0.75}]
    assert drawn["event"]["action_taken"]["drawn_from_strategy"] is True
    assert plain["strategy"] == [] and not plain["event"]["action_taken"]["drawn_from_strategy"]
    # On the wire only the fact that it was drawn, never the distribution.
    wire = event(notice).action_taken
    assert wire.drawn_from_strategy and not event(plain_action).action_taken.drawn_from_strategy
    assert "strategy" not in {f.name for f in pb.Event.DESCRIPTOR.fields}
    assert "strategy" not in {f.name for f in pb.ActionTaken.DESCRIPTOR.fields}

"""The Python SDK's strategy replies (issue 40, docs/strategy-replies.md): a bot returns a
``Strategy``; the SDK checks it, sends ``ActionReply.strategy`` and tells the bot what the dealer
drew (``on_drawn``); a malformed one takes the check/fold fallback with the problem in words.

The match tests use a real dealer over gRPC on loopback."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import math
from pathlib import Path

import pytest
from arena_bot import Action, Drawn, PlayResult, SeatView, Strategy, StrategyError, play
from arena_bot import strategy as sdk_strategy
from arena_bot._proto import arena_pb2 as pb
from arena_bot.examples import BOTS, calling_station, mixed, rule_based
from arena_bot.session import Session, _reply

from arena.engine import strategy as dealer_strategy
from arena.engine.rules import Rules
from arena.engine.strategy_log import parse_strategies
from arena.host.phhfile import load_file
from arena.storage.replay import replay_paths
from tests.server.harness import make_config, running, token_for

pytestmark = pytest.mark.timeout(120)

CALL, RAISE_40 = Action("call"), Action("raise", 40)
FACING_A_BET = [pb.LegalAction(kind=pb.ACTION_KIND_FOLD), pb.LegalAction(kind=pb.ACTION_KIND_CALL),
                pb.LegalAction(kind=pb.ACTION_KIND_RAISE, min_raise_to_chips=40,
                               max_raise_to_chips=40)]
NO_LIMIT = [pb.LegalAction(kind=pb.ACTION_KIND_FOLD), pb.LegalAction(kind=pb.ACTION_KIND_CALL),
            pb.LegalAction(kind=pb.ACTION_KIND_RAISE, min_raise_to_chips=40,
                           max_raise_to_chips=300, any_amount=True)]
STUD_OPEN_PAIR = [pb.LegalAction(kind=pb.ACTION_KIND_CHECK),
                  pb.LegalAction(kind=pb.ACTION_KIND_RAISE, min_raise_to_chips=10,
                                 max_raise_to_chips=20)]


def _view(legal: list[pb.LegalAction], decision_id: str = "t-h1-d3") -> SeatView:
    return SeatView(pb.DecisionRequest(decision_id=decision_id, your_seat=1, game_code="FT",
                                       legal_actions=legal, hole_cards=["As", "Kd"]))


@pytest.mark.no_dealer
def test_the_sdk_uses_the_dealers_limits() -> None:
    assert sdk_strategy.SUM_TOLERANCE == dealer_strategy.SUM_TOLERANCE
    assert sdk_strategy.MAX_STRATEGY_ACTIONS == dealer_strategy.MAX_STRATEGY_ACTIONS


@pytest.mark.parametrize(("probabilities", "words"), [
    ({CALL: math.nan, RAISE_40: 1.0}, "strategy entry 1 (call): the probability nan is not finite"),
    ({CALL: 0.5, RAISE_40: math.inf}, "strategy entry 2 (raise to 40): the probability inf is not"),
    ({CALL: -0.5, RAISE_40: 1.5}, "strategy entry 1 (call): the probability -0.5 is negative"),
    ({CALL: 0.3, RAISE_40: 0.3}, "the strategy's probabilities sum to 0.6, not 1 (within 1e-06)"),
    ({CALL: 0.5, RAISE_40: 0.5 + 2e-6}, "sum to 1.0000019999999998, not 1"),
    ({}, "the strategy lists no action"),
    ({Action("raise", k + 1): 1 / 65 for k in range(65)}, "lists 65 actions; at most 64"),
    ({CALL: "0.5", RAISE_40: 0.5}, "the probability '0.5' is not a number"),
    ({CALL: True}, "the probability True is not a number"),
    ({"call": 1.0}, "a strategy's keys are Actions"),
    ({Action("allin"): 1.0}, "'allin' is not a bot's action"),
    ({Action("post_ante"): 1.0}, "'post_ante' is not a bot's action"),
    ({Action("raise"): 1.0}, "a raise needs its \"raise to\" total"),
    ({Action("call", 20): 1.0}, "a call has no amount"),
    ({Action("raise", 40.0): 1.0}, "the amount 40.0 is not a whole number"),  # type: ignore[arg-type]
])
@pytest.mark.no_dealer
def test_a_malformed_strategy_is_refused_when_made(probabilities: dict[object, object],
                                                    words: str) -> None:
    with pytest.raises(StrategyError) as caught:
        Strategy(probabilities)  # type: ignore[arg-type]
    assert words in str(caught.value)


@pytest.mark.no_dealer
def test_a_strategy_is_an_immutable_mapping_in_the_order_given() -> None:
    within = Strategy({RAISE_40: 0.5 + 0.9e-6, CALL: 0.5, Action("fold"): 0.0})
    assert list(within) == [RAISE_40, CALL, Action("fold")]  # the dealer draws in this order
    assert within[CALL] == 0.5 and len(within) == 3 and Action("check") not in within
    assert within == Strategy({RAISE_40: 0.5 + 0.9e-6, CALL: 0.5, Action("fold"): 0.0})
    assert within != Strategy({CALL: 0.5, RAISE_40: 0.5 + 0.9e-6, Action("fold"): 0.0})
    assert len({within, Strategy(dict(within))}) == 1
    with pytest.raises(AttributeError, match="immutable"):
        within._entries = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        within[CALL] = 1.0  # type: ignore[index]
    with pytest.raises(StrategyError, match="mapping from Action to probability"):
        Strategy([(CALL, 1.0)])  # type: ignore[arg-type]


@pytest.mark.parametrize(("legal", "strategy", "words"), [
    (FACING_A_BET, {Action("check"): 1.0},
     "strategy entry 1 (check): check is not legal now (legal: fold, call, raise)"),
    (FACING_A_BET, {CALL: 0.5, Action("raise", 35): 0.5},
     "strategy entry 2 (raise to 35): raise to 35 is not legal now (raise to 40)"),
    (NO_LIMIT, {CALL: 0.5, Action("raise", 301): 0.5},
     "raise to 301 is not legal now (raise to any amount from 40 to 300)"),
    (STUD_OPEN_PAIR, {Action("raise", 15): 1.0}, "raise to 15 is not legal now (raise to 10 or 20)"),
    (STUD_OPEN_PAIR, {Action("fold"): 0.0, Action("check"): 1.0},
     "strategy entry 1 (fold): fold is not legal now (legal: check, raise)"),  # even at 0
])
@pytest.mark.no_dealer
def test_a_strategy_with_an_action_not_legal_now_is_refused_by_check(
        legal: list[pb.LegalAction], strategy: dict[Action, float], words: str) -> None:
    with pytest.raises(StrategyError) as caught:
        Strategy(strategy).check(_view(legal))
    assert str(caught.value) == words or words in str(caught.value)


@pytest.mark.no_dealer
def test_legal_strategies_pass_check() -> None:
    Strategy({Action("fold"): 0.1, CALL: 0.6, RAISE_40: 0.3}).check(_view(FACING_A_BET))
    Strategy({CALL: 0.5, Action("raise", 40): 0.25, Action("raise", 123): 0.25}).check(
        _view(NO_LIMIT))
    Strategy({Action("raise", 10): 0.5, Action("raise", 20): 0.5}).check(_view(STUD_OPEN_PAIR))


@pytest.mark.no_dealer
def test_the_reply_carries_the_strategy_in_order_and_no_action() -> None:
    view = _view(FACING_A_BET, decision_id="m-h7-d12")
    declared = Strategy({Action("fold"): 0.0, CALL: 0.25, RAISE_40: 0.75})
    reply = _reply(view.request, declared, 0.5).action_reply
    assert not reply.HasField("action") and reply.HasField("strategy")
    assert reply == pb.ActionReply(decision_id="m-h7-d12", seat=1, think_seconds=0.5,
                                   strategy=pb.Strategy(actions=[
        pb.WeightedAction(action=pb.Action(kind=pb.ACTION_KIND_FOLD), probability=0.0),
        pb.WeightedAction(action=pb.Action(kind=pb.ACTION_KIND_CALL), probability=0.25),
        pb.WeightedAction(action=pb.Action(kind=pb.ACTION_KIND_RAISE, raise_to_chips=40),
                          probability=0.75)]))


@pytest.mark.no_dealer
def test_a_strategy_not_legal_now_takes_the_fallback_with_the_problem_as_its_detail() -> None:
    """Without a dealer: the SDK's session answers the decision by check/fold, marked as the
    fallback after an exception, with the StrategyError's words (and no SDK frames)."""
    def illegal(view: SeatView) -> Strategy:
        return Strategy({Action("check"): 1.0})

    async def answer() -> tuple[pb.BotMessage, PlayResult]:
        session = Session(illegal, PlayResult(), "test")
        session.handle(pb.DealerMessage(decision_request=_view(FACING_A_BET).request))
        task = session.open["t-h1-d3"].task
        assert task is not None
        await task
        return session.outbox.get_nowait(), session.result

    message, result = asyncio.run(answer())
    reply = message.action_reply
    assert reply.action.kind == pb.ACTION_KIND_FOLD and not reply.HasField("strategy")
    assert reply.fallback == pb.FALLBACK_AFTER_EXCEPTION
    assert reply.fallback_detail == ("arena_bot.strategy.StrategyError: strategy entry 1 (check): "
                                     "check is not legal now (legal: fold, call, raise)\n")
    assert (result.exceptions, result.fallbacks, result.strategy_replies) == (1, 1, 0)


@pytest.mark.no_dealer
def test_the_mixed_example_declares_card_dependent_legal_strategies() -> None:
    assert BOTS["mixed"](None) is mixed
    strong = SeatView(pb.DecisionRequest(decision_id="d", your_seat=0, game_code="FT",
                                         hole_cards=["As", "Ad"], legal_actions=FACING_A_BET))
    weak = SeatView(pb.DecisionRequest(decision_id="d", your_seat=0, game_code="FT",
                                       hole_cards=["7s", "2d"], legal_actions=FACING_A_BET))
    assert (rule_based(strong).kind, rule_based(weak).kind) == ("raise", "fold")
    assert mixed(strong) == Strategy({RAISE_40: 0.8, CALL: 0.2})
    assert mixed(weak) == Strategy({Action("fold"): 0.85, CALL: 0.15})
    for view in (strong, weak):
        mixed(view).check(view)


def _phh(action: Action) -> str:
    return {"fold": "f", "check": "cc", "call": "cc", "bring_in": "pb"}.get(
        action.kind, f"cbr {action.raise_to_chips}")


def test_a_python_bot_declaring_strategies_plays_a_match_the_dealer_draws_and_replay_redraws(
        tmp_path: Path) -> None:
    config = make_config(tmp_path, ["mixed", "rules"], hands=9, seed=5,
                         rules={"games": ["FT", "FR", "NT"], "hands_per_game": 3,
                                "decision_seconds": 5.0})
    drawn: list[Drawn] = []

    async def scenario() -> PlayResult:
        async with running(config) as (server, address):
            result, _ = await asyncio.gather(
                play(mixed, server=address, token=token_for("mixed"), name="mixed",
                     on_drawn=drawn.append),
                play(rule_based, server=address, token=token_for("rules"), name="rules"))
            await server.run_until_done()
        return result

    result = asyncio.run(scenario())
    assert result.final_status == "OK" and result.matches_over
    assert (result.rejections, result.fallbacks, result.exceptions) == (0, 0, 0)
    assert result.strategy_replies == result.decisions > 0
    logs = tmp_path / "logs"
    hands = load_file(str(logs / "match.phhs"))
    assert {h.fields["variant"] for h in hands} == {"FT", "FR", "NT"}
    records = [(h, r) for h in hands for r in parse_strategies(h)]
    assert len(records) == result.strategy_replies == len(drawn)
    assert all(h.fields["players"][r.seat] == "mixed" for h, r in records)
    decisions = json.loads((logs / "match.result.json").read_text())["decisions"]
    assert decisions["strategy_replies"] == len(records) < decisions["answered"]  # + the rules bot
    # What the bot was told is what the dealer logged: the declared weights and the draw.
    for seen, (_hand, record) in zip(drawn, records, strict=True):
        assert tuple(seen.strategy.values()) == record.weights
        assert [_phh(a) for a in seen.strategy] == list(record.actions)
        assert _phh(seen.action) == record.actions[record.drawn]
        assert seen.strategy[seen.action] > 0 and seen.match_id and seen.decision_id
    assert len({(d.action.kind, d.strategy[d.action] < 0.5) for d in drawn}) > 2  # mixed draws
    out = io.StringIO()
    assert replay_paths([str(logs / "match.phhs")], rules=Rules(), show=True, hand_id=None,
                        out=out) == 0, out.getvalue()
    assert out.getvalue().count("(drawn by the dealer from ") == len(records)


def test_a_malformed_strategy_falls_back_and_the_dealer_logs_why(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A strategy that does not sum to one (refused when made, in the bot's own code) and one
    with an action not legal now (refused by the SDK): check/fold, with the problem in words in
    the bot's log and the dealer's; nothing reaches the dealer as a strategy."""
    config = make_config(tmp_path, ["sloppy", "station"], hands=4, rules={"games": ["FT"]})
    caplog.set_level(logging.INFO)
    calls = [0]

    def sloppy(view: SeatView) -> Strategy:
        calls[0] += 1
        if calls[0] % 2:
            return Strategy({view.check_or_call(): 0.5})
        return Strategy({view.check(): 0.5, view.call(): 0.5})  # never both legal

    async def scenario() -> PlayResult:
        async with running(config) as (server, address):
            result, _ = await asyncio.gather(
                play(sloppy, server=address, token=token_for("sloppy"), name="sloppy"),
                play(calling_station, server=address, token=token_for("station"),
                     name="station"))
            await server.run_until_done()
        return result

    result = asyncio.run(scenario())
    assert calls[0] >= 2 and result.final_status == "OK"
    assert result.fallbacks == result.exceptions == calls[0] == result.decisions
    assert result.strategy_replies == 0 and result.rejections == 0
    dealer = [r.message for r in caplog.records if r.name == "arena.server" and "fallback" in r.message]
    assert len(dealer) == calls[0]
    assert any(m.endswith("StrategyError: the strategy's probabilities sum to 0.5, not 1 "
                          "(within 1e-06)") for m in dealer), dealer
    assert any("StrategyError: strategy entry " in m and " is not legal now (legal: " in m
               for m in dealer), dealer
    decisions = json.loads((tmp_path / "logs" / "match.result.json").read_text())["decisions"]
    assert decisions["strategy_replies"] == 0


@pytest.mark.no_dealer
def test_on_drawn_needs_every_event() -> None:
    with pytest.raises(ValueError, match="on_drawn needs every event"):
        asyncio.run(play(mixed, server="127.0.0.1:1", token="t" * 12, on_drawn=print,
                         events=False))

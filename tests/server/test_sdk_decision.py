"""The Python SDK's per-decision path, made cheaper without changing what a bot sees or sends:
the lazily built ``SeatView.choices``, the reply built field by field, the event loop."""

from __future__ import annotations

import asyncio
import sys

import pytest
from arena_bot import Action, Choice, SeatView, eventloop
from arena_bot._proto import arena_pb2 as pb
from arena_bot.examples import calling_station, random_bot, rule_based
from arena_bot.session import PlayResult, Session, _reply

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass

LEGAL = {
    "check": [pb.LegalAction(kind=pb.ACTION_KIND_FOLD), pb.LegalAction(kind=pb.ACTION_KIND_CHECK),
              pb.LegalAction(kind=pb.ACTION_KIND_RAISE, min_raise_to_chips=20,
                             max_raise_to_chips=20)],
    "call": [pb.LegalAction(kind=pb.ACTION_KIND_FOLD), pb.LegalAction(kind=pb.ACTION_KIND_CALL),
             pb.LegalAction(kind=pb.ACTION_KIND_RAISE, min_raise_to_chips=40,
                            max_raise_to_chips=300, is_all_in=False, any_amount=True)],
    "bring-in": [pb.LegalAction(kind=pb.ACTION_KIND_BRING_IN),
                 pb.LegalAction(kind=pb.ACTION_KIND_RAISE, min_raise_to_chips=10,
                                max_raise_to_chips=10, is_all_in=True)],
    "unknown kind": [pb.LegalAction(kind=pb.ACTION_KIND_POST_ANTE),
                     pb.LegalAction(kind=999), pb.LegalAction(kind=pb.ACTION_KIND_FOLD)],
}


def _request(legal: list[pb.LegalAction], decision_id: str = "t-h1-d3") -> pb.DecisionRequest:
    return pb.DecisionRequest(decision_id=decision_id, your_seat=1, game_code="FT",
                              legal_actions=legal, hole_cards=["As", "Kd"])


def _eager_choices(request: pb.DecisionRequest) -> dict[str, Choice]:
    """What ``SeatView.__init__`` built for every view before it became lazy."""
    names = {pb.ACTION_KIND_FOLD: "fold", pb.ACTION_KIND_CHECK: "check",
             pb.ACTION_KIND_CALL: "call", pb.ACTION_KIND_BRING_IN: "bring_in",
             pb.ACTION_KIND_RAISE: "raise", pb.ACTION_KIND_POST_ANTE: "post_ante",
             pb.ACTION_KIND_POST_SMALL_BLIND: "post_small_blind",
             pb.ACTION_KIND_POST_BIG_BLIND: "post_big_blind"}
    return {names[la.kind]: Choice(names[la.kind], la.min_raise_to_chips, la.max_raise_to_chips,
                                   la.is_all_in, la.any_amount)
            for la in request.legal_actions if la.kind in names}


@pytest.mark.parametrize("case", sorted(LEGAL))
def test_a_view_answers_can_and_choices_as_the_eager_view_did(case: str) -> None:
    request = _request(LEGAL[case])
    expected = _eager_choices(request)
    kinds = ("fold", "check", "call", "bring_in", "raise", "post_ante", "nonsense")
    asked_first = SeatView(request)  # can() before the choices are built, then after
    assert [asked_first.can(k) for k in kinds] == [k in expected for k in kinds]
    assert asked_first.choices == expected
    assert [asked_first.can(k) for k in kinds] == [k in expected for k in kinds]
    built_first = SeatView(request)
    assert built_first.choices == expected
    assert built_first.choices is built_first.choices  # built once
    assert [built_first.can(k) for k in kinds] == [k in expected for k in kinds]


def test_choices_can_still_be_replaced_as_a_plain_attribute() -> None:
    view = SeatView(_request(LEGAL["check"]))
    view.choices = {"fold": Choice("fold", 0, 0, False)}
    assert view.choices == {"fold": Choice("fold", 0, 0, False)}
    assert view.can("fold") and not view.can("check")
    assert view.check_or_fold() == Action("fold")


@pytest.mark.parametrize("case", sorted(LEGAL))
def test_the_example_bots_choose_as_with_eager_choices(case: str) -> None:
    request = _request(LEGAL[case])

    class Eager(SeatView):
        def __init__(self, request: pb.DecisionRequest) -> None:
            super().__init__(request)
            self.choices = _eager_choices(request)

    makers = (lambda: calling_station, lambda: rule_based, lambda: random_bot(3),
              lambda: random_bot(3, per_decision=True))
    for make in makers:  # a fresh bot for each view: the random bot's generator is shared
        assert make()(SeatView(request)) == make()(Eager(request))


ACTIONS = [Action("fold"), Action("check"), Action("call"), Action("bring_in"),
           Action("raise", 40), Action("raise", 0), Action("raise", 2**40)]


@pytest.mark.parametrize("fallback", ["", "rejected", "exception"])
@pytest.mark.parametrize("action", ACTIONS, ids=repr)
def test_the_reply_is_the_message_the_nested_constructors_built(action: Action,
                                                                 fallback: str) -> None:
    request = _request(LEGAL["call"], decision_id="m-h7-d12")
    kinds = {"fold": pb.ACTION_KIND_FOLD, "check": pb.ACTION_KIND_CHECK,
             "call": pb.ACTION_KIND_CALL, "bring_in": pb.ACTION_KIND_BRING_IN,
             "raise": pb.ACTION_KIND_RAISE}
    fallbacks = {"": pb.FALLBACK_UNSPECIFIED, "rejected": pb.FALLBACK_AFTER_REJECTION,
                 "exception": pb.FALLBACK_AFTER_EXCEPTION}
    before = pb.BotMessage(action_reply=pb.ActionReply(
        decision_id="m-h7-d12", seat=1,
        action=pb.Action(kind=kinds[action.kind], raise_to_chips=action.raise_to_chips),
        think_seconds=0.25, fallback=fallbacks[fallback]))
    reply = _reply(request, action, 0.25, fallback=fallback)
    assert reply == before
    assert reply.SerializeToString(deterministic=True) == before.SerializeToString(
        deterministic=True)
    assert action.to_proto() == before.action_reply.action


@pytest.mark.parametrize("action", [Action("allin"), Action("raise", "20")],  # type: ignore[arg-type]
                         ids=repr)
def test_a_malformed_action_still_fails_to_build(action: Action) -> None:
    with pytest.raises((ValueError, TypeError)):
        action.to_proto()
    with pytest.raises((ValueError, TypeError)):
        _reply(_request(LEGAL["call"]), action, 0.0)


def test_answer_accepts_plain_async_and_subclassed_actions_and_falls_back_otherwise() -> None:
    request = _request(LEGAL["check"])

    class Loud(Action):
        pass

    async def thinking(view: SeatView) -> Action:
        await asyncio.sleep(0)
        return view.bet_or_raise()

    def wrong(view: SeatView) -> Action:
        return "call"  # type: ignore[return-value]

    def broken(view: SeatView) -> Action:
        raise RuntimeError("bug")

    async def answers() -> list[tuple[pb.BotMessage, bool]]:
        out = []
        for k, bot in enumerate((calling_station, thinking, lambda _view: Loud("check"), wrong,
                                 broken)):
            session = Session(bot, PlayResult(), "test")  # type: ignore[arg-type]
            message = pb.DealerMessage(decision_request=request)
            message.decision_request.decision_id = f"t-h1-d{k}"
            session.handle(message)
            task = session.open[f"t-h1-d{k}"].task
            assert task is not None
            await task
            out.append((session.outbox.get_nowait(), bool(session.result.fallbacks)))
        return out

    (plain, ok1), (awaited, ok2), (sub, ok3), (bad, fell1), (bug, fell2) = asyncio.run(answers())
    assert (ok1, ok2, ok3, fell1, fell2) == (False, False, False, True, True)
    assert plain.action_reply.action.kind == pb.ACTION_KIND_CHECK
    assert awaited.action_reply.action == pb.Action(kind=pb.ACTION_KIND_RAISE, raise_to_chips=20)
    assert sub.action_reply.action.kind == pb.ACTION_KIND_CHECK
    for reply in (bad, bug):
        assert reply.action_reply.action.kind == pb.ACTION_KIND_CHECK
        assert reply.action_reply.fallback == pb.FALLBACK_AFTER_EXCEPTION
    assert "TypeError: a bot must return an Action" in bad.action_reply.fallback_detail
    assert "RuntimeError: bug" in bug.action_reply.fallback_detail
    assert "Traceback" in bug.action_reply.fallback_detail


def test_the_event_loop_is_uvloop_when_installed_unless_asyncio_is_chosen(
        monkeypatch: pytest.MonkeyPatch) -> None:
    uvloop = pytest.importorskip("uvloop")  # a dependency of arena and of the SDK

    async def loop_type() -> type[asyncio.AbstractEventLoop]:
        return type(asyncio.get_running_loop())

    monkeypatch.delenv(eventloop.ENV, raising=False)
    assert eventloop.run(loop_type()) is uvloop.Loop
    assert eventloop.run(loop_type(), choice="uvloop") is uvloop.Loop
    monkeypatch.setenv(eventloop.ENV, "asyncio")
    assert eventloop.run(loop_type()) is not uvloop.Loop
    assert issubclass(eventloop.run(loop_type()), asyncio.BaseEventLoop)
    monkeypatch.setenv(eventloop.ENV, " UVLOOP ")
    assert eventloop.run(loop_type()) is uvloop.Loop


def test_a_bad_or_unavailable_event_loop_choice_is_one_clear_error(
        monkeypatch: pytest.MonkeyPatch) -> None:
    async def never() -> None:
        raise AssertionError("not run")

    monkeypatch.setenv(eventloop.ENV, "trio")
    with pytest.raises(eventloop.EventLoopChoiceError, match="ARENA_BOT_EVENT_LOOP='trio'"):
        eventloop.run(never())
    monkeypatch.setitem(sys.modules, "uvloop", None)  # as if not installed
    with pytest.raises(eventloop.EventLoopChoiceError, match="uvloop is not installed"):
        eventloop.run(never(), choice="uvloop")
    assert eventloop.loop_factory("auto") is None  # auto: asyncio's own loop without uvloop

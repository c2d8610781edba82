"""Replays mark the dealer's and the SDK's choices, and `arena replay --show` and the web
replayer word every action alike (issue 39 item 3: the web said "calls 40" where the CLI said
"calls 30" for the same call, and neither said which action a timeout or a fallback chose)."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest

from arena.engine.phh import PhhHand, replay
from arena.engine.rules import Rules
from arena.host.phhfile import load_file
from arena.match.simulate import simulate
from arena.storage.replay import replay_paths
from arena.storage.show import describe
from arena.v1 import arena_pb2 as pb
from arena.web.frames import hand_steps
from tests.server.harness import RawBot, make_config, running, token_for

pytestmark = pytest.mark.timeout(90)


def _cli_actions(hand: PhhHand) -> list[str]:
    """The action lines `arena replay --show` prints, as "name words"."""
    state = replay(hand)
    players = [str(p) for p in hand.fields["players"]]
    names = [f"{name} (p{k + 1}) " for k, name in enumerate(players)]
    out = []
    for line in describe(state, players, hand.fields):
        text = line.strip()
        for k, prefix in enumerate(names):
            if text.startswith(prefix) and " dealt " not in text and " posts " not in text \
                    and " shows " not in text and not text.endswith(" mucks"):
                out.append(players[k] + " " + text[len(prefix):])
    return out


def _web_actions(hand: PhhHand) -> list[str]:
    return [step["text"] for step in hand_steps(hand, reveal=True, with_equity=False)["steps"]
            if step["kind"] == "decision"]


def test_the_cli_and_the_web_word_every_action_alike(tmp_path: Path) -> None:
    for game, players in (("horse", 4), ("NT", 3), ("PO", 3)):
        simulate(game=game, players=players, hands=30, seed=players, out_dir=str(tmp_path / game),
                 policy="random", rules=Rules())
        for hand in load_file(str(tmp_path / game / "hands.phhs")):
            assert _web_actions(hand) == _cli_actions(hand), hand.name


def _legal_default(request: pb.DecisionRequest) -> int:
    kinds = {a.kind for a in request.legal_actions}
    return pb.ACTION_KIND_CHECK if pb.ACTION_KIND_CHECK in kinds else pb.ACTION_KIND_FOLD


async def _play(bot: RawBot, *, faulty: bool) -> None:
    """Answer every request; the faulty bot lets its first decision time out and answers its
    second with its SDK's fallback."""
    decisions = 0
    while (message := await bot.recv(20.0)) is not None:
        if message.WhichOneof("payload") != "decision_request":
            continue
        request = message.decision_request
        decisions += 1
        if faulty and decisions == 1:
            continue
        reply = pb.ActionReply(decision_id=request.decision_id, seat=request.your_seat)
        kinds = {a.kind for a in request.legal_actions}
        if faulty and decisions == 2:
            reply.fallback = pb.FALLBACK_AFTER_EXCEPTION
            reply.action.CopyFrom(pb.Action(kind=_legal_default(request)))
        else:
            reply.action.CopyFrom(pb.Action(kind=pb.ACTION_KIND_CALL if pb.ACTION_KIND_CALL in kinds
                                            else pb.ACTION_KIND_CHECK))
        await bot.send(pb.BotMessage(action_reply=reply))


def test_replays_mark_the_timeout_and_the_fallback_on_their_action_lines(tmp_path: Path) -> None:
    config = make_config(tmp_path, ["alice", "bob"], hands=4,
                         rules={"games": ["FT"], "decision_seconds": 2.0, "time_bank_seconds": 0.0})

    async def scenario() -> None:
        async with running(config) as (server, address):
            alice = await RawBot(address, token_for("alice"), name="alice").connect()
            bob = await RawBot(address, token_for("bob"), name="bob").connect()
            await asyncio.gather(_play(alice, faulty=True), _play(bob, faulty=False))
            await alice.close()
            await bob.close()
            await server.run_until_done()

    asyncio.run(scenario())
    path = tmp_path / "logs" / "match.phhs"
    decisions = json.loads((tmp_path / "logs" / "match.result.json").read_text())["decisions"]
    assert (decisions["sdk_fallbacks"], decisions["timeouts"]) == (1, 1)
    hands = load_file(str(path))
    marked = [(hand, line, why) for hand in hands for line, why in hand.fields.get("_fault_lines", [])]
    assert sorted(why for _, _, why in marked) == ["fallback", "timeout"]
    assert sum(sum(h.fields["_sdk_fallbacks"]) for h in hands) == 1
    assert sum(sum(h.fields["_timeouts"]) for h in hands) == 1
    for hand, line, why in marked:
        alice = "p" + str(hand.fields["players"].index("alice") + 1)
        action = hand.fields["actions"][line - 1]
        assert action.split()[0] == alice and action.split()[1] in ("cc", "f"), (action, why)
        # The web replayer's step a<line> and the CLI's line for it both say why.
        note = {"timeout": "(timed out)", "fallback": "(SDK fallback)"}[why]
        steps = hand_steps(hand, reveal=True, with_equity=False)
        (step,) = [s for s in steps["steps"] if s["a"] == line]
        assert step["text"].startswith("alice ") and step["text"].endswith(note), step["text"]
        assert steps["faults"][str(line)] == why
        assert any(a.startswith("alice ") and a.endswith(note) for a in _cli_actions(hand))
    out = io.StringIO()
    assert replay_paths([str(path)], rules=Rules(), show=True, hand_id=None, out=out) == 0
    lines = out.getvalue().splitlines()
    marked_lines = sorted(line.strip().split(") ", 1)[1] for line in lines
                          if line.endswith(("(timed out)", "(SDK fallback)")))
    assert len(marked_lines) == 2 and marked_lines[0].endswith("(SDK fallback)") \
        and marked_lines[1].endswith("(timed out)"), lines


async def _draw_play(bot: RawBot, *, faulty: bool) -> int:
    """2-7 triple draw: call or check every bet and give up two cards in every exchange; the
    faulty bot lets time run out on its first exchange that comes after the other seat drew
    in the same round (returns how many such timeouts it caused)."""
    timeouts = 0
    while (message := await bot.recv(20.0)) is not None:
        if message.WhichOneof("payload") != "decision_request":
            continue
        request = message.decision_request
        kinds = {a.kind for a in request.legal_actions}
        reply = pb.ActionReply(decision_id=request.decision_id, seat=request.your_seat)
        if pb.ACTION_KIND_EXCHANGE in kinds:
            last = request.actions[-1] if request.actions else None
            other_drew = (last is not None and last.kind == pb.ACTION_KIND_EXCHANGE
                          and last.seat != request.your_seat and last.exchange_card_count > 0)
            if faulty and not timeouts and other_drew:
                timeouts += 1
                continue
            (choice,) = [a for a in request.legal_actions if a.kind == pb.ACTION_KIND_EXCHANGE]
            reply.action.CopyFrom(pb.Action(kind=pb.ACTION_KIND_EXCHANGE,
                                            exchange_cards=list(choice.exchangeable_cards[:2])))
        else:
            reply.action.CopyFrom(pb.Action(kind=pb.ACTION_KIND_CALL if pb.ACTION_KIND_CALL in kinds
                                            else pb.ACTION_KIND_CHECK))
        await bot.send(pb.BotMessage(action_reply=reply))
    return timeouts


def test_a_timeout_after_a_draw_marks_its_own_exchange_line(tmp_path: Path) -> None:
    """docs/faults.md `_fault_lines`, docs/house-rules.md §26: in an exchange round the ``d dh``
    lines of the seats that drew come after the round's last exchange, so a timeout that
    follows a draw is marked on its own ``sd`` line, not one line later."""
    config = make_config(tmp_path, ["alice", "bob"], hands=4,
                         rules={"games": ["F2L3D"], "decision_seconds": 2.0,
                                "time_bank_seconds": 0.0})

    async def scenario() -> int:
        async with running(config) as (server, address):
            alice = await RawBot(address, token_for("alice"), name="alice").connect()
            bob = await RawBot(address, token_for("bob"), name="bob").connect()
            caused, _ = await asyncio.gather(_draw_play(alice, faulty=True),
                                             _draw_play(bob, faulty=False))
            await alice.close()
            await bob.close()
            await server.run_until_done()
            return caused

    assert asyncio.run(scenario()) == 1
    hands = load_file(str(tmp_path / "logs" / "match.phhs"))
    marked = [(hand, line) for hand in hands for line, why in hand.fields.get("_fault_lines", [])
              if why == "timeout"]
    assert len(marked) == 1
    hand, line = marked[0]
    alice = "p" + str(hand.fields["players"].index("alice") + 1)
    assert hand.fields["actions"][line - 1] == f"{alice} sd", hand.fields["actions"]

"""A scripted agent plays a whole H.O.R.S.E. match through `arena gateway` (a real process)
against a real dealer and a built-in bot; its bad frames are refused with the state unchanged;
the match replays exactly."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from google.protobuf import json_format

from arena.engine.phh import iter_replays
from arena.gateway.replytext import parse_reply
from arena.gateway.textview import legal_replies
from arena.host.phhfile import load_file
from arena.v1 import arena_pb2 as pb
from tests.gateway.procs import flat, open_agent, recv, start_gateway
from tests.server.procs import ROOT, env, start_bot, start_server, stop_processes, write_config

pytestmark = pytest.mark.timeout(180)

AGENT, OTHER = "agent", "rules-bot"
TOKENS = {AGENT: "token-agent-0123456789", OTHER: "token-rules-0123456789"}


def choose(request: dict[str, Any], k: int) -> dict[str, Any]:
    """A scripted choice: raise on every third decision when it may, else check/call/bring-in."""
    legal = {a["kind"]: a for a in request["legal_actions"]}
    if k % 3 == 0 and "ACTION_KIND_RAISE" in legal:
        amount = legal["ACTION_KIND_RAISE"]["min_raise_to_chips"]
        return {"kind": "ACTION_KIND_RAISE", "raise_to_chips": amount}
    for kind in ("ACTION_KIND_CHECK", "ACTION_KIND_CALL", "ACTION_KIND_BRING_IN"):
        if kind in legal:
            return {"kind": kind}
    return {"kind": "ACTION_KIND_FOLD"}


def text_choice(request: dict[str, Any], k: int) -> str:
    kinds = {a["kind"]: a for a in request["legal_actions"]}
    if k % 3 == 0 and "ACTION_KIND_RAISE" in kinds:
        amount = kinds["ACTION_KIND_RAISE"]["min_raise_to_chips"]
        return f"raise {amount}" if request["current_bet_chips"] != "0" else f"bet {amount}"
    for kind, word in (("ACTION_KIND_CHECK", "check"), ("ACTION_KIND_CALL", "call"),
                       ("ACTION_KIND_BRING_IN", "bring-in")):
        if kind in kinds:
            return word
    return "fold"


async def bad_frames(ws: Any, request: dict[str, Any]) -> None:
    """Every kind of bad frame at an open decision: each refused, the decision still open."""
    did, seat = request["decision_id"], request["your_seat"]
    legal_kinds = {a["kind"] for a in request["legal_actions"]}
    illegal = "ACTION_KIND_CHECK" if "ACTION_KIND_CHECK" not in legal_kinds else "ACTION_KIND_CALL"
    gateway_errors = [
        ("{not json", "INVALID_ARGUMENT", "not JSON"),
        ("[1, 2]", "INVALID_ARGUMENT", "must be a JSON object"),
        ('{"action_reply": {"decision_id": "x", "seat": NaN}}', "INVALID_ARGUMENT", "NaN"),
        (json.dumps({"action_reply": {"decision_id": did, "seat": seat, "bogus": 1}}),
         "INVALID_ARGUMENT", "bogus"),
        (json.dumps({"action_reply": {"decision_id": did, "seat": "two"}}), "INVALID_ARGUMENT", "seat"),
        (json.dumps({}), "INVALID_ARGUMENT", "needs one of"),
        (json.dumps({"action_reply": {"decision_id": did, "seat": seat, "think_seconds": "Infinity"}}),
         "INVALID_ARGUMENT", "finite"),
        (json.dumps({"ping": {"nonce": "x" * 70_000}}), "RESOURCE_EXHAUSTED", "at most 65536"),
        (json.dumps({"text_reply": {"decision_id": did, "text": "call or raise"}}),
         "INVALID_ARGUMENT", "Legal replies"),
        (json.dumps({"text_reply": {"decision_id": "stale-id", "text": "fold"}}), "ABORTED", "not open"),
    ]
    for text, code, words in gateway_errors:
        await ws.send(text)
        answer = await recv(ws)
        assert set(answer) == {"error"} and answer["error"]["code"] == code, (text[:80], answer)
        assert words in answer["error"]["message"], (text[:80], answer)
    dealer_rejections = [
        ({"decision_id": did, "seat": seat + 1, "action": {"kind": "ACTION_KIND_FOLD"}},
         "REJECT_CODE_PERMISSION_DENIED"),  # forged: another seat
        ({"decision_id": "d-forged", "seat": seat, "action": {"kind": "ACTION_KIND_FOLD"}},
         "REJECT_CODE_ABORTED"),  # stale / unknown decision
        ({"decision_id": did, "seat": seat, "action": {"kind": illegal}}, "REJECT_CODE_FAILED_PRECONDITION"),
        ({"decision_id": did, "seat": seat, "action": {"kind": "ACTION_KIND_POST_ANTE"}},
         "REJECT_CODE_INVALID_ARGUMENT"),
    ]
    for reply, code in dealer_rejections:
        await ws.send(json.dumps({"action_reply": reply}))
        answer = None
        while answer is None:  # events of the other seat may come first
            for message in flat(await recv(ws)):
                if "action_rejected" in message:
                    answer = message["action_rejected"]
        assert answer["code"] == code, (reply, answer)
        if code != "REJECT_CODE_ABORTED":
            assert answer["retry_allowed"] is True, answer


def every_listed_reply_is_legal(data: dict[str, Any]) -> None:
    """Each reply the text view lists parses (by the grammar) into one of the legal actions."""
    request = json_format.ParseDict(data, pb.DecisionRequest())
    legal = [(a.kind, a.min_raise_to_chips, a.max_raise_to_chips) for a in request.legal_actions]
    for shown in legal_replies(request):
        reply = shown.split(" (")[0] if not shown.startswith(("raise N", "bet N")) else (
            f"raise {request.legal_actions[-1].max_raise_to_chips}")
        action = parse_reply(reply, request)
        assert any(action.kind == kind and (kind != pb.ACTION_KIND_RAISE or action.raise_to_chips in (lo, hi))
                   for kind, lo, hi in legal), (shown, action)


async def play_agent(url: str, *, text: bool) -> dict[str, Any]:
    ws = await open_agent(url, TOKENS[AGENT], text=text)
    await ws.send(json.dumps({"hello": {"bot_name": AGENT, "protocol_version": 1}}))
    seen: dict[str, Any] = {"requests": 0, "frames": [], "ended": None, "seat": None}
    k = 0
    try:
        while True:
            frame = await recv(ws)
            if "stream_ended" in frame:
                seen["ended"] = frame["stream_ended"]
                break
            if "error" in frame:
                raise AssertionError(f"unexpected gateway error {frame}")
            for message in flat(frame):
                seen["frames"].append(message)
                if "decision_request" not in message:
                    continue
                request = message["decision_request"]
                every_listed_reply_is_legal(request)
                if k == 0:
                    await bad_frames(ws, request)
                if text:
                    assert request["decision_id"] in message["text"]
                    reply = {"text_reply": {"decision_id": request["decision_id"],
                                            "text": text_choice(request, k)}}
                else:
                    reply = {"action_reply": {"decision_id": request["decision_id"],
                                              "seat": request["your_seat"],
                                              "action": choose(request, k)}}
                if k == 1:
                    await asyncio.sleep(0.5)  # thinks: the gateway reports it as think time
                await ws.send(json.dumps(reply))
                k += 1
        await asyncio.wait_for(ws.wait_closed(), 10)
        seen["close_code"] = ws.close_code
    finally:
        await ws.close()
    seen["requests"] = k
    return seen


@pytest.mark.parametrize("text", [False, True], ids=["json", "text"])
def test_an_agent_plays_horse_through_the_gateway_and_the_match_replays(tmp_path: Path,
                                                                       text: bool) -> None:
    config = write_config(tmp_path / "match.toml", seats=[(AGENT, TOKENS[AGENT]), (OTHER, TOKENS[OTHER])],
                          top={"listen": "127.0.0.1:0", "log_dir": "logs", "hands": 10, "seed": 41,
                               "match_id": "agents", "start_timeout_seconds": 60},
                          rules={"decision_seconds": 20.0, "time_bank_seconds": 30.0})
    server, address = start_server(config)
    gateway, url = start_gateway(address)
    bot = start_bot("rules", address, TOKENS[OTHER], name=OTHER, quiet=True)
    try:
        guide = urllib.request.urlopen(url.replace("ws://", "http://").replace("/play", "/agent.txt"),
                                       timeout=10).read().decode()
        assert "Authorization: Bearer" in guide and "text_reply" in guide
        seen = asyncio.run(play_agent(url, text=text))
        metrics = urllib.request.urlopen(url.replace("ws://", "http://").replace("/play", "/metrics"),
                                         timeout=10).read().decode()
        out, err = server.communicate(timeout=60)
    finally:
        stop_processes([server, gateway, bot])
    gateway_log = gateway.communicate(timeout=10)[1]
    assert "arena.gateway INFO agent agent from 127.0.0.1: the dealer ended the stream: OK" in gateway_log
    assert seen["ended"] == {"code": "OK", "message": ""}, seen["ended"]
    assert seen["close_code"] == 1000
    assert server.returncode == 0, err
    assert "match agents: 10 hands, finished" in out, out
    assert seen["requests"] > 10
    counts = {name: float(value) for name, value in re.findall(
        r"^(arena_gateway_\w+_seconds_count) (\S+)$", metrics, re.M)}
    assert counts["arena_gateway_agent_think_seconds_count"] >= seen["requests"]
    assert counts["arena_gateway_relay_seconds_count"] >= seen["requests"]
    # Secrecy: the other seat's hidden cards never reach the agent before showdown.
    my_seat = next(m["welcome"] for m in seen["frames"] if "welcome" in m)
    assert my_seat["bot_name"] == AGENT
    dealt = [m["event"]["cards_dealt"] for m in seen["frames"]
             if "event" in m and "cards_dealt" in m["event"]]
    starts = [m["event"]["match_started"] for m in seen["frames"]
              if "event" in m and "match_started" in m["event"]]
    me = starts[0]["your_seat"]
    assert dealt and all(d["hole_cards"] == [] for d in dealt if d["seat"] != me)
    assert all(len(d["hole_cards"]) == d["hole_card_count"] for d in dealt if d["seat"] == me)

    result = json.loads((tmp_path / "logs" / "agents.result.json").read_text())
    assert result["hands_played"] == 10 and not result["aborted"]
    assert result["decisions"]["timeouts"] == 0
    hands = load_file(str(tmp_path / "logs" / "agents.phhs"))
    assert sorted({h.fields["variant"] for h in hands}) == ["F7S", "F7S/8", "FO/8", "FR", "FT"]
    for _hand, state, error in iter_replays(hands):
        assert error is None and state is not None
    # Think time (the gateway's measure, from the request written to the reply read) and the
    # dealer's round trip are logged apart: their difference is the gateway and the network.
    think = [t for h in hands for t in h.fields["_think_seconds"]]
    wire = [t for h in hands for t in h.fields["_wire_seconds"]]
    assert max(think) >= 0.45
    assert all(0 <= t <= w + 1e-3 for t, w in zip(think, wire, strict=True) if w >= 0)
    phhs = str(tmp_path / "logs" / "agents.phhs")
    replay = subprocess.run([sys.executable, "-m", "arena.cli", "replay", phhs],
                            cwd=ROOT, env=env(), capture_output=True, text=True, timeout=120)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "against the match seed" in replay.stdout  # the deals are re-created from the seed
    assert "10 of 10 hands replayed to their logged stacks" in replay.stdout, replay.stdout

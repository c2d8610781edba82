"""A scripted agent plays a whole H.O.R.S.E. match through `arena mcp`, driven by the MCP SDK's
own client over stdio, against a real dealer and a built-in bot; the match replays exactly."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import Client, StdioServerParameters

from tests.server.procs import ROOT, env, start_bot, start_server, stop_processes, write_config

pytestmark = pytest.mark.timeout(240)

AGENT, OTHER = "mcp-agent", "rules-bot"
TOKENS = {AGENT: "token-mcp-agent-0123456789", OTHER: "token-rules-0123456789"}


def text_of(result: object) -> str:
    return "".join(getattr(c, "text", "") for c in getattr(result, "content", []))


def pick(view: str, k: int) -> str:
    """A scripted reply read off the text view's legal replies."""
    legal = view.split("legal replies")[1].split("clock:")[0]
    options = [line.strip() for line in legal.splitlines()[1:] if line.strip()]
    words = [o.split(" (")[0] for o in options]
    raises = [w for w in words if w.startswith(("raise ", "bet ", "complete"))]
    if k % 4 == 0 and raises:
        return raises[0]
    for word in ("check", "call", "bring-in"):
        if word in words:
            return word
    return "fold"


async def play(address: str) -> dict[str, object]:
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "arena.cli", "mcp", "--server", address, "--token", TOKENS[AGENT], "--name", AGENT],
        env=env(), cwd=str(ROOT))
    seen: dict[str, object] = {"decisions": 0}
    async with Client(params) as client:
        tools = {t.name for t in (await client.list_tools()).tools}
        assert tools == {"wait_for_decision", "act", "hand_history"}
        k = 0
        while True:
            view = text_of(await client.call_tool("wait_for_decision", {"timeout_seconds": 60}))
            if "No more decisions." in view:
                seen["end"] = view
                break
            if "No decision yet" in view:
                continue
            decision = re.search(r"^decision (\S+)", view, re.M)
            assert decision is not None, view
            if k == 0:
                refused = text_of(await client.call_tool("act", {"decision_id": decision.group(1),
                                                                  "reply": "raise a lot"}))
                assert refused.startswith("refused:") and "Legal replies" in refused, refused
                stale = text_of(await client.call_tool("act", {"decision_id": "old", "reply": "fold"}))
                assert "is not open" in stale, stale
            answer = text_of(await client.call_tool("act", {"decision_id": decision.group(1),
                                                             "reply": pick(view, k)}))
            assert answer.startswith("done: seat"), (view, answer)
            k += 1
            if k == 5:
                seen["history"] = text_of(await client.call_tool("hand_history", {"which": "current"}))
        seen["all"] = text_of(await client.call_tool("hand_history", {"which": "all"}))
    seen["decisions"] = k
    return seen


def test_an_mcp_agent_plays_horse_and_the_match_replays(tmp_path: Path) -> None:
    config = write_config(tmp_path / "match.toml", seats=[(AGENT, TOKENS[AGENT]), (OTHER, TOKENS[OTHER])],
                          top={"listen": "127.0.0.1:0", "log_dir": "logs", "hands": 10, "seed": 7,
                               "match_id": "mcp", "start_timeout_seconds": 60},
                          rules={"decision_seconds": 30.0, "time_bank_seconds": 60.0})
    server, address = start_server(config)
    bot = start_bot("rules", address, TOKENS[OTHER], name=OTHER, quiet=True)
    try:
        seen = asyncio.run(play(address))
        out, err = server.communicate(timeout=60)
    finally:
        stop_processes([server, bot])
    assert server.returncode == 0, err
    assert "match mcp: 10 hands, finished" in out, out
    assert "match mcp ended after 10 hands" in str(seen["end"]), seen["end"]
    assert "the dealer ended the stream: OK" in str(seen["end"])
    assert int(str(seen["decisions"])) > 10
    assert "you dealt" in str(seen["history"]) and "hand " in str(seen["history"])
    assert len(str(seen["all"]).splitlines()) == 10, seen["all"]
    result = json.loads((tmp_path / "logs" / "mcp.result.json").read_text())
    assert result["hands_played"] == 10 and result["decisions"]["timeouts"] == 0
    phhs = str(tmp_path / "logs" / "mcp.phhs")
    replay = subprocess.run([sys.executable, "-m", "arena.cli", "replay", phhs],
                            cwd=ROOT, env=env(), capture_output=True, text=True, timeout=120)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "against the match seed" in replay.stdout  # the deals are re-created from the seed
    assert "10 of 10 hands replayed to their logged stacks" in replay.stdout, replay.stdout

"""docs/agents.md's example league, run as it says: a scripted agent through `arena gateway`,
another through `arena mcp` (driven by the MCP SDK's client), and two built-in bots; every one of
them is on the league's one leaderboard."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from mcp import Client, StdioServerParameters

from tests.gateway.procs import flat, open_agent, recv, start_gateway
from tests.gateway.test_agents_doc import PAGE
from tests.gateway.test_mcp_match import pick, text_of
from tests.server.procs import ROOT, env, stop_processes

pytestmark = pytest.mark.timeout(300)


def league_file(folder: Path) -> Path:
    block = re.search(r"```toml\n(# agents-league.toml\n.*?)```", PAGE.read_text(), re.S)
    assert block is not None
    text = block.group(1).replace("hands_per_match = 100", "hands_per_match = 2")
    text = text.replace('listen = "127.0.0.1:50051"', 'listen = "127.0.0.1:0"')
    (folder / "agents-league.toml").write_text(text)
    return folder / "agents-league.toml"


async def json_agent(url: str) -> int:
    ws = await open_agent(url + "?view=text", "token-json-agent-0001")
    await ws.send(json.dumps({"hello": {"bot_name": "json-agent", "protocol_version": 1}}))
    answered = 0
    try:
        while "stream_ended" not in (frame := await recv(ws, 120)):
            for message in flat(frame):
                if "decision_request" in message:
                    request = message["decision_request"]
                    await ws.send(json.dumps({"text_reply": {
                        "decision_id": request["decision_id"], "text": pick(message["text"], answered)}}))
                    answered += 1
    finally:
        await ws.close()
    return answered


async def mcp_agent(address: str, league: subprocess.Popen[str]) -> int:
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "arena.cli", "mcp", "--server", address, "--name", "mcp-agent"],
        env={**env(), "ARENA_TOKEN": "token-mcp-agent-0001"}, cwd=str(ROOT))
    answered = 0
    async with Client(params) as client:
        while True:
            view = text_of(await client.call_tool("wait_for_decision", {"timeout_seconds": 5}))
            if "No more decisions." in view or ("No decision yet" in view and league.poll() is not None):
                break
            found = re.search(r"^decision (\S+)", view, re.M)
            if found is None:
                continue
            answer = text_of(await client.call_tool("act", {"decision_id": found.group(1),
                                                             "reply": pick(view, answered)}))
            assert answer.startswith("done: seat"), (view, answer)
            answered += 1
    return answered


def test_the_example_league_of_agents_and_bots_has_one_leaderboard(tmp_path: Path) -> None:
    league_toml = league_file(tmp_path)
    league = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", str(league_toml)],
                              cwd=tmp_path, env=env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    assert league.stdout is not None
    lines = []
    address = None
    for line in league.stdout:
        lines.append(line)
        if found := re.search(r"listening on (\S+);", line):
            address = found.group(1)
            break
    assert address, "".join(lines)
    gateway, url = start_gateway(address)
    bots = [subprocess.Popen([sys.executable, "-m", "arena.cli", "bot", kind, "--server", address,
                              "--token", token, "--name", name], cwd=ROOT, env=env(),
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for kind, name, token in (("rules", "rules", "token-rules-0001"),
                                      ("call", "station", "token-station-0001"))]

    async def agents() -> list[Any]:
        return list(await asyncio.gather(json_agent(url), mcp_agent(address, league)))

    try:
        answered = asyncio.run(agents())
        out, err = league.communicate(timeout=120)
    finally:
        stop_processes([league, gateway, *bots])  # type: ignore[list-item]
    assert league.returncode == 0, "".join(lines) + out + err
    assert all(n > 0 for n in answered), answered
    board = subprocess.run([sys.executable, "-m", "arena.cli", "leaderboard", str(league_toml),
                            "--format", "json"], cwd=tmp_path, env=env(), capture_output=True,
                           text=True, timeout=60)
    assert board.returncode == 0, board.stderr
    data = json.loads(board.stdout)
    names = {"json-agent", "mcp-agent", "rules", "station"}
    assert set(data["bots"]) == names
    # Round robin of 4, duplicate: each bot 3 matches x 2 copies x 2 hands, in one table.
    hands = {name: sum(r["hands"] for r in data["results"] if r["bot"] == name and r["game"] == "all")
             for name in names}
    assert hands == dict.fromkeys(names, 12), hands

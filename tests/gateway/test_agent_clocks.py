"""Clocks made for agents: a table waiting on a slow agent spends no measurable CPU (the dealer and
the gateway sleep until the agent answers or the clock runs out), and a per-match budget that
runs out follows the absent rules (check if legal, else fold) for the rest of the match."""

from __future__ import annotations

import asyncio
import json
import os
import time
from pathlib import Path
from typing import Any

import pytest
from arena_bot import play
from arena_bot.examples import calling_station

from tests.gateway.procs import flat, gateway_running, open_agent, recv, start_gateway
from tests.server.harness import make_config, running, token_for
from tests.server.procs import start_bot, start_server, stop_processes, write_config

pytestmark = pytest.mark.timeout(120)
HELLO = json.dumps({"hello": {"bot_name": "agent", "protocol_version": 1}})
WAIT_SECONDS = 3.0
# Idle, each process spends a few milliseconds over the wait (gRPC's and uvicorn's own timers);
# a busy wait or a poll loop would spend a large share of the wait. Generous for a loaded
# machine: CPU time, not wall time, so other processes do not inflate it.
MAX_IDLE_CPU_SECONDS = 0.15


def cpu_seconds(pid: int) -> float:
    """User + system CPU of a process, all its threads, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def next_request(ws: Any) -> dict[str, Any]:
    while True:
        for message in flat(await recv(ws)):
            if "decision_request" in message:
                request: dict[str, Any] = message["decision_request"]
                return request


def test_a_table_waiting_on_a_slow_agent_spends_no_cpu(tmp_path: Path) -> None:
    seats = [("agent", token_for("agent")), ("station", token_for("station"))]
    config = write_config(tmp_path / "m.toml", seats=seats, top={
        "listen": "127.0.0.1:0", "log_dir": "logs", "hands": 2, "seed": 3, "match_id": "slow",
        "start_timeout_seconds": 60}, rules={"games": ["FT"], "time_control": "agent-rapid"})
    server, address = start_server(config)
    gateway, url = start_gateway(address)
    bot = start_bot("call", address, token_for("station"), name="station", quiet=True)

    async def agent() -> dict[str, float]:
        ws = await open_agent(url, token_for("agent"))
        await ws.send(HELLO)
        request = await next_request(ws)
        assert request["decision_time_left_seconds"] > 100  # agent-rapid: 120 s a decision
        await asyncio.sleep(0.5)  # the request's own writes are done
        before = {p.pid: cpu_seconds(p.pid) for p in (server, gateway)}
        started = time.monotonic()
        await asyncio.sleep(WAIT_SECONDS)  # the agent thinks
        spent = {pid: cpu_seconds(pid) - cpu for pid, cpu in before.items()}
        assert time.monotonic() - started >= WAIT_SECONDS
        await ws.close()
        return {"dealer": spent[server.pid], "gateway": spent[gateway.pid]}

    try:
        spent = asyncio.run(agent())
    finally:
        stop_processes([server, gateway, bot])
    print(f"CPU over {WAIT_SECONDS} s of waiting: {spent}")
    assert spent["dealer"] <= MAX_IDLE_CPU_SECONDS, spent
    assert spent["gateway"] <= MAX_IDLE_CPU_SECONDS, spent


def test_a_spent_match_budget_follows_the_absent_rules(tmp_path: Path) -> None:
    """0.3 s a decision and a 0.4 s budget: the agent's first silence spends the budget, every
    later one gets only the decision's own time; each is checked or folded for it as for an
    absent seat, and an answer in time is still taken."""
    config = make_config(tmp_path, ["agent", "station"], hands=6,
                         rules={"games": ["FT"], "decision_seconds": 0.3, "time_bank_seconds": 0.4})

    async def scenario() -> None:
        async with running(config) as (_server, address), gateway_running(address) as url:
            other = asyncio.ensure_future(play(calling_station, server=address,
                                               token=token_for("station"), name="station"))
            ws = await open_agent(url, token_for("agent"))
            await ws.send(HELLO)
            banks: list[float] = []
            taken: list[dict[str, Any]] = []
            answered = 0
            while True:
                frame = await recv(ws)
                if "stream_ended" in frame:
                    break
                for message in flat(frame):
                    if "decision_request" in message:
                        request = message["decision_request"]
                        banks.append(request["time_bank_left_seconds"])
                        if len(banks) > 3:  # silent on the first three, then answers
                            await ws.send(json.dumps({"text_reply": {
                                "decision_id": request["decision_id"], "text": "fold"}}))
                            answered += 1
                        else:
                            legal = {a["kind"] for a in request["legal_actions"]}
                            taken.append({"id": request["decision_id"], "legal": legal})
                    elif "event" in message and "action_taken" in message["event"]:
                        action = message["event"]["action_taken"]
                        for t in taken:
                            if t["id"] == action["decision_id"]:
                                t["action"] = action["action"]
            await ws.close()
            await asyncio.wait_for(other, 30)
        assert banks[0] == pytest.approx(0.4) and banks[1:] == [0.0] * (len(banks) - 1)
        assert answered >= 1
        for t in taken:
            record = t["action"]
            assert record["automatic"] is True and record["automatic_reason"] == "AUTOMATIC_REASON_TIMEOUT"
            expected = "ACTION_KIND_CHECK" if "ACTION_KIND_CHECK" in t["legal"] else "ACTION_KIND_FOLD"
            assert record["kind"] == expected

    asyncio.run(scenario())

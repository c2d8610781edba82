"""Dealer CPU per decision when a seat plays through `arena gateway` against the same seat over
gRPC, in one run (docs/agents.md "Performance").

    python -m bench.gateway [--hands 200] [--rounds 2]

Each round plays the same seeded heads-up H.O.R.S.E. match twice, the modes alternating: the
dealer (`arena serve`), a calling station (`arena bot call`) and the measured seat, an instant
check/call agent in this process, once as a grpc.aio client of `Dealer.Play` and once as a
WebSocket client of `arena gateway` (its own process). The dealer's CPU is read from /proc when
the seat gets its first request and from its rusage when it exits after the match, so start-up
is left out; decisions are every bot action of the match, from its hand log. The gateway's own
CPU per decision of its seat is reported beside it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import grpc
from websockets.asyncio.client import connect

from arena.host.phhfile import load_file
from arena.v1 import arena_pb2 as pb
from arena.v1 import arena_pb2_grpc as pb_grpc

ROOT = Path(__file__).resolve().parents[1]
# "grpc-late": the gRPC seat answers 2 ms late, about the gateway's added round trip, to tell
# the gateway's cost from that of a later reply (the dealer wakes once more per decision).
DELAYS = {"grpc": 0.0, "grpc-late": 0.002}
TOKENS = {"agent": "token-bench-agent-0001", "station": "token-bench-station-0001"}


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "bots" / "python"),
                                         env.get("PYTHONPATH", "")])
    return env


def _cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _passive(kinds: set[int]) -> pb.Action:
    for kind in (pb.ACTION_KIND_CHECK, pb.ACTION_KIND_CALL, pb.ACTION_KIND_BRING_IN):
        if kind in kinds:
            return pb.Action(kind=kind)  # type: ignore[arg-type]
    return pb.Action(kind=pb.ACTION_KIND_FOLD)


async def _grpc_agent(address: str, first: Any, delay_seconds: float = 0.0) -> None:
    async with grpc.aio.insecure_channel(address) as channel:
        call = pb_grpc.DealerStub(channel).Play(metadata=(("authorization",
                                                           f"Bearer {TOKENS['agent']}"),))
        await call.write(pb.BotMessage(hello=pb.Hello(bot_name="agent", protocol_version=1)))
        while (message := await call.read()) is not grpc.aio.EOF:
            if message.WhichOneof("payload") == "decision_request":
                first()
                r = message.decision_request
                if delay_seconds:
                    await asyncio.sleep(delay_seconds)
                await call.write(pb.BotMessage(action_reply=pb.ActionReply(
                    decision_id=r.decision_id, seat=r.your_seat,
                    action=_passive({a.kind for a in r.legal_actions}))))


async def _ws_agent(url: str, first: Any) -> None:
    names = {"ACTION_KIND_CHECK": "check", "ACTION_KIND_CALL": "call",
             "ACTION_KIND_BRING_IN": "bring-in"}
    async with connect(url, additional_headers={"Authorization": f"Bearer {TOKENS['agent']}"},
                       max_size=2**24) as ws:
        await ws.send(json.dumps({"hello": {"bot_name": "agent", "protocol_version": 1}}))
        async for text in ws:
            frame = json.loads(text)
            if "stream_ended" in frame:
                break
            request = frame.get("decision_request")
            if request is None:
                continue
            first()
            kinds = [a["kind"] for a in request["legal_actions"]]
            word = next((names[k] for k in names if k in kinds), "fold")
            await ws.send(json.dumps({"text_reply": {"decision_id": request["decision_id"],
                                                     "text": word}}))


def _start(args: list[str]) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", *args], cwd=ROOT, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert proc.stdout is not None
    return proc, proc.stdout.readline()


def play(mode: str, hands: int, work: Path) -> dict[str, float]:
    work.mkdir(parents=True)
    lines = ['listen = "127.0.0.1:0"', 'log_dir = "logs"', f"hands = {hands}", "seed = 41",
             'match_id = "bench"', "start_timeout_seconds = 60", "[rules]",
             "decision_seconds = 30.0"]
    for name, token in TOKENS.items():
        lines += ["[[seats]]", f'name = "{name}"', f'token = "{token}"']
    (work / "match.toml").write_text("\n".join(lines) + "\n")
    dealer, line = _start(["serve", "--config", str(work / "match.toml")])
    address = re.search(r"listening on (\S+?);", line).group(1)  # type: ignore[union-attr]
    gateway = None
    station = subprocess.Popen([sys.executable, "-m", "arena.cli", "bot", "call", "--server",
                                address, "--token", TOKENS["station"], "--name", "station"],
                               cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)
    marks: dict[str, float] = {}

    def first() -> None:
        if not marks:
            marks["dealer"] = _cpu(dealer.pid)
            if gateway is not None:
                marks["gateway"] = _cpu(gateway.pid)

    try:
        if mode.startswith("grpc"):
            asyncio.run(_grpc_agent(address, first, DELAYS[mode]))
        else:
            gateway, line = _start(["gateway", "--dealer", address, "--listen", "127.0.0.1:0"])
            url = re.search(r"listening on (ws://\S+/play)", line).group(1)  # type: ignore[union-attr]
            asyncio.run(_ws_agent(url + "?view=text", first))
        gateway_cpu = _cpu(gateway.pid) - marks["gateway"] if gateway is not None else 0.0
        _, _, usage = os.wait4(dealer.pid, 0)
        dealer.returncode = 0
        dealer_cpu = usage.ru_utime + usage.ru_stime - marks["dealer"]
    finally:
        for proc in (gateway, station, dealer):
            if proc is not None and proc.returncode is None:
                proc.kill()
                proc.wait()
    logged = load_file(str(work / "logs" / "bench.phhs"))
    decisions = sum(len(h.fields["_action_seconds"]) for h in logged)
    wire = [w for h in logged for w in h.fields["_wire_seconds"] if w >= 0]
    return {"decisions": decisions, "wire_ms": 1e3 * statistics.median(wire),
            "dealer_us": 1e6 * dealer_cpu / decisions, "gateway_us": 1e6 * gateway_cpu / decisions}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=200)
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    runs: dict[str, list[dict[str, float]]] = {"grpc": [], "gateway": [], "grpc-late": []}
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(args.rounds):
            modes = ("grpc", "gateway", "grpc-late")
            for mode in modes if k % 2 == 0 else modes[::-1]:
                result = play(mode, args.hands, Path(tmp) / f"{mode}-{k}")
                runs[mode].append(result)
                print(f"round {k + 1} {mode:9s}: {result['decisions']:.0f} decisions, median round "
                      f"trip {result['wire_ms']:.2f} ms, dealer "
                      f"{result['dealer_us']:.0f} us CPU/decision" + (
                          f", gateway {result['gateway_us']:.0f} us" if mode == "gateway" else ""),
                      flush=True)
    grpc_us = statistics.median(r["dealer_us"] for r in runs["grpc"])
    gate_us = statistics.median(r["dealer_us"] for r in runs["gateway"])
    gateway_us = statistics.median(r["gateway_us"] for r in runs["gateway"])
    late_us = statistics.median(r["dealer_us"] for r in runs["grpc-late"])
    print(f"dealer CPU per decision (median of {args.rounds}): gRPC seat {grpc_us:.0f} us, "
          f"gateway seat {gate_us:.0f} us: ratio {gate_us / grpc_us:.2f}; the gateway process "
          f"{gateway_us:.0f} us per decision of the match; a gRPC seat answering 2 ms late "
          f"{late_us:.0f} us: ratio {late_us / grpc_us:.2f}")


if __name__ == "__main__":
    main()

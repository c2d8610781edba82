"""Dealer throughput, overhead, timeout lateness and memory per connection, as a markdown table.

    python -m bench.dealer [--tables 16] [--hands 150] [--idle 500]

Every part runs in separate processes on this machine, in this run:

1. the dealer (``serve``) with ``--tables`` x 4 instant-reply SDK bots (one bot process), plus
   two tables of silent bots (20 ms decisions) whose automatic actions measure how late the
   dealer acts after a deadline under that load;
2. a raw grpc.aio ping-pong with the same layout (tables of 4 streams taking turns, one
   request in flight per table) and the same messages (a real batched DecisionRequest down,
   a real ActionReply up): the transport's ceiling on this machine;
3. the dealer with ``--idle`` connected idle bots: server memory per connection.

"Overhead" is server-side: from reading a bot's reply to having written the next request
(dealer: across the trio bridge, the engine, the fan-out of events; ping-pong: a hand-off
between two stream handlers).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc

ROOT = Path(__file__).resolve().parents[1]
SDK = ROOT / "bots" / "python"
SEATS = 4
SILENT_TABLES = 2
PING_METHOD = "/bench.PingPong/Play"
LOCAL = [("grpc.use_local_subchannel_pool", 1)]  # one TCP connection per bot, as in real life


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(SDK), env.get("PYTHONPATH", "")])
    env["PYTHONUNBUFFERED"] = "1"
    return env


def _spawn(*args: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "bench.dealer", *args], cwd=ROOT, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _read_json_line(proc: subprocess.Popen[str], key: str, timeout: float = 120.0) -> Any:
    """The first stdout line of ``proc`` that is a JSON object with ``key``."""
    assert proc.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            _, err = proc.communicate()
            raise RuntimeError(f"{proc.args}: ended without {key!r}: {err[-2000:]}")
        if line.startswith("{"):
            data = json.loads(line)
            if key in data:
                return data
    raise RuntimeError(f"{proc.args}: no {key!r} within {timeout} s")


def _rss_kib(pid: int) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1])
    return 0


def _token(name: str) -> str:
    return f"bench-{name}-token-0123456789"


def _percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


# ============================================================================ the dealer

def _dealer_config(tables: int, hands: int) -> dict[str, Any]:
    seats: list[dict[str, str]] = []
    table_list: list[dict[str, Any]] = []
    for t in range(tables + SILENT_TABLES):
        silent = t >= tables
        names = [f"{'silent' if silent else 'bot'}{t}-{s}" for s in range(SEATS)]
        seats += [{"name": n, "token": _token(n)} for n in names]
        table: dict[str, Any] = {"id": f"{'silent' if silent else 'table'}-{t}", "seats": names,
                                 "hands": 100_000 if silent else hands}
        if silent:
            table["rules"] = {"decision_seconds": 0.02, "time_bank_seconds": 0.0}
        table_list.append(table)
    return {"listen": "127.0.0.1:0", "seed": 1, "start_timeout_seconds": 60, "seats": seats,
            "tables": table_list, "rules": {"decision_seconds": 2.0, "time_bank_seconds": 0.0},
            "limits": {"messages_per_second": 100_000.0, "message_burst": 100_000,
                       "max_queued_messages": 100_000}}


def role_dealer(config_path: str) -> int:
    """The dealer process: serve the config, then print the ServeResult as one JSON line."""
    from arena.server.app import serve
    from arena.server.config import config_from_mapping

    config = config_from_mapping(json.loads(Path(config_path).read_text()))

    def ready(port: int) -> None:
        print(json.dumps({"port": port, "pid": os.getpid()}), flush=True)

    result = asyncio.run(serve(config, on_ready=ready))
    lateness: list[float] = []
    automatic = answered = 0
    for summary in result.summaries:
        lateness += summary.stats.lateness_seconds
        automatic += summary.stats.timeouts + summary.stats.absent_actions
        answered += summary.stats.answered
    print(json.dumps({"result": True, "cpu_seconds": result.cpu_seconds,
                      "wall_seconds": result.wall_seconds, "transport": result.transport,
                      "answered": answered, "automatic": automatic,
                      "lateness_p50": _percentile(lateness, 0.5),
                      "lateness_p99": _percentile(lateness, 0.99),
                      "lateness_max": max(lateness, default=0.0),
                      "lateness_count": len(lateness)}), flush=True)
    return 0


def role_bots(address: str, tables: int) -> int:
    """64 instant SDK bots (and the silent ones); prints when every instant table has ended."""
    from arena_bot import play
    from arena_bot.examples import calling_station

    from arena.v1 import arena_pb2 as pb
    from arena.v1 import arena_pb2_grpc as pb_grpc

    async def main() -> None:
        times: list[float] = []
        ended: set[str] = set()
        all_ended = asyncio.Event()

        def watch(message: pb.DealerMessage) -> None:
            kind = message.WhichOneof("payload")
            if kind == "decision_request":
                times.append(time.perf_counter())
            elif kind == "event" and message.event.WhichOneof("payload") == "match_ended":
                ended.add(message.event.match_id)
                if len(ended) == tables:
                    all_ended.set()

        async def silent(name: str) -> None:
            async with grpc.aio.insecure_channel(address) as channel:
                call = pb_grpc.DealerStub(channel).Play(
                    metadata=(("authorization", f"Bearer {_token(name)}"),))
                await call.write(pb.BotMessage(hello=pb.Hello(bot_name=name,
                                                              accept_batches=True)))
                try:
                    async for _ in call:  # read everything, answer nothing
                        pass
                except grpc.aio.AioRpcError:
                    pass

        instant = [asyncio.ensure_future(play(calling_station, server=address,
                                              token=_token(f"bot{t}-{s}"), name=f"bot{t}-{s}",
                                              reconnect_seconds=0.0, on_message=watch))
                   for t in range(tables) for s in range(SEATS)]
        quiet = [asyncio.ensure_future(silent(f"silent{t}-{s}"))
                 for t in range(tables, tables + SILENT_TABLES) for s in range(SEATS)]
        await all_ended.wait()
        print(json.dumps({"decisions": len(times), "first": times[0], "last": times[-1],
                          "cpu_seconds": time.process_time()}), flush=True)
        await asyncio.gather(*instant, *quiet, return_exceptions=True)

    asyncio.run(main())
    return 0


def run_dealer(tables: int, hands: int) -> dict[str, Any]:
    with tempfile.TemporaryDirectory(prefix="bench-dealer-") as tmp:
        config = Path(tmp) / "config.json"
        config.write_text(json.dumps(_dealer_config(tables, hands)))
        server = _spawn("--role", "dealer", "--config", str(config))
        try:
            ready = _read_json_line(server, "port")
            bots = _spawn("--role", "bots", "--address", f"127.0.0.1:{ready['port']}",
                          "--tables", str(tables))
            seen = _read_json_line(bots, "decisions", timeout=600)
            server.send_signal(signal.SIGTERM)  # the silent tables would play on forever
            result = _read_json_line(server, "result")
            bots.communicate(timeout=60)
        finally:
            server.kill()
    decisions_per_second = seen["decisions"] / (seen["last"] - seen["first"])
    transport = result["transport"]
    total = result["answered"] + result["automatic"]
    return {
        "decisions": seen["decisions"],
        "decisions_per_second": decisions_per_second,
        "overhead_p50": transport["overhead_seconds"]["p50"],
        "overhead_p99": transport["overhead_seconds"]["p99"],
        "cpu_per_decision": result["cpu_seconds"] / max(1, total),
        "writes_per_decision": transport["writes"] / max(1, total),
        "bytes_out_per_decision": transport["bytes_out"] / max(1, total),
        "bytes_per_write": transport["bytes_out"] / max(1, transport["writes"]),
        "bytes_per_reply": transport["bytes_in"] / max(1, transport["messages_in"]),
        "lateness_p50": result["lateness_p50"], "lateness_p99": result["lateness_p99"],
        "lateness_max": result["lateness_max"], "lateness_count": result["lateness_count"],
    }


# ============================================================================ raw ping-pong

def _sample_messages() -> tuple[bytes, bytes]:
    """A real batched [ActionTaken, DecisionRequest] and a real ActionReply, serialized."""
    from arena.engine.actions import ActionKind
    from arena.engine.games import variant_for
    from arena.engine.rules import Rules
    from arena.engine.state import HandState
    from arena.match import messages as m
    from arena.match.clock import DecisionClock
    from arena.match.feed import HandFeed, Private
    from arena.match.records import HandContext
    from arena.server.wire import Encoder, batch
    from arena.v1 import arena_pb2 as pb

    rules = Rules()
    state = HandState(variant_for("FT"), [2000] * SEATS, rules=rules, seed=5)
    ctx = HandContext("table-0", "table-0-h1", 1, 1, 4, 3, (0, 1, 2, 3),
                      tuple(f"bot0-{s}" for s in range(SEATS)),
                      tuple(f"bot0-{s}" for s in range(SEATS)), (2000,) * SEATS, rules, "d")
    feed = HandFeed(state, ctx, lambda _seat: True)
    feed.drain()
    for _ in range(6):  # into the flop
        legal = state.legal_actions()
        assert state.actor is not None
        state.act(state.actor, ActionKind.CHECK if legal.can_check else ActionKind.CALL)
    items = feed.drain()
    taken = next(i for i in reversed(items) if isinstance(i, m.ActionAnnounced))
    notice = m.Notice("table-0", "table-0-h1", 17, time.time(), taken)
    prompt = feed.prompt("table-0-h1-d7", DecisionClock(0.0, 2.0, 0.0), 0.0, None)
    assert not isinstance(prompt, Private)
    encoder = Encoder()
    request = batch([encoder.encode(notice), encoder.encode(prompt)])
    reply = pb.BotMessage(action_reply=pb.ActionReply(
        decision_id=prompt.decision_id, seat=prompt.seat,
        action=pb.Action(kind=pb.ACTION_KIND_CALL), think_seconds=0.0001)).SerializeToString()
    return request, reply


def role_pingpong_server(tables: int, seconds: float) -> int:
    from arena.server.stats import Samples

    request, _ = _sample_messages()

    async def main() -> None:
        groups: dict[int, list[asyncio.Event]] = {t: [asyncio.Event() for _ in range(SEATS)]
                                                  for t in range(tables)}
        joined: dict[int, int] = dict.fromkeys(range(tables), 0)
        stop_at: list[float] = []
        overhead = Samples()
        counts = {"round_trips": 0}
        handed_over: dict[int, float] = {}
        finished = asyncio.Event()
        done_streams = [0]

        async def play(request_iterator: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
            hello = await context.read()
            table, seat = (int(x) for x in bytes(hello).decode().split(","))
            turns = groups[table]
            joined[table] += 1
            if joined[table] == SEATS and all(v == SEATS for v in joined.values()):
                stop_at.append(time.perf_counter() + seconds)
                for group in groups.values():
                    group[0].set()
            while True:
                await turns[seat].wait()
                turns[seat].clear()
                if stop_at and time.perf_counter() > stop_at[0]:
                    turns[(seat + 1) % SEATS].set()
                    break
                await context.write(request)
                if table in handed_over:
                    overhead.add(time.perf_counter() - handed_over.pop(table))
                await context.read()
                handed_over[table] = time.perf_counter()
                counts["round_trips"] += 1
                turns[(seat + 1) % SEATS].set()
            done_streams[0] += 1
            if done_streams[0] == tables * SEATS:
                finished.set()

        server = grpc.aio.server()
        handler = grpc.method_handlers_generic_handler("bench.PingPong", {
            "Play": grpc.stream_stream_rpc_method_handler(play)})
        server.add_generic_rpc_handlers((handler,))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        print(json.dumps({"port": port}), flush=True)
        cpu = time.process_time()
        await finished.wait()
        cpu = time.process_time() - cpu
        print(json.dumps({"round_trips": counts["round_trips"], "seconds": seconds,
                          "cpu_seconds": cpu, **{f"overhead_{k}": v for k, v in
                                                 overhead.summary().items()}}), flush=True)
        await server.stop(1.0)

    asyncio.run(main())
    return 0


def role_pingpong_clients(address: str, tables: int) -> int:
    from arena.v1 import arena_pb2 as pb

    async def client(channel: grpc.aio.Channel, table: int, seat: int) -> None:
        call = channel.stream_stream(PING_METHOD)()
        await call.write(f"{table},{seat}".encode())
        async for data in call:
            message = pb.DealerMessage.FromString(data)
            for inner in message.batch.messages:  # the same work as a bot: find the request
                if inner.WhichOneof("payload") == "decision_request":
                    req = inner.decision_request
                    await call.write(pb.BotMessage(action_reply=pb.ActionReply(
                        decision_id=req.decision_id, seat=req.your_seat,
                        action=pb.Action(kind=pb.ACTION_KIND_CALL),
                        think_seconds=0.0001)).SerializeToString())

    async def main() -> None:
        channels = [grpc.aio.insecure_channel(address, options=LOCAL)
                    for _ in range(tables * SEATS)]
        await asyncio.gather(*(client(channels[t * SEATS + s], t, s)
                               for t in range(tables) for s in range(SEATS)),
                             return_exceptions=True)
        for channel in channels:
            await channel.close()

    asyncio.run(main())
    return 0


def run_pingpong(tables: int, seconds: float) -> dict[str, Any]:
    server = _spawn("--role", "pp-server", "--tables", str(tables), "--seconds", str(seconds))
    try:
        ready = _read_json_line(server, "port")
        clients = _spawn("--role", "pp-clients", "--address", f"127.0.0.1:{ready['port']}",
                         "--tables", str(tables))
        result = _read_json_line(server, "round_trips", timeout=seconds + 120)
        clients.communicate(timeout=60)
    finally:
        server.kill()
    request, reply = _sample_messages()
    return {"round_trips_per_second": result["round_trips"] / result["seconds"],
            "overhead_p50": result["overhead_p50"], "overhead_p99": result["overhead_p99"],
            "cpu_per_round_trip": result["cpu_seconds"] / max(1, result["round_trips"]),
            "request_bytes": len(request), "reply_bytes": len(reply)}


# ============================================================================ idle memory

def role_idle(address: str, count: int) -> int:
    from arena.v1 import arena_pb2 as pb
    from arena.v1 import arena_pb2_grpc as pb_grpc

    async def idle(name: str, welcomed: asyncio.Event, counter: list[int], hold: asyncio.Event
                   ) -> None:
        async with grpc.aio.insecure_channel(address, options=LOCAL) as channel:
            call = pb_grpc.DealerStub(channel).Play(
                metadata=(("authorization", f"Bearer {_token(name)}"),))
            await call.write(pb.BotMessage(hello=pb.Hello(bot_name=name)))
            await call.read()  # welcome
            counter[0] += 1
            if counter[0] == count:
                welcomed.set()
            await hold.wait()
            call.cancel()

    async def main() -> None:
        welcomed, hold = asyncio.Event(), asyncio.Event()
        counter = [0]
        tasks = [asyncio.ensure_future(idle(f"idle{i}", welcomed, counter, hold))
                 for i in range(count)]
        await welcomed.wait()
        print(json.dumps({"connected": count}), flush=True)
        await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline)
        hold.set()
        await asyncio.gather(*tasks, return_exceptions=True)

    asyncio.run(main())
    return 0


def run_idle(count: int) -> dict[str, Any]:
    seats = [{"name": f"idle{i}", "token": _token(f"idle{i}")} for i in range(count)]
    seats += [{"name": n, "token": _token(n)} for n in ("hold-a", "hold-b")]
    config = {"listen": "127.0.0.1:0", "seed": 1, "start_timeout_seconds": 3600, "seats": seats,
              "tables": [{"id": "hold", "seats": ["hold-a", "hold-b"], "hands": 1}]}
    with tempfile.TemporaryDirectory(prefix="bench-idle-") as tmp:
        path = Path(tmp) / "config.json"
        path.write_text(json.dumps(config))
        server = _spawn("--role", "dealer", "--config", str(path))
        try:
            ready = _read_json_line(server, "port")
            time.sleep(0.5)  # let the freshly started server settle before the baseline
            before = _rss_kib(ready["pid"])
            clients = subprocess.Popen(
                [sys.executable, "-m", "bench.dealer", "--role", "idle", "--address",
                 f"127.0.0.1:{ready['port']}", "--count", str(count)], cwd=ROOT, env=_env(),
                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            _read_json_line(clients, "connected")
            time.sleep(0.5)
            after = _rss_kib(ready["pid"])
            assert clients.stdin is not None
            clients.stdin.write("\n")
            clients.stdin.flush()
            clients.communicate(timeout=60)
            server.send_signal(signal.SIGTERM)
            server.communicate(timeout=30)
        finally:
            server.kill()
    return {"rss_before_kib": before, "rss_after_kib": after,
            "kib_per_connection": (after - before) / count}


# ============================================================================ report

def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--hands", type=int, default=150, help="hands per instant table")
    parser.add_argument("--idle", type=int, default=500, help="idle bots for the memory figure")
    parser.add_argument("--role", default="report", help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    parser.add_argument("--address", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=10.0, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=500, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.role == "dealer":
        return role_dealer(args.config)
    if args.role == "bots":
        return role_bots(args.address, args.tables)
    if args.role == "pp-server":
        return role_pingpong_server(args.tables, args.seconds)
    if args.role == "pp-clients":
        return role_pingpong_clients(args.address, args.tables)
    if args.role == "idle":
        return role_idle(args.address, args.count)

    print(f"dealer benchmark: {args.tables} tables x {SEATS} instant bots "
          f"(+{SILENT_TABLES} tables of silent bots), {os.cpu_count()} CPUs", file=sys.stderr)
    dealer = run_dealer(args.tables, args.hands)
    single = run_dealer(1, 60)  # one table, nothing queued behind it: the intrinsic latency
    seconds = max(5.0, min(30.0, dealer["decisions"] / dealer["decisions_per_second"]))
    raw = run_pingpong(args.tables, seconds)
    idle = run_idle(args.idle)
    ratio = dealer["decisions_per_second"] / raw["round_trips_per_second"]
    us = 1e6
    rows = [
        ("dealer decisions/s (instant bots)", f"{dealer['decisions_per_second']:,.0f}", ""),
        ("raw grpc.aio ping-pong round trips/s (same layout and messages)",
         f"{raw['round_trips_per_second']:,.0f}", ""),
        ("dealer / ping-pong", f"{ratio:.0%}", ">= 85%"),
        ("dealer overhead p50 / p99 (reply read -> next request written)",
         f"{dealer['overhead_p50'] * us:,.0f} / {dealer['overhead_p99'] * us:,.0f} µs", ""),
        ("dealer overhead p50 / p99 at one table (no queueing behind other tables)",
         f"{single['overhead_p50'] * us:,.0f} / {single['overhead_p99'] * us:,.0f} µs", ""),
        ("ping-pong overhead p50 / p99 (same measure)",
         f"{raw['overhead_p50'] * us:,.0f} / {raw['overhead_p99'] * us:,.0f} µs", ""),
        ("dealer CPU per decision (whole server process)",
         f"{dealer['cpu_per_decision'] * us:,.0f} µs", ""),
        ("ping-pong server CPU per round trip", f"{raw['cpu_per_round_trip'] * us:,.0f} µs", ""),
        ("dealer writes / bytes sent per decision (all seats)",
         f"{dealer['writes_per_decision']:.2f} / {dealer['bytes_out_per_decision']:,.0f} B", ""),
        ("ping-pong request / reply size",
         f"{raw['request_bytes']} / {raw['reply_bytes']} B", ""),
        (f"automatic-action lateness p50 / p99 / max ({dealer['lateness_count']} timeouts)",
         f"{dealer['lateness_p50'] * 1e3:.2f} / {dealer['lateness_p99'] * 1e3:.2f} / "
         f"{dealer['lateness_max'] * 1e3:.2f} ms", "p99 <= 10 ms"),
        (f"server memory per idle connection ({args.idle} bots)",
         f"{idle['kib_per_connection']:.1f} KiB "
         f"({idle['rss_before_kib'] / 1024:.0f} -> {idle['rss_after_kib'] / 1024:.0f} MiB RSS)",
         ""),
    ]
    print(f"\n{dealer['decisions']:,} decisions at {args.tables} tables; ping-pong ran "
          f"{seconds:.1f} s\n")
    print("| measure | value | target |")
    print("|---|---|---|")
    for name, value, target in rows:
        print(f"| {name} | {value} | {target} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

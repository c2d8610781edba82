"""Dealer cost against a raw grpc.aio ping-pong in the same run, paced bots, heads-up, memory.

    python -m bench.dealer [--scenario all|instant|paced|headsup|idle] [--tables 16] [--hands 60]

Every part runs in separate processes on this machine, in this run:

1. ``instant``: the dealer (``serve``) with ``--tables`` x 4 instant-reply SDK bots (one bot
   process), plus two tables of silent bots (20 ms decisions) whose automatic actions measure
   how late the dealer acts after a deadline under that load; then a raw grpc.aio ping-pong with
   the same layout (tables of 4 streams taking turns, one request in flight per table), the same
   messages (a real batched DecisionRequest down, a real ActionReply up) and clients that do the
   SDK's own work per message (unbatch, ``SeatView``, the calling station, the reply). The
   primary figure: dealer server CPU per decision / ping-pong server CPU per round trip;
2. ``paced``: bots that think 20 ms, tables added until neither the dealer nor the ping-pong
   (clients thinking as long, the same client processes) keeps every table at the pace of its
   own lone table (>= 90% of its decisions/s and p99 overhead <= 10 ms): tables at full pace
   of each and their ratio, with the clients' CPU and lag and the machine's busy cores;
3. ``headsup``: one heads-up fixed-limit hold'em match of two calling bots, each its own
   process: hands/s and the dealer's voluntary context switches per decision, against a
   two-seat ping-pong run the same way, once with its own clients and once with the match's
   own bot processes as clients (hands/s: round trips/s over the match's decisions per hand);
4. ``idle``: the dealer with ``--idle`` connected idle bots: server memory per connection.

"Overhead" is server-side: from reading a bot's reply to having written (the write
completed) that table's next request (dealer: across the trio bridge, the engine, the fan-out
of events, the first request of a hand not counted; ping-pong: a hand-off between two stream
handlers). It includes the server waiting for the CPU, so on a busy machine it includes the
bots' and everyone else's load: hence the machine's busy cores next to it.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
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


def _switches() -> tuple[int, int]:
    """Voluntary context switches so far: (all threads of this process, its main thread)."""
    main = _status_switches(Path("/proc/self/status"))
    return resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw, main


def _thread_switches(tid: int) -> int:
    """Voluntary context switches so far of thread ``tid`` of this process (0 if it is gone)."""
    return _status_switches(Path(f"/proc/self/task/{tid}/status"))


def _status_switches(status: Path) -> int:
    """``voluntary_ctxt_switches`` of a ``/proc`` status file (0 if it is gone)."""
    try:
        return _parse_switches(status.read_bytes())
    except OSError:
        return 0


def _open_status_switches(fd: int) -> int:
    """``voluntary_ctxt_switches`` of a ``/proc`` status file kept open as ``fd`` (0 if its
    thread is gone): the kernel writes the file again at each read from its start, so a
    sample costs one ``pread``, not an open, a read, a close and a decode (~4 against ~26 µs
    here)."""
    try:
        return _parse_switches(os.pread(fd, 8192, 0))
    except OSError:
        return 0


def _parse_switches(text: bytes) -> int:
    """``voluntary_ctxt_switches`` of a ``/proc`` status file's bytes (0 if it has none)."""
    key = b"\nvoluntary_ctxt_switches:"
    at = text.find(key)
    if at < 0:
        return 0
    end = text.find(b"\n", at + len(key))
    return int(text[at + len(key):end if end >= 0 else len(text)])


def _machine_jiffies() -> tuple[int, int]:
    """The whole machine's CPU time so far, in clock ticks: (busy, all), from ``/proc/stat``."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields) - idle, sum(fields)


def _busy_cores(before: tuple[int, int], after: tuple[int, int]) -> float:
    """How many of the machine's cores were busy on average between two samples."""
    total = after[1] - before[1]
    return (after[0] - before[0]) / total * (os.cpu_count() or 1) if total else 0.0


class _PacedWindow:
    """What a process of paced clients sees, measured the same way for the dealer's SDK bots
    and the ping-pong's clients: requests arriving in a window of ``seconds`` starting a second
    after the process's first request; the process's CPU and the machine's busy cores in that
    window; per decision, the client's own lag (request arrived -> reply ready, minus the think
    time: timer lateness and waiting for this process's event loop) and, per table, the gap
    from a reply being ready to the table's next request arriving (the server's part, the
    transport both ways and this process's scheduling delays)."""

    def __init__(self, think: float, seconds: float) -> None:
        self.think = think
        self.seconds = seconds
        self.begin = 0.0  # 0: no request yet
        self.decisions = 0
        self.lag: list[float] = []
        self.gap: list[float] = []
        self._arrived: dict[object, float] = {}
        self._replied: dict[object, float] = {}

    def _inside(self, at: float) -> bool:
        return self.begin <= at < self.begin + self.seconds

    def request(self, table: object) -> None:
        now = time.monotonic()
        if not self.begin:
            self.begin = now + 1.0
        if self._inside(now):
            self.decisions += 1
            replied = self._replied.pop(table, None)
            if replied is not None:
                self.gap.append(now - replied)
        self._arrived[table] = now

    def replied(self, table: object) -> None:
        now = time.monotonic()
        arrived = self._arrived.pop(table, None)
        if arrived is not None and self._inside(arrived):
            self.lag.append(now - arrived - self.think)
        self._replied[table] = now

    async def report(self) -> None:
        """Wait for the window, sample around it, print one JSON line with ``decisions``."""
        while not self.begin:
            await asyncio.sleep(0.05)
        await asyncio.sleep(max(0.0, self.begin - time.monotonic()))
        cpu, machine = time.process_time(), _machine_jiffies()
        await asyncio.sleep(self.seconds + 0.2)  # the window's last replies
        print(json.dumps({"decisions": self.decisions, "seconds": self.seconds,
                          "window_cpu_seconds": time.process_time() - cpu,
                          "busy_cores": _busy_cores(machine, _machine_jiffies()),
                          "lag_p50": _percentile(self.lag, 0.5),
                          "lag_p99": _percentile(self.lag, 0.99),
                          "gap_p50": _percentile(self.gap, 0.5),
                          "gap_p99": _percentile(self.gap, 0.99),
                          "cpu_seconds": time.process_time()}), flush=True)


GC_KEYS = ("gc_collections", "gc_full", "gc_over_5ms", "gc_longest", "gc_longest_cpu",
           "gc_slow_by_generation")  # _GcPauses.summary(), passed on from the servers' lines


class _GcPauses:
    """The garbage collector's pauses in this process (``gc.callbacks``; it observes, changes
    nothing): how many collections, how many of the oldest generation, those over 5 ms and the
    longest, of any generation."""

    def __init__(self) -> None:
        self.started = (0.0, 0.0)
        self.pauses: list[float] = []
        self.cpu: list[float] = []  # the collecting thread's CPU in each pause
        self.slow_by_generation = [0, 0, 0]  # pauses over 5 ms
        self.full = 0
        gc.callbacks.append(self._callback)

    def _callback(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self.started = (time.perf_counter(), time.thread_time())
        else:
            pause = time.perf_counter() - self.started[0]
            self.pauses.append(pause)
            self.cpu.append(time.thread_time() - self.started[1])
            generation = info.get("generation", 0)
            self.full += generation == 2
            self.slow_by_generation[generation] += pause > 0.005

    def close(self) -> None:
        gc.callbacks.remove(self._callback)

    def summary(self) -> dict[str, Any]:
        return {"gc_collections": len(self.pauses), "gc_full": self.full,
                "gc_over_5ms": sum(p > 0.005 for p in self.pauses),
                "gc_longest": max(self.pauses, default=0.0),
                "gc_longest_cpu": max(self.cpu, default=0.0),
                "gc_slow_by_generation": self.slow_by_generation}


def _token(name: str) -> str:
    return f"bench-{name}-token-0123456789"


def _over(values: list[float], limit: float = 0.010) -> float:
    """The share of ``values`` above ``limit`` (server overheads over 10 ms)."""
    return sum(v > limit for v in values) / len(values) if values else 0.0


def _percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


# ============================================================================ the dealer

def _dealer_config(tables: int, hands: int, *, seats: int = SEATS, silent: int = SILENT_TABLES,
                   games: list[str] | None = None) -> dict[str, Any]:
    seat_list: list[dict[str, str]] = []
    table_list: list[dict[str, Any]] = []
    for t in range(tables + silent):
        quiet = t >= tables
        names = [f"{'silent' if quiet else 'bot'}{t}-{s}" for s in range(seats)]
        seat_list += [{"name": n, "token": _token(n)} for n in names]
        table: dict[str, Any] = {"id": f"{'silent' if quiet else 'table'}-{t}", "seats": names,
                                 "hands": 100_000 if quiet else hands}
        if quiet:
            table["rules"] = {"decision_seconds": 0.02, "time_bank_seconds": 0.0}
        table_list.append(table)
    rules: dict[str, Any] = {"decision_seconds": 2.0, "time_bank_seconds": 0.0}
    if games is not None:
        rules["games"] = games
    return {"listen": "127.0.0.1:0", "seed": 1, "start_timeout_seconds": 60, "seats": seat_list,
            "tables": table_list, "rules": rules,
            "limits": {"messages_per_second": 100_000.0, "message_burst": 100_000,
                       "max_queued_messages": 100_000}}


class _SteadyWindow:
    """The dealer's CPU and context switches from its first decision to its last sample (every
    32nd decision): steady play, without start-up, handshakes and shutdown, as the ping-pong
    server's figures are from all streams joined to the stop.

    The sampling runs inside the dealer, so it is kept to what the window's edges need: a
    sample is two ``getrusage`` calls (the process, the event-loop thread) and one ``pread``
    of each gRPC poller thread's ``/proc`` status file, opened once (~2 µs in all, ~0.06 µs
    per decision); between samples, a count."""

    EVERY = 32

    def __init__(self) -> None:
        self.count = 0
        self.first: tuple[int, float, int, int, float, int] | None = None
        self.last: tuple[int, float, int, int, float, int] | None = None
        self._pollers: list[int] | None = None  # grpc.aio's poller threads' status files, open

    def seen(self, _prompt: object) -> None:
        self.count = count = self.count + 1
        if count % self.EVERY and count != 1:
            return
        process = resource.getrusage(resource.RUSAGE_SELF)
        thread = resource.getrusage(getattr(resource, "RUSAGE_THREAD", resource.RUSAGE_SELF))
        pollers = self._pollers
        if pollers is None:
            pollers = self._pollers = self._open_pollers()
        sample = (count, process.ru_utime + process.ru_stime, process.ru_nvcsw, thread.ru_nvcsw,
                  time.monotonic(), sum([_open_status_switches(fd) for fd in pollers]))
        if self.first is None:
            self.first = sample
        self.last = sample

    @staticmethod
    def _open_pollers() -> list[int]:
        import threading
        fds = []
        # grpc.aio's poller thread, by the name threading gives a thread of that function.
        for thread in (t for t in threading.enumerate() if t.name.endswith("(_poll_wrapper)")):
            try:
                fds.append(os.open(f"/proc/self/task/{thread.native_id}/status", os.O_RDONLY))
            except (OSError, TypeError):  # gone already, or never started (no native id)
                continue
        return fds

    def summary(self) -> dict[str, float]:
        for fd in self._pollers or ():
            os.close(fd)
        self._pollers = []
        if self.first is None or self.last is None or self.last[0] == self.first[0]:
            return {"window_decisions": 0, "window_cpu_seconds": 0.0, "switches": 0,
                    "main_thread_switches": 0, "poller_thread_switches": 0,
                    "window_wall_seconds": 0.0}
        return {"window_decisions": self.last[0] - self.first[0],
                "window_cpu_seconds": self.last[1] - self.first[1],
                "window_wall_seconds": self.last[4] - self.first[4],
                "switches": self.last[2] - self.first[2],
                "main_thread_switches": self.last[3] - self.first[3],
                "poller_thread_switches": self.last[5] - self.first[5]}


def role_dealer(config_path: str) -> int:
    """The dealer process: serve the config, then print the ServeResult as one JSON line."""
    from arena.server.app import serve
    from arena.server.config import config_from_mapping

    config = config_from_mapping(json.loads(Path(config_path).read_text()))

    def ready(port: int) -> None:
        print(json.dumps({"port": port, "pid": os.getpid()}), flush=True)

    window = _SteadyWindow()
    pauses = _GcPauses()
    servers: list[Any] = []

    def observe(server: Any) -> None:
        servers.append(server)
        server.lobby.decision_observers.append(window.seen)

    result = asyncio.run(serve(config, on_ready=ready, on_server=observe))
    overhead = servers[0].service.stats.overhead_seconds.values
    lateness: list[float] = []
    automatic = answered = hands = 0
    for summary in result.summaries:
        lateness += summary.stats.lateness_seconds
        automatic += summary.stats.timeouts + summary.stats.absent_actions
        answered += summary.stats.answered
        hands += summary.hands_played
    print(json.dumps({"result": True, "cpu_seconds": result.cpu_seconds,
                      "wall_seconds": result.wall_seconds, "transport": result.transport,
                      "answered": answered, "automatic": automatic, "hands": hands,
                      **window.summary(), "overhead_over": _over(overhead),
                      **pauses.summary(),
                      "lateness_p50": _percentile(lateness, 0.5),
                      "lateness_p99": _percentile(lateness, 0.99),
                      "lateness_max": max(lateness, default=0.0),
                      "lateness_count": len(lateness)}), flush=True)
    return 0


def role_bots(address: str, tables: int, first: int = 0, think: float = 0.0,
              seconds: float = 0.0, seats: int = SEATS, events: bool = False) -> int:
    """Calling-station SDK bots for ``tables`` tables from table ``first`` (the silent ones too
    when ``first`` is 0 and ``think`` is 0). Instant bots print when every one of their tables
    has ended; paced ones (``think`` seconds per decision) count the decisions of a window of
    ``seconds`` starting a second after their first decision, print it and play on until the
    dealer stops. ``events``: every event (else requests and results, the SDK's default for a
    bot that reads no events)."""
    from arena_bot import Action, SeatView, eventloop, play
    from arena_bot.examples import calling_station

    from arena.v1 import arena_pb2 as pb
    from arena.v1 import arena_pb2_grpc as pb_grpc

    paced = _PacedWindow(think, seconds)

    async def main() -> None:
        times: list[float] = []
        ended: set[str] = set()
        all_ended = asyncio.Event()

        def watch(message: pb.DealerMessage) -> None:
            kind = message.WhichOneof("payload")
            if kind == "decision_request":
                times.append(time.monotonic())
                if think > 0:
                    paced.request(message.decision_request.match_id)
            elif kind == "event" and message.event.WhichOneof("payload") == "match_ended":
                ended.add(message.event.match_id)
                if len(ended) == tables:
                    all_ended.set()

        async def thinking(view: SeatView) -> Action:
            await asyncio.sleep(think)
            action = calling_station(view)
            paced.replied(view.request.match_id)
            return action

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

        bot = thinking if think > 0 else calling_station
        instant = [asyncio.ensure_future(play(bot, server=address,
                                              token=_token(f"bot{t}-{s}"), name=f"bot{t}-{s}",
                                              reconnect_seconds=0.0, on_message=watch,
                                              events=events))
                   for t in range(first, first + tables) for s in range(seats)]
        quiet = [asyncio.ensure_future(silent(f"silent{t}-{s}"))
                 for t in range(tables, tables + SILENT_TABLES) for s in range(SEATS)
                 ] if first == 0 and think == 0 and seats == SEATS else []
        if think > 0:
            await paced.report()
        else:
            await all_ended.wait()
            print(json.dumps({"decisions": len(times), "first": times[0], "last": times[-1],
                              "cpu_seconds": time.process_time()}), flush=True)
        await asyncio.gather(*instant, *quiet, return_exceptions=True)

    eventloop.run(main())  # the SDK's own loop (run(), the CLI), as every client here
    return 0


def _summarize(result: dict[str, Any]) -> dict[str, Any]:
    transport = result["transport"]
    total = max(1, result["answered"] + result["automatic"])
    window = max(1, result["window_decisions"])
    return {
        "decisions_total": total,
        "overhead_p50": transport["overhead_seconds"]["p50"],
        "overhead_p99": transport["overhead_seconds"]["p99"],
        "overhead_over": result["overhead_over"],
        **{k: result[k] for k in GC_KEYS},
        "cpu_per_decision": result["window_cpu_seconds"] / window,  # steady play
        "cpu_per_decision_whole_run": result["cpu_seconds"] / total,
        "server_cores": result["window_cpu_seconds"] / max(1e-9, result["window_wall_seconds"]),
        "switches_per_decision": result["switches"] / window,
        "main_thread_switches_per_decision": result["main_thread_switches"] / window,
        "poller_switches_per_decision": result.get("poller_thread_switches", 0) / window,
        "writes_per_decision": transport["writes"] / total,
        "bytes_out_per_decision": transport["bytes_out"] / total,
        "bytes_per_write": transport["bytes_out"] / max(1, transport["writes"]),
        "bytes_per_reply": transport["bytes_in"] / max(1, transport["messages_in"]),
        "lateness_p50": result["lateness_p50"], "lateness_p99": result["lateness_p99"],
        "lateness_max": result["lateness_max"], "lateness_count": result["lateness_count"],
        "hands": result["hands"], "wall_seconds": result["wall_seconds"],
    }


def run_dealer(tables: int, hands: int, events: bool = False) -> dict[str, Any]:
    """Instant bots on ``tables`` tables of 4 (plus the silent tables); ``events``: the bots
    subscribe to every event instead of requests and results."""
    with tempfile.TemporaryDirectory(prefix="bench-dealer-") as tmp:
        config = Path(tmp) / "config.json"
        config.write_text(json.dumps(_dealer_config(tables, hands)))
        server = _spawn("--role", "dealer", "--config", str(config))
        try:
            ready = _read_json_line(server, "port")
            bots = _spawn("--role", "bots", "--address", f"127.0.0.1:{ready['port']}",
                          "--tables", str(tables), *(["--events"] if events else []))
            seen = _read_json_line(bots, "decisions", timeout=600)
            server.send_signal(signal.SIGTERM)  # the silent tables would play on forever
            result = _read_json_line(server, "result")
            bots.communicate(timeout=60)
        finally:
            server.kill()
    return {"decisions": seen["decisions"],
            "decisions_per_second": seen["decisions"] / (seen["last"] - seen["first"]),
            **_summarize(result)}


def _shares(tables: int, processes: int) -> list[tuple[int, int]]:
    """Tables shared out among processes as evenly as can be: (first table, how many)."""
    out, first = [], 0
    for k in range(processes):
        share = tables // processes + (k < tables % processes)
        if share:
            out.append((first, share))
        first += share
    return out


def run_paced(tables: int, think: float, seconds: float, processes: int = 2) -> dict[str, Any]:
    """``tables`` tables of 4 bots thinking ``think`` s, spread over bot processes."""
    with tempfile.TemporaryDirectory(prefix="bench-paced-") as tmp:
        config = Path(tmp) / "config.json"
        config.write_text(json.dumps(_dealer_config(tables, 100_000, silent=0)))
        server = _spawn("--role", "dealer", "--config", str(config))
        try:
            ready = _read_json_line(server, "port")
            bots = [_spawn("--role", "bots", "--address", f"127.0.0.1:{ready['port']}",
                           "--tables", str(share), "--first", str(first), "--bot-think",
                           str(think), "--seconds", str(seconds))
                    for first, share in _shares(tables, processes)]
            seen = [_read_json_line(b, "decisions", timeout=seconds + 120) for b in bots]
            server.send_signal(signal.SIGTERM)
            result = _read_json_line(server, "result")
            for b in bots:
                b.kill()  # counted already; no need to wait for them to notice the end
                b.communicate(timeout=60)
        finally:
            server.kill()
    return {"tables": tables, **_paced_clients(seen, seconds), **_summarize(result)}


def _paced_clients(seen: list[dict[str, Any]], seconds: float) -> dict[str, float]:
    """The paced client processes' windows summed: decisions/s, their CPU per decision, the
    machine's busy cores (mean of the processes' samples, which cover about the same second),
    and the worst process's p99 lag and gap (``_PacedWindow``)."""
    decisions = sum(s["decisions"] for s in seen)
    return {"decisions_per_second": decisions / seconds,
            "client_cpu_per_decision": sum(s["window_cpu_seconds"] for s in seen)
            / max(1, decisions),
            "busy_cores": sum(s["busy_cores"] for s in seen) / len(seen),
            "client_lag_p99": max(s["lag_p99"] for s in seen),
            "client_gap_p50": max(s["gap_p50"] for s in seen),
            "client_gap_p99": max(s["gap_p99"] for s in seen)}


def run_headsup(hands: int, bots: str = "python") -> dict[str, Any]:
    """One heads-up fixed-limit hold'em match of two calling bots, each its own process
    (``bots``: SDK bots, ``python``, or the Node.js example bot's calling policy, ``node``)."""
    with tempfile.TemporaryDirectory(prefix="bench-headsup-") as tmp:
        config = Path(tmp) / "config.json"
        config.write_text(json.dumps(_dealer_config(1, hands, seats=2, silent=0,
                                                    games=["FT"])))
        server = _spawn("--role", "dealer", "--config", str(config))
        try:
            ready = _read_json_line(server, "port")
            players = [_spawn_bot(bots, f"127.0.0.1:{ready['port']}", s) for s in range(2)]
            seen = [_read_json_line(b, "decisions", timeout=600) for b in players]
            result = _read_json_line(server, "result")
            for b in players:
                b.communicate(timeout=60)
        finally:
            server.kill()
    span = max(s["last"] for s in seen) - min(s["first"] for s in seen)
    summary = _summarize(result)
    return {"hands_per_second": summary["hands"] / span,
            "decisions_per_second": summary["decisions_total"] / span,
            "client_cpu_per_decision": _client_cpu_per_decision(seen),
            "client_switches_per_decision": _client_switches_per_decision(seen), **summary}


NODE_BOT = ROOT / "bots" / "node" / "bot.js"


def _spawn_bot(bots: str, address: str, seat: int) -> subprocess.Popen[str]:
    """A heads-up calling bot: ``role_bot`` (the Python SDK) or the Node.js bot, ``--stats``
    printing the same JSON line (its CPU from its first request to its last)."""
    if bots == "python":
        return _spawn("--role", "bot", "--address", address, "--seat", str(seat))
    if not (NODE_BOT.parent / "node_modules" / "@grpc" / "grpc-js").is_dir():
        raise RuntimeError(f"the Node.js bot needs its packages: npm install in {NODE_BOT.parent}")
    name = f"bot0-{seat}"
    return subprocess.Popen(["node", str(NODE_BOT), "--server", address, "--token", _token(name),
                             "--name", name, "--policy", "call", "--stats",
                             "--reconnect-seconds", "0"], cwd=ROOT, env=_env(),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _client_cpu_per_decision(seen: list[dict[str, Any]]) -> float:
    """The clients' CPU from each one's first request to its last, per request they got."""
    return float(sum(s["cpu_seconds"] for s in seen)
                 / max(1, sum(s["decisions"] - 1 for s in seen)))


def _client_switches_per_decision(seen: list[dict[str, Any]]) -> float | None:
    """The clients' voluntary context switches (all threads) from each one's first request to
    its last, per request they got; None when a client does not count them (Node.js)."""
    if not seen or any("switches" not in s for s in seen):
        return None
    return float(sum(s["switches"] for s in seen) / max(1, sum(s["decisions"] - 1 for s in seen)))


def role_bot(address: str, seat: int) -> int:
    """One calling-station SDK bot of the heads-up match, in its own process, as a bot author
    runs one (no ``on_message``)."""
    from arena_bot import Action, SeatView, eventloop, play
    from arena_bot.examples import calling_station

    times: list[float] = []
    cpu: list[float] = []  # process CPU at the first and the latest request
    switches: list[int] = []  # voluntary context switches, all threads, likewise

    def bot(view: SeatView) -> Action:
        times.append(time.monotonic())
        cpu[min(len(cpu), 1):] = [time.process_time()]
        switches[min(len(switches), 1):] = [resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw]
        return calling_station(view)

    name = f"bot0-{seat}"
    eventloop.run(play(bot, server=address, token=_token(name), name=name,
                       reconnect_seconds=0.0))
    print(json.dumps({"decisions": len(times), "first": times[0], "last": times[-1],
                      "cpu_seconds": cpu[-1] - cpu[0], "switches": switches[-1] - switches[0]}),
          flush=True)
    return 0


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
    taken = next(i for i in reversed(items) if isinstance(i, m.ActionTaken))
    notice = m.Notice(match_id="table-0", hand_id="table-0-h1", sequence=17, unix_seconds=time.time(),
                      payload=taken)
    prompt = feed.prompt("table-0-h1-d7", DecisionClock(opened_at=0.0, decision_seconds=2.0,
                                                        bank_seconds=0.0), 0.0, None)
    assert not isinstance(prompt, Private)
    encoder = Encoder()
    request = batch([encoder.encode(notice), encoder.encode(prompt)])
    reply = pb.BotMessage(action_reply=pb.ActionReply(
        decision_id=prompt.decision_id, seat=prompt.seat,
        action=pb.Action(kind=pb.ACTION_KIND_CALL), think_seconds=0.0001)).SerializeToString()
    return request, reply


def _table_seat(name: str) -> tuple[int, int]:
    """(table, seat) from a ping-pong client's name, ``"table,seat"``, or a dealer bot's,
    ``"bot<table>-<seat>"``."""
    if name.startswith("bot"):
        table, seat = name[3:].split("-")
    else:
        table, seat = name.split(",")
    return int(table), int(seat)


def role_pingpong_server(tables: int, seconds: float, seats: int = SEATS) -> int:
    from arena.server.stats import Samples
    from arena.v1 import arena_pb2 as pb

    request, _ = _sample_messages()
    pauses = _GcPauses()

    async def main() -> None:
        groups: dict[int, list[asyncio.Event]] = {t: [asyncio.Event() for _ in range(seats)]
                                                  for t in range(tables)}
        joined: dict[int, int] = dict.fromkeys(range(tables), 0)
        stop_at: list[float] = []
        overhead = Samples()
        counts = {"round_trips": 0}
        handed_over: dict[int, float] = {}
        finished = asyncio.Event()
        done_streams = [0]
        started: list[tuple[float, tuple[int, int]]] = []

        async def play(request_iterator: Any, context: grpc.aio.ServicerContext[Any, Any]) -> None:
            hello = await context.read()
            name = pb.BotMessage.FromString(bytes(hello)).hello.bot_name
            table, seat = _table_seat(name)
            turns = groups[table]
            joined[table] += 1
            if joined[table] == seats and all(v == seats for v in joined.values()):
                stop_at.append(time.perf_counter() + seconds)
                started.append((time.process_time(), _switches()))
                for group in groups.values():
                    group[0].set()
            while True:
                await turns[seat].wait()
                turns[seat].clear()
                if stop_at and time.perf_counter() > stop_at[0]:
                    turns[(seat + 1) % seats].set()
                    break
                await context.write(request)
                if table in handed_over:
                    overhead.add(time.perf_counter() - handed_over.pop(table))
                await context.read()
                handed_over[table] = time.perf_counter()
                counts["round_trips"] += 1
                turns[(seat + 1) % seats].set()
            done_streams[0] += 1
            if done_streams[0] == tables * seats:
                finished.set()

        server = grpc.aio.server()
        # bench.PingPong for its own clients; arena.v1.Dealer for the dealer's own bot
        # processes (the heads-up scenario's "same bots" peer), which need no more than this
        server.add_generic_rpc_handlers(tuple(
            grpc.method_handlers_generic_handler(service, {
                "Play": grpc.stream_stream_rpc_method_handler(play)})
            for service in ("bench.PingPong", "arena.v1.Dealer")))
        port = server.add_insecure_port("127.0.0.1:0")
        await server.start()
        print(json.dumps({"port": port}), flush=True)
        await finished.wait()
        cpu = time.process_time() - started[0][0]
        switches = _switches()
        print(json.dumps({"round_trips": counts["round_trips"], "seconds": seconds,
                          "cpu_seconds": cpu, "switches": switches[0] - started[0][1][0],
                          "main_thread_switches": switches[1] - started[0][1][1],
                          **{f"overhead_{k}": v for k, v in overhead.summary().items()},
                          "overhead_over": _over(overhead.values), **pauses.summary()}),
              flush=True)
        await server.stop(1.0)

    asyncio.run(main())
    return 0


def role_pingpong_clients(address: str, tables: int, first: int = 0, seats: int = SEATS,
                          think: float = 0.0, seconds: float = 0.0) -> int:
    """Ping-pong clients doing the SDK's own work per message: unbatch, find the request, the
    bot function on a ``SeatView``, the reply message, serialized by the channel; ``think``:
    seconds each waits before answering (the paced scenario's peer), then they print a window
    of ``seconds`` as the dealer's paced bots do (``_PacedWindow``)."""
    from arena_bot import SeatView, eventloop
    from arena_bot.examples import calling_station
    from arena_bot.session import _reply, unbatch

    from arena.v1 import arena_pb2 as pb

    paced = _PacedWindow(think, seconds)

    async def client(channel: grpc.aio.Channel, table: int, seat: int) -> None:
        call = channel.stream_stream(PING_METHOD,
                                     request_serializer=pb.BotMessage.SerializeToString,
                                     response_deserializer=pb.DealerMessage.FromString)()
        await call.write(pb.BotMessage(hello=pb.Hello(bot_name=f"{table},{seat}")))
        async for envelope in call:
            for message in unbatch(envelope):
                if message.WhichOneof("payload") == "decision_request":
                    if think > 0:
                        paced.request(table)
                        await asyncio.sleep(think)
                    request = message.decision_request
                    reply = _reply(request, calling_station(SeatView(request)), 0.0)  # type: ignore[arg-type]
                    if think > 0:
                        paced.replied(table)
                    await call.write(reply)

    async def main() -> None:
        channels = [grpc.aio.insecure_channel(address, options=LOCAL)
                    for _ in range(tables * seats)]
        window = [asyncio.ensure_future(paced.report())] if think > 0 else []
        await asyncio.gather(*(client(channels[t * seats + s], first + t, s)
                               for t in range(tables) for s in range(seats)),
                             return_exceptions=True)
        await asyncio.gather(*window)
        for channel in channels:
            await channel.close()

    eventloop.run(main())  # the SDK bots' loop
    return 0


def run_pingpong(tables: int, seconds: float, seats: int = SEATS,
                 processes: int = 1, think: float = 0.0, bots: str = "") -> dict[str, Any]:
    """The ping-pong; ``processes``: client processes (tables shared out among them, or with
    two seats one process per seat of a single table: the heads-up layout); ``think``: seconds
    each client waits before answering, and then the server plays 2 s longer and the clients
    count a window of ``seconds`` as the dealer's paced bots do (``paced`` in the result);
    ``bots``: with two seats, the heads-up match's own bot processes (``_spawn_bot``: the SDK's
    or the Node.js bot) as the clients instead of the ping-pong's."""
    server = _spawn("--role", "pp-server", "--tables", str(tables), "--seconds",
                    str(seconds + 2.0 if think > 0 else seconds), "--seats", str(seats))
    try:
        ready = _read_json_line(server, "port")
        clients = []
        if seats == SEATS:
            clients += [_spawn("--role", "pp-clients", "--address", f"127.0.0.1:{ready['port']}",
                               "--tables", str(share), "--first", str(first), "--seats",
                               str(seats), "--bot-think", str(think), "--seconds", str(seconds))
                        for first, share in _shares(tables, processes)]
        elif bots:  # the dealer's bots, one process per seat
            clients += [_spawn_bot(bots, f"127.0.0.1:{ready['port']}", s) for s in range(seats)]
        else:  # one process per seat of a single table (the heads-up layout)
            clients += [_spawn("--role", "pp-client", "--address", f"127.0.0.1:{ready['port']}",
                               "--seat", str(s)) for s in range(seats)]
        seen = ([_read_json_line(c, "decisions", timeout=seconds + 120) for c in clients]
                if seats != SEATS or think > 0 else [])
        result = _read_json_line(server, "round_trips", timeout=seconds + 120)
        for c in clients:
            c.communicate(timeout=60)
    finally:
        server.kill()
    request, reply = _sample_messages()
    trips = max(1, result["round_trips"])
    paced: dict[str, float] = {}
    if think > 0:
        paced = _paced_clients(seen, seconds)
        paced["server_cores"] = result["cpu_seconds"] / result["seconds"]
    return {"paced": paced,
            "round_trips_per_second": result["round_trips"] / result["seconds"],
            "overhead_p50": result["overhead_p50"], "overhead_p99": result["overhead_p99"],
            "overhead_over": result["overhead_over"],
            **{k: result[k] for k in GC_KEYS},
            "cpu_per_round_trip": result["cpu_seconds"] / trips,
            "switches_per_round_trip": result["switches"] / trips,
            "main_thread_switches_per_round_trip": result["main_thread_switches"] / trips,
            "request_bytes": len(request), "reply_bytes": len(reply),
            "client_cpu_per_decision": _client_cpu_per_decision(seen)
            if seen and not think else 0.0,
            "client_switches_per_decision": _client_switches_per_decision(seen)
            if seen and not think else None}


def role_pingpong_client(address: str, seat: int) -> int:
    """One ping-pong client of the heads-up layout (table 0), in its own process, answering as
    the SDK does: its session's per-decision path (``arena_bot.session``) on grpc.aio."""
    from arena_bot import Action, SeatView, eventloop
    from arena_bot.examples import calling_station
    from arena_bot.session import PlayResult, Session, unbatch

    from arena.v1 import arena_pb2 as pb

    cpu: list[float] = []  # process CPU at the first and the latest request
    switches: list[int] = []  # voluntary context switches, all threads, likewise
    count = [0]
    hello = pb.BotMessage(hello=pb.Hello(bot_name=f"0,{seat}"))

    def bot(view: SeatView) -> Action:
        count[0] += 1
        cpu[min(len(cpu), 1):] = [time.process_time()]
        switches[min(len(switches), 1):] = [resource.getrusage(resource.RUSAGE_SELF).ru_nvcsw]
        return calling_station(view)

    async def main() -> None:
        async with grpc.aio.insecure_channel(address, options=LOCAL) as channel:
            call = channel.stream_stream(PING_METHOD,
                                         request_serializer=pb.BotMessage.SerializeToString,
                                         response_deserializer=pb.DealerMessage.FromString)()
            session = Session(bot, PlayResult(), address)
            await call.write(hello)
            writer = asyncio.ensure_future(session._write_all(call))
            try:
                async for envelope in call:
                    for message in unbatch(envelope):  # arena.v1 messages: the SDK's bytes
                        session.handle(message)  # type: ignore[arg-type]
            except grpc.aio.AioRpcError:
                pass
            writer.cancel()

    eventloop.run(main())  # the SDK bots' loop
    print(json.dumps({"decisions": count[0], "cpu_seconds": cpu[-1] - cpu[0],
                      "switches": switches[-1] - switches[0]}), flush=True)
    return 0


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
    parser.add_argument("--scenario", default="all",
                        choices=("all", "instant", "paced", "headsup", "idle"))
    parser.add_argument("--tables", type=int, default=16)
    parser.add_argument("--hands", type=int, default=60, help="hands per instant table")
    parser.add_argument("--rounds", type=int, default=3,
                        help="instant scenario: dealer and ping-pong runs, alternated")
    parser.add_argument("--idle", type=int, default=500, help="idle bots for the memory figure")
    parser.add_argument("--paced-tables", default="8,16,24,32,40,48,56",
                        help="table counts tried in the paced scenario, in order")
    parser.add_argument("--think", type=float, default=0.02, help="paced bots' think time (s)")
    parser.add_argument("--paced-seconds", type=float, default=6.0)
    parser.add_argument("--paced-budget-seconds", type=float, default=300.0,
                        help="paced scenario: add no step after this long (the last count "
                             "asked for is stepped past while the dealer or the ping-pong "
                             "still keeps full pace)")
    parser.add_argument("--headsup-hands", type=int, default=2000)
    parser.add_argument("--headsup-bots", choices=("python", "node"), default="python",
                        help="heads-up bots: the Python SDK's, or the Node.js bot's calling "
                             "policy (bots/node; the ping-pong clients stay Python)")
    parser.add_argument("--role", default="report", help=argparse.SUPPRESS)
    parser.add_argument("--config", help=argparse.SUPPRESS)
    parser.add_argument("--address", help=argparse.SUPPRESS)
    parser.add_argument("--seconds", type=float, default=10.0, help=argparse.SUPPRESS)
    parser.add_argument("--count", type=int, default=500, help=argparse.SUPPRESS)
    parser.add_argument("--first", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--events", action="store_true",
                        help="instant bots subscribe to every event (default: requests and "
                             "results, what the SDK asks for when the bot reads no events)")
    parser.add_argument("--bot-think", type=float, default=0.0, help=argparse.SUPPRESS)
    parser.add_argument("--seat", type=int, default=0, help=argparse.SUPPRESS)
    parser.add_argument("--seats", type=int, default=SEATS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    roles = {
        "dealer": lambda: role_dealer(args.config),
        "bots": lambda: role_bots(args.address, args.tables, args.first, args.bot_think,
                                  args.seconds, events=args.events),
        "bot": lambda: role_bot(args.address, args.seat),
        "pp-server": lambda: role_pingpong_server(args.tables, args.seconds, args.seats),
        "pp-clients": lambda: role_pingpong_clients(args.address, args.tables, args.first,
                                                    args.seats, args.bot_think, args.seconds),
        "pp-client": lambda: role_pingpong_client(args.address, args.seat),
        "idle": lambda: role_idle(args.address, args.count),
    }
    if args.role in roles:
        return roles[args.role]()
    print(f"dealer benchmark ({args.scenario}), {os.cpu_count()} CPUs", file=sys.stderr)
    if args.scenario in ("all", "instant"):
        report_instant(args.tables, args.hands, args.events, args.rounds)
    if args.scenario in ("all", "paced"):
        report_paced([int(t) for t in args.paced_tables.split(",")], args.think,
                     args.paced_seconds, args.paced_budget_seconds)
    if args.scenario in ("all", "headsup"):
        report_headsup(args.headsup_hands, args.headsup_bots)
    if args.scenario in ("all", "idle"):
        idle = run_idle(args.idle)
        print(f"\nserver memory per idle connection ({args.idle} bots): "
              f"{idle['kib_per_connection']:.1f} KiB ({idle['rss_before_kib'] / 1024:.0f} -> "
              f"{idle['rss_after_kib'] / 1024:.0f} MiB RSS)")
    return 0


def _table(rows: list[tuple[str, str, str]]) -> None:
    print("| measure | dealer | ping-pong (same run) |")
    print("|---|---|---|")
    for name, ours, peer in rows:
        print(f"| {name} | {ours} | {peer} |")


def report_instant(tables: int, hands: int, events: bool = False, rounds: int = 3) -> None:
    print(f"dealer: {tables} tables x {SEATS} instant bots (+{SILENT_TABLES} tables of silent "
          "bots)", file=sys.stderr)
    ratios: list[float] = []
    pairs: list[str] = []  # each round's dealer / ping-pong CPU per decision (round trip)
    for _ in range(rounds):  # alternated: the machine's load drifts, both sides see it
        dealer = run_dealer(tables, hands, events)
        seconds = max(5.0, min(30.0, dealer["decisions"] / dealer["decisions_per_second"]))
        raw = run_pingpong(tables, seconds)
        ratios.append(dealer["cpu_per_decision"] / raw["cpu_per_round_trip"])
        pairs.append(f"{dealer['cpu_per_decision'] * 1e6:,.0f} / "
                     f"{raw['cpu_per_round_trip'] * 1e6:,.0f} µs")
    single = run_dealer(1, 60, events)  # one table, nothing queued behind it
    us = 1e6
    cpu_ratio = sorted(ratios)[len(ratios) // 2]
    print(f"\n### Instant bots ({'every event' if events else 'requests and results'}): "
          f"{dealer['decisions']:,} decisions at {tables} tables of {SEATS}; ping-pong ran "
          f"{seconds:.1f} s; {rounds} rounds, figures of the last\n")
    _table([
        ("**server CPU per decision / round trip (primary; median of the rounds)**",
         f"**{cpu_ratio:.2f}x** the ping-pong's (rounds: "
         f"{', '.join(f'{r:.2f}x ({p})' for r, p in zip(ratios, pairs, strict=True))}; "
         "target <= 3x, stretch 2.5x)", ""),
        ("server CPU per decision (whole process, steady play; whole run incl. start-up)",
         f"{dealer['cpu_per_decision'] * us:,.0f} µs "
         f"({dealer['cpu_per_decision_whole_run'] * us:,.0f} µs)",
         f"{raw['cpu_per_round_trip'] * us:,.0f} µs"),
        ("decisions (round trips) per second", f"{dealer['decisions_per_second']:,.0f}",
         f"{raw['round_trips_per_second']:,.0f} "
         f"({dealer['decisions_per_second'] / raw['round_trips_per_second']:.0%})"),
        ("server overhead p50 / p99 under load",
         f"{dealer['overhead_p50'] * us:,.0f} / {dealer['overhead_p99'] * us:,.0f} µs",
         f"{raw['overhead_p50'] * us:,.0f} / {raw['overhead_p99'] * us:,.0f} µs"),
        ("server overhead p50 / p99 at one table",
         f"{single['overhead_p50'] * us:,.0f} / {single['overhead_p99'] * us:,.0f} µs", ""),
        ("writes / bytes sent per decision (all seats)",
         f"{dealer['writes_per_decision']:.2f} / {dealer['bytes_out_per_decision']:,.0f} B",
         f"1 / {raw['request_bytes']} B"),
        ("voluntary context switches per decision (all threads)",
         f"{dealer['switches_per_decision']:.2f}", f"{raw['switches_per_round_trip']:.2f}"),
        (f"automatic actions after the deadline p50 / p99 / max ({dealer['lateness_count']})",
         f"{dealer['lateness_p50'] * 1e3:.2f} / {dealer['lateness_p99'] * 1e3:.2f} / "
         f"{dealer['lateness_max'] * 1e3:.2f} ms (target p99 <= 10 ms)", ""),
    ])


FULL_PACE_SHARE = 0.9  # of a lone table's decisions/s, per table
FULL_PACE_P99_SECONDS = 0.010  # server overhead at p99


def full_pace(decisions_per_second: float, tables: int, lone_per_second: float,
              overhead_p99: float) -> tuple[float, bool]:
    """Each table's share of a lone table's pace, and whether that is full pace: >= 90% of it
    and p99 server overhead <= 10 ms (the same test for the dealer and the ping-pong)."""
    share = decisions_per_second / (tables * lone_per_second) if lone_per_second > 0 else 0.0
    return share, share >= FULL_PACE_SHARE and overhead_p99 <= FULL_PACE_P99_SECONDS


def _paced_peer(tables: int, think: float, seconds: float, processes: int) -> dict[str, Any]:
    """The ping-pong at ``tables`` paced tables, in the dealer's paced figures' names."""
    raw = run_pingpong(tables, seconds, processes=processes, think=think)
    return {**raw["paced"], "overhead_p99": raw["overhead_p99"],
            "overhead_over": raw["overhead_over"],
            **{k: raw[k] for k in GC_KEYS},
            "cpu_per_decision": raw["cpu_per_round_trip"]}


def _paced_steps(counts: list[int]) -> Iterator[int]:
    """The table counts asked for, then on by the last step (8 when one count was given)."""
    yield from counts
    step = counts[-1] - counts[-2] if len(counts) > 1 and counts[-1] > counts[-2] else 8
    tables = counts[-1]
    while True:
        tables += step
        yield tables


def _own_cores(row: dict[str, Any]) -> float:
    """Cores this step's own processes kept busy: the server's, and its clients' CPU per
    decision at their decisions/s (the rest of the machine's busy cores is someone else's)."""
    return float(row["server_cores"] + row["decisions_per_second"]
                 * row["client_cpu_per_decision"])


def report_paced(counts: list[int], think: float, seconds: float,
                 budget_seconds: float = 300.0) -> None:
    """Tables added until neither the dealer nor its peer, the ping-pong with clients that
    think as long (same layout, same client processes), keeps every table at full pace at two
    steps in a row (one step can fail by someone else's load): beyond ``counts`` while either
    still does, until ``budget_seconds`` have passed. Tables at full pace: the most at any
    step (as before), and in brackets the most with every step up to it at full pace."""
    print(f"paced: bots thinking {think * 1e3:.0f} ms, tables {counts}", file=sys.stderr)
    started = time.monotonic()
    lone = run_paced(1, think, seconds, processes=1)
    lone_peer = _paced_peer(1, think, seconds, processes=1)
    pace, peer_pace = lone["decisions_per_second"], lone_peer["decisions_per_second"]
    us, ms = 1e6, 1e3
    print(f"\n### Paced bots ({think * 1e3:.0f} ms per decision, tables of {SEATS}, "
          f"{seconds:g} s per step, 2 client processes)\n")
    print(f"Full pace: >= {FULL_PACE_SHARE:.0%} of a lone table's decisions/s per table and p99 "
          f"server overhead <= {FULL_PACE_P99_SECONDS * ms:.0f} ms, the same test for both. "
          f"A lone table: dealer {pace:.1f} decisions/s, p99 overhead "
          f"{lone['overhead_p99'] * ms:.1f} ms; ping-pong {peer_pace:.1f} round trips/s, p99 "
          f"{lone_peer['overhead_p99'] * ms:.1f} ms. Server overhead: from the server reading a "
          "reply to its having written that table's next request. Client lag: a request's "
          "arrival at its bot to the reply being ready, minus the think time; gap: a reply ready "
          "to that table's next request arriving (both worst client process, p99). Busy cores: "
          f"the whole machine ({os.cpu_count()} cores) during the clients' window.\n")
    print("| tables | decisions/s (per table vs a lone table), dealer / ping-pong | "
          "p99 server overhead (share over 10 ms) | "
          "full pace | server CPU per decision (cores busy) | client CPU per decision | "
          "client lag p99 / gap p99 | busy cores (this benchmark's server and clients) | "
          "dealer writes per decision | server GC pauses over 5 ms [by generation], the longest "
          "(its CPU), full collections |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    best = best_peer = 0
    steady = [0, 0]  # every step so far at full pace: dealer, ping-pong
    failed = [False, False]
    neither = 0  # steps in a row at which neither kept full pace
    budget_spent = False
    for tables in _paced_steps(counts):
        row = run_paced(tables, think, seconds)
        peer = _paced_peer(tables, think, seconds, processes=2)
        share, full = full_pace(row["decisions_per_second"], tables, pace, row["overhead_p99"])
        peer_share, peer_full = full_pace(peer["decisions_per_second"], tables, peer_pace,
                                          peer["overhead_p99"])
        best = tables if full else best
        best_peer = tables if peer_full else best_peer
        for k, ok in enumerate((full, peer_full)):
            failed[k] = failed[k] or not ok
            steady[k] = steady[k] if failed[k] else tables
        both = (row, peer)
        print(f"| {tables} | {row['decisions_per_second']:,.0f} ({share:.0%}) / "
              f"{peer['decisions_per_second']:,.0f} ({peer_share:.0%}) | "
              + " / ".join(f"{r['overhead_p99'] * ms:.1f} ms ({r['overhead_over']:.1%})"
                           for r in both) + " | "
              f"{'yes' if full else 'no'} / {'yes' if peer_full else 'no'} | "
              + " / ".join(f"{r['cpu_per_decision'] * us:,.0f} µs ({r['server_cores']:.2f})"
                           for r in both) + " | "
              + " / ".join(f"{r['client_cpu_per_decision'] * us:,.0f}" for r in both) + " µs | "
              + " / ".join(f"{r['client_lag_p99'] * ms:.1f}, {r['client_gap_p99'] * ms:.1f}"
                           for r in both) + " ms | "
              + " / ".join(f"{r['busy_cores']:.2f} ({_own_cores(r):.2f})" for r in both)
              + f" | {row['writes_per_decision']:.2f} | "
              + " / ".join(f"{r['gc_over_5ms']} {r['gc_slow_by_generation']}, "
                           f"{r['gc_longest'] * ms:.1f} ms ({r['gc_longest_cpu'] * ms:.1f} ms "
                           f"CPU), {r['gc_full']}" for r in both)
              + " |", flush=True)
        neither = 0 if full or peer_full else neither + 1
        if neither == 2:
            break
        if time.monotonic() - started > budget_seconds:
            budget_spent = True
            break
    ratio = f"{best / best_peer:.2f}x" if best_peer else "no ratio: the peer keeps no step"
    at_least = ">= " if budget_spent else ""
    print(f"\ntables at full pace: dealer **{at_least if full else ''}{best}** (every step up "
          f"to {steady[0]}), ping-pong **{at_least if peer_full else ''}{best_peer}** (every step "
          f"up to {steady[1]}) in the same run ({ratio}; target >= 40 with p99 overhead <= "
          f"10 ms){'; stopped by the time budget' if budget_spent else ''}")


def _maybe(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def report_headsup(hands: int, bots: str = "python") -> None:
    """The match, then the ping-pong twice in the same run: with its own clients for 8 s (as
    before) and, for as long as the match took, with the match's own bot processes as its
    clients (the SDK's or the Node.js bot)."""
    print(f"heads-up: {hands} hands of FT, two calling {bots} bots as processes", file=sys.stderr)
    dealer = run_headsup(hands, bots)
    span = dealer["decisions_total"] / dealer["decisions_per_second"]
    peers = [run_pingpong(1, 8.0, seats=2, processes=2),  # as before this comparison existed
             # as long as the match took (the Node.js bot's V8 still compiles in short runs)
             run_pingpong(1, min(30.0, max(3.0, span)), seats=2, processes=2, bots=bots)]
    us = 1e6
    per_hand = dealer["decisions_total"] / max(1, dealer["hands"])
    kind = "Node.js" if bots == "node" else "SDK"
    print(f"\n### Heads-up: one match of {hands} fixed-limit hold'em hands, two calling bots "
          f"(one process each; {'the Node.js bot' if bots == 'node' else 'the Python SDK'})\n")
    print("Ping-pong hands/s: its round trips/s over the match's decisions per hand "
          f"({per_hand:.2f}); (x): the dealer's figure over the ping-pong's.\n")
    print(f"| measure | dealer | ping-pong, its own clients (same run) | ping-pong, the match's "
          f"{kind} bot processes as clients (same run) |")
    print("|---|---|---|---|")
    rows: list[tuple[str, str, list[str]]] = [
        ("hands per second", f"**{dealer['hands_per_second']:,.0f}** (target >= 250)",
         [f"{p['round_trips_per_second'] / per_hand:,.0f} "
          f"(**{dealer['decisions_per_second'] / p['round_trips_per_second']:.0%}**)"
          for p in peers]),
        ("decisions (round trips) per second", f"{dealer['decisions_per_second']:,.0f}",
         [f"{p['round_trips_per_second']:,.0f}" for p in peers]),
        ("server CPU per decision / round trip", f"{dealer['cpu_per_decision'] * us:,.0f} µs",
         [f"{p['cpu_per_round_trip'] * us:,.0f} µs "
          f"({dealer['cpu_per_decision'] / p['cpu_per_round_trip']:.2f}x)" for p in peers]),
        ("voluntary context switches per decision, all threads (main thread; dealer: its "
         "gRPC poller thread)",
         f"**{dealer['switches_per_decision']:.2f}** "
         f"({dealer['main_thread_switches_per_decision']:.2f}; "
         f"{dealer['poller_switches_per_decision']:.2f}) (target <= 3)",
         [f"{p['switches_per_round_trip']:.2f} ({p['main_thread_switches_per_round_trip']:.2f})"
          f" (**{dealer['switches_per_decision'] / max(1e-9, p['switches_per_round_trip']):.2f}x**)"
          for p in peers]),
        ("writes per decision", f"{dealer['writes_per_decision']:.2f}", ["1", "1"]),
        ("client CPU per decision", f"{dealer['client_cpu_per_decision'] * us:,.0f} µs",
         [f"{p['client_cpu_per_decision'] * us:,.0f} µs "
          f"({dealer['client_cpu_per_decision'] / max(1e-9, p['client_cpu_per_decision']):.2f}x)"
          for p in peers]),
        ("client voluntary context switches per decision, all threads",
         _maybe(dealer["client_switches_per_decision"]),
         [_maybe(p["client_switches_per_decision"]) for p in peers]),
    ]
    for name, ours, theirs in rows:
        print(f"| {name} | {ours} | {' | '.join(theirs)} |")


if __name__ == "__main__":
    sys.exit(main())

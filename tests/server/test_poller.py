"""grpc.aio's poller thread runs a few nice levels below the dealer's event loop (Linux).

Each case runs in a fresh process: the poller thread is process-wide, and a nice value, once
lowered, cannot be raised again without privileges.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from arena.server import poller

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"),
                                reason="a thread's own nice value is Linux's")

_NICES = """
def nices():
    import os, threading
    from arena.server.poller import poller_threads
    polls = [t.native_id for t in poller_threads()]
    return {"main": os.getpriority(os.PRIO_PROCESS, 0),
            "pollers": [os.getpriority(os.PRIO_PROCESS, tid) for tid in polls]}
"""


def _run(code: str, tmp_path: Path, env: dict[str, str] | None = None) -> Any:
    full_env = {k: v for k, v in os.environ.items() if k != poller.ENV}
    full_env.update(env or {})
    full_env["PYTHONPATH"] = os.pathsep.join([str(ROOT), full_env.get("PYTHONPATH", "")])
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(_NICES) + textwrap.dedent(code)],
                          cwd=tmp_path, env=full_env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


_SERVE = """
import asyncio, json, pathlib
import arena
from tests.server.harness import make_config, running

async def main():
    config = make_config(pathlib.Path("."), ["a", "b"], hands=1)
    async with running(config):
        print(json.dumps(nices()))

asyncio.run(main())
"""


def test_a_started_dealer_runs_grpc_poller_below_its_event_loop(tmp_path: Path) -> None:
    seen = _run(_SERVE, tmp_path)
    assert len(seen["pollers"]) == 1
    assert seen["pollers"][0] == min(poller.MAX_NICE, seen["main"] + poller.NICE_STEPS)
    assert seen["pollers"][0] > seen["main"]


def test_the_environment_chooses_the_levels_and_zero_leaves_the_poller_alone(
        tmp_path: Path) -> None:
    seen = _run(_SERVE, tmp_path, {poller.ENV: "3"})
    assert seen["pollers"] == [min(poller.MAX_NICE, seen["main"] + 3)]
    seen = _run(_SERVE, tmp_path, {poller.ENV: "0"})
    assert seen["pollers"] == [seen["main"]]


def test_lowering_is_relative_to_the_caller_and_idempotent(tmp_path: Path) -> None:
    seen = _run("""
        import asyncio, json
        import arena, grpc
        from arena.server.poller import lower_poller_priority

        async def main():
            before = nices()
            server = grpc.aio.server()
            first = lower_poller_priority(3)
            once = nices()
            second = lower_poller_priority(3)
            none = lower_poller_priority(0)
            print(json.dumps({"before": before, "once": once, "twice": nices(),
                              "first": first, "second": second, "none": none}))

        asyncio.run(main())
    """, tmp_path)
    main = seen["once"]["main"]
    assert seen["before"]["pollers"] == []  # no poller before grpc.aio starts: nothing to set
    assert len(seen["first"]) == 1 and seen["second"] == seen["first"]
    assert seen["once"]["pollers"] == [min(poller.MAX_NICE, main + 3)]
    assert seen["twice"] == seen["once"]  # not lowered again
    assert seen["none"] == []


@pytest.mark.parametrize(("text", "steps"), [
    ("", poller.NICE_STEPS), ("4", 4), (" 7 ", 7), ("0", 0), ("99", poller.MAX_NICE),
    ("-3", 0), ("ten", poller.NICE_STEPS),
])
def test_nice_steps_from_the_environment(monkeypatch: pytest.MonkeyPatch, text: str,
                                         steps: int) -> None:
    monkeypatch.setenv(poller.ENV, text)
    assert poller.nice_steps() == steps


def test_the_benchmark_counts_one_thread_s_voluntary_switches() -> None:
    import threading
    import time

    from bench import dealer

    tid = threading.get_native_id()
    before = dealer._thread_switches(tid)
    time.sleep(0.01)  # a sleep gives the core up: one voluntary switch at least
    assert dealer._thread_switches(tid) > before
    assert dealer._thread_switches(0) == 0  # no such thread

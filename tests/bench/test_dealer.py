"""bench.dealer's own arithmetic: the full-pace test shared by the dealer and its peer, the
paced steps, the clients' window (no servers run here: the benchmark itself is not a test)."""

from __future__ import annotations

import asyncio
import gc
import json

import pytest

from bench import dealer


def test_full_pace_needs_both_the_share_and_the_p99() -> None:
    assert dealer.full_pace(360.0, 8, 45.0, 0.010) == (1.0, True)
    share, full = dealer.full_pace(0.89 * 8 * 45.0, 8, 45.0, 0.001)
    assert share == pytest.approx(0.89) and not full
    assert not dealer.full_pace(360.0, 8, 45.0, 0.0101)[1]
    assert dealer.full_pace(360.0, 8, 0.0, 0.0) == (0.0, False)  # no lone pace: never full


def test_paced_steps_go_on_past_the_list_by_its_last_step() -> None:
    steps = dealer._paced_steps([8, 16, 24])
    assert [next(steps) for _ in range(5)] == [8, 16, 24, 32, 40]
    single = dealer._paced_steps([4])
    assert [next(single) for _ in range(3)] == [4, 12, 20]


def test_pingpong_accepts_its_own_clients_names_and_the_dealers_bots() -> None:
    assert dealer._table_seat("3,1") == (3, 1)
    assert dealer._table_seat("bot0-1") == (0, 1)
    assert dealer._table_seat("bot12-3") == (12, 3)


def test_busy_cores_from_two_samples(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(dealer.os, "cpu_count", lambda: 2)
    assert dealer._busy_cores((100, 1000), (175, 1100)) == pytest.approx(1.5)
    assert dealer._busy_cores((1, 1), (1, 1)) == 0.0
    busy, total = dealer._machine_jiffies()
    assert 0 <= busy <= total


def test_paced_window_counts_lag_and_gap_inside_the_window_only(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    clock = [100.0]
    monkeypatch.setattr(dealer.time, "monotonic", lambda: clock[0])
    window = dealer._PacedWindow(think=0.02, seconds=1.0)

    def at(when: float, event: str, table: str) -> None:
        clock[0] = when
        getattr(window, event)(table)

    at(100.0, "request", "a")  # the first request: the window opens a second later
    at(100.025, "replied", "a")  # outside: no lag counted
    at(101.0, "request", "a")  # inside, after a reply at 100.025: gap 0.975
    at(101.023, "replied", "a")  # lag 0.003
    at(101.030, "request", "b")  # a table's first request: no gap
    at(101.060, "replied", "b")  # lag 0.010
    at(101.5, "request", "a")  # gap 101.5 - 101.023
    at(102.0, "request", "b")  # the window is over
    assert window.decisions == 3
    assert window.lag == pytest.approx([0.003, 0.010])
    assert window.gap == pytest.approx([0.975, 0.477])

    async def report() -> None:
        clock[0] = 101.0  # the window begins now; sleeping moves no clock here
        await window.report()

    monkeypatch.setattr(dealer.asyncio, "sleep", _no_sleep)
    asyncio.run(report())
    line = json.loads(capsys.readouterr().out)
    assert line["decisions"] == 3 and line["lag_p99"] == pytest.approx(0.010)
    assert line["gap_p50"] == pytest.approx(0.477) and line["gap_p99"] == pytest.approx(0.975)


def test_paced_clients_sum_the_processes_and_keep_the_worst_p99() -> None:
    seen = [{"decisions": 300, "window_cpu_seconds": 0.09, "busy_cores": 1.0, "lag_p99": 0.002,
             "gap_p50": 0.001, "gap_p99": 0.004},
            {"decisions": 100, "window_cpu_seconds": 0.03, "busy_cores": 2.0, "lag_p99": 0.001,
             "gap_p50": 0.002, "gap_p99": 0.008}]
    out = dealer._paced_clients(seen, 2.0)
    assert out["decisions_per_second"] == 200.0
    assert out["client_cpu_per_decision"] == pytest.approx(0.0003)
    assert out["busy_cores"] == 1.5
    assert (out["client_lag_p99"], out["client_gap_p99"]) == (0.002, 0.008)


async def _no_sleep(_seconds: float) -> None:
    return None


def test_gc_pauses_count_collections_and_full_ones() -> None:
    pauses = dealer._GcPauses()
    try:
        gc.collect(0)
        gc.collect()
    finally:
        pauses.close()
    summary = pauses.summary()
    assert summary["gc_collections"] >= 2 and summary["gc_full"] >= 1
    assert 0.0 < summary["gc_longest"] < 5.0 and summary["gc_longest_cpu"] >= 0.0
    gc.collect()
    assert pauses.summary() == summary  # closed: no longer counting


def test_client_switches_per_decision_sum_the_clients_or_say_none() -> None:
    seen = [{"decisions": 101, "switches": 150, "cpu_seconds": 0.02},
            {"decisions": 51, "switches": 75, "cpu_seconds": 0.01}]
    assert dealer._client_switches_per_decision(seen) == 1.5
    assert dealer._client_switches_per_decision([*seen, {"decisions": 9}]) is None  # Node.js
    assert dealer._client_switches_per_decision([]) is None


def test_steady_window_samples_the_first_and_every_32nd_decision(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The window runs from the first decision to the last multiple of 32 seen (the edges of
    steady play), whatever comes after it."""
    clock = [0.0]
    monkeypatch.setattr(dealer.time, "monotonic", lambda: clock[0])
    window = dealer._SteadyWindow()
    for k in range(1, 100):
        clock[0] = float(k)
        window.seen(None)
    assert window.first is not None and window.last is not None
    assert (window.first[0], window.first[4]) == (1, 1.0)
    assert (window.last[0], window.last[4]) == (96, 96.0)  # 97-99: after the last sample
    summary = window.summary()
    assert summary["window_decisions"] == 95 and summary["window_wall_seconds"] == 95.0
    assert summary["window_cpu_seconds"] >= 0.0 and summary["switches"] >= 0


def test_status_switches_read_through_an_open_file_as_by_name() -> None:
    import os
    import threading
    import time
    from pathlib import Path

    status = Path(f"/proc/self/task/{threading.get_native_id()}/status")
    if not status.exists():
        pytest.skip("no /proc here")
    fd = os.open(status, os.O_RDONLY)
    try:
        before = dealer._open_status_switches(fd)
        assert before == dealer._status_switches(status)
        time.sleep(0.01)  # gives the core up: one voluntary switch at least
        assert dealer._open_status_switches(fd) > before
    finally:
        os.close(fd)
    text = b"Name:\tx\nvoluntary_ctxt_switches:\t12\nnonvoluntary_ctxt_switches:\t3\n"
    assert dealer._parse_switches(text) == 12
    assert dealer._parse_switches(b"Name:\tx\nvoluntary_ctxt_switches:\t7") == 7
    assert dealer._parse_switches(b"Name:\tx\nnonvoluntary_ctxt_switches:\t3\n") == 0

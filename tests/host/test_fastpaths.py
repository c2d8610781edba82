"""The fast paths' switch (arena/host/fastpaths.py): off by ARENA_FAST_PATHS or an untested
version, and loud about it (a warning, and 0 on /metrics)."""

from __future__ import annotations

import asyncio
import logging

import pytest
import trio
from prometheus_client import generate_latest

from arena.host import fastpaths
from arena.metrics import ArenaMetrics
from arena.server.bridge import TrioGuest


def _guest_run() -> bool:
    """A short trio guest run; whether trio waited on the host loop (the fast path)."""

    async def main() -> bool:
        guest = TrioGuest()

        async def trio_main() -> None:
            await trio.sleep(0.01)

        await guest.start(trio_main)
        waited_here = guest._host is not None and guest._host.waiter is not None
        await guest.wait()
        return waited_here

    return asyncio.run(main())


def _gauge(path: str) -> str:
    text = generate_latest(ArenaMetrics().registry).decode()
    line = next(row for row in text.splitlines()
                if row.startswith(f'arena_fast_path_taken{{path="{path}"}}'))
    return line.rsplit(" ", 1)[1]


def test_the_guest_wait_is_taken_on_the_tested_trio(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(fastpaths.ENV, raising=False)
    if fastpaths.why_not(fastpaths.GUEST_WAIT) is not None:
        pytest.skip("this trio is not one the fast path is tested with")
    assert _guest_run()
    assert _gauge("trio_guest_wait") == "1.0"


@pytest.mark.parametrize("value", ["off", "0", "OFF"])
def test_the_switch_turns_the_fast_paths_off_and_says_so(
        monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, value: str) -> None:
    monkeypatch.setenv(fastpaths.ENV, value)
    monkeypatch.setattr(fastpaths, "_warned", set())
    with caplog.at_level(logging.INFO, logger="arena.host"):
        assert not _guest_run()
    assert _gauge("trio_guest_wait") == "0.0"
    assert any("trio_guest_wait not taken" in r.getMessage() and fastpaths.ENV in r.getMessage()
               and r.levelno == logging.INFO for r in caplog.records)  # asked for: a note


def test_an_untested_version_is_not_taken(monkeypatch: pytest.MonkeyPatch,
                                          caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.delenv(fastpaths.ENV, raising=False)
    monkeypatch.setattr(fastpaths, "GUEST_WAIT", fastpaths.FastPath(
        name="trio_guest_wait", library="trio", tested=("0.0.",), what="a test"))
    monkeypatch.setattr(fastpaths, "_warned", set())
    with caplog.at_level(logging.WARNING, logger="arena.host"):
        assert not _guest_run()
        assert not _guest_run()
    warnings = [r.getMessage() for r in caplog.records
                if "not a tested version" in r.getMessage() and r.levelno == logging.WARNING]
    assert len(warnings) == 1  # once per reason, not once per run
    assert _gauge("trio_guest_wait") == "0.0"


def test_a_missing_library_is_not_a_tested_version(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(fastpaths.ENV, raising=False)
    path = fastpaths.FastPath(name="x", library="no-such-distribution-here", tested=("1.",),
                              what="nothing")
    reason = fastpaths.why_not(path)
    assert reason is not None and "(not found)" in reason

"""A hosted instance lives as long as its match, whatever thread work the dealer does meanwhile.

``bwrap --die-with-parent`` kills a sandbox when the thread that started it ends (the kernel's
parent-death signal follows the thread, not the process). Instances were started through
``trio.lowlevel.open_process``, which starts processes from a trio worker thread, and such a
thread ends after 10 idle seconds: a match that outlasted it (a slow match on a loaded machine)
lost its instances mid-match, killed (exit -9), their seats played as absent and disconnected.
"""

from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest
import trio

from arena.host.botpackage import BotPackage
from arena.host.sandbox import probe
from arena.server.hosted import HostedBots

pytestmark = [pytest.mark.timeout(60)]

if probe():
    if os.environ.get("CI") == "true":
        pytest.fail(f"bubblewrap must run in CI: {probe()}", pytrace=False)
    pytest.skip(f"no sandbox here: {probe()}", allow_module_level=True)

# Longer than trio's worker threads stay idle before they end (10 s): the thread that would have
# started the instance is gone by then.
MATCH_SECONDS = 12.0


class _Service:
    """What HostedBots asks of the dealer: the instances' tokens."""

    def __init__(self) -> None:
        self.bots: set[str] = set()

    def add_bots(self, entries: object) -> None:
        self.bots |= {entry.bot_id for entry in entries}  # type: ignore[attr-defined]

    def remove_bots(self, bot_ids: object) -> None:
        self.bots -= set(bot_ids)  # type: ignore[call-overload]


def test_an_instance_outlives_the_idle_worker_threads_of_its_dealer(tmp_path: Path) -> None:
    package_dir = tmp_path / "sleeper"
    package_dir.mkdir()
    package = BotPackage(directory=package_dir, name="sleeper", run="exec sleep 600")
    dealer = socket.socket(socket.AF_UNIX)  # bound into the sandbox (nobody connects here)
    dealer.bind(str(tmp_path / "dealer.sock"))
    hosted = HostedBots({"sleeper": package}, socket=tmp_path / "dealer.sock",
                        log_dir=tmp_path / "logs")
    service = _Service()

    async def match() -> None:
        async with hosted.session("m1", [(0, "sleeper", "sleeper@m1")], service):  # type: ignore[arg-type]
            assert hosted.started == 1 and service.bots == {"sleeper@m1"}
            await trio.to_thread.run_sync(lambda: None)  # a worker thread, then idle
            await trio.sleep(MATCH_SECONDS)

    try:
        trio.run(match)
    finally:
        dealer.close()
    (end,) = hosted.ends
    # Still running when its match ended (the arena stopped it then), not killed before.
    assert not end.early and end.exit_code is None, end
    assert service.bots == set()

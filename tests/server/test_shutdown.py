"""SIGTERM/SIGINT: the dealer voids the running hand, tells the bots, and exits 3 (interrupted,
docs/cli.md) with a clean stderr."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import grpc
import pytest

from arena.host.phhfile import load_file
from tests.server.harness import RawBot, events
from tests.server.procs import start_server, write_config

pytestmark = pytest.mark.timeout(60)

NOISE = ("Traceback", "Event loop is closed", "was destroyed but it is pending",
         "Exception ignored", "Error", "Warning")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_signal_voids_the_running_hand_and_exits_cleanly(tmp_path: Path,
                                                          signum: signal.Signals) -> None:
    seats = [("a", "token-a-0123456789"), ("b", "token-b-0123456789")]
    config = write_config(tmp_path / "match.toml", seats=seats, top={
        "listen": "127.0.0.1:0", "log_dir": "logs", "hands": 50, "seed": 5,
    }, rules={"decision_seconds": 30.0})
    server, address = start_server(config)

    async def scenario() -> list[RawBot]:
        bots = [await RawBot(address, token, name=name).connect() for name, token in seats]
        request_seen = asyncio.Event()

        async def wait_request(bot: RawBot) -> None:
            await bot.request(20.0)
            request_seen.set()

        tasks = [asyncio.ensure_future(wait_request(b)) for b in bots]
        await asyncio.wait_for(request_seen.wait(), 20.0)  # a hand is running, a bot thinking
        server.send_signal(signum)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for bot in bots:
            await bot.drain(20.0)
            await bot.close()
        return bots

    try:
        bots = asyncio.run(scenario())
        out, err = server.communicate(timeout=20)
    finally:
        server.kill()
    assert server.returncode == 3, err  # interrupted (it was 0: docs/cli.md and --help say 3)
    assert not any(word in err for word in NOISE), err
    assert "stopped by signal" in out
    for bot in bots:
        assert bot.status == grpc.StatusCode.UNAVAILABLE, bot.details
        ended = events(bot.received, "hand_ended")
        assert ended and ended[-1].voided and ended[-1].void_reason
        assert all(r.net_chips == 0 for r in ended[-1].results)
        (match_ended,) = events(bot.received, "match_ended")
        # Issue 7: an aborted match never reveals its seed (it used to send "5").
        assert match_ended.aborted and match_ended.match_seed == ""
    result = json.loads((tmp_path / "logs" / "match.result.json").read_text())
    assert result["aborted"] and result["hands_played"] == 0 and result["match_seed"] is None
    (void,) = load_file(str(tmp_path / "logs" / "match.void.phhs"))
    assert void.fields["_voided"] is True and "finishing_stacks" not in void.fields
    assert (tmp_path / "logs" / "match.phhs").read_text() == ""

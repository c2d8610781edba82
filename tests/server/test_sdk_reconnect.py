"""The Python SDK stays connected through a dealer restart and fails clearly when it cannot play."""

from __future__ import annotations

import asyncio
import dataclasses
import socket
import sys
from pathlib import Path

import pytest
from arena_bot import BotError, play
from arena_bot.examples import calling_station

from tests.server.harness import make_config, running, token_for
from tests.server.procs import ROOT, env

pytestmark = pytest.mark.timeout(90)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class FakeClock:
    """Each backoff sleep advances the fake clock by what was asked and really waits 20 ms."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.now += seconds
        await asyncio.sleep(0.02)


def test_the_sdk_reconnects_after_a_dealer_restart_longer_than_30_seconds(tmp_path: Path) -> None:
    port = _free_port()
    base = make_config(tmp_path, ["a", "b"], hands=2, rules={"games": ["FT"]})
    config = dataclasses.replace(base, listen=f"127.0.0.1:{port}")
    clock = FakeClock()

    async def scenario() -> None:
        connected = asyncio.Event()
        bot_a = asyncio.ensure_future(play(
            calling_station, server=f"127.0.0.1:{port}", token=token_for("a"), name="a",
            clock=clock, sleep=clock.sleep,
            on_message=lambda m: connected.set() if m.WhichOneof("payload") == "welcome" else None))
        async with running(config):
            await asyncio.wait_for(connected.wait(), 20)
        # The dealer is gone (a league restart); the bot keeps trying, for 40 s and more.
        lost_at = clock.now
        while clock.now - lost_at < 40:
            assert not bot_a.done(), "the bot gave up during the restart"
            await asyncio.sleep(0.05)
        async with running(config) as (server, address):
            bot_b = asyncio.ensure_future(play(calling_station, server=address,
                                               token=token_for("b"), name="b"))
            result_a, result_b = await asyncio.wait_for(asyncio.gather(bot_a, bot_b), 60)
            await server.run_until_done()
        assert result_a.connections == 2 and result_a.final_status == "OK"
        assert result_a.matches_ended[-1].hands_played == 2 and result_b.final_status == "OK"
        assert clock.now - lost_at > 30

    asyncio.run(scenario())


@pytest.mark.no_dealer
def test_backoff_grows_to_its_cap_while_the_dealer_is_away() -> None:
    clock = FakeClock()
    asked: list[float] = []

    async def sleep(seconds: float) -> None:
        asked.append(seconds)
        await clock.sleep(seconds)

    async def scenario() -> None:
        with pytest.raises(BotError) as caught:
            await play(calling_station, server=f"127.0.0.1:{_free_port()}", token="t" * 20,
                       connect_seconds=20, max_backoff_seconds=5, clock=clock, sleep=sleep)
        assert str(caught.value).startswith("cannot reach the dealer at 127.0.0.1:")
        assert "\n" not in str(caught.value)

    asyncio.run(scenario())
    assert asked[:3] == [0.05, 0.1, 0.2] and max(asked) == 5 and asked[-1] == 5


async def _arena_bot(*args: str) -> tuple[int, str, str]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "arena.cli", "bot", *args, cwd=ROOT, env=env(),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    out, err = await asyncio.wait_for(proc.communicate(), 60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def test_a_wrong_address_is_one_clear_line_and_a_non_zero_exit() -> None:
    code, _out, err = asyncio.run(_arena_bot("call", "--server", f"127.0.0.1:{_free_port()}",
                                            "--token", "t" * 20, "--connect-seconds", "0.5"))
    assert code == 2
    assert err.startswith("arena-bot: error: cannot reach the dealer at 127.0.0.1:")
    assert len(err.strip().splitlines()) == 1, err


def test_a_refused_token_is_one_clear_line_and_a_non_zero_exit(tmp_path: Path) -> None:
    config = make_config(tmp_path, ["a", "b"], hands=1, start_timeout_seconds=60.0)

    async def scenario() -> tuple[int, str, str]:
        async with running(config) as (_, address):
            return await _arena_bot("call", "--server", address, "--token", "wrong-token-1234")

    code, _out, err = asyncio.run(scenario())
    assert code == 2
    assert err.startswith("arena-bot: error: the dealer at 127.0.0.1:")
    assert "refused the token (UNAUTHENTICATED" in err
    assert len(err.strip().splitlines()) == 1, err


def test_your_own_function_as_module_colon_function(tmp_path: Path) -> None:
    (tmp_path / "mine.py").write_text("def decide(view):\n    return view.check_or_call()\n")
    config = make_config(tmp_path, ["a", "b"], hands=2, rules={"games": ["FT"]})

    async def scenario() -> tuple[int, str, str]:
        async with running(config) as (server, address):
            other = asyncio.ensure_future(play(calling_station, server=address,
                                               token=token_for("b"), name="b"))
            done = await _arena_bot(f"{tmp_path / 'mine.py'}:decide", "--server", address,
                                    "--token", token_for("a"))
            await other
            await server.run_until_done()
            return done

    code, out, err = asyncio.run(scenario())
    assert code == 0, err
    assert "1 match(es) ended; all your matches on this dealer are over" in out
    missing = asyncio.run(_arena_bot("nosuchmodule:decide", "--server", "127.0.0.1:1",
                                     "--token", "t" * 20))
    assert missing[0] == 2 and "cannot import 'nosuchmodule'" in missing[2]

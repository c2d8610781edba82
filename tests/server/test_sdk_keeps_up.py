"""The Python SDK keeps up (issue 39): every rejection gets its fallback, a slow decision holds
up no other, a closed decision is dropped, and a bot ends when its matches are over.

Real dealer on loopback, real gRPC. Limits are generous (a decision of 1.5 s against a slow
answer of 4 s) so that a loaded machine cannot make a fast answer late."""

from __future__ import annotations

import asyncio
import dataclasses
import itertools
import json
import sys
import threading
import time
from pathlib import Path

import pytest
from arena_bot import Action, PlayResult, SeatView, play
from arena_bot._proto import arena_pb2 as pb
from arena_bot.examples import calling_station

from arena.match.spec import AbsentPolicy
from tests.server.harness import make_config, running, token_for
from tests.server.procs import ROOT, env

pytestmark = pytest.mark.timeout(120)
TABLES = [{"id": f"t{k}", "seats": ["bot", f"station{k}"] if k % 2 else [f"station{k}", "bot"]}
          for k in range(4)]
STATIONS = [f"station{k}" for k in range(4)]


def _results(tmp_path: Path) -> list[dict[str, object]]:
    return [json.loads((tmp_path / "logs" / f"{t['id']}.result.json").read_text())
            for t in TABLES]


async def _league(config: object, bot: object, *, name: str = "bot") -> PlayResult:
    """``bot`` at four tables against calling stations; its result once every match is over."""
    async with running(config) as (server, address):  # type: ignore[arg-type]
        results = await asyncio.gather(
            play(bot, server=address, token=token_for(name), name=name),  # type: ignore[arg-type]
            *(play(calling_station, server=address, token=token_for(s), name=s)
              for s in STATIONS))
        await server.run_until_done()
    return results[0]


def test_rejections_at_four_tables_at_once_are_each_answered_by_the_fallback(
        tmp_path: Path) -> None:
    """Issue 39: rejections for two tables within ~30 ms left the earlier seat to time out.
    Four tables deal at once, so the bot's rejected replies come within milliseconds."""
    config = make_config(tmp_path, ["bot", *STATIONS], hands=6, tables=TABLES,
                         rules={"games": ["FT"], "decision_seconds": 1.5,
                                "time_bank_seconds": 0.0})

    def illegal(view: SeatView) -> Action:
        return view.raise_to(1)  # never a legal amount: rejected, retry allowed

    result = asyncio.run(_league(config, illegal))
    assert result.final_status == "OK" and result.matches_over
    assert result.rejections > 8 and result.fallbacks == result.rejections
    assert result.timeouts == 0
    for table in _results(tmp_path):
        decisions = table["decisions"]
        assert isinstance(decisions, dict)
        assert table["hands_played"] == 6
        assert decisions["timeouts"] == 0, table
        assert decisions["rejected"] > 0


def test_a_bot_slow_on_every_fourth_decision_times_out_on_those_only(tmp_path: Path) -> None:
    """Issue 39: sleeping on every fourth decision at four tables timed out 416 times in 240
    hands. Each decision now runs on its own and a closed one is dropped: only the slow ones
    time out, and the SDK counts each as timed out and its late answer as dropped."""
    # A 3 s clock: the fast decisions (answered at once) cannot overrun it on a loaded machine,
    # so a timeout count above the slow ones' is the bug, never the load. Two hands at each of
    # the four tables give a dozen slow decisions, several at once.
    config = make_config(tmp_path, ["bot", *STATIONS], hands=2, tables=TABLES,
                         rules={"games": ["FT"], "decision_seconds": 3.0,
                                "time_bank_seconds": 0.0})
    counter = itertools.count(1)
    lock = threading.Lock()
    slow = [0]

    def sometimes_slow(view: SeatView) -> Action:
        with lock:
            k = next(counter)
            slow[0] += k % 4 == 0
        if k % 4 == 0:
            time.sleep(4.5)
        return view.check_or_call()

    result = asyncio.run(_league(config, sometimes_slow))
    assert slow[0] >= 3, "too few decisions to test anything"
    timed_out = 0
    for table in _results(tmp_path):
        decisions = table["decisions"]
        assert isinstance(decisions, dict)
        assert table["hands_played"] == 2
        timed_out += int(decisions["timeouts"])
    assert timed_out == slow[0]  # the fast decisions never time out
    assert result.timeouts == slow[0] and result.dropped == slow[0]
    assert result.final_status == "OK" and result.rejections == 0


def test_async_bots_rejections_and_exceptions_fall_back(tmp_path: Path) -> None:
    """An async bot runs on the event loop; a rejected reply and a failing bot get the
    check/fold fallback."""
    config = make_config(tmp_path, ["thinker", "wrong"], hands=2, rules={"games": ["FT"]})
    awaited_on: list[str] = []
    calls = [0]

    async def thinker(view: SeatView) -> Action:
        await asyncio.sleep(0)
        awaited_on.append(threading.current_thread().name)
        return view.check_or_call()

    def wrong(view: SeatView) -> Action:
        calls[0] += 1
        if calls[0] % 2:
            raise ArithmeticError("a bug")
        return view.raise_to(1)

    async def scenario() -> tuple[PlayResult, PlayResult]:
        async with running(config) as (server, address):
            results = await asyncio.gather(
                play(thinker, server=address, token=token_for("thinker"), name="thinker"),
                play(wrong, server=address, token=token_for("wrong"), name="wrong"))
            await server.run_until_done()
        return results[0], results[1]

    thought, failed = asyncio.run(scenario())
    assert set(awaited_on) == {"MainThread"} and thought.decisions == len(awaited_on)
    assert thought.fallbacks == 0 and thought.final_status == failed.final_status == "OK"
    assert failed.rejections >= 1 and failed.fallbacks == calls[0]
    assert failed.exceptions == (calls[0] + 1) // 2
    assert failed.matches_ended[-1].hands_played == 2


def test_stopping_a_bot_cancels_its_stream(tmp_path: Path) -> None:
    config = make_config(tmp_path, ["early", "absent"], hands=1, start_timeout_seconds=30.0)

    async def scenario() -> None:
        async with running(config) as (server, address):
            task = asyncio.ensure_future(play(calling_station, server=address,
                                              token=token_for("early"), name="early"))
            for _ in range(500):
                if server.lobby.presence("early").is_connected:
                    break
                await asyncio.sleep(0.01)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task
            for _ in range(500):
                if not server.lobby.presence("early").is_connected:
                    break
                await asyncio.sleep(0.01)
            assert not server.lobby.presence("early").is_connected

    asyncio.run(scenario())


BOT_FILE = '''
import time

def bot(view):
    if view.request.hand_number == {hands}:  # the last hand: slower than its time
        time.sleep(4.0)
    return view.check_or_call()
'''


def test_a_bot_process_exits_with_its_summary_when_its_matches_are_over(tmp_path: Path) -> None:
    """Issue 39: a bot still thinking when the match ended reconnected for minutes. It now
    reads on while it thinks, is told the matches are over and exits 0 with its summary."""
    hands = 3
    (tmp_path / "slow_end.py").write_text(BOT_FILE.format(hands=hands))
    config = make_config(tmp_path, ["you", "station"], hands=hands,
                         rules={"games": ["FT"], "decision_seconds": 1.0,
                                "time_bank_seconds": 0.0},
                         limits={"flush_on_close_seconds": 0.5})

    async def scenario() -> tuple[int, str, str, float]:
        async with running(config) as (server, address):
            proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "arena.cli", "bot", str(tmp_path / "slow_end.py") + ":bot",
                "--server", address, "--token", token_for("you"), "--name", "you",
                cwd=ROOT, env=env(), stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE)
            station = asyncio.ensure_future(play(calling_station, server=address,
                                                 token=token_for("station"), name="station"))
            await server.run_until_done()
            ended = time.monotonic()
            out, err = await asyncio.wait_for(proc.communicate(), 30)
            await station
            return proc.returncode or 0, out.decode(), err.decode(), time.monotonic() - ended

    code, out, err, after_seconds = asyncio.run(scenario())
    assert code == 0, out + err
    assert "1 match(es) ended; all your matches on this dealer are over" in out, out + err
    assert "timed out" in out and "reconnecting" not in err, err
    assert after_seconds < 15


def test_a_forfeited_match_ends_the_stream_with_a_message_saying_so(tmp_path: Path) -> None:
    """Issue 39: a match that never starts ended the stream with a bare OK. The dealer's last
    message now says every match is over and names the forfeited one and why."""
    config = make_config(tmp_path, ["here", "missing"], hands=2, start_timeout_seconds=0.5)
    config = dataclasses.replace(config, matches=tuple(
        dataclasses.replace(m, absent=AbsentPolicy.FORFEIT) for m in config.matches))
    seen: list[pb.DealerMessage] = []

    async def scenario() -> PlayResult:
        async with running(config) as (server, address):
            result = await play(calling_station, server=address, token=token_for("here"),
                                name="here", on_message=seen.append)
            await server.run_until_done()
        return result

    result = asyncio.run(scenario())
    assert result.final_status == "OK" and result.matches_over and result.decisions == 0
    last = seen[-1]
    assert last.WhichOneof("payload") == "stream_ending"
    assert last.stream_ending.reason == pb.STREAM_END_REASON_MATCHES_OVER
    assert last.stream_ending.message == ("all your matches on this dealer are over; match match "
                                          "forfeited: missing not connected after 0.5 s")
    assert result.end_message == last.stream_ending.message


def test_a_stopped_server_says_so_and_the_bot_reconnects(tmp_path: Path) -> None:
    """A server stopped before its matches are over says it is shutting down (UNAVAILABLE
    follows): the bot does not take it for the end and tries to reconnect."""
    config = make_config(tmp_path, ["here", "missing"], hands=2, start_timeout_seconds=30)
    seen: list[pb.DealerMessage] = []

    async def scenario() -> PlayResult:
        async with running(config) as (server, address):
            task = asyncio.ensure_future(play(calling_station, server=address,
                                              token=token_for("here"), name="here",
                                              on_message=seen.append, reconnect_seconds=0.3))
            for _ in range(500):
                if server.lobby.presence("here").is_connected:
                    break
                await asyncio.sleep(0.01)
            server.stop()
            await server.run_until_done()
            return await asyncio.wait_for(task, 30)

    result = asyncio.run(scenario())
    endings = [m.stream_ending for m in seen if m.WhichOneof("payload") == "stream_ending"]
    assert [e.reason for e in endings] == [pb.STREAM_END_REASON_SHUTTING_DOWN]
    assert not result.matches_over and result.final_status == "UNAVAILABLE"


@pytest.mark.no_dealer
def test_a_reconnect_refused_as_already_existing_is_retried_but_not_a_first_connection(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """By default the dealer refuses a new stream while it still holds the bot's old one
    (ALREADY_EXISTS): after a lost connection that means it has not noticed the drop yet, so
    the SDK tries again; on a first connection another copy of the bot holds the token."""
    import grpc
    import grpc.aio
    from arena_bot import BotError, client

    def refused(code: grpc.StatusCode) -> grpc.aio.AioRpcError:
        return grpc.aio.AioRpcError(code, grpc.aio.Metadata(), grpc.aio.Metadata(), "details")

    def scripted(steps: list[str]) -> type:
        class Scripted:
            def __init__(self, _bot: object, result: PlayResult, *_args: object) -> None:
                self.result = result

            async def run(self, *_args: object, **_kwargs: object) -> None:
                step = steps.pop(0)
                if step == "welcome, then lost":
                    self.result.connections += 1
                    raise refused(grpc.StatusCode.UNAVAILABLE)
                if step == "already exists":
                    raise refused(grpc.StatusCode.ALREADY_EXISTS)
                self.result.connections += 1  # "played to the end"

        return Scripted

    async def no_wait(_seconds: float) -> None:
        return None

    steps = ["welcome, then lost", "already exists", "already exists", "played to the end"]
    monkeypatch.setattr(client, "Session", scripted(steps))
    result = asyncio.run(play(calling_station, server="127.0.0.1:1", token="t" * 20,
                              sleep=no_wait))
    assert result.final_status == "OK" and result.connections == 2 and steps == []

    monkeypatch.setattr(client, "Session", scripted(["already exists"]))
    with pytest.raises(BotError, match="refused the bot \\(ALREADY_EXISTS"):
        asyncio.run(play(calling_station, server="127.0.0.1:1", token="t" * 20, sleep=no_wait))

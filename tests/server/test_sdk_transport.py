"""The Python SDK's direct transport (arena_bot/_direct.py): a session on a thread of its own
answers as the grpc.aio session does, falls back and stops the same way."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

import pytest
from arena_bot import Action, PlayResult, SeatView, _direct, play
from arena_bot.examples import calling_station

from tests.server.harness import make_config, running, token_for

pytestmark = pytest.mark.timeout(60)
SESSION_THREAD = "arena-bot-session"


def _threads(seen: list[str]) -> set[str]:
    return {"session" if name == SESSION_THREAD else "loop" if name == "MainThread" else name
            for name in seen}


def test_a_bot_without_on_message_answers_on_its_own_thread_as_it_does_on_grpc_aio(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(_direct.ENV, raising=False)
    own = "session" if _direct.AVAILABLE else "loop"  # a grpcio it was not tested with: aio
    config = make_config(tmp_path, ["direct", "aio"], hands=3, rules={"games": ["FT"]})
    seen: dict[str, list[str]] = {"direct": [], "aio": []}

    def station(name: str) -> object:
        def decide(view: SeatView) -> Action:
            seen[name].append(threading.current_thread().name)
            return calling_station(view)
        return decide

    async def scenario() -> tuple[PlayResult, PlayResult]:
        async with running(config) as (server, address):
            results = await asyncio.gather(
                play(station("direct"), server=address, token=token_for("direct"),  # type: ignore[arg-type]
                     name="direct"),
                play(station("aio"), server=address, token=token_for("aio"), name="aio",  # type: ignore[arg-type]
                     on_message=lambda _m: None, events=False))  # on_message: grpc.aio
            await server.run_until_done()
        return results[0], results[1]

    direct, aio = asyncio.run(scenario())
    assert _threads(seen["direct"]) == {own} and _threads(seen["aio"]) == {"loop"}
    for result in (direct, aio):
        assert result.final_status == "OK" and result.connections == 1
        assert result.matches_ended[-1].hands_played == 3 and result.fallbacks == 0
    assert direct.decisions == len(seen["direct"]) > 0 and aio.decisions == len(seen["aio"]) > 0
    monkeypatch.setenv(_direct.ENV, "aio")
    assert not _direct.chosen()
    monkeypatch.setenv(_direct.ENV, " Direct ")
    assert _direct.chosen() is _direct.AVAILABLE


def test_async_bots_rejections_and_exceptions_on_the_direct_path(tmp_path: Path) -> None:
    """An awaitable answer is awaited on the event loop; a rejected reply and a failing bot
    get the check/fold fallback, as on grpc.aio."""
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
        return view.raise_to(1)  # never a legal amount: rejected, retry allowed

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
    assert failed.matches_ended[-1].hands_played == 2


def test_stopping_a_direct_session_cancels_its_stream_and_ends_its_thread(
        tmp_path: Path) -> None:
    config = make_config(tmp_path, ["early", "absent"], hands=1, start_timeout_seconds=30.0)

    async def scenario() -> None:
        async with running(config) as (_server, address):
            task = asyncio.ensure_future(play(calling_station, server=address,
                                              token=token_for("early"), name="early"))
            while _direct.AVAILABLE and not any(t.name == SESSION_THREAD
                                                for t in threading.enumerate()):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)  # connected, waiting for the other seat
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(scenario())
    deadline = time.monotonic() + 5
    while any(t.name == SESSION_THREAD for t in threading.enumerate()):
        assert time.monotonic() < deadline, "the session's thread outlived its cancellation"
        time.sleep(0.01)


def test_a_bad_transport_choice_is_one_clear_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(_direct.ENV, "quic")
    with pytest.raises(_direct.TransportChoiceError, match="ARENA_BOT_TRANSPORT='quic'"):
        asyncio.run(play(calling_station, server="127.0.0.1:1", token="t" * 20))


def test_a_direct_bot_at_two_tables_answers_every_request_in_time(tmp_path: Path) -> None:
    """Requests of two tables may come in one batch: each reply goes out (the last with the
    next read, _direct.Stream), none waits for the dealer's next message, so no decision runs
    out of time."""
    config = make_config(tmp_path, ["left", "right"], hands=12,
                         rules={"games": ["FT"], "decision_seconds": 1.0,
                                "time_bank_seconds": 0.0},
                         tables=[{"id": "one", "seats": ["left", "right"]},
                                 {"id": "two", "seats": ["right", "left"]}])

    async def scenario() -> tuple[PlayResult, PlayResult]:
        async with running(config) as (server, address):
            results = await asyncio.gather(*(
                play(calling_station, server=address, token=token_for(n), name=n)
                for n in ("left", "right")))
            await server.run_until_done()
        return results[0], results[1]

    left, right = asyncio.run(scenario())
    for result in (left, right):
        assert result.final_status == "OK" and len(result.matches_ended) == 2
        assert result.fallbacks == 0 and result.rejections == 0
    for table in ("one", "two"):
        summary = json.loads((tmp_path / "logs" / f"{table}.result.json").read_text())
        assert summary["hands_played"] == 12
        assert summary["decisions"]["timeouts"] == 0
        assert summary["decisions"]["answered"] > 0

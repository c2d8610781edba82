"""A table awaits its sink's ``settle`` (the last hand's writes) once every hand is played and
before ``match_finished``, so that the dealer's thread serves the other tables meanwhile; a table
cancelled while it settles ends its match as played all the same (``match_finished`` waits then),
and a ``settle`` that fails never aborts a played match. A `TeeSink` passes ``settle`` on.
Runs compiled too (`make test`'s compiled pass)."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from arena.engine.rules import Rules
from arena.match import messages as m
from arena.match.live import LiveTable
from arena.match.lobby import Lobby
from arena.match.records import MatchSummary, PlayedHand
from arena.match.spec import MatchSpec, SeatSpec
from arena.match.spectator import TeeSink
from tests.match.scripted import ScriptedBot

NAMES = ("a", "b", "c")
HANDS = 4


class _SettlingSink:
    """Records what the table calls; its ``settle`` waits until ``written`` is set (a commit)."""

    def __init__(self, *, fails: bool = False) -> None:
        self.calls: list[str] = []
        self.written = trio.Event()
        self.settling = trio.Event()
        self.summary: MatchSummary | None = None
        self._fails = fails

    def hand_started(self, match_id: str, hand_number: int) -> None:
        self.calls.append(f"started {hand_number}")

    def hand_finished(self, hand: PlayedHand) -> None:
        self.calls.append(f"finished {hand.hand_number}")

    async def settle(self) -> None:
        self.calls.append("settle")
        self.settling.set()
        if self._fails:
            raise OSError("the store went away")
        await self.written.wait()
        self.calls.append("settled")

    def match_finished(self, summary: MatchSummary) -> None:
        self.calls.append("match finished")
        self.summary = summary


def _spec() -> MatchSpec:
    return MatchSpec("m", tuple(SeatSpec(n, n) for n in NAMES), Rules(), HANDS, 3, 1.0)


async def _with_bots(lobby: Lobby, nursery: trio.Nursery) -> dict[str, ScriptedBot]:
    bots = {n: ScriptedBot(lobby, n) for n in NAMES}
    for bot in bots.values():
        bot.attach()
        nursery.start_soon(bot.run)
    return bots


def _played() -> list[str]:
    return [c for n in range(1, HANDS + 1) for c in (f"started {n}", f"finished {n}")]


def test_the_table_awaits_settle_after_its_last_hand_and_other_tasks_run_meanwhile() -> None:
    sink = _SettlingSink()

    async def main() -> tuple[MatchSummary, dict[str, ScriptedBot]]:
        lobby = Lobby()
        async with trio.open_nursery() as nursery:
            bots = await _with_bots(lobby, nursery)

            async def other_task() -> None:  # another table of the dealer's thread, say
                with trio.fail_after(60):
                    await sink.settling.wait()
                sink.calls.append("another task ran")
                sink.written.set()

            nursery.start_soon(other_task)
            summary = await LiveTable(_spec(), lobby, sink=sink).run()
            await trio.sleep(1.0)
            nursery.cancel_scope.cancel()
        return summary, bots

    summary, bots = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert sink.calls == [*_played(), "settle", "another task ran", "settled",
                          "match finished"]
    assert summary is sink.summary and not summary.aborted and summary.hands_played == HANDS
    for bot in bots.values():  # the bots are told the match ended once its last hand is written
        ended = [n.payload for _, n in bot.notices(m.MatchEnded)]
        assert len(ended) == 1 and isinstance(ended[0], m.MatchEnded) and not ended[0].aborted


def test_a_table_cancelled_while_it_settles_ends_its_match_as_played() -> None:
    sink = _SettlingSink()

    async def main() -> MatchSummary | None:
        lobby = Lobby()
        table = LiveTable(_spec(), lobby, sink=sink)
        async with trio.open_nursery() as nursery:
            await _with_bots(lobby, nursery)
            async with trio.open_nursery() as tables:
                tables.start_soon(table.run)
                with trio.fail_after(60):
                    await sink.settling.wait()
                tables.cancel_scope.cancel()  # the server shuts down: no await is possible now
            nursery.cancel_scope.cancel()
        return table.summary

    summary = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert sink.calls == [*_played(), "settle", "match finished"]
    assert summary is sink.summary and summary is not None
    assert not summary.aborted and summary.hands_played == HANDS


def test_a_settle_that_fails_does_not_abort_a_played_match(caplog: pytest.LogCaptureFixture) -> None:
    sink = _SettlingSink(fails=True)

    async def main() -> MatchSummary:
        lobby = Lobby()
        async with trio.open_nursery() as nursery:
            await _with_bots(lobby, nursery)
            summary = await LiveTable(_spec(), lobby, sink=sink).run()
            nursery.cancel_scope.cancel()
        return summary

    summary = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert sink.calls == [*_played(), "settle", "match finished"]
    assert summary is sink.summary and not summary.aborted and summary.hands_played == HANDS
    assert "waiting for the sink's last writes failed" in caplog.text


class _Spectator:
    def event_watched(self, notice: m.Notice) -> None:
        pass

    def decision_opened(self, prompt: m.Prompt) -> None:
        pass


def test_a_tee_sink_passes_settle_on() -> None:
    inner = _SettlingSink()
    tee = TeeSink(inner, _Spectator())
    assert tee.settle == inner.settle
    assert TeeSink(None, _Spectator()).settle is None

    async def main() -> None:
        lobby = Lobby()
        async with trio.open_nursery() as nursery:
            await _with_bots(lobby, nursery)
            nursery.start_soon(LiveTable(_spec(), lobby, sink=tee).run)
            with trio.fail_after(60):
                await inner.settling.wait()
            inner.written.set()
            await trio.sleep(1.0)
            nursery.cancel_scope.cancel()

    trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert inner.calls[-3:] == ["settle", "settled", "match finished"]

"""A failure under a live table (its sink, a dealer bug) ends that match aborted, with the
reason, and the running hand voided (docs/house-rules.md §6); the table's task never raises. Runs compiled
too (`make test`'s compiled pass): mypyc once turned this into a TypeError."""

from __future__ import annotations

import trio
import trio.testing

from arena.engine.rules import Rules
from arena.match import messages as m
from arena.match.live import LiveTable
from arena.match.lobby import Lobby
from arena.match.records import MatchSummary, PlayedHand
from arena.match.spec import MatchSpec, SeatSpec
from tests.match.scripted import ScriptedBot


class _FailingSink:
    """Commits two hands, then fails before the third is dealt (as a lost league lease does)."""

    def __init__(self) -> None:
        self.hands: list[PlayedHand] = []
        self.summary: MatchSummary | None = None

    def hand_started(self, match_id: str, hand_number: int) -> None:
        pass

    async def ready(self) -> None:
        if len(self.hands) >= 2:
            raise LookupError("the job is no longer held by this worker")

    def hand_finished(self, hand: PlayedHand) -> None:
        self.hands.append(hand)

    def match_finished(self, summary: MatchSummary) -> None:
        self.summary = summary


def test_a_failing_sink_ends_its_match_aborted_with_the_reason() -> None:
    names = ["a", "b", "c"]
    spec = MatchSpec("m", tuple(SeatSpec(n, n) for n in names), Rules(), 10, 3, 1.0)
    sink = _FailingSink()

    async def main() -> tuple[MatchSummary, dict[str, ScriptedBot]]:
        lobby = Lobby()
        table = LiveTable(spec, lobby, sink=sink)
        bots = {n: ScriptedBot(lobby, n) for n in names}
        async with trio.open_nursery() as nursery:
            for bot in bots.values():
                bot.attach()
                nursery.start_soon(bot.run)
            summary = await table.run()
            await trio.sleep(1.0)
            nursery.cancel_scope.cancel()
        return summary, bots

    summary, bots = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert summary is sink.summary
    assert summary.aborted and summary.hands_played == 2
    assert summary.abort_reason == "dealer error: LookupError: the job is no longer held by this worker"
    assert [h.void_reason for h in sink.hands] == ["", "", summary.abort_reason]
    for bot in bots.values():
        ended = [n.payload for _, n in bot.notices(m.MatchEnded)]
        assert len(ended) == 1 and isinstance(ended[0], m.MatchEnded) and ended[0].aborted

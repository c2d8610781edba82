"""The wire contract says what is sent: the match-format fields of a duplicate copy are filled
(format, duplicate_copies, HandStarted.duplicate_copy, DuplicateCopyStarted.seats) and the
tournament-only ones stay at their documented zero (protos/arena/v1/arena.proto)."""

from __future__ import annotations

import pytest
import trio
import trio.testing

from arena.engine.rules import Rules
from arena.match import messages as m
from arena.match.live import LiveTable
from arena.match.lobby import Lobby
from arena.match.spec import MatchSpec, SeatSpec
from arena.server import convert
from arena.v1 import arena_pb2 as pb
from tests.match.scripted import ScriptedBot

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass

NAMES = ["a", "b", "c"]


def _events(*, copy_index: int, copies_total: int) -> dict[str, list[pb.Event]]:
    rules = Rules.from_mapping({"games": ["FT"], "decision_seconds": 1.0})
    spec = MatchSpec("m", tuple(SeatSpec(n, n.upper()) for n in NAMES), rules, 3, 9, 1.0,
                     copy_index=copy_index, copies_total=copies_total, deal_set_id="set-1")

    async def main() -> dict[str, ScriptedBot]:
        lobby = Lobby()
        table = LiveTable(spec, lobby)
        bots = {n: ScriptedBot(lobby, n.upper()) for n in NAMES}
        async with trio.open_nursery() as nursery:
            for bot in bots.values():
                bot.attach()
                nursery.start_soon(bot.run)
            await table.run()
            await trio.sleep(1.0)
            nursery.cancel_scope.cancel()
        return bots

    bots = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    return {name: [convert.event(item) for _t, item in bots[name].log
                   if isinstance(item, m.Notice)]
            for name in NAMES}


def _of(events: list[pb.Event], kind: str) -> list[pb.Event]:
    return [e for e in events if e.WhichOneof("payload") == kind]


@pytest.mark.parametrize("copy_index", [0, 2])
def test_a_duplicate_copy_says_so_in_every_field(copy_index: int) -> None:
    for seat, (name, events) in enumerate(_events(copy_index=copy_index, copies_total=3).items()):
        [started] = _of(events, "match_started")
        assert started.match_started.format == pb.MATCH_FORMAT_DUPLICATE
        assert started.match_started.duplicate_copies == 3
        [copy] = _of(events, "duplicate_copy_started")
        assert copy.duplicate_copy_started.copy_index == copy_index
        assert copy.duplicate_copy_started.your_seat == seat
        assert [(s.seat, s.name, s.bot_id) for s in copy.duplicate_copy_started.seats] == [
            (k, n, n.upper()) for k, n in enumerate(NAMES)]
        assert list(copy.duplicate_copy_started.seats) == list(started.match_started.seats)
        hands = _of(events, "hand_started")
        assert len(hands) == 3, name
        assert {h.hand_started.duplicate_copy for h in hands} == {copy_index}


def test_a_cash_match_is_cash_with_one_copy_and_no_tournament_fields() -> None:
    for events in _events(copy_index=0, copies_total=1).values():
        [started] = _of(events, "match_started")
        assert started.match_started.format == pb.MATCH_FORMAT_CASH
        assert started.match_started.duplicate_copies == 1
        assert _of(events, "duplicate_copy_started") == []
        assert {h.hand_started.duplicate_copy for h in _of(events, "hand_started")} == {0}
        [ended] = _of(events, "match_ended")
        assert [r.place for r in ended.match_ended.results] == [0, 0, 0]  # no tournaments yet

"""A tournament hand on the wire: `MatchStarted.tournament` says where the hand sits, the button
is where the tournament put it and the stacks are the carried ones (docs/house-rules.md §8)."""

from __future__ import annotations

from arena.engine.rules import Rules
from arena.match import messages as m
from arena.match.spec import MatchSpec, SeatSpec
from arena.server import convert
from arena.v1 import arena_pb2 as pb
from tests.match.scripted import play_with_scripted_bots

NAMES = ["a", "b", "c"]
INFO = m.TournamentInfo(
    tournament="night", event_id="t1-final", event_title="tournament 1, final table", table=1, table_hand=7,
    round=7, level=3, small_blind_chips=4, big_blind_chips=8, ante_chips=1, next_level_at_round=9,
    next_level_in_seconds=0.0, players_left=3, tables=1,
    moves=(("c", 2, 1, 4, "break"),), placings=(("x", 6, 2), ("y", 5, 4), ("z", 4, 6)))


def _events(tournament: m.TournamentInfo | None) -> dict[str, list[pb.Event]]:
    rules = Rules.from_mapping({"games": ["FT"], "decision_seconds": 1.0, "reset_stacks": False,
                                "small_blind": 4, "big_blind": 8, "small_bet": 8, "big_bet": 16})
    spec = MatchSpec("t1-final-t1-h7", tuple(SeatSpec(n, n) for n in NAMES), rules, 1, 9, 1.0,
                     initial_stacks=(100, 250, 40), button_seat=2, tournament=tournament)

    bots = play_with_scripted_bots(spec, NAMES)
    return {name: [convert.event(item) for _t, item in bots[name].log
                   if isinstance(item, m.Notice)] for name in NAMES}


def _of(events: list[pb.Event], kind: str) -> list[pb.Event]:
    return [e for e in events if e.WhichOneof("payload") == kind]


def test_a_tournament_hand_tells_the_bots_where_it_sits() -> None:
    for name, events in _events(INFO).items():
        [started] = _of(events, "match_started")
        t = started.match_started.tournament
        assert started.match_started.HasField("tournament"), name
        assert started.match_started.format == pb.MATCH_FORMAT_TOURNAMENT
        assert (t.tournament, t.event_id, t.event_title, t.table, t.table_hand, t.round) == (
            "night", "t1-final", "tournament 1, final table", 1, 7, 7)
        assert (t.level, t.small_blind_chips, t.big_blind_chips, t.ante_chips) == (3, 4, 8, 1)
        assert (t.next_level_at_round, t.next_level_in_seconds) == (9, 0.0)
        assert (t.players_left, t.tables) == (3, 1)
        assert [(v.name, v.from_table, v.to_table, v.round, v.reason) for v in t.moves] == [
            ("c", 2, 1, 4, "break")]
        assert [(p.name, p.place, p.round) for p in t.placings] == [
            ("x", 6, 2), ("y", 5, 4), ("z", 4, 6)]
        [hand] = _of(events, "hand_started")
        assert hand.hand_started.button_seat == 2  # the tournament's button, not a card draw
        assert [s.stack_chips for s in hand.hand_started.seats] == [100, 250, 40]


def test_other_matches_leave_the_tournament_field_unset() -> None:
    for events in _events(None).values():
        [started] = _of(events, "match_started")
        assert not started.match_started.HasField("tournament")

"""Tournaments played in-process with the built-in policies (docs/house-rules.md §8, seeds 003 and 004).

Checks on whole simulated tournaments: chips conserved across moves and breaks, tables
balanced, the big blind never skipped by a move, placings in the order of elimination, the
seed-003 final and losers' tables, tie-breaks, absent bots, and resume from saved state.
"""

from __future__ import annotations

import itertools
import json
from collections import defaultdict

import pytest

from arena.engine.errors import ArenaError
from arena.engine.rules import Rules
from arena.match.policies import make_policy
from arena.tourney.event import EventSpec, EventState, HandOutcome, RoundReport
from arena.tourney.formats import TournamentFormat
from arena.tourney.levels import Level, doubling
from arena.tourney.simulate import SimulatedHand, play_events, play_hand, simulate_tournament

HORSE = ("FT", "FO/8", "FR", "F7S", "F7S/8")


def _names(n: int) -> tuple[str, ...]:
    return tuple(f"bot{k:02d}" for k in range(n))


def _big_blind(order: tuple[str, ...]) -> str:
    return order[0] if len(order) == 2 else order[1]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_27_bot_horse_freezeout_keeps_every_invariant(seed: int) -> None:
    fmt = TournamentFormat("freezeout", _names(27), seed, HORSE,
                           doubling(Level(10, 20, ante=3, bring_in=5, hands=6)), 1000, max_seats=8)
    hands: dict[int, dict[int, tuple[str, ...]]] = defaultdict(dict)  # round -> table -> order
    reports: list[RoundReport] = []
    games = set()

    def on_hand(played: SimulatedHand) -> None:
        plan = played.plan
        games.add(plan.game)
        assert plan.game == HORSE[plan.level_index % 5]  # the game changes with the level
        hands[plan.round][plan.table] = plan.players

    def on_round(state: EventState, report: RoundReport) -> None:
        reports.append(report)
        assert state.chips_in_play() == 27 * 1000  # conserved across moves and breaks
        sizes = [len(t.players) for t in state.tables.values()]
        seated = [p for t in state.tables.values() for p in t.players]
        assert len(seated) == len(set(seated))  # nobody seated twice
        assert max(sizes) - min(sizes) <= 1 and max(sizes) <= 8

    result = simulate_tournament(fmt, rules=Rules(), on_hand=on_hand, on_round=on_round)
    assert games == set(HORSE)
    assert sorted(s.place for s in result.standings) == list(range(1, 28))
    assert sum(1 for r in reports if r.final_table) == 1
    assert any(r.broken_tables for r in reports) and any(
        m.reason == "balance" for r in reports for m in r.moves)
    # The big blind moves one player on at each table; a moved player is the big blind of its
    # first hand at its new table, so nobody skips the big blind by a move.
    arrivals = {(r.round + 1, m.to_table): m.player for r in reports for m in r.moves}
    for rnd in sorted(hands)[1:]:
        for table, order in hands[rnd].items():
            before = hands[rnd - 1].get(table)
            if before is None:
                continue
            bb = _big_blind(order)
            if bb not in before:
                assert (rnd, table) in arrivals
                continue
            k = before.index(_big_blind(before))
            expected = next(before[(k + s) % len(before)] for s in range(1, len(before) + 1)
                            if before[(k + s) % len(before)] in order)
            assert bb == expected
    for report in reports:
        last_arrival = {m.to_table: m.player for m in report.moves}  # later arrivals go first
        for table, player in last_arrival.items():
            if report.round + 1 in hands:
                assert _big_blind(hands[report.round + 1][table]) == player


def test_placings_follow_the_order_of_elimination() -> None:
    fmt = TournamentFormat("freezeout", _names(10), 4, ("FT",), doubling(Level(5, 10, hands=5)),
                           300, max_seats=6)
    rounds: list[RoundReport] = []
    result = simulate_tournament(fmt, rules=Rules(), on_round=lambda s, r: rounds.append(r))
    out = [e for r in rounds for e in r.eliminations]
    assert len(out) == 9
    for earlier, later in itertools.pairwise(out):
        if later.round > earlier.round:
            assert later.place < earlier.place
    winner = result.standings[0]
    assert winner.place == 1 and winner.player not in {e.player for e in out}


def test_seed_003_preset_end_to_end_in_process() -> None:
    players = _names(12)
    fmt = TournamentFormat("seed-003", players, 11, ("FT",), doubling(Level(1, 2, hands=8)), 390,
                           tie_break_stack=215, tie_break_plan=doubling(Level(1, 2, hands=4)))
    batches: list[list[EventState]] = []
    result = simulate_tournament(fmt, rules=Rules(), on_events=batches.append)
    for t in (1, 2):
        prelims = [s for b in batches for s in b if s.spec.event_id.startswith(f"t{t}-table")]
        final, = [s for b in batches for s in b if s.spec.event_id == f"t{t}-final"]
        losers, = [s for b in batches for s in b if s.spec.event_id == f"t{t}-losers"]
        assert sorted(len(s.spec.players) for s in prelims) == [6, 6]  # two tables of six by lot
        advanced = {p: c for s in prelims for p, c in s.survivors()}
        assert set(final.spec.players) == set(advanced)
        assert final.spec.stacks is not None  # with their chips
        assert dict(zip(final.spec.players, final.spec.stacks, strict=True)) == advanced
        assert sum(final.spec.stacks) == final.chips_in_play()
        eliminated = {e.player for s in prelims for e in s.eliminations}
        assert set(losers.spec.players) == eliminated and losers.spec.stacks is None
        assert losers.chips_in_play() == 390 * len(eliminated)  # a fresh stack each
        assert sorted(final.places().values()) == list(range(1, len(advanced) + 1))
        assert sorted(losers.places().values()) == list(range(len(advanced) + 1, 13))
    assert [s.place for s in result.standings] == list(range(1, 13))
    for s in result.standings:
        assert len(s.placings) == 2 and s.points == sum(s.placings)
    points = [s.points for s in result.standings]
    assert points == sorted(points)
    tied = {p for p in points if points.count(p) > 1}
    assert tied, "this seed has tied totals, so the tie-break is exercised"
    played = {frozenset(t.players) for t in result.tie_breaks}
    for total in tied:
        group = [s.player for s in result.standings if s.points == total]
        for a, b in itertools.pairwise(group):
            assert frozenset((a, b)) in played  # neighbours in a sorted order were compared
    for tie in result.tie_breaks:
        place = {s.player: s.place for s in result.standings}
        loser = next(p for p in tie.players if p != tie.winner)
        assert place[tie.winner] < place[loser]


def test_an_absent_bot_is_blinded_away_and_placed_last_among_those_out_in_that_hand() -> None:
    fmt = TournamentFormat("freezeout", _names(9), 2, ("FT",), doubling(Level(10, 20, hands=3)),
                           200, max_seats=5)
    rounds: list[RoundReport] = []
    result = simulate_tournament(fmt, rules=Rules(), policy="call", absent={"bot03"},
                                 on_round=lambda s, r: rounds.append(r))
    gone = next(e for r in rounds for e in r.eliminations if e.player == "bot03")
    assert not gone.was_present
    same_hand = [e for r in rounds for e in r.eliminations if e.round == gone.round]
    assert gone.place == max(e.place for e in same_hand)
    assert {s.player: s.place for s in result.standings}["bot03"] == gone.place


def _spec(seed: int = 3) -> EventSpec:
    return EventSpec("ev", _names(12), seed, doubling(Level(5, 10, hands=4)), ("FT", "F7S"), 200,
                     max_seats=5)


def test_a_killed_event_resumes_from_its_saved_state_with_the_hand_in_flight_voided() -> None:
    rules = Rules()
    policies = {p: make_policy("random", k) for k, p in enumerate(_names(12))}
    state = EventState.start(_spec())
    for _ in range(7):
        for plan in state.plans():
            state.record(play_hand(plan, rules=rules, policies=policies)[0])
    in_flight = state.plans()
    done, rest = in_flight[0], in_flight[1:]
    state.record(play_hand(done, rules=rules, policies=policies)[0])
    saved = json.loads(json.dumps(state.to_json()))
    chips = state.chips_in_play()
    resumed = EventState.from_json(_spec(), saved)  # the process died while `rest` were dealt
    assert resumed.chips_in_play() == chips == 12 * 200
    voided = resumed.void_unreported()
    assert [p.hand_id for p in voided] == [p.hand_id for p in rest]
    again = resumed.plans()
    assert [p.table for p in again] == [p.table for p in rest]
    for new, old in zip(again, rest, strict=True):
        assert new.hand == old.hand + 1 and new.seed != old.seed and new.stacks == old.stacks
    assert resumed.to_json()["voided"] == [p.hand_id for p in rest]
    while not resumed.is_over:
        for plan in resumed.plans():
            resumed.record(play_hand(plan, rules=rules, policies=policies)[0])
        assert resumed.chips_in_play() == 12 * 200
    assert sorted(resumed.places().values()) == list(range(1, 13))


def test_a_result_that_does_not_conserve_chips_is_refused() -> None:
    state = EventState.start(_spec())
    plan = state.plans()[0]
    bad = HandOutcome(plan.table, plan.hand, (plan.stacks[0] + 1, *plan.stacks[1:]))
    with pytest.raises(ArenaError, match="chips not conserved"):
        state.record(bad)
    with pytest.raises(ArenaError, match="unexpected result"):
        state.record(HandOutcome(plan.table, plan.hand + 5, plan.stacks))


def test_a_voided_hand_gives_every_chip_back_and_is_dealt_again_with_new_cards() -> None:
    state = EventState.start(_spec())
    plan = state.plans()[0]
    assert state.record(HandOutcome(plan.table, plan.hand, plan.stacks, voided=True)) is None
    again = next(p for p in state.plans() if p.table == plan.table)
    assert again.hand == plan.hand + 1 and again.stacks == plan.stacks
    assert state.voided == [plan.hand_id]


def test_play_events_runs_independent_events_side_by_side() -> None:
    specs = [EventSpec(f"e{k}", _names(6)[k * 3:k * 3 + 3], k, doubling(Level(5, 10, hands=2)),
                       ("FT",), 100, max_seats=3) for k in range(2)]
    states = play_events(specs, rules=Rules(), policies={
        p: make_policy("call", 0) for p in _names(6)})
    assert all(s.is_over and sorted(s.places().values()) == [1, 2, 3] for s in states)

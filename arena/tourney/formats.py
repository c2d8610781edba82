"""Tournament formats as generators of events: a multi-table freeze-out and the seed-003 preset.

A format yields the events to play at once and is sent their finished states; it returns the
standings. Everything is decided from the (secret) tournament seed, so a format re-run with the
same finished events yields the same events again (this is how a killed tournament resumes).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field
from typing import Any

from arena.engine.cards import derive_seed
from arena.engine.errors import ConfigError
from arena.tourney.event import EventSpec, EventState
from arena.tourney.levels import LevelPlan
from arena.tourney.seating import draw_tables

FORMATS = ("freezeout", "seed-003")


@dataclass(frozen=True, slots=True)
class TournamentFormat:
    kind: str
    players: tuple[str, ...]
    seed: int
    games: tuple[str, ...]
    plan: LevelPlan
    starting_stack: int
    max_seats: int = 9  # freezeout: seats per table
    tables: int = 2  # seed-003: preliminary tables
    advance_per_table: int = 3  # seed-003: players of each table who go to the final table
    tournaments: int = 2  # seed-003: tournaments whose placings are summed
    tie_break_stack: int = 215
    tie_break_plan: LevelPlan | None = None

    def validate(self) -> None:
        n = len(self.players)
        if self.kind not in FORMATS:
            raise ConfigError(f"unknown tournament format {self.kind!r}; known: {', '.join(FORMATS)}")
        if len(set(self.players)) != n or n < 2:
            raise ConfigError("a tournament needs at least 2 distinct bots")
        if self.starting_stack <= 0 or self.tie_break_stack <= 0:
            raise ConfigError("stacks must be positive")
        if self.kind == "freezeout" and not (3 <= self.max_seats <= 8 or self.max_seats == n == 2):
            raise ConfigError("'seats_per_table' must be 3 to 8 (a table seats at most 8 bots; "
                              "with 3 or more seats balancing never leaves a bot alone)")
        if self.kind == "seed-003":
            if not 1 <= self.tables <= n // 2:
                raise ConfigError(f"'tables' must be 1 to {n // 2} for {n} bots")
            if -(-n // self.tables) > 8:
                raise ConfigError("seed-003 tables would seat more than 8 bots; add tables")
            if not 1 <= self.advance_per_table < n // self.tables:
                raise ConfigError("'advance_per_table' must be at least 1 and leave someone to "
                                  "eliminate at every table")
            if not 1 <= self.tournaments <= 100:
                raise ConfigError("'tournaments' must be 1 to 100")


@dataclass(frozen=True, slots=True)
class TieBreak:
    players: tuple[str, str]
    winner: str
    event_id: str


@dataclass(frozen=True, slots=True)
class Standing:
    player: str
    place: int
    points: int  # sum of placings over the tournaments (lower is better)
    placings: tuple[int, ...]  # per tournament


@dataclass
class FormatResult:
    standings: tuple[Standing, ...] = ()
    tie_breaks: list[TieBreak] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {"standings": [{"place": s.place, "player": s.player, "points": s.points,
                               "placings": list(s.placings)} for s in self.standings],
                "tie_breaks": [{"players": list(t.players), "winner": t.winner,
                                "event": t.event_id} for t in self.tie_breaks]}


Format = Generator[list[EventSpec], list[EventState], FormatResult]


def run_format(fmt: TournamentFormat) -> Format:
    fmt.validate()
    if fmt.kind == "freezeout":
        return freezeout(fmt)
    return seed_003(fmt)


def freezeout(fmt: TournamentFormat) -> Format:
    """One freeze-out over as many tables as needed, balanced, down to a final table."""
    spec = EventSpec("freezeout", fmt.players, derive_seed(fmt.seed, "freezeout"), fmt.plan,
                     fmt.games, fmt.starting_stack, max_seats=fmt.max_seats, title="freeze-out")
    (state,) = yield [spec]
    places = state.places()
    standings = tuple(Standing(p, places[p], places[p], (places[p],))
                      for p in sorted(places, key=lambda p: (places[p], p)))
    return FormatResult(standings)


def seed_003(fmt: TournamentFormat) -> Format:
    """Seed 003 §1, §5, §6: tournaments of preliminary tables, a final and a losers' table;
    placings summed; equal sums settled by heads-up matches with doubling blinds."""
    result = FormatResult()
    placings: dict[str, list[int]] = {p: [] for p in fmt.players}
    for t in range(1, fmt.tournaments + 1):
        places = yield from _one_seed_003_tournament(fmt, t)
        for player, place in places.items():
            placings[player].append(place)
    totals = {p: sum(v) for p, v in placings.items()}
    order: list[str] = []
    for total in sorted(set(totals.values())):
        group = sorted(p for p in fmt.players if totals[p] == total)
        if len(group) > 1:
            group = yield from _order_by_heads_up(fmt, group, total, result.tie_breaks)
        order.extend(group)
    result.standings = tuple(Standing(p, k + 1, totals[p], tuple(placings[p]))
                             for k, p in enumerate(order))
    return result


def _one_seed_003_tournament(fmt: TournamentFormat, t: int
                             ) -> Generator[list[EventSpec], list[EventState], dict[str, int]]:
    seed = derive_seed(fmt.seed, "tournament", t)
    drawn = draw_tables(fmt.players, tables=fmt.tables, seed=seed)
    prelims = [EventSpec(f"t{t}-table{table.number}", table.players,
                         derive_seed(seed, "table", table.number), fmt.plan, fmt.games,
                         fmt.starting_stack, max_seats=len(table.players), tables=1,
                         stop_at=fmt.advance_per_table,
                         title=f"tournament {t}, preliminary table {table.number}")
               for table in drawn]
    states = yield prelims
    finalists = [pc for s in states for pc in s.survivors()]
    losers = [e.player for s in states for e in s.eliminations]
    events = [EventSpec(f"t{t}-final", tuple(p for p, _ in finalists),
                        derive_seed(seed, "final"), fmt.plan, fmt.games, fmt.starting_stack,
                        max_seats=max(2, len(finalists)), tables=1,
                        stacks=tuple(c for _, c in finalists),
                        start_level=max(s.clock.index for s in states),
                        title=f"tournament {t}, final table")]
    if len(losers) >= 2:
        events.append(EventSpec(f"t{t}-losers", tuple(losers), derive_seed(seed, "losers"),
                                fmt.plan, fmt.games, fmt.starting_stack,
                                max_seats=len(losers), tables=1, place_offset=len(finalists),
                                title=f"tournament {t}, losers' table"))
    states = yield events
    places: dict[str, int] = {}
    for state in states:
        places.update(state.places())
    if len(losers) == 1:
        places[losers[0]] = len(finalists) + 1
    return places


def _order_by_heads_up(fmt: TournamentFormat, group: Sequence[str], total: int,
                       log: list[TieBreak]) -> Generator[list[EventSpec], list[EventState], list[str]]:
    """Order tied players by heads-up matches (seed 003 §6); the lot decides who meets whom
    (a merge sort whose comparisons are matches)."""
    order = list(group)
    random.Random(derive_seed(fmt.seed, "tie-break", total)).shuffle(order)
    plan = fmt.tie_break_plan or fmt.plan
    runs = [[p] for p in order]
    count = 0
    while len(runs) > 1:
        merged: list[list[str]] = []
        for i in range(0, len(runs), 2):
            if i + 1 == len(runs):
                merged.append(runs[i])
                continue
            a, b, out = runs[i], runs[i + 1], []
            while a and b:
                count += 1
                event_id = f"tie{total}-{count}"
                spec = EventSpec(event_id, (a[0], b[0]), derive_seed(fmt.seed, "tie", total, count),
                                 plan, fmt.games, fmt.tie_break_stack, max_seats=2, tables=1,
                                 title=f"tie-break heads-up {a[0]} v {b[0]}")
                (state,) = yield [spec]
                winner = next(p for p, place in state.places().items() if place == 1)
                log.append(TieBreak((a[0], b[0]), winner, event_id))
                out.append(a.pop(0) if winner == a[0] else b.pop(0))
            merged.append(out + a + b)
        runs = merged
    return runs[0]


def drive(fmt: Format, play: Callable[[list[EventSpec]], list[EventState]]) -> FormatResult:
    """Run a format to the end, ``play`` playing each batch of events (in-process or live)."""
    try:
        batch = next(fmt)
        while True:
            batch = fmt.send(play(batch))
    except StopIteration as stop:
        result: FormatResult = stop.value
        return result

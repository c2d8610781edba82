"""One tournament event as a pure state machine: tables play hand for hand in rounds.

Each round deals one hand at every table (all at the same level); when every table has
reported, busted players are placed (docs/house-rules.md §8), the big blinds move on, and tables are
balanced or broken. The state round-trips through JSON so a killed tournament resumes: a hand
that was dealt but not reported is voided (every chip goes back, docs/house-rules.md §6) and its table
deals a new hand with a new number (never the same cards again).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from arena.engine.cards import derive_seed
from arena.engine.errors import ArenaError
from arena.tourney.levels import Level, LevelClock, LevelPlan, game_for_level
from arena.tourney.placings import Bust, Elimination, place_busts
from arena.tourney.seating import Move, Table, balance, draw_tables, table_count


@dataclass(frozen=True, slots=True)
class EventSpec:
    """Who plays, with what, on how many tables, until how many are left."""

    event_id: str
    players: tuple[str, ...]
    seed: int  # secret: the draw and every deal derive from it
    plan: LevelPlan
    games: tuple[str, ...]
    starting_stack: int
    max_seats: int = 9
    tables: int = 0  # 0: as few as ``max_seats`` allows
    stacks: tuple[int, ...] | None = None  # carried stacks (per player); None: starting_stack
    stop_at: int = 1  # the event ends when this many players are left
    place_offset: int = 0  # this event's places start after this many
    start_level: int = 0
    title: str = ""

    def __post_init__(self) -> None:
        if len(self.players) < 1:
            raise ArenaError(f"event {self.event_id}: no players")
        if self.max_seats < 2:
            raise ArenaError(f"event {self.event_id}: a table seats at least 2")
        if self.stacks is not None and len(self.stacks) != len(self.players):
            raise ArenaError(f"event {self.event_id}: one stack per player")


@dataclass(frozen=True, slots=True)
class HandPlan:
    """A hand to deal: players in PHH order (the button last) with their stacks."""

    event_id: str
    table: int
    hand: int  # the table's hand number (from 1; voided hands keep theirs)
    round: int
    players: tuple[str, ...]
    stacks: tuple[int, ...]
    level_index: int
    level: Level
    game: str
    seed: int
    players_left: int

    @property
    def hand_id(self) -> str:
        return f"{self.event_id}-t{self.table}-h{self.hand}"

    def to_json(self) -> dict[str, Any]:
        return {"table": self.table, "hand": self.hand, "round": self.round,
                "players": list(self.players), "stacks": list(self.stacks),
                "level_index": self.level_index, "game": self.game}


@dataclass(frozen=True, slots=True)
class HandOutcome:
    table: int
    hand: int
    final_stacks: tuple[int, ...]  # in the plan's order; a voided hand gives the plan's stacks
    absent: tuple[str, ...] = ()  # players absent for the whole hand
    voided: bool = False


@dataclass(frozen=True, slots=True)
class RoundReport:
    round: int
    eliminations: tuple[Elimination, ...]
    moves: tuple[Move, ...]
    broken_tables: tuple[int, ...]
    final_table: bool  # this round brought the event down to one table


@dataclass
class EventState:
    spec: EventSpec
    tables: dict[int, Table]
    stacks: dict[str, int]
    clock: LevelClock = field(default_factory=LevelClock)
    rounds_done: int = 0
    hands_dealt: dict[int, int] = field(default_factory=dict)
    pending: dict[int, HandPlan] = field(default_factory=dict)
    reported: dict[int, HandOutcome] = field(default_factory=dict)
    absent_this_round: set[str] = field(default_factory=set)
    eliminations: list[Elimination] = field(default_factory=list)
    moves: list[tuple[int, Move]] = field(default_factory=list)
    voided: list[str] = field(default_factory=list)  # hand ids

    @classmethod
    def start(cls, spec: EventSpec) -> EventState:
        stacks = dict(zip(spec.players, spec.stacks or (spec.starting_stack,) * len(spec.players),
                          strict=True))
        tables = draw_tables(spec.players, seed=spec.seed,
                             tables=spec.tables or table_count(len(spec.players), spec.max_seats))
        if any(len(t.players) > spec.max_seats for t in tables):
            raise ArenaError(f"event {spec.event_id}: more players than seats")
        return cls(spec, {t.number: t for t in tables}, stacks,
                   clock=LevelClock(spec.start_level, 0, 0.0),
                   hands_dealt={t.number: 0 for t in tables})

    # ------------------------------------------------------------------ questions

    @property
    def players_left(self) -> int:
        return sum(len(t.players) for t in self.tables.values())

    @property
    def is_over(self) -> bool:
        if self.pending:
            return False
        playable = [t for t in self.tables.values() if len(t.players) >= 2]
        return self.players_left <= self.spec.stop_at or not playable

    def survivors(self) -> tuple[tuple[str, int], ...]:
        """The players still in with their chips, most chips first."""
        left = [(p, self.stacks[p]) for t in self.tables.values() for p in t.players]
        return tuple(sorted(left, key=lambda pc: (-pc[1], pc[0])))

    def places(self) -> dict[str, int]:
        """Final places of this event (survivors of a stopped event are not placed)."""
        out = {e.player: e.place for e in self.eliminations}
        left = self.survivors()
        if self.is_over and len(left) == 1 and self.spec.stop_at <= 1:
            out[left[0][0]] = self.spec.place_offset + 1
        return out

    def chips_in_play(self) -> int:
        return sum(self.stacks.values())

    # ------------------------------------------------------------------ dealing

    def plans(self, *, elapsed_seconds: float = 0.0) -> tuple[HandPlan, ...]:
        """The hands to deal now: a new round if none is running, else the unreported ones."""
        if not self.pending:
            if self.is_over:
                return ()
            self.clock = self.clock.advanced(self.spec.plan, hands_played=self.rounds_done,
                                             elapsed_seconds=elapsed_seconds)
            for number, table in sorted(self.tables.items()):
                if len(table.players) >= 2:
                    self.pending[number] = self._plan(table)
        return tuple(plan for number, plan in sorted(self.pending.items())
                     if number not in self.reported)

    def _plan(self, table: Table) -> HandPlan:
        spec = self.spec
        hand = self.hands_dealt.get(table.number, 0) + 1
        self.hands_dealt[table.number] = hand
        order = table.hand_order()
        index = self.clock.index
        return HandPlan(spec.event_id, table.number, hand, self.rounds_done + 1, order,
                        tuple(self.stacks[p] for p in order), index, spec.plan.level(index),
                        game_for_level(spec.games, index),
                        derive_seed(spec.seed, "hand", table.number, hand), self.players_left)

    def void_unreported(self) -> tuple[HandPlan, ...]:
        """Resume: the hands in flight are voided (chips were never moved); new ones replace them."""
        voided = tuple(plan for number, plan in sorted(self.pending.items())
                       if number not in self.reported)
        for plan in voided:
            self._void(plan)
        return voided

    def _void(self, plan: HandPlan) -> None:
        """``plan``'s hand is void (no chip moved); its table deals a new one in its place."""
        self.voided.append(plan.hand_id)
        self.pending[plan.table] = self._plan(self.tables[plan.table])

    def record(self, outcome: HandOutcome) -> RoundReport | None:
        """Apply one table's hand; the round's report when it was the last table to report."""
        plan = self.pending.get(outcome.table)
        if plan is None or plan.hand != outcome.hand or outcome.table in self.reported:
            raise ArenaError(f"event {self.spec.event_id}: unexpected result for table "
                             f"{outcome.table} hand {outcome.hand}")
        if outcome.voided:
            self._void(plan)
            return None
        if (len(outcome.final_stacks) != len(plan.players)
                or sum(outcome.final_stacks) != sum(plan.stacks)
                or min(outcome.final_stacks) < 0):
            raise ArenaError(f"{plan.hand_id}: chips not conserved: {plan.stacks} -> "
                             f"{outcome.final_stacks}")
        for player, chips in zip(plan.players, outcome.final_stacks, strict=True):
            self.stacks[player] = chips
        self.absent_this_round.update(outcome.absent)
        self.reported[outcome.table] = outcome
        if len(self.reported) < len(self.pending):
            return None
        return self._end_round()

    def _end_round(self) -> RoundReport:
        busts: list[Bust] = []
        for number, plan in sorted(self.pending.items()):
            for player, start in zip(plan.players, plan.stacks, strict=True):
                if self.stacks[player] == 0:
                    busts.append(Bust(player, start, player not in self.absent_this_round,
                                      number, plan.hand))
        busted = {b.player for b in busts}
        self.rounds_done += 1
        tables_before = len([t for t in self.tables.values() if t.players])
        for number, table in list(self.tables.items()):
            if number in self.pending:
                self.tables[number] = table.after_hand(tuple(busted))
        left = self.players_left
        eliminations = place_busts(busts, players_left=left, round_number=self.rounds_done,
                                   place_offset=self.spec.place_offset)
        self.eliminations.extend(eliminations)
        moves: tuple[Move, ...] = ()
        if left > self.spec.stop_at:
            balanced, moves = balance(list(self.tables.values()), max_seats=self.spec.max_seats)
            self.tables = {t.number: t for t in balanced}
        else:
            self.tables = {n: t for n, t in self.tables.items() if t.players}
        self.moves.extend((self.rounds_done, move) for move in moves)
        broken = tuple(sorted({m.from_table for m in moves if m.reason == "break"}))
        self.pending = {}
        self.reported = {}
        self.absent_this_round = set()
        tables_after = len(self.tables)
        return RoundReport(self.rounds_done, eliminations, moves, broken,
                           tables_before > 1 and tables_after == 1)

    # ------------------------------------------------------------------ persistence

    def to_json(self) -> dict[str, Any]:
        return {
            "event_id": self.spec.event_id,
            "tables": [t.to_json() for _, t in sorted(self.tables.items())],
            "stacks": dict(sorted(self.stacks.items())),
            "clock": self.clock.to_json(),
            "rounds_done": self.rounds_done,
            "hands_dealt": {str(k): v for k, v in sorted(self.hands_dealt.items())},
            "pending": [p.to_json() for _, p in sorted(self.pending.items())],
            "reported": [{"table": o.table, "hand": o.hand, "final_stacks": list(o.final_stacks),
                          "absent": list(o.absent)} for _, o in sorted(self.reported.items())],
            "absent_this_round": sorted(self.absent_this_round),
            "eliminations": [e.to_json() for e in self.eliminations],
            "moves": [{"round": r, "player": m.player, "from": m.from_table, "to": m.to_table,
                       "reason": m.reason} for r, m in self.moves],
            "voided": list(self.voided),
        }

    @classmethod
    def from_json(cls, spec: EventSpec, data: dict[str, Any]) -> EventState:
        if data.get("event_id") != spec.event_id:
            raise ArenaError(f"saved state is for event {data.get('event_id')!r}, "
                             f"not {spec.event_id!r}")
        state = cls(spec, {}, {str(k): int(v) for k, v in data["stacks"].items()},
                    clock=LevelClock.from_json(data["clock"]),
                    rounds_done=int(data["rounds_done"]),
                    hands_dealt={int(k): int(v) for k, v in data["hands_dealt"].items()})
        state.tables = {t.number: t for t in map(Table.from_json, data["tables"])}
        for p in data["pending"]:
            table, hand, index = int(p["table"]), int(p["hand"]), int(p["level_index"])
            state.pending[table] = HandPlan(
                spec.event_id, table, hand, int(p["round"]), tuple(str(x) for x in p["players"]),
                tuple(int(x) for x in p["stacks"]), index, spec.plan.level(index), str(p["game"]),
                derive_seed(spec.seed, "hand", table, hand), state.players_left)
        for o in data["reported"]:
            state.reported[int(o["table"])] = HandOutcome(
                int(o["table"]), int(o["hand"]), tuple(int(x) for x in o["final_stacks"]),
                tuple(str(x) for x in o["absent"]))
        state.absent_this_round = {str(p) for p in data["absent_this_round"]}
        state.voided = [str(h) for h in data["voided"]]
        state.eliminations = [Elimination.from_json(e) for e in data["eliminations"]]
        state.moves = [(int(m["round"]), Move(str(m["player"]), int(m["from"]), int(m["to"]),
                                              str(m["reason"]))) for m in data["moves"]]
        return state


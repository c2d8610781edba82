"""League schedules: which bots meet at which table, with balanced seats and duplicate copies.

Pure functions of the league file: the same file always gives the same schedule, which is what
lets an interrupted league resume where it stopped.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence
from dataclasses import dataclass

from arena.engine.cards import derive_seed
from arena.engine.errors import ConfigError
from arena.engine.seeds import derive_secret

FORMATS = ("round_robin", "multiway", "gauntlet")


@dataclass(frozen=True, slots=True)
class ScheduledMatch:
    """One match of the schedule; copies of a duplicate deal set share ``deal_set`` and ``seed``."""

    match_id: str
    seats: tuple[str, ...]  # bot names by physical seat
    seed: int
    deal_set: str
    copy_index: int
    copies: int


def rotations(seats: Sequence[str]) -> list[tuple[str, ...]]:
    """Duplicate copies: heads-up the seats are swapped; 3-11 players they rotate one seat a copy,
    so that every bot plays every seat's cards once."""
    n = len(seats)
    return [tuple(seats[(i - k) % n] for i in range(n)) for k in range(n)]


def table_groups(bots: Sequence[str], *, fmt: str, seats_per_table: int, hero: str | None,
                 seed: int, tables: int) -> list[tuple[str, ...]]:
    """The line-ups of the league before duplicate copies."""
    if fmt == "round_robin":
        return [tuple(pair) for pair in itertools.combinations(bots, 2)]
    if fmt == "gauntlet":
        if hero is None or hero not in bots:
            raise ConfigError(f"a gauntlet needs 'hero' set to one of the bots {list(bots)}")
        field = [b for b in bots if b != hero]
        size = seats_per_table - 1
        if size > len(field):
            raise ConfigError(f"a gauntlet table of {seats_per_table} needs {size} other bots")
        if size == 1:
            return [(hero, b) for b in field]
        return [(hero, *group) for group in
                itertools.islice(itertools.combinations(field, size), max(tables, 1))]
    if fmt == "multiway":
        return balanced_tables(bots, seats_per_table=seats_per_table, tables=tables, seed=seed)
    raise ConfigError(f"unknown league format {fmt!r}; known: {', '.join(FORMATS)}")


def balanced_tables(bots: Sequence[str], *, seats_per_table: int, tables: int,
                    seed: int) -> list[tuple[str, ...]]:
    """``tables`` line-ups of ``seats_per_table`` where every bot sits about equally often and
    every pair meets about equally often (greedy on the pair counts, deterministic by seed)."""
    if not 2 <= seats_per_table <= min(11, len(bots)):  # the games' limit: league/config.py
        raise ConfigError(f"seats_per_table must be 2 to {min(11, len(bots))} for {len(bots)} bots")
    rng = random.Random(derive_seed(seed, "tables"))
    plays = dict.fromkeys(bots, 0)
    pairs: dict[tuple[str, str], int] = {}
    out: list[tuple[str, ...]] = []
    for _ in range(tables):
        order = sorted(bots, key=lambda b: (plays[b], rng.random()))
        chosen = [order[0]]
        for _seat in range(seats_per_table - 1):
            candidates = [b for b in order if b not in chosen]
            costs = [(sum(pairs.get((min(b, c), max(b, c)), 0) for c in chosen), plays[b],
                      order.index(b), b) for b in candidates]
            best = min(costs)[3]
            chosen.append(best)
        for b in chosen:
            plays[b] += 1
        for a, b in itertools.combinations(sorted(chosen), 2):
            pairs[(a, b)] = pairs.get((a, b), 0) + 1
        rng.shuffle(chosen)
        out.append(tuple(chosen))
    return out


def build_schedule(bots: Sequence[str], *, fmt: str, seats_per_table: int, duplicate: bool,
                   seed: int, tables: int, hero: str | None = None,
                   rounds: int = 1) -> list[ScheduledMatch]:
    if len(set(bots)) != len(bots):
        raise ConfigError("bot names must be unique")
    if len(bots) < 2:
        raise ConfigError("a league needs at least two bots")
    out: list[ScheduledMatch] = []
    for round_index in range(rounds):
        groups = table_groups(bots, fmt=fmt, seats_per_table=seats_per_table, hero=hero,
                              seed=derive_seed(seed, "round", round_index), tables=tables)
        for g, group in enumerate(groups):
            deal_set = f"r{round_index + 1}-t{g + 1}"
            match_seed = derive_secret(seed, "deal-set", deal_set)
            copies = rotations(group) if duplicate else [tuple(group)]
            for k, seats in enumerate(copies):
                suffix = f"-c{k + 1}" if duplicate else ""
                out.append(ScheduledMatch(f"{deal_set}{suffix}", seats, match_seed, deal_set, k,
                                          len(copies)))
    return out

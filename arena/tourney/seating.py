"""Tournament seating (docs/house-rules.md §8): the draw, the forward-moving big blind, balancing,
breaking tables.

A table is its players in clockwise order plus the player due the big blind in the next hand.
The big blind moves forward one player each hand (players who bust are passed over), so nobody
skips it; the small blind and the button are the one and two players before it.
Balancing moves the player due the big blind next from the largest table to the smallest,
seated there as that table's next big blind: a move never lets anyone skip the big blind.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from arena.engine.cards import Deck, derive_seed


@dataclass(frozen=True, slots=True)
class Table:
    number: int
    players: tuple[str, ...]  # clockwise
    big_blind: str  # due the big blind in the next hand

    def __post_init__(self) -> None:
        if self.players and self.big_blind not in self.players:
            raise ValueError(f"table {self.number}: big blind {self.big_blind!r} is not seated")

    def _at(self, offset: int) -> str:
        k = self.players.index(self.big_blind)
        return self.players[(k + offset) % len(self.players)]

    @property
    def button(self) -> str:
        """Heads-up the button is the small blind (docs/house-rules.md §2)."""
        return self._at(-1 if len(self.players) == 2 else -2)

    def hand_order(self) -> tuple[str, ...]:
        """The players in the engine's PHH order: first left of the button, the button last."""
        k = self.players.index(self.button)
        return self.players[k + 1:] + self.players[:k + 1]

    def after_hand(self, busted: Sequence[str]) -> Table:
        """The table for the next hand: busted players gone, the big blind one player on."""
        survivors = tuple(p for p in self.players if p not in busted)
        if not survivors:
            return Table(self.number, (), "")
        k = self.players.index(self.big_blind)
        for step in range(1, len(self.players) + 1):
            candidate = self.players[(k + step) % len(self.players)]
            if candidate not in busted:
                return Table(self.number, survivors, candidate)
        raise AssertionError("unreachable: a survivor exists")

    def without(self, player: str) -> Table:
        """``player`` leaves; if it was due the big blind, the next player is."""
        players = tuple(p for p in self.players if p != player)
        if not players:
            return Table(self.number, (), "")
        big_blind = self.big_blind
        if big_blind == player:
            k = self.players.index(player)
            big_blind = self.players[(k + 1) % len(self.players)]
        return Table(self.number, players, big_blind)

    def with_arrival(self, player: str) -> Table:
        """``player`` sits down as the next big blind (just before the one who was due it)."""
        if player in self.players:
            raise ValueError(f"{player!r} is already seated at table {self.number}")
        if not self.players:
            return Table(self.number, (player,), player)
        k = self.players.index(self.big_blind)
        return Table(self.number, (*self.players[:k], player, *self.players[k:]), player)

    def to_json(self) -> dict[str, Any]:
        return {"number": self.number, "players": list(self.players), "big_blind": self.big_blind}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Table:
        return cls(int(data["number"]), tuple(str(p) for p in data["players"]),
                   str(data["big_blind"]))


@dataclass(frozen=True, slots=True)
class Move:
    player: str
    from_table: int
    to_table: int
    reason: str  # "balance" or "break"


def draw_button(players: Sequence[str], seed: int) -> str:
    """docs/house-rules.md §2: a one-card draw; the highest card (suits break ties) takes the button."""
    deck = Deck(seed)
    draw = [(deck.draw(), p) for p in players]
    return max(draw)[1]


def seat_table(number: int, players: Sequence[str], seed: int) -> Table:
    """A table in the drawn order, its button drawn by card (the big blind follows from it)."""
    players = tuple(players)
    if len(players) < 2:
        return Table(number, players, players[0] if players else "")
    button = draw_button(players, seed)
    k = players.index(button)
    offset = 1 if len(players) == 2 else 2
    return Table(number, players, players[(k + offset) % len(players)])


def table_count(players: int, max_seats: int) -> int:
    return max(1, -(-players // max_seats))


def draw_tables(players: Sequence[str], *, tables: int, seed: int) -> tuple[Table, ...]:
    """Seat the players by lot on ``tables`` tables whose sizes differ by at most one."""
    if len(set(players)) != len(players):
        raise ValueError("a player may enter a tournament only once")
    order = list(players)
    random.Random(derive_seed(seed, "draw")).shuffle(order)
    groups: list[list[str]] = [[] for _ in range(tables)]
    for k, player in enumerate(order):
        groups[k % tables].append(player)
    return tuple(seat_table(t + 1, group, derive_seed(seed, "button", t + 1))
                 for t, group in enumerate(groups))


def _smallest(tables: dict[int, Table]) -> int:
    return min((len(t.players), n) for n, t in tables.items())[1]


def _largest(tables: dict[int, Table]) -> int:
    return min((-len(t.players), n) for n, t in tables.items())[1]


def balance(tables: Sequence[Table], *, max_seats: int) -> tuple[tuple[Table, ...], tuple[Move, ...]]:
    """Break tables no longer needed, then even out the rest to within one player.

    A broken table is the one with the fewest players (the highest number among equals); its
    players, in the order they were due the big blind, go one at a time to the smallest table.
    Balancing moves the player due the big blind next from the largest table (the lowest number
    among equals) to the smallest.
    """
    by_number = {t.number: t for t in tables if t.players}
    moves: list[Move] = []
    total = sum(len(t.players) for t in by_number.values())
    need = table_count(total, max_seats)
    while len(by_number) > need:
        broken = min((len(t.players), -n) for n, t in by_number.items())
        table = by_number.pop(-broken[1])
        k = table.players.index(table.big_blind)
        for player in table.players[k:] + table.players[:k]:
            to = _smallest(by_number)
            by_number[to] = by_number[to].with_arrival(player)
            moves.append(Move(player, table.number, to, "break"))
    while len(by_number) > 1:
        big = _largest(by_number)
        small = _smallest(by_number)
        if len(by_number[big].players) - len(by_number[small].players) <= 1:
            break
        player = by_number[big].big_blind
        by_number[big] = by_number[big].without(player)
        by_number[small] = by_number[small].with_arrival(player)
        moves.append(Move(player, big, small, "balance"))
    return tuple(by_number[n] for n in sorted(by_number)), tuple(moves)

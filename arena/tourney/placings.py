"""Placings by order of elimination (docs/house-rules.md §8), with the same-hand and absent-bot rules.

Players out in the same hand (across tables when the tables play hand for hand) take the places
just below those still in: a bot that was present ranks above an absent one (absent bots are
blinded away and placed last among those out at that hand, seed 003 §7), then more chips at the
start of the hand ranks higher (common tournament practice); exactly equal players share the
better place.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Bust:
    player: str
    chips_at_hand_start: int
    was_present: bool
    table: int
    hand: int  # the table's hand number in which the player went out


@dataclass(frozen=True, slots=True)
class Elimination:
    player: str
    place: int
    table: int
    hand: int
    round: int  # the tournament's round (all tables' hands of one step)
    chips_at_hand_start: int
    was_present: bool

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Elimination:
        return cls(str(data["player"]), int(data["place"]), int(data["table"]), int(data["hand"]),
                   int(data["round"]), int(data["chips_at_hand_start"]), bool(data["was_present"]))


def place_busts(busts: Sequence[Bust], *, players_left: int, round_number: int,
                place_offset: int = 0) -> tuple[Elimination, ...]:
    """Places for the players out in one round, ``players_left`` still in after it."""
    def key(bust: Bust) -> tuple[bool, int]:
        return (bust.was_present, bust.chips_at_hand_start)

    ordered = sorted(busts, key=lambda b: (key(b), b.player), reverse=True)
    out: list[Elimination] = []
    place = 0
    for k, bust in enumerate(ordered):
        if k == 0 or key(bust) != key(ordered[k - 1]):
            place = place_offset + players_left + k + 1
        out.append(Elimination(bust.player, place, bust.table, bust.hand, round_number,
                               bust.chips_at_hand_start, bust.was_present))
    return tuple(out)

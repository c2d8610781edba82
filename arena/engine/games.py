"""The five H.O.R.S.E. games as data over one betting machine (streets, forced bets, showdown)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum

from arena.engine.errors import ConfigError


class GameCode(StrEnum):
    """PHH variant codes."""

    HOLDEM = "FT"
    OMAHA_HI_LO = "FO/8"
    RAZZ = "FR"
    STUD = "F7S"
    STUD_HI_LO = "F7S/8"


class Showdown(Enum):
    HIGH = "high"
    HIGH_LOW_8 = "high-low 8 or better"
    LOW = "ace-to-five low"


@dataclass(frozen=True, slots=True)
class Street:
    name: str
    burn: bool
    down_cards: int  # dealt face down to each player (hole cards)
    up_cards: int  # dealt face up to each player (stud)
    board_cards: int
    is_big_bet: bool
    up_first: bool = False  # stud third street deals down, down, up


@dataclass(frozen=True, slots=True)
class Variant:
    code: GameCode
    name: str
    letter: str  # the letter in H.O.R.S.E.
    streets: tuple[Street, ...]
    is_stud: bool
    showdown: Showdown
    is_omaha: bool = False
    open_pair_big_bet: bool = False  # stud high only
    bring_in_by_high_card: bool = False  # razz: the highest up card brings it in
    opens_by_low_showing: bool = False  # razz: the lowest showing hand acts first

    @property
    def hole_card_count(self) -> int:
        return sum(s.down_cards + s.up_cards for s in self.streets)


_FLOP_STREETS_2 = (
    Street("preflop", False, 2, 0, 0, False),
    Street("flop", True, 0, 0, 3, False),
    Street("turn", True, 0, 0, 1, True),
    Street("river", True, 0, 0, 1, True),
)
_FLOP_STREETS_4 = (Street("preflop", False, 4, 0, 0, False), *_FLOP_STREETS_2[1:])
_STUD_STREETS = (
    Street("third", True, 2, 1, 0, False),
    Street("fourth", True, 0, 1, 0, False),
    Street("fifth", True, 0, 1, 0, True),
    Street("sixth", True, 0, 1, 0, True),
    Street("seventh", True, 1, 0, 0, True),
)

HOLDEM = Variant(GameCode.HOLDEM, "Fixed-limit Texas Hold'em", "H", _FLOP_STREETS_2, False,
                 Showdown.HIGH)
OMAHA_HI_LO = Variant(GameCode.OMAHA_HI_LO, "Fixed-limit Omaha Hi-Lo 8 or better", "O",
                      _FLOP_STREETS_4, False, Showdown.HIGH_LOW_8, is_omaha=True)
RAZZ = Variant(GameCode.RAZZ, "Razz", "R", _STUD_STREETS, True, Showdown.LOW,
               bring_in_by_high_card=True, opens_by_low_showing=True)
STUD = Variant(GameCode.STUD, "Seven Card Stud", "S", _STUD_STREETS, True, Showdown.HIGH,
               open_pair_big_bet=True)
STUD_HI_LO = Variant(GameCode.STUD_HI_LO, "Seven Card Stud Hi-Lo 8 or better", "E",
                     _STUD_STREETS, True, Showdown.HIGH_LOW_8)

VARIANTS: dict[str, Variant] = {v.code.value: v for v in (HOLDEM, OMAHA_HI_LO, RAZZ, STUD, STUD_HI_LO)}
HORSE: tuple[str, ...] = ("FT", "FO/8", "FR", "F7S", "F7S/8")
ALL_GAMES = "all"  # the key of every game together (leaderboard rows, metric labels)


def variant_for(code: str) -> Variant:
    try:
        return VARIANTS[code]
    except KeyError:
        raise ConfigError(f"unknown game {code!r}; known: {', '.join(VARIANTS)}") from None

"""The games as data over one betting machine: streets, betting structure, forced bets, showdown."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum

from arena.engine.errors import ConfigError


class GameCode(StrEnum):
    """Game codes: the PHH variant codes, and ``PT`` for pot-limit hold'em (PHH has none).

    A ``PT`` hand is written to PHH as ``variant = "NT"`` with ``_betting = "pot-limit"``
    (every pot-limit action is also a legal no-limit action, so PokerKit reads it as NT).
    """

    HOLDEM = "FT"
    OMAHA_HI_LO = "FO/8"
    RAZZ = "FR"
    STUD = "F7S"
    STUD_HI_LO = "F7S/8"
    NO_LIMIT_HOLDEM = "NT"
    POT_LIMIT_OMAHA = "PO"
    POT_LIMIT_HOLDEM = "PT"

    @classmethod
    def parse(cls, text: str) -> GameCode:
        """The code named by ``text``; a :class:`ConfigError` listing the known codes otherwise."""
        try:
            return cls(text)
        except ValueError:
            raise ConfigError(
                f"unknown game {text!r}; known: {', '.join(c.value for c in cls)}") from None


class Betting(StrEnum):
    """How much a bet or raise may be (docs/house-rules.md §3 fixed limit, §4 no-limit and pot-limit)."""

    FIXED = "fixed"
    NO_LIMIT = "no-limit"
    POT_LIMIT = "pot-limit"


class ForcedBet(StrEnum):
    """Kinds of forced bets (docs/house-rules.md §2)."""

    ANTE = "ante"
    SMALL_BLIND = "small blind"
    BIG_BLIND = "big blind"
    BIG_BLIND_ANTE = "big blind ante"  # the whole table's ante, dead money in the main pot


class AnteKind(StrEnum):
    """Antes in the blind games (docs/house-rules.md §4): none, each player, or the big blind for all."""

    NONE = "none"
    EACH = "each"
    BIG_BLIND = "big_blind"


class StreetName(StrEnum):
    PREFLOP = "preflop"
    FLOP = "flop"
    TURN = "turn"
    RIVER = "river"
    THIRD = "third"
    FOURTH = "fourth"
    FIFTH = "fifth"
    SIXTH = "sixth"
    SEVENTH = "seventh"


class Showdown(Enum):
    HIGH = "high"
    HIGH_LOW_8 = "high-low 8 or better"
    LOW = "ace-to-five low"


@dataclass(frozen=True, slots=True, kw_only=True)
class Street:
    name: StreetName
    burn: bool
    down_cards: int  # dealt face down to each player (hole cards)
    up_cards: int  # dealt face up to each player (stud)
    board_cards: int
    is_big_bet: bool  # fixed limit: bets and raises are big bets on this street


@dataclass(frozen=True, slots=True)
class Variant:
    code: GameCode
    name: str
    letter: str  # the game's letter in leaderboards (H.O.R.S.E. for the five fixed-limit games)
    streets: tuple[Street, ...]
    is_stud: bool
    showdown: Showdown
    is_omaha: bool = False
    open_pair_big_bet: bool = False  # stud high only
    bring_in_by_high_card: bool = False  # razz: the highest up card brings it in
    opens_by_low_showing: bool = False  # razz: the lowest showing hand acts first
    betting: Betting = Betting.FIXED
    phh_code: str = ""  # the PHH variant written to logs; the game code when empty

    @property
    def hole_card_count(self) -> int:
        return sum(s.down_cards + s.up_cards for s in self.streets)

    @property
    def phh_variant(self) -> str:
        return self.phh_code or self.code.value


def _street(name: StreetName, *, burn: bool, down: int = 0, up: int = 0, board: int = 0,
            big: bool = False) -> Street:
    return Street(name=name, burn=burn, down_cards=down, up_cards=up, board_cards=board,
                  is_big_bet=big)


_FLOP_STREETS_2 = (
    _street(StreetName.PREFLOP, burn=False, down=2),
    _street(StreetName.FLOP, burn=True, board=3),
    _street(StreetName.TURN, burn=True, board=1, big=True),
    _street(StreetName.RIVER, burn=True, board=1, big=True),
)
_FLOP_STREETS_4 = (_street(StreetName.PREFLOP, burn=False, down=4), *_FLOP_STREETS_2[1:])
_STUD_STREETS = (
    _street(StreetName.THIRD, burn=True, down=2, up=1),
    _street(StreetName.FOURTH, burn=True, up=1),
    _street(StreetName.FIFTH, burn=True, up=1, big=True),
    _street(StreetName.SIXTH, burn=True, up=1, big=True),
    _street(StreetName.SEVENTH, burn=True, down=1, big=True),
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
NO_LIMIT_HOLDEM = Variant(GameCode.NO_LIMIT_HOLDEM, "No-limit Texas Hold'em", "N",
                          _FLOP_STREETS_2, False, Showdown.HIGH, betting=Betting.NO_LIMIT)
POT_LIMIT_OMAHA = Variant(GameCode.POT_LIMIT_OMAHA, "Pot-limit Omaha", "P", _FLOP_STREETS_4,
                          False, Showdown.HIGH, is_omaha=True, betting=Betting.POT_LIMIT)
POT_LIMIT_HOLDEM = Variant(GameCode.POT_LIMIT_HOLDEM, "Pot-limit Texas Hold'em", "T",
                           _FLOP_STREETS_2, False, Showdown.HIGH, betting=Betting.POT_LIMIT,
                           phh_code=GameCode.NO_LIMIT_HOLDEM.value)

VARIANTS: dict[GameCode, Variant] = {v.code: v for v in (
    HOLDEM, OMAHA_HI_LO, RAZZ, STUD, STUD_HI_LO, NO_LIMIT_HOLDEM, POT_LIMIT_OMAHA,
    POT_LIMIT_HOLDEM)}
HORSE: tuple[GameCode, ...] = (GameCode.HOLDEM, GameCode.OMAHA_HI_LO, GameCode.RAZZ,
                               GameCode.STUD, GameCode.STUD_HI_LO)
ALL_GAMES = "all"  # the key of every game together (leaderboard rows, metric labels)

# A game list entry may name a game by its family's code and a betting structure (docs/house-rules.md §4
# `betting`): hold'em is FT, NT or PT by its betting; Omaha hi only pot-limit (PO).
_BY_BETTING: dict[tuple[GameCode, Betting], GameCode] = {
    (GameCode.HOLDEM, Betting.FIXED): GameCode.HOLDEM,
    (GameCode.HOLDEM, Betting.NO_LIMIT): GameCode.NO_LIMIT_HOLDEM,
    (GameCode.HOLDEM, Betting.POT_LIMIT): GameCode.POT_LIMIT_HOLDEM,
}
for _code in (GameCode.NO_LIMIT_HOLDEM, GameCode.POT_LIMIT_HOLDEM):
    for _betting in Betting:
        _BY_BETTING[_code, _betting] = _BY_BETTING[GameCode.HOLDEM, _betting]
for _variant in VARIANTS.values():
    _BY_BETTING.setdefault((_variant.code, _variant.betting), _variant.code)


def variant_for(code: GameCode) -> Variant:
    try:
        return VARIANTS[code]
    except KeyError:
        raise ConfigError(
            f"unknown game {code!r}; known: {', '.join(c.value for c in VARIANTS)}") from None


def game_with_betting(code: GameCode, betting: Betting) -> GameCode:
    """The game that plays ``code``'s cards with ``betting`` (e.g. NT with pot-limit: PT)."""
    try:
        return _BY_BETTING[code, betting]
    except KeyError:
        supported = sorted({f"{c.value} {b.value}" for c, b in _BY_BETTING})
        raise ConfigError(f"game {code.value} cannot be played {betting.value}; "
                          f"supported: {', '.join(supported)}") from None

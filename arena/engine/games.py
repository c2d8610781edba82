"""The games as data over one betting machine: streets, betting structure, forced bets, showdown."""

from __future__ import annotations

from collections.abc import Iterable
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


class EngineGame(StrEnum):
    """Games the rules engine deals that the arena's other layers do not carry yet (the wire
    contract, PHH logs, replays, the luck adjustment, the web): ``variant_for`` knows them, a
    match's `games` key does not accept them (docs/house-rules.md §10; issue 42)."""

    DEUCE_TO_SEVEN_TRIPLE_DRAW = "F2L3D"  # the PHH variant code
    LONDON_LOWBALL = "FLL"  # PHH has no code for it
    STUD_WILD = "F7SW"  # seven-card stud with wild cards (the rules key `wild_ranks`), high
    STUD_WILD_LOW = "F7SWL"  # ... for low only (ace-to-five)
    STUD_WILD_HI_LO = "F7SW/8"  # ... high-low split, eight or better
    LOW_HOLE = "FLH"  # Low Hole: each seat's lowest down card's rank is wild for it
    LOW_HOLE_HI_LO = "FLH/8"  # Low Hole high-low, eight or better (aces in the hole: low wild)
    ENGLISH_STUD = "FES"  # English Stud: stud with two exchange rounds


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
    PREDRAW = "predraw"
    FIRST_DRAW = "first draw"
    SECOND_DRAW = "second draw"
    THIRD_DRAW = "third draw"


class Showdown(Enum):
    HIGH = "high"
    HIGH_LOW_8 = "high-low 8 or better"
    LOW = "ace-to-five low"
    DEUCE_TO_SEVEN = "deuce-to-seven low"
    ACE_TO_SIX = "ace-to-six low"
    WILD_HIGH = "high, wild cards"
    WILD_LOW = "ace-to-five low, wild cards"
    WILD_HIGH_LOW_8 = "high-low 8 or better, wild cards"
    LOW_HOLE = "high, the lowest down card wild"
    LOW_HOLE_HI_LO = "high-low 8 or better, the lowest down card wild"


WILD_SHOWDOWNS: frozenset[Showdown] = frozenset(
    {Showdown.WILD_HIGH, Showdown.WILD_LOW, Showdown.WILD_HIGH_LOW_8})  # §23: `wild_ranks`
LOW_HOLE_SHOWDOWNS: frozenset[Showdown] = frozenset(
    {Showdown.LOW_HOLE, Showdown.LOW_HOLE_HI_LO})  # §24: each seat's own wild rank


@dataclass(frozen=True, slots=True, kw_only=True)
class Street:
    name: StreetName
    burn: bool
    down_cards: int  # dealt face down to each player (hole cards)
    up_cards: int  # dealt face up to each player (stud)
    board_cards: int
    is_big_bet: bool  # fixed limit: bets and raises are big bets on this street
    # Draw games: before this street's betting each live seat in turn may exchange up to this
    # many cards (0: no exchange round); ``burn`` burns one card before the first exchange.
    exchange_max_cards: int = 0
    # English Stud's seventh card: dealt only with the rules key `english_seventh_card` and
    # at most five seats (docs/house-rules.md §25).
    is_optional_card: bool = False


@dataclass(frozen=True, slots=True)
class Variant:
    code: GameCode | EngineGame
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
    max_seats: int = 8  # docs/house-rules.md §20: hold'em 11, Omaha 10, stud 8 (its deck runs out)
    priced_exchanges: bool = False  # English Stud: an exchange costs `exchange_price` chips

    @property
    def hole_card_count(self) -> int:
        return sum(s.down_cards + s.up_cards for s in self.streets)

    @property
    def phh_variant(self) -> str:
        return self.phh_code or self.code.value


def _street(name: StreetName, *, burn: bool, down: int = 0, up: int = 0, board: int = 0,
            big: bool = False, exchange: int = 0, optional: bool = False) -> Street:
    return Street(name=name, burn=burn, down_cards=down, up_cards=up, board_cards=board,
                  is_big_bet=big, exchange_max_cards=exchange, is_optional_card=optional)


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

# docs/house-rules.md §21 (PokerKit's fixed-limit deuce-to-seven triple draw): five cards, four
# betting rounds with three draws between them (a burn before each), small bets for the
# first two rounds and big bets for the last two.
_TRIPLE_DRAW_STREETS = (
    _street(StreetName.PREDRAW, burn=False, down=5),
    _street(StreetName.FIRST_DRAW, burn=True, exchange=5),
    _street(StreetName.SECOND_DRAW, burn=True, exchange=5, big=True),
    _street(StreetName.THIRD_DRAW, burn=True, exchange=5, big=True),
)

# docs/house-rules.md §20: hold'em seats 2 to 11 [000 "zwei bis maximal elf Personen"]; Omaha 2 to 10
# (Decision, as casinos seat it: 11 Omaha hands, 3 burns and 5 board cards would take all 52).
_HOLDEM_SEATS = 11
_OMAHA_SEATS = 10

HOLDEM = Variant(GameCode.HOLDEM, "Fixed-limit Texas Hold'em", "H", _FLOP_STREETS_2, False,
                 Showdown.HIGH, max_seats=_HOLDEM_SEATS)
OMAHA_HI_LO = Variant(GameCode.OMAHA_HI_LO, "Fixed-limit Omaha Hi-Lo 8 or better", "O",
                      _FLOP_STREETS_4, False, Showdown.HIGH_LOW_8, is_omaha=True,
                      max_seats=_OMAHA_SEATS)
RAZZ = Variant(GameCode.RAZZ, "Razz", "R", _STUD_STREETS, True, Showdown.LOW,
               bring_in_by_high_card=True, opens_by_low_showing=True)
STUD = Variant(GameCode.STUD, "Seven Card Stud", "S", _STUD_STREETS, True, Showdown.HIGH,
               open_pair_big_bet=True)
STUD_HI_LO = Variant(GameCode.STUD_HI_LO, "Seven Card Stud Hi-Lo 8 or better", "E",
                     _STUD_STREETS, True, Showdown.HIGH_LOW_8)
NO_LIMIT_HOLDEM = Variant(GameCode.NO_LIMIT_HOLDEM, "No-limit Texas Hold'em", "N",
                          _FLOP_STREETS_2, False, Showdown.HIGH, betting=Betting.NO_LIMIT,
                          max_seats=_HOLDEM_SEATS)
POT_LIMIT_OMAHA = Variant(GameCode.POT_LIMIT_OMAHA, "Pot-limit Omaha", "P", _FLOP_STREETS_4,
                          False, Showdown.HIGH, is_omaha=True, betting=Betting.POT_LIMIT,
                          max_seats=_OMAHA_SEATS)
POT_LIMIT_HOLDEM = Variant(GameCode.POT_LIMIT_HOLDEM, "Pot-limit Texas Hold'em", "T",
                           _FLOP_STREETS_2, False, Showdown.HIGH, betting=Betting.POT_LIMIT,
                           phh_code=GameCode.NO_LIMIT_HOLDEM.value, max_seats=_HOLDEM_SEATS)

DEUCE_TO_SEVEN_TRIPLE_DRAW = Variant(
    EngineGame.DEUCE_TO_SEVEN_TRIPLE_DRAW, "Fixed-limit 2-7 Triple Draw", "D", _TRIPLE_DRAW_STREETS,
    False, Showdown.DEUCE_TO_SEVEN, max_seats=6)

VARIANTS: dict[GameCode, Variant] = {GameCode(v.code): v for v in (
    HOLDEM, OMAHA_HI_LO, RAZZ, STUD, STUD_HI_LO, NO_LIMIT_HOLDEM, POT_LIMIT_OMAHA,
    POT_LIMIT_HOLDEM)}
# docs/house-rules.md §22 [002 "London Lowball ist ein Stud Poker mit sieben Karten, der nur für
# niedrige Blätter gespielt wird und bei dem die Rangfolge Ass-bis-Sechs verwendet wird"]:
# razz's deal, bring-in (the highest up card, aces low) and order of action (the lowest
# showing hand: with at most four up cards no straight or flush shows, so ace-to-five and
# ace-to-six order them alike), ranked ace-to-six at the showdown.
LONDON_LOWBALL = Variant(EngineGame.LONDON_LOWBALL, "London Lowball", "L", _STUD_STREETS, True,
                         Showdown.ACE_TO_SIX, bring_in_by_high_card=True,
                         opens_by_low_showing=True)

# docs/house-rules.md §23 [002 "Stud mit sieben Karten, Zweien Wild ... auch für die High-Low- oder
# Low-Only-Varianten"]: stud's deal, bring-in and order of action (a wild up card counts at
# its face rank: Decision); the wild ranks are the rules key `wild_ranks`. The low-only game
# is dealt as razz (the highest up card brings it in, the lowest showing hand opens).
STUD_WILD = Variant(EngineGame.STUD_WILD, "Seven Card Stud, wild cards", "W", _STUD_STREETS,
                    True, Showdown.WILD_HIGH)
STUD_WILD_LOW = Variant(EngineGame.STUD_WILD_LOW, "Seven Card Stud low, wild cards", "X",
                        _STUD_STREETS, True, Showdown.WILD_LOW, bring_in_by_high_card=True,
                        opens_by_low_showing=True)
STUD_WILD_HI_LO = Variant(EngineGame.STUD_WILD_HI_LO, "Seven Card Stud Hi-Lo 8, wild cards",
                          "Y", _STUD_STREETS, True, Showdown.WILD_HIGH_LOW_8)
# docs/house-rules.md §24 [002 "Low Hole ... die niedrigste verdeckte Karte eines Spielers
# ausschließlich für diesen Spieler als Wild Card"], played high (the seed's default).
LOW_HOLE = Variant(EngineGame.LOW_HOLE, "Low Hole", "Z", _STUD_STREETS, True,
                   Showdown.LOW_HOLE)
# [002: "Wenn es als High-Low-Spiel gespielt wird ... und Sie haben ein Ass in Ihren
# Anfangskarten (hole cards), dann werden die Asse zu Wild Cards für niedrige Blätter, jedoch
# nicht für hohe Blätter"]: low ace-to-five, eight or better (docs/house-rules.md §5), dealt as stud hi-lo.
LOW_HOLE_HI_LO = Variant(EngineGame.LOW_HOLE_HI_LO, "Low Hole Hi-Lo 8 or better", "Q",
                         _STUD_STREETS, True, Showdown.LOW_HOLE_HI_LO)

# docs/house-rules.md §25 [002 English Stud]: at most six players; dealt and bet as seven-card stud
# to fifth street; then an exchange round (one card, up for up or down for down, or stand pat)
# before the sixth card (face up) and its betting, a second exchange round, and the last
# betting round; with `english_seventh_card` and five players or fewer a seventh card, down,
# after the second exchange round.
_ENGLISH_STREETS = (
    *_STUD_STREETS[:3],
    _street(StreetName.SIXTH, burn=True, up=1, big=True, exchange=1),
    _street(StreetName.SEVENTH, burn=True, down=1, big=True, exchange=1, optional=True),
)
ENGLISH_STUD = Variant(EngineGame.ENGLISH_STUD, "English Stud", "G", _ENGLISH_STREETS, True,
                       Showdown.HIGH, open_pair_big_bet=True, max_seats=6,
                       priced_exchanges=True)

ENGINE_VARIANTS: dict[str, Variant] = {v.code: v for v in (
    DEUCE_TO_SEVEN_TRIPLE_DRAW, LONDON_LOWBALL, STUD_WILD, STUD_WILD_LOW, STUD_WILD_HI_LO,
    LOW_HOLE, LOW_HOLE_HI_LO, ENGLISH_STUD)}
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
    _BY_BETTING.setdefault((GameCode(_variant.code), _variant.betting), GameCode(_variant.code))

# Every game a match may deal: the arena's codes and issue 42's (docs/house-rules.md §21-§25).
ALL_VARIANTS: dict[str, Variant] = {**{code.value: v for code, v in VARIANTS.items()}, **ENGINE_VARIANTS}


def max_seats(games: Iterable[GameCode | str]) -> int:
    """The most seats a table dealing every one of ``games`` can have (docs/house-rules.md §20)."""
    return min((variant_for(str(g)).max_seats for g in games), default=8)


def variant_for(code: GameCode | EngineGame | str) -> Variant:
    """The variant of a game code: the arena's games, and the engine-only ones
    (:class:`EngineGame`)."""
    try:
        return ALL_VARIANTS[code]
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

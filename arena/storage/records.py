"""What the results store holds: leagues, bots, matches, hands, as frozen values, and their checks.

The checks here run before any database is touched, so every backend refuses the same records
with the same messages.
"""

from __future__ import annotations

import math
import re
import tomllib
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum

from arena.engine.errors import ConfigError
from arena.engine.games import ALL_VARIANTS
from arena.storage.errors import InvalidRecord


class MatchStatus(StrEnum):
    RUNNING = "running"
    FINISHED = "finished"
    ABORTED = "aborted"


class MatchFormat(StrEnum):
    CASH = "cash"
    TOURNAMENT = "tournament"


class HandStatus(StrEnum):
    COMPLETED = "completed"
    VOID = "void"


@dataclass(frozen=True, slots=True)
class League:
    league_id: int
    name: str
    config_toml: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Bot:
    """A registered bot; the token's hash never leaves the store."""

    bot_id: int
    name: str
    created_at: datetime


@dataclass(frozen=True, slots=True)
class Match:
    match_id: int
    league_id: int
    games: tuple[str, ...]  # the rotation, PHH codes
    match_format: MatchFormat
    is_duplicate: bool
    seat_bots: tuple[str, ...]  # bot name per seat at the start of the match
    status: MatchStatus
    seed: str | None  # secret while running: revealed by finish_match / abort_match
    created_at: datetime
    finished_at: datetime | None


@dataclass(frozen=True, slots=True)
class SeatResult:
    seat: int  # 0-based seat of the hand, as in its PHH log
    bot: str
    net_chips: int
    final_stack_chips: int
    timeouts: int = 0  # automatic actions after the deadline
    absent_decisions: int = 0  # automatic actions while disconnected
    rejected_replies: int = 0  # invalid replies refused
    disconnects: int = 0  # connections lost during the hand
    sdk_fallbacks: int = 0  # replies the bot's SDK sent in place of its code's (check or fold)


@dataclass(frozen=True, slots=True)
class FaultCounts:
    """A bot's faults in one stored match (summed over its completed hands). A duplicate
    match stores its copies (each a match of the schedule) under one id: ``matches`` counts
    the copies the bot played a completed hand in (1 for any other match)."""

    bot: str
    match_id: int
    hands: int
    timeouts: int
    absent_decisions: int
    rejected_replies: int
    disconnects: int
    sdk_fallbacks: int = 0
    matches: int = 1


@dataclass(frozen=True, slots=True)
class LeftOutHand:
    """A completed hand the leaderboard does not score: another copy of its deal was voided
    (duplicate practice: a fouled board is scored in no copy, so that luck still cancels)."""

    match_id: int
    copy_index: int
    hand_number: int
    deal_id: str
    void_reason: str  # why the other copy was voided


@dataclass(frozen=True, slots=True)
class HandRecord:
    """One completed hand: what `record_hand` commits and `completed_hands` returns."""

    match_id: int
    hand_number: int  # 1-based within the match
    copy_index: int  # 0 unless the match is duplicate: which replay of the deal
    deal_id: str  # the same for every copy of one deal
    game_code: str
    small_bet_chips: int
    button_seat: int
    seats: tuple[SeatResult, ...]
    phh_text: str
    started_at: datetime
    finished_at: datetime


@dataclass(frozen=True, slots=True)
class VoidHand:
    """A misdeal (docs/house-rules.md §6): every chip went back; it keeps its hand number and counts
    for nobody."""

    match_id: int
    hand_number: int
    copy_index: int
    deal_id: str
    game_code: str
    small_bet_chips: int
    button_seat: int
    reason: str
    phh_text: str  # the log up to the failure; may be empty
    started_at: datetime
    voided_at: datetime


@dataclass(frozen=True, slots=True)
class ResultRow:
    """One bot's result in one completed hand: what `arena.league.stats` ranks."""

    bot: str
    game_code: str
    net_chips: int
    small_bet_chips: int
    match_id: int
    deal_id: str  # the same for every copy of one deal
    copy_index: int = 0
    opponents: tuple[tuple[str, int], ...] = ()  # (bot, net chips) of every other seat of the hand
    hand_number: int = 0
    seat: int = 0
    luck_chips: float | None = None  # this seat's luck (chance-only AIVAT), when computed
    opponents_luck_chips: tuple[float, ...] = ()  # the same for each of ``opponents``, when computed


@dataclass(frozen=True, slots=True)
class TournamentPlacing:
    """A bot's place in one tournament of a league (docs/house-rules.md §8): ``tournament`` is "t1", "t2"
    (seed 003's tournaments), "freezeout", a tie-break heads-up's event id, or "overall" (the
    standings: points summed, ties settled). ``eliminated_at_hand``: the deal id of the hand in
    which the bot went out for this place; None for a winner and for "overall"."""

    tournament: str
    bot: str
    place: int
    points: int
    eliminated_at_hand: str | None = None


@dataclass(frozen=True, slots=True)
class LuckPending:
    """A completed hand of an ended match (its seed revealed) whose luck is not in the store."""

    match_id: int
    hand_number: int
    copy_index: int
    seed: str
    phh_text: str


@dataclass(frozen=True, slots=True)
class HandLuckRecord:
    """Each seat's luck in one hand under one value function (``LuckSettings.name``)."""

    match_id: int
    hand_number: int
    copy_index: int
    value_function: str
    luck_chips: tuple[float, ...]  # by seat


# --------------------------------------------------------------------------- timestamps


def now() -> datetime:
    return datetime.now(UTC)


def timestamp_text(moment: datetime) -> str:
    """How every backend stores a moment: ISO 8601 in UTC with microseconds."""
    if moment.tzinfo is None:
        raise InvalidRecord(f"timestamp {moment.isoformat()} has no time zone; use an aware datetime")
    return moment.astimezone(UTC).isoformat(timespec="microseconds")


def parse_timestamp(text: str) -> datetime:
    return datetime.fromisoformat(text)


# --------------------------------------------------------------------------- checks

_BOT_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.\-]{0,63}")
_LEAGUE_NAME_MAX = 200


def check_league(name: str, config_toml: str) -> None:
    if not name.strip() or len(name) > _LEAGUE_NAME_MAX:
        raise InvalidRecord(f"league name must have 1 to {_LEAGUE_NAME_MAX} characters, not {name!r}")
    try:
        tomllib.loads(config_toml)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"league {name!r}: config is not valid TOML: {exc}") from None


def check_bot(name: str, token: str) -> None:
    if not _BOT_NAME.fullmatch(name):
        raise InvalidRecord(f"bot name {name!r}: 1 to 64 of A-Z a-z 0-9 _ . -, starting with a letter "
                            f"or digit")
    if not token:
        raise InvalidRecord(f"bot {name!r}: empty token")


def check_match(seat_bots: Sequence[str], games: Sequence[str]) -> None:
    if len(seat_bots) < 2:
        raise InvalidRecord(f"a match needs at least two seats, got {len(seat_bots)}")
    if len(set(seat_bots)) != len(seat_bots):
        raise InvalidRecord(f"a bot sits at most once in a match: {', '.join(seat_bots)}")
    if not games or any(g not in ALL_VARIANTS for g in games):
        raise InvalidRecord(f"games must be PHH codes among {', '.join(ALL_VARIANTS)}, not {list(games)}")


def result_fields(hand: HandRecord) -> tuple[object, ...]:
    """What makes two records the same hand (timestamps may differ on a retry)."""
    return (hand.deal_id, hand.game_code, hand.small_bet_chips, hand.button_seat, hand.seats, hand.phh_text)


def check_hand(hand: HandRecord) -> None:
    where = f"match {hand.match_id} hand {hand.hand_number} copy {hand.copy_index}"
    if hand.hand_number < 1 or hand.copy_index < 0:
        raise InvalidRecord(f"{where}: hand numbers start at 1, copies at 0")
    if hand.game_code not in ALL_VARIANTS:
        raise InvalidRecord(f"{where}: unknown game {hand.game_code!r}")
    if hand.small_bet_chips <= 0:
        raise InvalidRecord(f"{where}: small bet must be positive, not {hand.small_bet_chips}")
    if len(hand.seats) < 2:
        raise InvalidRecord(f"{where}: a hand has at least two seats")
    if [s.seat for s in hand.seats] != list(range(len(hand.seats))):
        raise InvalidRecord(f"{where}: seats must be 0..{len(hand.seats) - 1} in order")
    if len({s.bot for s in hand.seats}) != len(hand.seats):
        raise InvalidRecord(f"{where}: a bot sits twice")
    if not 0 <= hand.button_seat < len(hand.seats):
        raise InvalidRecord(f"{where}: button seat {hand.button_seat} is not a seat")
    total = sum(s.net_chips for s in hand.seats)
    if total != 0:
        raise InvalidRecord(f"{where}: net chips sum to {total}, not 0 (chips are only won from other seats)")
    if any(s.final_stack_chips < 0 for s in hand.seats):
        raise InvalidRecord(f"{where}: a final stack is negative")


def check_luck(record: HandLuckRecord) -> None:
    where = f"match {record.match_id} hand {record.hand_number} copy {record.copy_index}"
    if not record.value_function or len(record.value_function) > 100:
        raise InvalidRecord(f"{where}: the value function needs a name of 1 to 100 characters")
    if not record.luck_chips or any(not math.isfinite(v) for v in record.luck_chips):
        raise InvalidRecord(f"{where}: luck values must be finite numbers, one per seat")


def check_placing(placing: TournamentPlacing) -> None:
    where = f"tournament {placing.tournament[:100]!r} bot {placing.bot[:64]!r}"
    if not 1 <= len(placing.tournament) <= 100 or not placing.tournament.isprintable():
        raise InvalidRecord(f"{where}: a tournament id has 1 to 100 printable characters")
    if not 1 <= placing.place <= 1_000_000 or not 0 <= placing.points <= 10**9:
        raise InvalidRecord(f"{where}: place must be 1 to 10^6 and points 0 to 10^9, not "
                            f"{placing.place} and {placing.points}")
    hand = placing.eliminated_at_hand
    if hand is not None and not (1 <= len(hand) <= 200 and hand.isprintable()):
        raise InvalidRecord(f"{where}: a hand id has 1 to 200 printable characters")


def check_void(hand: VoidHand) -> None:
    if hand.hand_number < 1 or hand.copy_index < 0:
        raise InvalidRecord(f"hand number {hand.hand_number} / copy {hand.copy_index} out of range")
    if hand.game_code not in ALL_VARIANTS:
        raise InvalidRecord(f"unknown game {hand.game_code!r}")
    if not hand.reason.strip():
        raise InvalidRecord("a void hand needs a reason")

"""What a match is asked to play: its seats, rules, hand count and seed (and where to resume).

Read by the server's config, the league runner and the live table alike; no trio here.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from arena.engine.rules import Rules
from arena.match.messages import TournamentInfo


class AbsentPolicy(StrEnum):
    """What a match does when its bots are not all connected by the start timeout."""

    WAIT = "wait"  # postpone: deal nothing, let other matches play, try again later
    FORFEIT = "forfeit"  # do not play it: the match ends with no hands, naming who was absent
    CHECK_FOLD = "check_fold"  # deal anyway: absent seats check or fold (docs/house-rules.md §6)


@dataclass(frozen=True, slots=True)
class SeatSpec:
    name: str
    bot_id: str


@dataclass(frozen=True, slots=True)
class MatchSpec:
    match_id: str
    seats: tuple[SeatSpec, ...]
    rules: Rules
    hands: int
    seed: int
    start_timeout_seconds: float = 30.0  # wait this long for every bot before dealing
    first_hand: int = 0  # resume: hands before this index were played (or voided) already
    copy_index: int = 0  # duplicate: which copy of the deal set this match is
    copies_total: int = 1
    deal_set_id: str = ""  # duplicate copies share it (and the seed)
    initial_stacks: tuple[int, ...] | None = None  # resume with carried stacks (per seat)
    absent: AbsentPolicy = AbsentPolicy.CHECK_FOLD  # when bots are missing at the start
    button_seat: int | None = None  # the first hand's button; None: drawn by card (docs/house-rules.md §2)
    tournament: TournamentInfo | None = None  # a tournament hand: told to the bots
    # MatchEnded reveals the seed to the bots (never for an aborted match). False when other
    # matches share the deals (duplicate copies, a league): the seed is published later.
    reveal_seed: bool = True
    first_sequence: int = 0  # resume: event sequence numbers continue after this one
    # resume: per seat, its net chips in each hand completed before ``first_hand`` (a seat out of
    # a hand has no entry for it), so that the match's result covers the whole match
    earlier_seat_nets: tuple[tuple[int, ...], ...] = ()
    earlier_hands: int = 0  # resume: hands completed before ``first_hand`` (voided ones not)

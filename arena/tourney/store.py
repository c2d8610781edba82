"""Tournament hands and placings in the results store: one finished match of format "tournament"
per hand (every game, NT/PO/PT included, since migration 6), and the placings of each tournament.

Each tournament hand is a one-hand match of its own (its seats change from hand to hand), so it
is stored as a match holding that hand, finished with the hand's seed revealed (the seed of one
hand reveals no other: seeds are derived with a keyed hash). Writes are idempotent per hand id,
so a resumed tournament never stores a hand twice, and a match left empty by a kill is aborted.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.league.config import LeagueBot
from arena.league.hosting import register_league
from arena.storage import store as st
from arena.storage.matchlog import make_private_store
from arena.tourney.event import EventState
from arena.tourney.formats import FormatResult
from arena.tourney.results import OVERALL


class TournamentStore:
    def __init__(self, location: Path | str, *, name: str, source_toml: str,
                 bots: tuple[LeagueBot, ...]) -> None:
        if isinstance(location, Path):
            make_private_store(location)
        self.store = st.open_store(location)
        self.league_id = register_league(self.store, name, source_toml, bots).league_id
        self.stored: set[str] = set()
        for match in self.store.list_matches(self.league_id):
            hands = self.store.completed_hands(match.match_id)
            if match.status is st.MatchStatus.RUNNING and not hands:
                self.store.abort_match(match.match_id)  # created, then the dealer was killed
            self.stored.update(h.deal_id for h in hands)

    def close(self) -> None:
        self.store.close()

    def record(self, hand: dict[str, Any]) -> None:
        """Store one finished hand (``hand``: as :func:`hand_entry` made it) once."""
        hand_id = str(hand["hand_id"])
        if hand_id in self.stored:
            return
        players = [str(p) for p in hand["players"]]
        match = self.store.create_match(self.league_id, seat_bots=players, games=[hand["game"]],
                                        match_format=st.MatchFormat.TOURNAMENT)
        seats = tuple(st.SeatResult(k, players[k], int(end) - int(start), int(end), *faults)
                      for k, (start, end, faults) in enumerate(zip(
                          hand["starting"], hand["finishing"], hand["faults"], strict=True)))
        when = datetime.fromtimestamp(float(hand["finished_at"]), UTC)
        self.store.record_hand(st.HandRecord(
            match_id=match.match_id, hand_number=1, copy_index=0, deal_id=hand_id,
            game_code=str(hand["game"]), small_bet_chips=int(hand["small_bet"]),
            button_seat=len(players) - 1, seats=seats, phh_text=str(hand["phh_text"]),
            started_at=when, finished_at=when))
        self.store.finish_match(match.match_id, str(hand["seed"]))
        self.stored.add(hand_id)

    def record_placings(self, placings: Sequence[st.TournamentPlacing]) -> None:
        self.store.record_placings(self.league_id, placings)


def tournament_of(event_id: str) -> str:
    """The tournament an event belongs to: "t2" for seed 003's "t2-final"; else the event."""
    match = re.match(r"(t\d+)-", event_id)
    return match.group(1) if match else event_id


def tournament_placings(result: FormatResult, events: Sequence[EventState]
                        ) -> list[st.TournamentPlacing]:
    """The rows of the placings table: per tournament ("t1", "t2" of seed 003, or "freezeout")
    each bot's place (its points there) and the hand it went out in; per tie-break heads-up the
    same (no points); and the standings as "overall" (points summed, the place after ties)."""
    places: dict[str, dict[str, int]] = {}
    out_at: dict[str, dict[str, str]] = {}
    for state in events:  # in the order played: a later elimination decides the place
        event_id = state.spec.event_id
        tournament = tournament_of(event_id)
        for out in state.eliminations:
            out_at.setdefault(tournament, {})[out.player] = f"{event_id}-t{out.table}-h{out.hand}"
        if tournament == event_id:  # a freeze-out or a tie-break: one event, its own places
            places[tournament] = state.places()
    if any(tournament_of(s.spec.event_id) != s.spec.event_id for s in events):
        for standing in result.standings:  # seed 003: the placing in each tournament
            for t, place in enumerate(standing.placings, start=1):
                places.setdefault(f"t{t}", {})[standing.player] = place
    rows = [st.TournamentPlacing(OVERALL, s.player, s.place, s.points) for s in result.standings]
    for tournament, by_player in sorted(places.items()):
        for player, place in sorted(by_player.items(), key=lambda kv: (kv[1], kv[0])):
            points = 0 if tournament.startswith("tie") else place
            rows.append(st.TournamentPlacing(tournament, player, place, points,
                                             out_at.get(tournament, {}).get(player)))
    return rows


def hand_entry(*, hand_id: str, fields: dict[str, Any], phh_text: str, seed: int,
               finished_at: float, big_blind: int) -> dict[str, Any]:
    """What the store needs of a hand, as JSON (it waits in the tournament state until stored)."""
    n = len(fields["players"])

    def per_seat(key: str) -> list[int]:
        values = list(fields.get(key, []))
        return [int(values[k]) if k < len(values) else 0 for k in range(n)]

    faults = list(zip(per_seat("_timeouts"), per_seat("_absent"), per_seat("_rejected"),
                      per_seat("_disconnects"), per_seat("_sdk_fallbacks"), strict=True))
    return {"hand_id": hand_id, "players": list(fields["players"]), "game": fields["variant"],
            "small_bet": int(fields.get("small_bet") or big_blind),
            "starting": list(fields["starting_stacks"]),
            "finishing": list(fields["finishing_stacks"]), "faults": [list(f) for f in faults],
            "phh_text": phh_text, "seed": str(seed), "finished_at": finished_at}

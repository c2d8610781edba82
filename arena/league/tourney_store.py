"""Tournament hands in the results store: one finished match of format "tournament" per hand.

Each tournament hand is a one-hand match of its own (its seats change from hand to hand), so it
is stored as a match holding that hand, finished with the hand's seed revealed (the seed of one
hand reveals no other: seeds are derived with a keyed hash). Writes are idempotent per hand id,
so a resumed tournament never stores a hand twice, and a match left empty by a kill is aborted.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from arena.engine.errors import ConfigError
from arena.engine.games import HORSE
from arena.league.config import LeagueBot
from arena.storage import store as st

# The hands table checks its game codes (migration 1): H.O.R.S.E. only until a migration adds more.
STORABLE_GAMES = frozenset(HORSE)


class TournamentStore:
    def __init__(self, path: Path, *, name: str, source_toml: str,
                 bots: tuple[LeagueBot, ...]) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.store = st.SqliteStore(path)
        league = self.store.find_league(name)
        if league is None:
            league = self.store.create_league(name, source_toml or "name = ''\n")
        self.league_id = league.league_id
        for bot in bots:
            try:
                self.store.get_bot(bot.name)
            except st.NotFound:
                self.store.register_bot(bot.name, bot.token)
                continue
            if not self.store.verify_bot_token(bot.name, bot.token):
                raise ConfigError(f"bot {bot.name!r}: the token differs from the one this store "
                                  "registered; a bot keeps its token")
        self.stored: set[str] = set()
        for match in self.store.list_matches(self.league_id):
            hands = self.store.completed_hands(match.match_id)
            if match.status is st.MatchStatus.RUNNING and not hands:
                self.store.abort_match(match.match_id)  # created, then the dealer was killed
            self.stored.update(h.deal_id for h in hands)

    def close(self) -> None:
        self.store.close()

    def record(self, hand: dict[str, Any]) -> bool:
        """Store one finished hand (``hand``: as :func:`hand_entry` made it) once; False when
        the store's schema does not take its game (the hand stays in the PHH logs)."""
        hand_id = str(hand["hand_id"])
        if hand_id in self.stored:
            return True
        if hand["game"] not in STORABLE_GAMES:
            return False
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
        return True


def hand_entry(*, hand_id: str, fields: dict[str, Any], phh_text: str, seed: int,
               finished_at: float, big_blind: int) -> dict[str, Any]:
    """What the store needs of a hand, as JSON (it waits in the tournament state until stored)."""
    n = len(fields["players"])

    def per_seat(key: str) -> list[int]:
        values = list(fields.get(key, []))
        return [int(values[k]) if k < len(values) else 0 for k in range(n)]

    faults = list(zip(per_seat("_timeouts"), per_seat("_absent"), per_seat("_rejected"),
                      per_seat("_disconnects"), strict=True))
    return {"hand_id": hand_id, "players": list(fields["players"]), "game": fields["variant"],
            "small_bet": int(fields.get("small_bet") or big_blind),
            "starting": list(fields["starting_stacks"]),
            "finishing": list(fields["finishing_stacks"]), "faults": [list(f) for f in faults],
            "phh_text": phh_text, "seed": str(seed), "finished_at": finished_at}

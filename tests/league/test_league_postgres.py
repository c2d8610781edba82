"""The same league on PostgreSQL and on SQLite: same hands, same leaderboard; the URL's password is
never printed."""

from __future__ import annotations

import json
from pathlib import Path

from arena.league.config import load_league
from arena.storage.store import ResultsStore, open_store
from tests.league.test_league_e2e import LeagueProcess, write_league
from tests.pgserver import PostgresServer

BOTS = [("alpha", "rules"), ("beta", "call"), ("gamma", "rules")]  # deterministic bots


def hands_of(store: ResultsStore) -> list[tuple[object, ...]]:
    league = store.list_leagues()[0]
    return [(m.seat_bots, h.hand_number, h.copy_index, h.deal_id, h.game_code, h.seats)
            for m in store.list_matches(league.league_id) for h in store.completed_hands(m.match_id)]


def test_a_league_on_postgresql_equals_the_same_league_on_sqlite(tmp_path: Path,
                                                                   postgres: PostgresServer) -> None:
    url = postgres.new_database().replace("arena@", "arena:not-a-real-password@")
    boards, hands = [], []
    for kind, store in (("sqlite", "league.sqlite"), ("postgresql", url)):
        folder = tmp_path / kind
        folder.mkdir()
        league = write_league(folder, BOTS, store=store, hands_per_match=6)
        code, output = LeagueProcess(league, BOTS).wait()
        assert code == 0, output
        assert "not-a-real-password" not in output
        boards.append(json.loads((folder / "logs" / "leaderboard.json").read_text()))
        opened = open_store(load_league(league).store)
        hands.append(hands_of(opened))
        opened.close()
    assert len(hands[0]) == 3 * 2 * 6
    assert hands[0] == hands[1]
    assert boards[0] == boards[1]

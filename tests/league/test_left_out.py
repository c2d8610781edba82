"""No silent gaps (issue 39 item 5): after a resume voided a hand of one duplicate copy, the
leaderboard (table, JSON, web) and `league status` say which played hands they leave out and
why (the other copies of the voided deal; before, they were left out without a word)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from starlette.testclient import TestClient

import arena.storage.tokens as tokens_module
from arena.league.commands import league_status, show_leaderboard
from arena.league.config import load_league
from arena.league.runner import LeagueRun
from arena.storage.store import VoidHand
from arena.web.app import WebApp
from arena.web.site import LeagueSite
from tests.league.test_league_e2e import write_league
from tests.storage.test_store import T0, make_hand

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


@pytest.fixture(autouse=True)
def cheap_token_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)


def _resumed_league(tmp_path: Path) -> tuple[Path, int]:
    """A duplicate league's store as a resume leaves it: copy 0 played hands 1-3 and its hand 4
    was voided (the dealer was killed during it); copy 1 played all four."""
    path = write_league(tmp_path, [("alpha", "call"), ("beta", "call")], hands_per_match=4,
                        duplicate=True)
    run = LeagueRun(load_league(path))
    try:
        league = run._league()
        store = run.store
        match = store.create_match(league.league_id, seat_bots=("alpha", "beta"), games=("FT",),
                                   is_duplicate=True)
        for number in (1, 2, 3):
            assert store.record_hand(make_hand(match.match_id, number, ("alpha", "beta"), (10, -10),
                                               deal_id=f"r1-t1/deal-{number}"))
        store.void_hand(VoidHand(match.match_id, 4, 0, "r1-t1/deal-4", "FT", 20, 1,
                                 "misdeal: the dealer stopped during the hand", "", T0, T0))
        for number in (1, 2, 3, 4):
            assert store.record_hand(make_hand(match.match_id, number, ("beta", "alpha"), (-10, 10),
                                               copy_index=1, deal_id=f"r1-t1/deal-{number}"))
        return path, match.match_id
    finally:
        run.close()


def test_the_leaderboard_and_status_name_the_hands_they_leave_out(tmp_path: Path) -> None:
    path, match_id = _resumed_league(tmp_path)
    named = (f"match {match_id} copy 1 hand 4 (deal r1-t1/deal-4: misdeal: the dealer stopped "
             "during the hand)")
    out = io.StringIO()
    assert show_leaderboard(str(path), fmt="table", out=out) == 0
    assert "Left out: 1 completed hand(s) whose deal was voided in another copy" in out.getvalue()
    assert named in out.getvalue(), out.getvalue()
    out = io.StringIO()
    assert show_leaderboard(str(path), fmt="json", out=out) == 0
    assert json.loads(out.getvalue())["left_out"] == [
        {"match_id": match_id, "copy_index": 1, "hand_number": 4, "deal_id": "r1-t1/deal-4",
         "why": "another copy of its deal was voided: misdeal: the dealer stopped during the hand"}]
    out = io.StringIO()
    assert league_status(str(path), out=out) == 0
    first = out.getvalue().splitlines()[0]
    assert "7 of 8 hands played, 1 void" in first
    assert "1 played but left out of the leaderboard (other copies of voided deals" in first, first
    assert named in out.getvalue()
    # The web leaderboard and its JSON.
    client = TestClient(WebApp(LeagueSite(load_league(path))).starlette())
    assert named in client.get("/leaderboard").text
    assert client.get("/api/leaderboard.json").json()["left_out"][0]["hand_number"] == 4


def test_nothing_left_out_says_nothing(tmp_path: Path) -> None:
    path = write_league(tmp_path, [("alpha", "call"), ("beta", "call")], hands_per_match=4)
    run = LeagueRun(load_league(path))
    run._league()
    run.close()
    out = io.StringIO()
    assert show_leaderboard(str(path), fmt="table", out=out) == 0
    assert "Left out" not in out.getvalue()

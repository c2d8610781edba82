"""`arena league status` names the bots that matches postponed by workers wait for (absent =
"wait"), as the coordinator's progress line does: read from the store's `job_waits`."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import arena.storage.tokens as tokens_module
from arena.league.commands import league_status
from arena.league.config import load_league
from arena.league.runner import LeagueRun
from arena.storage.queue import JobWaits
from tests.league.test_league_e2e import write_league

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


@pytest.fixture(autouse=True)
def cheap_token_hash(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)


def _status(path: Path) -> str:
    out = io.StringIO()
    assert league_status(str(path), out=out) == 0
    return out.getvalue()


def test_status_names_the_bot_a_postponed_match_waits_for(tmp_path: Path) -> None:
    path = write_league(tmp_path, [("alpha", "call"), ("beta", "call"), ("gamma", "call")],
                        absent="wait")
    run = LeagueRun(load_league(path))
    try:
        run.prepare()
        league, matches = run.ensure_matches()
        with_gamma = [m for m in matches.values() if "gamma" in m.seat_bots]
        assert with_gamma
        with run.store.transaction(write=True) as db:  # a worker's claim, as `WorkQueue.claim` makes it
            job_id = int(db.execute(
                "INSERT INTO jobs (league_id, match_id, deal_set, status, worker, claims) "
                "VALUES (?, ?, 'r1', 'running', 'w1', 1) RETURNING job_id",
                (league.league_id, with_gamma[0].match_id)).fetchone()["job_id"])
    finally:
        run.close()
    assert "waiting for" not in _status(path)

    run = LeagueRun(load_league(path))
    try:
        assert JobWaits(run.store).postponed("w1", job_id, ["gamma"], 3)
    finally:
        run.close()
    last = _status(path).splitlines()[-1]
    assert last.startswith("waiting for gamma (1 match postponed 3 times for "), last
    assert last.endswith(" s, w1)"), last

"""The results store's read of the league's stored hand logs (SQLite and PostgreSQL alike), for
the leaderboard's share of strategy replies (issue 40, `arena.league.strategy_share`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from arena.storage.sqlstore import Db


def league_match_ids(db: Db, league_id: int) -> list[int]:
    return [r["match_id"] for r in db.execute(
        "SELECT match_id FROM matches WHERE league_id = ? ORDER BY match_id", (league_id,)).fetchall()]


def completed_hand_texts(db: Db, match_id: int) -> list[str]:
    """The PHH text of the match's completed hands, in hand and copy order."""
    return [r["phh_text"] for r in db.execute(
        "SELECT phh_text FROM hands WHERE match_id = ? AND status = 'completed' "
        "ORDER BY hand_number, copy_index", (match_id,)).fetchall()]

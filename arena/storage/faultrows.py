"""The results store's fault queries (SQLite and PostgreSQL alike): each bot's faults per
stored match, and the completed hands the leaderboard leaves out (docs/faults.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from arena.storage.records import FaultCounts, LeftOutHand

if TYPE_CHECKING:
    from arena.storage.sqlstore import Db


def fault_counts(db: Db, league_id: int) -> list[FaultCounts]:
    """Per bot and stored match: completed hands and the faults in them (timeouts, absent
    decisions, rejected replies, disconnects, SDK fallbacks) and the matches of the schedule
    they were played in (the copies of a duplicate deal set), bots by name, matches in order."""
    rows = db.execute(
        "SELECT b.name, h.match_id, COUNT(*) AS hands, SUM(s.timeouts) AS timeouts, "
        "SUM(s.absent_decisions) AS absent, SUM(s.rejected_replies) AS rejected, "
        "SUM(s.disconnects) AS disconnects, SUM(s.sdk_fallbacks) AS fallbacks, "
        "COUNT(DISTINCT h.copy_index) AS copies "
        "FROM hand_seats s JOIN hands h USING (hand_id) "
        "JOIN matches m ON m.match_id = h.match_id JOIN bots b ON b.bot_id = s.bot_id "
        "WHERE m.league_id = ? AND h.status = 'completed' "
        "GROUP BY b.name, h.match_id ORDER BY b.name, h.match_id", (league_id,)).fetchall()
    return [FaultCounts(r["name"], r["match_id"], r["hands"], r["timeouts"], r["absent"],
                        r["rejected"], r["disconnects"], r["fallbacks"], r["copies"]) for r in rows]


def left_out_hands(db: Db, league_id: int) -> list[LeftOutHand]:
    """The league's completed hands whose deal was voided in another copy (scored in no
    copy, so that luck still cancels), with the void's reason, in match, hand and copy order."""
    rows = db.execute(
        "SELECT h.match_id, h.copy_index, h.hand_number, h.deal_id, "
        "MIN(v.void_reason) AS reason FROM hands h "
        "JOIN matches m ON m.match_id = h.match_id "
        "JOIN hands v ON v.match_id = h.match_id AND v.deal_id = h.deal_id "
        "AND v.status = 'void' WHERE m.league_id = ? AND h.status = 'completed' "
        "GROUP BY h.match_id, h.copy_index, h.hand_number, h.deal_id "
        "ORDER BY h.match_id, h.hand_number, h.copy_index", (league_id,)).fetchall()
    return [LeftOutHand(r["match_id"], r["copy_index"], r["hand_number"], r["deal_id"],
                        r["reason"] or "voided") for r in rows]

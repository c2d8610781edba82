"""The results store's hand rows (SQLite and PostgreSQL alike): a completed hand's two
statements, why one was not written, and the completed hands read back (records, or their PHH
texts for the leaderboard's share of strategy replies, issue 40)."""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING

from arena.storage.errors import HandConflict, InvalidRecord, NotFound
from arena.storage.records import HandRecord, MatchStatus, SeatResult, parse_timestamp, result_fields

if TYPE_CHECKING:
    from arena.storage.sqlstore import Db


@functools.cache
def record_hand_sql(seat_count: int) -> str:
    """A completed hand inserted only when it may be: the match running, copy 0 or a duplicate
    match, every seat's bot seated in it, the hand new (else no row is written). No RETURNING:
    in SQLite each step of a statement hands the interpreter's lock to the dealer's thread."""
    names = ", ".join("?" * seat_count)
    return ("INSERT INTO hands (match_id, hand_number, copy_index, deal_id, game_code, "
            "small_bet_chips, button_seat, status, phh_text, started_at, finished_at) "
            "SELECT m.match_id, ?, ?, ?, ?, ?, ?, 'completed', ?, ?, ? FROM matches m "
            "WHERE m.match_id = ? AND m.status = 'running' AND (? = 0 OR m.is_duplicate <> 0) "
            "AND (SELECT COUNT(*) FROM match_seats s JOIN bots b ON b.bot_id = s.bot_id "
            f"WHERE s.match_id = m.match_id AND b.name IN ({names})) = ? "
            "ON CONFLICT (match_id, hand_number, copy_index) DO NOTHING")


@functools.cache
def record_seats_sql(seat_count: int) -> str:
    """The seats of a hand just inserted (by its match, number and copy), their bots by name, in
    one statement."""
    rows = ", ".join(["(?, ?, ?, ?, ?, ?, ?, ?, ?)"] * seat_count)
    return ("INSERT INTO hand_seats (hand_id, seat, bot_id, net_chips, final_stack_chips, timeouts, "
            "absent_decisions, rejected_replies, disconnects, sdk_fallbacks) "
            "SELECT h.hand_id, v.column1, b.bot_id, v.column3, v.column4, v.column5, v.column6, "
            f"v.column7, v.column8, v.column9 FROM (VALUES {rows}) AS v JOIN bots b ON b.name = v.column2 "
            "JOIN hands h ON h.match_id = ? AND h.hand_number = ? AND h.copy_index = ?")


def running_match_bots(db: Db, match_id: int, copy_index: int) -> dict[str, int]:
    """The bots seated in a running match (name -> id), in one query with the match's status."""
    rows = db.execute(
        "SELECT m.status, m.is_duplicate, b.name, b.bot_id FROM matches m "
        "LEFT JOIN match_seats s ON s.match_id = m.match_id LEFT JOIN bots b ON b.bot_id = s.bot_id "
        "WHERE m.match_id = ?", (match_id,)).fetchall()
    if not rows:
        raise NotFound(f"no match {match_id}")
    row = rows[0]
    if row["status"] != MatchStatus.RUNNING.value:
        raise InvalidRecord(f"match {match_id} is {row['status']}: no more hands can be recorded")
    if copy_index != 0 and not row["is_duplicate"]:
        raise InvalidRecord(f"match {match_id} is not duplicate: copy index must be 0, not {copy_index}")
    return {r["name"]: int(r["bot_id"]) for r in rows if r["bot_id"] is not None}


def check_same_hand(db: Db, hand: HandRecord) -> None:
    where = f"match {hand.match_id} hand {hand.hand_number} copy {hand.copy_index}"
    existing = completed(db, hand.match_id, (hand.hand_number, hand.copy_index))
    if not existing:
        raise HandConflict(f"{where} is recorded already as a void hand")
    if result_fields(existing[0]) != result_fields(hand):
        raise HandConflict(f"{where} is recorded already with a different result")


def completed(db: Db, match_id: int, key: tuple[int, int] | None) -> list[HandRecord]:
    """Completed hands of a match (or the one under ``key``) with their seats."""
    where = "h.match_id = ? AND h.status = 'completed'"
    params: tuple[object, ...] = (match_id,)
    if key is not None:
        where += " AND h.hand_number = ? AND h.copy_index = ?"
        params += key
    rows = db.execute(
        "SELECT h.hand_id, h.hand_number, h.copy_index, h.deal_id, h.game_code, h.small_bet_chips, "
        f"h.button_seat, h.phh_text, h.started_at, h.finished_at FROM hands h WHERE {where} "
        "ORDER BY h.hand_number, h.copy_index", params).fetchall()
    seats: dict[int, list[SeatResult]] = {}
    for r in db.execute(
            "SELECT s.hand_id, s.seat, b.name, s.net_chips, s.final_stack_chips, s.timeouts, "
            "s.absent_decisions, s.rejected_replies, s.disconnects, s.sdk_fallbacks FROM hand_seats s "
            f"JOIN hands h USING (hand_id) JOIN bots b ON b.bot_id = s.bot_id WHERE {where} "
            "ORDER BY s.hand_id, s.seat", params):
        seats.setdefault(r["hand_id"], []).append(
            SeatResult(r["seat"], r["name"], r["net_chips"], r["final_stack_chips"], r["timeouts"],
                       r["absent_decisions"], r["rejected_replies"], r["disconnects"],
                       r["sdk_fallbacks"]))
    return [HandRecord(match_id, r["hand_number"], r["copy_index"], r["deal_id"], r["game_code"],
                       r["small_bet_chips"], r["button_seat"], tuple(seats.get(r["hand_id"], ())),
                       r["phh_text"], parse_timestamp(r["started_at"]), parse_timestamp(r["finished_at"]))
            for r in rows]


def league_match_ids(db: Db, league_id: int) -> list[int]:
    return [r["match_id"] for r in db.execute(
        "SELECT match_id FROM matches WHERE league_id = ? ORDER BY match_id", (league_id,)).fetchall()]


def completed_hand_texts(db: Db, match_id: int) -> list[str]:
    """The PHH text of the match's completed hands, in hand and copy order."""
    return [r["phh_text"] for r in db.execute(
        "SELECT phh_text FROM hands WHERE match_id = ? AND status = 'completed' "
        "ORDER BY hand_number, copy_index", (match_id,)).fetchall()]

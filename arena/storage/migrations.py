"""The results store's schema as ordered migration steps, written once for SQLite and PostgreSQL.

Released steps are frozen (tests hash them). PostgreSQL runs the same steps through
`postgresql_statement`, which rewrites the few SQLite-only spellings.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Migration:
    """One schema step. Released steps are never edited: a change is a new step at the end."""

    version: int
    description: str
    statements: tuple[str, ...]
    # PostgreSQL's own steps, when SQLite's cannot be rewritten (SQLite rebuilds a table to change
    # a CHECK constraint; PostgreSQL alters it). None: `postgresql_statement` of each statement.
    postgresql: tuple[str, ...] | None = None

    def postgresql_statements(self) -> tuple[str, ...]:
        if self.postgresql is not None:
            return self.postgresql
        return tuple(postgresql_statement(s) for s in self.statements)


# Migration 6: the game codes a hand may have (H.O.R.S.E., then NT, PO and PT: pot-limit hold'em,
# which PHH writes as NT with ``_betting = "pot-limit"``), and the tournament placings.
_GAMES_V6 = "'FT', 'FO/8', 'FR', 'F7S', 'F7S/8', 'NT', 'PO', 'PT'"
_HANDS_V6 = f"""CREATE TABLE hands (
            hand_id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches(match_id),
            hand_number INTEGER NOT NULL CHECK (hand_number >= 1),
            copy_index INTEGER NOT NULL CHECK (copy_index >= 0),
            deal_id TEXT NOT NULL,
            game_code TEXT NOT NULL CHECK (game_code IN ({_GAMES_V6})),
            small_bet_chips INTEGER NOT NULL CHECK (small_bet_chips > 0),
            button_seat INTEGER NOT NULL CHECK (button_seat >= 0),
            status TEXT NOT NULL CHECK (status IN ('completed', 'void')),
            phh_text TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT NOT NULL,
            void_reason TEXT,
            UNIQUE (match_id, hand_number, copy_index)
        )"""
# One row per tournament of a league (its id: "t1", "t2", a tie-break heads-up's event, or
# "overall" for the standings) and bot: the place, the points, and the hand (its deal id) that
# decided the place (NULL for a winner and for the overall standings).
_PLACINGS_V6 = """CREATE TABLE tournament_placings (
            league_id INTEGER NOT NULL REFERENCES leagues(league_id),
            tournament TEXT NOT NULL,
            bot_id INTEGER NOT NULL REFERENCES bots(bot_id),
            place INTEGER NOT NULL CHECK (place >= 1),
            points INTEGER NOT NULL CHECK (points >= 0),
            eliminated_at_hand TEXT,
            PRIMARY KEY (league_id, tournament, bot_id)
        ) WITHOUT ROWID"""

# Migration 10: every game code (issue 42: 2-7 triple draw, London Lowball, the wild-card studs,
# Low Hole, English Stud; docs/house-rules.md §21-§25). Written out, never computed from the
# engine's list: a released step is frozen.
_GAMES_V10 = (f"{_GAMES_V6}, 'F2L3D', 'FLL', 'F7SW', 'F7SWL', 'F7SW/8', 'FLH', 'FLH/8', 'FES'")
_HANDS_V10 = _HANDS_V6.replace(f"game_code IN ({_GAMES_V6})", f"game_code IN ({_GAMES_V10})")
_HANDS_COLUMNS = ("hand_id, match_id, hand_number, copy_index, deal_id, game_code, small_bet_chips, "
                  "button_seat, status, phh_text, started_at, finished_at, void_reason")

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "leagues, bots, matches with seats, hands with per-seat results", (
        """CREATE TABLE schema_version (
            version INTEGER PRIMARY KEY,
            description TEXT NOT NULL,
            applied_at TEXT NOT NULL
        )""",
        """CREATE TABLE leagues (
            league_id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            config_toml TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE bots (
            bot_id INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            token_hash TEXT NOT NULL,
            created_at TEXT NOT NULL
        )""",
        """CREATE TABLE matches (
            match_id INTEGER PRIMARY KEY,
            league_id INTEGER NOT NULL REFERENCES leagues(league_id),
            games TEXT NOT NULL,
            format TEXT NOT NULL CHECK (format IN ('cash', 'tournament')),
            is_duplicate INTEGER NOT NULL CHECK (is_duplicate IN (0, 1)),
            status TEXT NOT NULL CHECK (status IN ('running', 'finished', 'aborted')),
            seed TEXT CHECK (seed IS NULL OR status <> 'running'),
            created_at TEXT NOT NULL,
            finished_at TEXT CHECK ((finished_at IS NULL) = (status = 'running'))
        )""",
        "CREATE INDEX matches_by_league ON matches(league_id)",
        """CREATE TABLE match_seats (
            match_id INTEGER NOT NULL REFERENCES matches(match_id),
            seat INTEGER NOT NULL CHECK (seat >= 0),
            bot_id INTEGER NOT NULL REFERENCES bots(bot_id),
            PRIMARY KEY (match_id, seat),
            UNIQUE (match_id, bot_id)
        ) WITHOUT ROWID""",
        """CREATE TABLE hands (
            hand_id INTEGER PRIMARY KEY,
            match_id INTEGER NOT NULL REFERENCES matches(match_id),
            hand_number INTEGER NOT NULL CHECK (hand_number >= 1),
            copy_index INTEGER NOT NULL CHECK (copy_index >= 0),
            deal_id TEXT NOT NULL,
            game_code TEXT NOT NULL CHECK (game_code IN ('FT', 'FO/8', 'FR', 'F7S', 'F7S/8')),
            small_bet_chips INTEGER NOT NULL CHECK (small_bet_chips > 0),
            button_seat INTEGER NOT NULL CHECK (button_seat >= 0),
            status TEXT NOT NULL CHECK (status IN ('completed', 'void')),
            phh_text TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT NOT NULL,
            UNIQUE (match_id, hand_number, copy_index)
        )""",
        "CREATE INDEX hands_by_deal ON hands(match_id, deal_id)",
        """CREATE TABLE hand_seats (
            hand_id INTEGER NOT NULL REFERENCES hands(hand_id),
            seat INTEGER NOT NULL CHECK (seat >= 0),
            bot_id INTEGER NOT NULL REFERENCES bots(bot_id),
            net_chips INTEGER NOT NULL,
            final_stack_chips INTEGER NOT NULL CHECK (final_stack_chips >= 0),
            PRIMARY KEY (hand_id, seat)
        ) WITHOUT ROWID""",
    )),
    Migration(2, "reason of each void hand; per-bot results index", (
        "ALTER TABLE hands ADD COLUMN void_reason TEXT",
        "UPDATE hands SET void_reason = 'unknown' WHERE status = 'void'",
        "CREATE INDEX hand_seats_by_bot ON hand_seats(bot_id)",
    )),
    Migration(3, "faults per seat and hand: timeouts, absent decisions, rejected replies, disconnects", (
        "ALTER TABLE hand_seats ADD COLUMN timeouts INTEGER NOT NULL DEFAULT 0 CHECK (timeouts >= 0)",
        "ALTER TABLE hand_seats ADD COLUMN absent_decisions INTEGER NOT NULL DEFAULT 0 "
        "CHECK (absent_decisions >= 0)",
        "ALTER TABLE hand_seats ADD COLUMN rejected_replies INTEGER NOT NULL DEFAULT 0 "
        "CHECK (rejected_replies >= 0)",
        "ALTER TABLE hand_seats ADD COLUMN disconnects INTEGER NOT NULL DEFAULT 0 CHECK (disconnects >= 0)",
    )),
    Migration(4, "luck (chance-only AIVAT) of each seat of a hand, per value function", (
        """CREATE TABLE hand_luck (
            hand_id INTEGER NOT NULL REFERENCES hands(hand_id),
            value_function TEXT NOT NULL,
            seat INTEGER NOT NULL CHECK (seat >= 0),
            luck_chips DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (hand_id, value_function, seat)
        ) WITHOUT ROWID""",
    )),
    Migration(5, "work queue: one job per match (duplicate block), claimed by workers; hands in flight", (
        """CREATE TABLE jobs (
            job_id INTEGER PRIMARY KEY,
            league_id INTEGER NOT NULL REFERENCES leagues(league_id),
            match_id INTEGER NOT NULL UNIQUE REFERENCES matches(match_id),
            deal_set TEXT NOT NULL,
            status TEXT NOT NULL CHECK (status IN ('queued', 'running', 'done')),
            worker TEXT,
            claims INTEGER NOT NULL DEFAULT 0 CHECK (claims >= 0),
            heartbeat_at DOUBLE PRECISION,
            address TEXT,
            tables TEXT,
            UNIQUE (league_id, deal_set)
        )""",
        "CREATE INDEX jobs_by_status ON jobs(status, job_id)",
        """CREATE TABLE hands_in_flight (
            match_id INTEGER NOT NULL REFERENCES matches(match_id),
            copy_index INTEGER NOT NULL CHECK (copy_index >= 0),
            hand_number INTEGER NOT NULL CHECK (hand_number >= 1),
            PRIMARY KEY (match_id, copy_index)
        )""",
    )),
    Migration(6, "hands of no-limit and pot-limit games (NT, PO, PT); tournament placings", (
        # SQLite cannot change a CHECK constraint: the hands table is rebuilt in the step's
        # transaction. Its rows are copied aside first and inserted into the new table under the
        # old name, so the hand_seats/hand_luck references (checked at commit) find them again.
        "PRAGMA defer_foreign_keys = ON",
        "CREATE TEMP TABLE hands_before_v6 AS SELECT * FROM hands",
        "DROP TABLE hands",
        _HANDS_V6,
        "INSERT INTO hands (hand_id, match_id, hand_number, copy_index, deal_id, game_code, "
        "small_bet_chips, button_seat, status, phh_text, started_at, finished_at, void_reason) "
        "SELECT hand_id, match_id, hand_number, copy_index, deal_id, game_code, small_bet_chips, "
        "button_seat, status, phh_text, started_at, finished_at, void_reason FROM hands_before_v6",
        "DROP TABLE hands_before_v6",
        "CREATE INDEX hands_by_deal ON hands(match_id, deal_id)",
        _PLACINGS_V6,
    ), postgresql=(
        "ALTER TABLE hands DROP CONSTRAINT hands_game_code_check",
        f"ALTER TABLE hands ADD CONSTRAINT hands_game_code_check CHECK (game_code IN ({_GAMES_V6}))",
        _PLACINGS_V6.replace(") WITHOUT ROWID", ")"),
    )),
    # Keyed by the league's name (unique in a store): the secret exists before the league's row,
    # since the schedule is built from it. Revealed in the league's logs when every match ended.
    Migration(7, "each league's deal secret, shared by every worker that deals the league", (
        """CREATE TABLE league_secrets (
            league_name TEXT PRIMARY KEY,
            secret_hex TEXT NOT NULL CHECK (length(secret_hex) = 64),
            created_at TEXT NOT NULL
        )""",
    )),
    # One row per job whose match a worker put back because bots were missing (absent = "wait"),
    # written once per postponement and deleted when the match is dealt or its job ends: the
    # coordinator's progress names the bots the league waits for. Times are the database's
    # clock in seconds since the epoch (as jobs.heartbeat_at); ``bots`` are the missing bots'
    # names (seats of the match), comma-separated.
    Migration(8, "matches postponed on workers and the bots they wait for", (
        """CREATE TABLE job_waits (
            job_id INTEGER NOT NULL REFERENCES jobs(job_id),
            worker TEXT NOT NULL,
            bots TEXT NOT NULL CHECK (bots <> ''),
            postponements INTEGER NOT NULL CHECK (postponements >= 1),
            first_postponed_at DOUBLE PRECISION NOT NULL,
            last_postponed_at DOUBLE PRECISION NOT NULL,
            PRIMARY KEY (job_id)
        )""",
    )),
    # A reply the bot's SDK sent in place of its code's (its code raised, or its reply was
    # refused and the SDK checked or folded): per seat and hand, as the other faults.
    Migration(9, "SDK fallbacks per seat and hand", (
        "ALTER TABLE hand_seats ADD COLUMN sdk_fallbacks INTEGER NOT NULL DEFAULT 0 "
        "CHECK (sdk_fallbacks >= 0)",
    )),
    # The hands table rebuilt as in step 6 (SQLite), its CHECK constraint replaced (PostgreSQL).
    Migration(10, "hands of every game: 2-7 triple draw, London Lowball, wild-card studs, English Stud", (
        "PRAGMA defer_foreign_keys = ON",
        "CREATE TEMP TABLE hands_before_v10 AS SELECT * FROM hands",
        "DROP TABLE hands",
        _HANDS_V10,
        f"INSERT INTO hands ({_HANDS_COLUMNS}) SELECT {_HANDS_COLUMNS} FROM hands_before_v10",
        "DROP TABLE hands_before_v10",
        "CREATE INDEX hands_by_deal ON hands(match_id, deal_id)",
    ), postgresql=(
        "ALTER TABLE hands DROP CONSTRAINT hands_game_code_check",
        f"ALTER TABLE hands ADD CONSTRAINT hands_game_code_check CHECK (game_code IN ({_GAMES_V10}))",
    )),
)
LATEST_VERSION = MIGRATIONS[-1].version

# SQLite's "INTEGER PRIMARY KEY" is an alias of the row id, numbered by the database; PostgreSQL
# says so with an identity column. "version" is numbered by us, so it stays a plain key.
_ROW_ID_KEY = re.compile(r"\b(league_id|bot_id|match_id|hand_id|job_id) INTEGER PRIMARY KEY\b")
_WITHOUT_ROWID = re.compile(r"\)\s*WITHOUT ROWID\s*$")


def postgresql_statement(statement: str) -> str:
    """One migration statement as PostgreSQL spells it (the schema is otherwise standard SQL)."""
    statement = _ROW_ID_KEY.sub(r"\1 INTEGER GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY", statement)
    return _WITHOUT_ROWID.sub(")", statement)

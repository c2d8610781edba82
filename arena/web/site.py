"""What the web app reads: a league's file, its match logs and its results store, read-only.

Every name from a URL is checked against a strict pattern and resolved inside the league's log
directory; hands of a match that is still running are served without mucked cards, and its
log files and seed are not served at all (docs/house-rules.md §1: the seed is revealed when the match ends).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from arena.engine.errors import ArenaError, MalformedInput
from arena.engine.phh import PhhHand
from arena.league.config import LeagueConfig
from arena.league.leaderboard import faults_per_bot
from arena.league.schedule import build_schedule
from arena.league.secret import existing_league_secret
from arena.league.stats import ALL_GAMES, Leaderboard, compute_leaderboard
from arena.league.strategy_share import StrategyShare, strategy_shares
from arena.server.eventrecord import read_events
from arena.storage import store as st
from arena.storage.matchlog import MatchLogPaths, match_seed_for, read_result
from arena.storage.store import is_postgres_url, open_store
from arena.web.choice import orbit_choices
from arena.web.logfiles import HandSummary, LogCache, LogSite, NotFound, file_in, number

_T = TypeVar("_T")
EventReader = Callable[[Path], Iterable[Mapping[str, Any]]]

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}")
DOWNLOADS = ("phhs", "events", "result", "void")
LEADERBOARD_FILES = ("leaderboard.json", "leaderboard.csv", "leaderboard.txt")


def checked_name(name: str) -> str:
    if not NAME.fullmatch(name) or ".." in name:
        raise NotFound(name)
    return name


@dataclass(frozen=True, slots=True)
class MatchInfo:
    match_id: str
    seats: tuple[str, ...]
    copy_index: int
    deal_set: str
    hands_total: int
    hands_logged: int
    is_finished: bool
    is_running: bool
    result: dict[str, Any] | None


def clean_result(loaded: object) -> dict[str, Any] | None:
    """The parts of a ``.result.json`` the pages show, type-checked (the file is untrusted)."""
    if not isinstance(loaded, dict):
        return None
    results = []
    for row in loaded.get("results", []) if isinstance(loaded.get("results"), list) else []:
        if isinstance(row, dict):
            results.append({"seat": int(number(row.get("seat"))), "name": str(row.get("name", "")),
                            "net_chips": int(number(row.get("net_chips"))),
                            "mbb_per_hand": number(row.get("mbb_per_hand"))})
    raw = loaded.get("decisions")
    decisions = raw if isinstance(raw, dict) else {}
    return {"results": results, "aborted": bool(loaded.get("aborted", False)),
            "decisions": {key: int(number(decisions.get(key))) for key in
                          ("prompts", "answered", "rejected", "rejected_no_open_decision",
                           "timeouts", "absent_actions", "sdk_fallbacks")}}


def _until_damage(records: Iterable[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    """The records of an event log up to any damage the reader finds (the choices announced
    before it are still shown)."""
    try:
        yield from records
    except ArenaError:
        return


@dataclass
class LeagueSite(LogSite):
    """The league as the web app shows it. Thread-safe: pages are built in worker threads."""

    config: LeagueConfig
    logs: LogCache = field(default_factory=LogCache)
    # The event log's reader (its records as dicts): the dealer's-choice announcements are
    # read from the log (docs/house-rules.md §28). None: none are shown.
    event_reader: EventReader | None = read_events
    _choices: dict[Path, tuple[tuple[int, int], list[dict[str, Any]]]] = field(default_factory=dict)

    def _paths(self, match_id: str) -> MatchLogPaths:
        """The match's log files, each checked to lie directly in the log directory."""
        base = self.log_dir.resolve()
        paths = MatchLogPaths.of(base, checked_name(match_id))
        for path in (paths.hands, paths.voids, paths.result, paths.events, paths.inflight):
            if path.resolve().parent != base:
                raise NotFound(match_id)
        return paths

    # ------------------------------------------------------------------ matches

    def schedule(self) -> list[tuple[str, tuple[str, ...], int, str]]:
        config = self.config
        try:
            secret = existing_league_secret(config)
            if secret is None:
                return []  # the league has not started: its secret does not exist yet
            seed = secret.value  # read, never shown
            return [(s.match_id, tuple(s.seats), s.copy_index, s.deal_set) for s in build_schedule(
                [b.name for b in config.bots], fmt=config.format,
                seats_per_table=config.seats_per_table, duplicate=config.duplicate,
                seed=seed, tables=config.tables, hero=config.hero, rounds=config.rounds)]
        except ArenaError:
            return []

    def matches(self) -> list[MatchInfo]:
        return [self._match_info(*entry) for entry in self.schedule()]

    def match(self, match_id: str) -> MatchInfo:
        for entry in self.schedule():
            if entry[0] == match_id:
                return self._match_info(*entry)
        raise NotFound(match_id)

    def _match_info(self, match_id: str, seats: tuple[str, ...], copy_index: int,
                    deal_set: str) -> MatchInfo:
        paths = self._paths(match_id)
        try:
            result = clean_result(read_result(paths.hands))
        except MalformedInput:  # damaged: shown as no result
            result = None
        logged = len(self.summaries(match_id))
        running = paths.inflight.exists() or (
            result is None and 0 < logged < self.config.hands_per_match)
        return MatchInfo(match_id, seats, copy_index, deal_set, self.config.hands_per_match, logged,
                         result is not None and self.is_finished(match_id), running, result)

    def is_finished(self, match_id: str) -> bool:
        """Whether the match's seed is revealed: it has ended, and so has every duplicate copy
        dealt the same cards (until then its hands are secret, docs/house-rules.md §1)."""
        paths = self._paths(match_id)
        try:
            return paths.result.is_file() and match_seed_for(paths.hands) is not None
        except MalformedInput:
            return False

    def log_path(self, log_id: str) -> Path:
        return self._paths(log_id).hands

    def choices(self, match_id: str) -> list[dict[str, Any]]:
        """The match's dealer's-choice orbits (who chose each game, or that the dealer chose
        for the chooser): public as soon as they are announced. Empty when the league does not
        play dealer's choice; read again only when the event log has changed."""
        if not self.config.rules.dealers_choice or self.event_reader is None:
            return []
        try:
            path = self._paths(match_id).events
            stat = path.stat()
            stamp = (stat.st_mtime_ns, stat.st_size)
            cached = self._choices.get(path)
            if cached is not None and cached[0] == stamp:
                return cached[1]
            found = orbit_choices(_until_damage(self.event_reader(path)))
        except (OSError, NotFound):
            return []  # no log yet: the hands are shown all the same
        self._choices[path] = (stamp, found)
        return found

    def hand(self, hand_id: str) -> tuple[PhhHand, HandSummary, bool]:
        """A logged hand by id, its summary, and whether its match has finished."""
        checked_name(hand_id)
        match_id = hand_id.rsplit("-h", 1)[0] if "-h" in hand_id else hand_id
        hand, summary = self.parsed(match_id).find(hand_id)
        finished = self.is_finished(match_id)
        if not finished and not self.played_by_every_copy(summary):
            # Its cards are another copy's future (issue 36): not even the board yet.
            raise NotFound(f"{hand_id} (shown once every copy of its deal has played it)")
        return hand, summary, finished

    def played_by_every_copy(self, summary: HandSummary) -> bool:
        """Whether no duplicate copy of the hand's deal set still has this hand to play: each
        has logged it or a later hand (a copy that ended without it: once every copy has
        ended, :meth:`is_finished` shows everything)."""
        entries = self.schedule()
        deal_set = next((e[3] for e in entries if e[0] == summary.match_id), None)
        if deal_set is None:
            return False
        for match_id, _, _, entry_set in entries:
            if entry_set != deal_set or match_id == summary.match_id:
                continue
            played = self.summaries(match_id)
            if not played or max(s.hand_number for s in played) < summary.hand_number:
                return False
        return True

    def deal_copies(self, deal_id: str) -> list[str]:
        """Hand ids of every copy of one duplicate deal (``r1-t1/deal-3``), in copy order."""
        deal_set, _, number = deal_id.rpartition("/deal-")
        if not deal_set or not number.isdigit():
            raise NotFound(deal_id)
        out = []
        for match_id, _, _, entry_set in self.schedule():
            if entry_set == deal_set:
                out += [s.hand_id for s in self.summaries(match_id) if s.deal_id == deal_id]
        if not out:
            raise NotFound(deal_id)
        return out

    def download(self, match_id: str, kind: str) -> Path:
        """A match's log file; only once the match has ended (its cards and seed are secret before)."""
        if kind not in DOWNLOADS or not self.is_finished(match_id):
            raise NotFound(f"{match_id}.{kind}")
        paths = self._paths(match_id)
        path = {"phhs": paths.hands, "events": paths.events, "result": paths.result,
                "void": paths.voids}[kind]
        if not path.is_file():
            raise NotFound(f"{match_id}.{kind}")
        return path

    def leaderboard_file(self, name: str) -> Path:
        if name not in LEADERBOARD_FILES:
            raise NotFound(name)
        return file_in(self.log_dir, name)

    # ------------------------------------------------------------------ results

    def _has_store(self) -> bool:
        """A PostgreSQL store always exists; an SQLite one once its file was created."""
        store = self.config.store
        return is_postgres_url(store) or Path(store).is_file()

    def leaderboard(self) -> tuple[Leaderboard, dict[str, dict[str, list[int]]]]:
        """The leaderboard and each bot's bankroll curve per game (cumulative chips by hand)."""
        rows: list[st.ResultRow] = self._league_query(  # luck terms as stored at each match's end
            lambda store, league_id: list(store.iter_results(
                league_id, value_function=self.config.luck.name)), [])
        curves: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
        for row in rows:
            for game in (row.game_code, ALL_GAMES):
                series = curves[row.bot][game]
                series.append((series[-1] if series else 0) + row.net_chips)
        return compute_leaderboard(rows), {bot: dict(games) for bot, games in curves.items()}

    def _league_query(self, query: Callable[[Any, int], _T], empty: _T) -> _T:
        """``query(store, league_id)`` on the results store, or ``empty`` with no league yet."""
        if not self._has_store():
            return empty
        store = open_store(self.config.store)
        try:
            league = store.find_league(self.config.name)
            return query(store, league.league_id) if league is not None else empty
        finally:
            store.close()

    def fault_counts(self) -> list[st.FaultCounts]:
        """Per bot and match, from the results store."""
        return self._league_query(lambda store, league_id: store.fault_counts(league_id), [])

    def left_out(self) -> list[st.LeftOutHand]:
        """The completed hands the leaderboard leaves out (other copies of voided deals)."""
        return self._league_query(lambda store, league_id: store.left_out_hands(league_id), [])

    def strategy_shares(self) -> tuple[StrategyShare, ...]:
        """Per bot, the decisions it answered with a declared strategy (docs/house-rules.md §19)."""
        return self._league_query(
            lambda store, league_id: strategy_shares(store.iter_hand_texts(league_id)), ())

    def faults(self) -> dict[str, dict[str, int]]:
        """Per bot: matches, hands, timeouts, absent decisions, rejected replies, SDK fallbacks
        and disconnects over its completed hands."""
        counts = self.fault_counts()
        return {bot: dict(zip(("matches", "hands", "timeouts", "absent", "rejected", "fallbacks",
                               "disconnects"), row, strict=True))
                for bot, row in faults_per_bot(counts).items()}

    def biggest_pots(self, bot: str, count: int = 5) -> list[tuple[HandSummary, int]]:
        """The bot's hands with the largest pots, with its net chips in each."""
        found: list[tuple[HandSummary, int]] = []
        for match_id, *_ in self.schedule():
            for summary in self.summaries(match_id):
                if bot in summary.players:
                    found.append((summary, summary.net_chips[summary.players.index(bot)]))
        found.sort(key=lambda item: (-item[0].pot_chips, item[0].hand_id))
        return found[:count]

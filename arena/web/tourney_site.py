"""What the web app reads of a tournament: its file, its tables' hand logs, its event log and its
standings in the results store, read-only.

A table's log (``<event>-t<table>.phhs``) holds every hole card dealt, so while the tournament
runs its hands are served without the cards nobody showed and the log files are not served at
all: the players still in could learn what an opponent folded. Everything is revealed when the
standings are in the store (the tournament has ended).
"""

from __future__ import annotations

import json
import re
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.engine.phh import PhhHand
from arena.engine.rules import Rules
from arena.tourney.commands import read_standings
from arena.tourney.config import TournamentConfig
from arena.web.logfiles import HandSummary, LogCache, NotFound, ParsedLog

TABLE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,127}-t[0-9]{1,4}")
EVENT_LOG = "tournament.jsonl"
MAX_EVENT_LOG_BYTES = 16 * 1024 * 1024
RESULT_FILES = ("results.json", "standings.csv", "standings.txt", EVENT_LOG)


def checked_table(table_id: str) -> str:
    if not TABLE.fullmatch(table_id) or ".." in table_id:
        raise NotFound(table_id)
    return table_id


def table_of(hand_id: str) -> str:
    """The table log a hand id belongs to: ``<event>-t<table>-h<hand>-h1`` -> ``<event>-t<table>``."""
    parts = hand_id.rsplit("-h", 2)
    if len(parts) != 3 or not all(p.isdigit() for p in parts[1:]):
        raise NotFound(hand_id)
    return checked_table(parts[0])


@dataclass(frozen=True, slots=True)
class TableInfo:
    table_id: str
    event: str
    number: int
    hands_logged: int
    players: tuple[str, ...]  # everyone seated at it in some hand, in order of first appearance


@dataclass(frozen=True, slots=True)
class Elimination:
    event: str
    player: str
    place: int
    table: int
    hand: int
    hand_id: str


@dataclass(frozen=True, slots=True)
class EventSummary:
    event: str
    title: str
    players: tuple[str, ...]
    levels: tuple[str, ...]  # "level 2: 10/20 ante 6, FO/8"
    eliminations: tuple[Elimination, ...]
    places: tuple[tuple[str, int], ...]  # when the event has finished, by place


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _count(value: object) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


@dataclass
class TournamentSite:
    """The tournament as the web app shows it. Thread-safe: pages are built in worker threads."""

    config: TournamentConfig
    standings_ttl_seconds: float = 2.0
    logs: LogCache = field(default_factory=LogCache)
    _standings: tuple[float, dict[str, Any] | None] | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def log_dir(self) -> Path:
        return self.config.log_dir

    @property
    def rules(self) -> Rules:
        return self.config.rules

    def _table_path(self, table_id: str) -> Path:
        base = self.log_dir.resolve()
        path = base / f"{checked_table(table_id)}.phhs"
        if path.resolve().parent != base:
            raise NotFound(table_id)
        return path

    # ------------------------------------------------------------------ standings and events

    def standings(self) -> dict[str, Any] | None:
        """The standings document (as ``arena tournament standings --format json``); None while
        the tournament runs."""
        with self._lock:
            now = time.monotonic()
            if self._standings is None or now - self._standings[0] > self.standings_ttl_seconds:
                doc = None
                if not (isinstance(self.config.store, Path) and not self.config.store.is_file()):
                    doc = read_standings(self.config)
                self._standings = (now, doc)
            return self._standings[1]

    def is_finished(self) -> bool:
        return self.standings() is not None

    def _event_lines(self) -> list[dict[str, Any]]:
        path = self.log_dir / EVENT_LOG
        try:
            if path.stat().st_size > MAX_EVENT_LOG_BYTES:
                raise NotFound(f"{EVENT_LOG}: too large to show")
            text = path.read_text(encoding="utf-8")
        except OSError:
            return []
        out = []
        for line in text.splitlines():
            try:
                item = json.loads(line)
            except ValueError:
                continue  # a line being written, or damage: the rest still shows
            if isinstance(item, dict):
                out.append(item)
        return out

    def events(self) -> list[EventSummary]:
        """Each event of the tournament log in order: players, levels, eliminations, places."""
        order: list[str] = []
        started: dict[str, dict[str, Any]] = {}
        levels: dict[str, list[str]] = {}
        outs: dict[str, list[Elimination]] = {}
        places: dict[str, dict[str, int]] = {}
        for item in self._event_lines():
            event = _text(item.get("event"))
            if not event:
                continue
            if event not in order:
                order.append(event)
            kind = item.get("kind")
            if kind == "event_started":
                started[event] = item
            elif kind == "level":
                levels.setdefault(event, []).append(
                    f"level {_count(item.get('level'))}: {_text(item.get('stakes'))}, "
                    f"{_text(item.get('game'))}")
            elif kind == "round" and isinstance(item.get("eliminations"), list):
                for out in item["eliminations"]:
                    if isinstance(out, dict):
                        table, hand = _count(out.get("table")), _count(out.get("hand"))
                        outs.setdefault(event, []).append(Elimination(
                            event, _text(out.get("player")), _count(out.get("place")), table, hand,
                            f"{event}-t{table}-h{hand}-h1"))
            elif kind == "event_finished" and isinstance(item.get("places"), dict):
                places[event] = {str(k): _count(v) for k, v in item["places"].items()}
        summaries = []
        for event in order:
            start = started.get(event, {})
            players = start.get("players")
            summaries.append(EventSummary(
                event, _text(start.get("title")) or event,
                tuple(str(p) for p in players) if isinstance(players, list) else (),
                tuple(levels.get(event, [])), tuple(outs.get(event, [])),
                tuple(sorted(places.get(event, {}).items(), key=lambda kv: (kv[1], kv[0])))))
        return summaries

    # ------------------------------------------------------------------ tables and hands

    def tables(self) -> list[TableInfo]:
        out = []
        for path in sorted(self.log_dir.glob("*-t*.phhs")):
            table_id = path.name.removesuffix(".phhs")
            if path.name.endswith(".void.phhs") or not TABLE.fullmatch(table_id):
                continue
            summaries = self.summaries(table_id)
            seen: dict[str, None] = {}
            for s in summaries:
                seen.update(dict.fromkeys(s.players))
            event, _, number = table_id.rpartition("-t")
            out.append(TableInfo(table_id, event, int(number), len(summaries), tuple(seen)))
        return sorted(out, key=lambda t: (t.event, t.number))

    def _parsed(self, table_id: str) -> ParsedLog:
        return self.logs.parsed(self._table_path(table_id), table_id)

    def summaries(self, table_id: str) -> list[HandSummary]:
        return self._parsed(table_id).summaries

    def hand(self, hand_id: str) -> tuple[PhhHand, HandSummary, bool]:
        """A logged hand by id, its summary, and whether the tournament has ended."""
        parsed = self._parsed(table_of(hand_id))
        for hand, summary in zip(parsed.hands, parsed.summaries, strict=True):
            if summary.hand_id == hand_id:
                return hand, summary, self.is_finished()
        raise NotFound(hand_id)

    def download(self, name: str) -> Path:
        """A table's log or a results file; only once the tournament has ended."""
        if not self.is_finished():
            raise NotFound(name)
        if name not in RESULT_FILES:
            name = f"{checked_table(name.removesuffix('.phhs'))}.phhs"
        path = self.log_dir.resolve() / name
        if path.parent != self.log_dir.resolve() or not path.is_file():
            raise NotFound(name)
        return path

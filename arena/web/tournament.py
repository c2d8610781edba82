"""A tournament's web pages: standings, events (levels, eliminations), tables and the hand
replayer, read-only from its file, its tables' hand logs, its event log and its standings in the
results store.

A table's log (``<event>-t<table>.phhs``) holds every hole card dealt, so while the tournament
runs its hands are served without the cards nobody showed and the log files are not served at
all: the players still in could learn what an opponent folded. Everything is revealed when the
standings are in the store (the tournament has ended).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from arena.engine.phh import PhhHand
from arena.tourney.commands import read_standings
from arena.tourney.config import TournamentConfig
from arena.web.app import Fresh, Pages, attachment
from arena.web.logfiles import HandSummary, LogCache, LogSite, NotFound, file_in

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
class TournamentSite(LogSite):
    """The tournament as the web app shows it. Thread-safe: pages are built in worker threads."""

    config: TournamentConfig
    standings_ttl_seconds: float = 2.0
    logs: LogCache = field(default_factory=LogCache)

    def __post_init__(self) -> None:
        self.standings = Fresh(self._read_standings, self.standings_ttl_seconds)

    def log_path(self, log_id: str) -> Path:
        base = self.log_dir.resolve()
        path = base / f"{checked_table(log_id)}.phhs"
        if path.resolve().parent != base:
            raise NotFound(log_id)
        return path

    # ------------------------------------------------------------------ standings and events

    def _read_standings(self) -> dict[str, Any] | None:
        """The standings document (as ``arena tournament standings --format json``); None while
        the tournament runs (:attr:`standings`: the last one read, for a few seconds)."""
        if isinstance(self.config.store, Path) and not self.config.store.is_file():
            return None
        return read_standings(self.config)

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

    def hand(self, hand_id: str) -> tuple[PhhHand, HandSummary, bool]:
        """A logged hand by id, its summary, and whether the tournament has ended."""
        hand, summary = self.parsed(table_of(hand_id)).find(hand_id)
        return hand, summary, self.is_finished()

    def download(self, name: str) -> Path:
        """A table's log or a results file; only once the tournament has ended."""
        if not self.is_finished():
            raise NotFound(name)
        if name not in RESULT_FILES:
            name = f"{checked_table(name.removesuffix('.phhs'))}.phhs"
        return file_in(self.log_dir, name)


TOURNAMENT_NAV = [("/", "standings and tables")]


def table_columns(hands: Sequence[HandSummary]) -> list[str]:
    """The bots that played at a table, in the order they first appear: one column each, so
    that a bot's net chips line up from hand to hand whatever its seat."""
    return list(dict.fromkeys(name for hand in hands for name in hand.players))


class TournamentApp(Pages):
    site: TournamentSite

    def __init__(self, site: TournamentSite) -> None:
        super().__init__(title=site.config.name, nav=TOURNAMENT_NAV)
        self.site = site

    def index(self, request: Request) -> Response:
        site = self.site
        return self.render("tournament.html", tournament=site.config, standings=site.standings(),
                           events=site.events(), tables=site.tables())

    def table(self, request: Request) -> Response:
        table_id = request.path_params["table_id"]
        hands = self.site.summaries(table_id)
        if not hands:
            raise NotFound(table_id)
        columns = table_columns(hands)
        rows = [(h, [dict(zip(h.players, h.net_chips, strict=False)).get(name) for name in columns])
                for h in hands]
        return self.render("table.html", table_id=table_id, hands=hands, columns=columns,
                           rows=rows, finished=self.site.is_finished())

    def _hand_page(self, hand_id: str, data: dict[str, Any]) -> dict[str, Any]:
        table_id = table_of(hand_id)
        return {"back": (f"/table/{quote(table_id, safe='')}", f"table {table_id}"),
                "running_note": "the tournament is still running"}

    def standings_json(self, request: Request) -> Response:
        """What ``arena tournament standings --format json`` prints (404 while it runs)."""
        doc = self.site.standings()
        if doc is None:
            raise NotFound("standings")
        return JSONResponse(doc)

    def download(self, request: Request) -> Response:
        return attachment(self.site.download(request.path_params["name"]))

    def starlette(self) -> Starlette:
        return self.app_of([
            Route("/", self.index),
            Route("/table/{table_id}", self.table),
            Route("/api/standings.json", self.standings_json),
            Route("/download/{name}", self.download),
        ])

"""Reading the PHH logs the web app shows: parsed once per version of the file, bounded in size,
and tolerant of the hand being written at the end of a log that is still growing."""

from __future__ import annotations

import math
import threading
from dataclasses import dataclass, field
from pathlib import Path

from arena.engine.errors import ArenaError
from arena.engine.phh import PhhHand, loads
from arena.engine.rules import Rules
from arena.league.config import LeagueConfig
from arena.tourney.config import TournamentConfig

MAX_LOG_BYTES = 256 * 1024 * 1024


class NotFound(Exception):
    """Nothing by that name (or a name that is not allowed): the app answers 404."""


@dataclass(frozen=True, slots=True)
class HandSummary:
    hand_id: str
    match_id: str  # the log the hand is in: a league's match, a tournament's table
    index: int  # position in the log
    hand_number: int
    game: str
    deal_id: str
    players: tuple[str, ...]
    net_chips: tuple[int, ...]
    pot_chips: int
    timeouts: tuple[int, ...]
    absent: tuple[int, ...]


def int_list(value: object, n: int) -> tuple[int, ...]:
    """``n`` integers from an untrusted list (anything else counts 0)."""
    if not isinstance(value, list):
        return (0,) * n
    out = [v if isinstance(v, int) and not isinstance(v, bool) else 0 for v in value[:n]]
    return tuple(out + [0] * (n - len(out)))


def number(value: object) -> float:
    """A finite number from an untrusted value (anything else counts 0)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        return 0.0
    return float(value)


def summarize(hand: PhhHand, log_id: str, index: int) -> HandSummary:
    fields = hand.fields
    starting = fields.get("starting_stacks")
    n = len(starting) if isinstance(starting, list) else 0
    start = int_list(starting, n)
    finish = int_list(fields.get("finishing_stacks", list(start)), n)
    net = tuple(f - s for f, s in zip(finish, start, strict=True))
    players = fields.get("players")
    names = tuple(str(p) for p in players[:n]) if isinstance(players, list) else ()
    # A tournament's table log numbers its hands by table (each hand is a one-hand match).
    hand_number = fields.get("_table_hand", fields.get("_hand", index + 1))
    return HandSummary(
        hand_id=str(fields.get("_hand_id", f"{log_id}-h{index + 1}")), match_id=log_id,
        index=index, hand_number=hand_number if isinstance(hand_number, int) else index + 1,
        game=str(fields.get("variant", "?")), deal_id=str(fields.get("_deal_id", "")),
        players=names, net_chips=net, pot_chips=sum(v for v in net if v > 0),
        timeouts=int_list(fields.get("_timeouts"), n), absent=int_list(fields.get("_absent"), n))


@dataclass
class ParsedLog:
    stamp: tuple[int, int]
    hands: list[PhhHand]
    summaries: list[HandSummary]

    def find(self, hand_id: str) -> tuple[PhhHand, HandSummary]:
        """The logged hand with that id and its summary."""
        for hand, summary in zip(self.hands, self.summaries, strict=True):
            if summary.hand_id == hand_id:
                return hand, summary
        raise NotFound(hand_id)


def file_in(base: Path, name: str) -> Path:
    """The existing file ``name`` directly in the directory ``base`` (NotFound otherwise)."""
    path = base.resolve() / name
    if path.parent != base.resolve() or not path.is_file():
        raise NotFound(name)
    return path


@dataclass
class LogCache:
    """Parsed ``.phhs`` files by path, re-read when a file's size or mtime changes.
    Thread-safe: pages are built in worker threads."""

    _cache: dict[Path, ParsedLog] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def parsed(self, path: Path, log_id: str) -> ParsedLog:
        """The complete hands of the log at ``path`` (none when it does not exist)."""
        try:
            stat = path.stat()
        except OSError:
            return ParsedLog((0, 0), [], [])
        stamp = (stat.st_mtime_ns, stat.st_size)
        with self._lock:
            cached = self._cache.get(path)
        if cached is not None and cached.stamp == stamp:
            return cached
        if stat.st_size > MAX_LOG_BYTES:
            raise NotFound(f"{log_id}: log too large to show")
        text = path.read_text(encoding="utf-8")
        # A hand may be half written while the league runs: read only complete tables.
        if not text.endswith("\n"):
            text = text[: text.rfind("\n[") + 1] if "\n[" in text else ""
        try:
            hands = loads(text, name=path.name) if text.strip() else []
        except ArenaError:
            hands = []
        parsed = ParsedLog(stamp, hands, [summarize(h, log_id, k) for k, h in enumerate(hands)])
        with self._lock:
            self._cache[path] = parsed
        return parsed



class LogSite:
    """What a league's and a tournament's site share: the hand logs of a match or table in the
    config's ``log_dir``, parsed once per version of the file."""

    config: LeagueConfig | TournamentConfig
    logs: LogCache

    @property
    def log_dir(self) -> Path:
        return self.config.log_dir

    @property
    def rules(self) -> Rules:
        return self.config.rules

    def log_path(self, log_id: str) -> Path:
        """The hand log of a match or table, checked to lie in the log directory."""
        raise NotImplementedError

    def summaries(self, log_id: str) -> list[HandSummary]:
        return self.parsed(log_id).summaries

    def parsed(self, log_id: str) -> ParsedLog:
        return self.logs.parsed(self.log_path(log_id), log_id)

    def hand(self, hand_id: str) -> tuple[PhhHand, HandSummary, bool]:
        """A logged hand by id, its summary, and whether every card of it may be shown."""
        raise NotImplementedError

"""One match's log on disk, written and read here: hands as PHH (``<match>.phhs``), voided hands
apart (``.void.phhs``), every event as sent (``.events.pb``, ``arena/storage/eventlog.py``),
results and the revealed seed (``.result.json``), and the number of the hand in flight
(``.inflight``, resumable logs only).

Hands are appended as they finish, so a crash loses at most the running hand. The match seed
is written only into the results file, at the end (docs/house-rules.md §1).
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from arena.engine.cards import format_card
from arena.engine.errors import MalformedInput
from arena.engine.phh import dumps_hand
from arena.match.messages import MatchSeatResult
from arena.match.records import MatchSummary, PlayedHand, phh_fields
from arena.storage.eventhold import Held
from arena.storage.eventlog import EventLog, EventRecords, frame, open_for_append
from arena.storage.phhappend import PhhAppender as PhhAppender  # also imported from here
from arena.storage.phhappend import open_private


def safe_file_name(match_id: str) -> str:
    """A match id as a file name: anything but letters, digits and -_. becomes _."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in match_id)


@dataclass(frozen=True, slots=True)
class MatchLogPaths:
    """The files of one match's log."""

    hands: Path
    voids: Path
    result: Path
    events: Path
    inflight: Path

    @classmethod
    def of(cls, directory: Path, match_id: str) -> MatchLogPaths:
        return cls.at(directory / safe_file_name(match_id))

    @classmethod
    def beside(cls, hands_path: Path) -> MatchLogPaths:
        """The files that belong with a ``<match>.phhs`` hand log."""
        return cls.at(hands_path.with_name(hands_path.name.removesuffix(".phhs")))

    @classmethod
    def at(cls, base: Path) -> MatchLogPaths:
        return cls(hands=Path(f"{base}.phhs"), voids=Path(f"{base}.void.phhs"),
                   result=Path(f"{base}.result.json"), events=Path(f"{base}.events.pb"),
                   inflight=Path(f"{base}.inflight"))


class MatchLog:
    """A :class:`~arena.match.records.MatchSink` writing one match's files into ``directory``.

    A *resumable* log (leagues) appends to what an interrupted run left, marks the hand in
    flight, and keeps the seed secret when the match is aborted (it goes on when run again);
    otherwise (``arena serve``) the log starts empty and the results are written in any case.
    With ``events`` (what the records hold, made by the transport layer) it keeps the event log.
    """

    def __init__(self, directory: Path, match_id: str, *, resumable: bool = False,
                 events: EventRecords | None = None, reveal_seed: bool = True,
                 result_extra: dict[str, Any] | None = None) -> None:
        make_private_dir(directory)
        self.reveal_seed = reveal_seed  # False: another match shares the deals (see reveal_seed)
        self.result_extra = dict(result_extra or {})
        self.paths = MatchLogPaths.of(directory, match_id)
        self.resumable = resumable
        self._hands = PhhAppender(self.paths.hands, fresh=not resumable)
        self._voids = PhhAppender(self.paths.voids, fresh=not resumable)
        self.events = EventLog(self.paths.events, events) if events is not None else None
        self._marked = False  # this log wrote the in-flight mark (leagues keep it in the store)
        # A fresh log (``arena serve``) replaces an earlier run's files once its match begins,
        # not when it is made: a dealer that cannot start (its port taken) leaves them whole.
        self._replaces_files = not resumable

    def _replace_files(self) -> None:
        """Before the first hand (or the end of a match that dealt none): once."""
        if not self._replaces_files:
            return
        self._replaces_files = False
        write_private(self.paths.hands, "")
        self.paths.voids.unlink(missing_ok=True)
        self.paths.result.unlink(missing_ok=True)

    def hand_started(self, match_id: str, hand_number: int) -> None:
        """A resumable log marks the hand in flight; a hand reaches the log when it has ended."""
        self._replace_files()
        if self.resumable:
            write_private(self.paths.inflight, str(hand_number))
            self._marked = True

    def hand_finished(self, hand: PlayedHand) -> None:
        self.write_hand(hand, dumps_hand(phh_fields(hand)))

    def write_hand(self, hand: PlayedHand, phh_text: str, *,
                   events: list[Held] | None = None) -> None:
        """Append a hand whose PHH text is already made (``dumps_hand(phh_fields(hand))``) and
        its events: ``events`` as taken from the event log (by the dealer's thread when another
        thread writes), by default what the event log holds."""
        self._replace_files()
        (self._voids if hand.voided else self._hands).append(phh_text)
        if self._marked:
            self.paths.inflight.unlink(missing_ok=True)
            self._marked = False
        if self.events is not None:
            self.events.write(self.events.take() if events is None else events)

    def match_finished(self, summary: MatchSummary) -> None:
        self._replace_files()
        self.close()
        if summary.aborted and self.resumable:
            return  # the seed stays secret: the match goes on when it is run again
        result = result_json(summary)
        if summary.aborted or not self.reveal_seed:
            result["match_seed"] = None  # never revealed by an aborted match (docs/house-rules.md §1)
        result.update(self.result_extra)
        write_private(self.paths.result, json.dumps(result, indent=2) + "\n")

    def close(self) -> None:
        self._hands.close()
        self._voids.close()
        if self.events is not None:
            self.events.close()


def result_json(summary: MatchSummary) -> dict[str, Any]:
    """The ``.result.json`` of a match: results, the revealed seed and decision statistics."""
    return {
        "match_id": summary.match_id,
        "match_seed": summary.seed,
        "hands_played": summary.hands_played,
        "aborted": summary.aborted,
        "abort_reason": summary.abort_reason,
        "button_draw": [{"seat": s, "card": format_card(c)} for s, c in summary.button_draw],
        "results": [{name: getattr(r, name) for name in _SEAT_RESULT_FIELDS}
                    for r in summary.results],  # `asdict`'s, without its deep copy of each value
        "decisions": summary.stats.summary(),
    }


_SEAT_RESULT_FIELDS = tuple(f.name for f in fields(MatchSeatResult))  # numbers and text only


# --------------------------------------------------------------------------- reading back


def read_result(hands_path: Path) -> dict[str, Any] | None:
    """The ``<match>.result.json`` beside a hand log, if the match ended."""
    result = MatchLogPaths.beside(hands_path).result
    if not result.exists():
        return None
    try:
        data = json.loads(result.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise MalformedInput(f"{result}: not a readable results file: {exc}") from None
    if not isinstance(data, dict):
        raise MalformedInput(f"{result}: not a results file")
    return data


def match_seed_for(hands_path: Path) -> int | None:
    """The seed revealed in ``<match>.result.json`` beside the hand log, if it has been
    revealed (the match ended, and so did every match that shares its deals)."""
    data = read_result(hands_path)
    if data is None or data.get("match_seed") is None:
        return None
    seed = data.get("match_seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or seed < 0:
        raise MalformedInput(f"{MatchLogPaths.beside(hands_path).result}: "
                             "'match_seed' is not a non-negative integer")
    return seed


def reveal_seed(paths: MatchLogPaths, seed: int) -> None:
    """Write the seed into a match's results file once every match sharing its deals ended."""
    if not paths.result.exists():
        return
    data = json.loads(paths.result.read_text(encoding="utf-8"))
    data["match_seed"] = seed
    write_private(paths.result, json.dumps(data, indent=2) + "\n")


def make_private_dir(directory: Path) -> None:
    """Create a directory readable by its owner only (an existing one keeps its mode)."""
    directory.mkdir(mode=0o700, parents=True, exist_ok=True)


def make_private_store(path: Path) -> None:
    """Create an empty SQLite store file readable by its owner only, before SQLite opens it
    (SQLite gives its -wal and -shm files the same mode); an existing one keeps its mode."""
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists():
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))


def write_private(path: Path, text: str) -> None:
    """Replace a file's content; a new file is created readable by its owner only."""
    with open_private(path, "w") as fh:
        fh.write(text)


def catch_up(paths: MatchLogPaths, committed_hands: Sequence[str], *,
             records: EventRecords) -> int:
    """Append to a resumed hand log the hands the results store committed that the log lacks
    (the dealer can be killed between the two writes); ``committed_hands`` are the PHH texts in
    hand order. Returns how many were appended.

    The events of those hands were written (if at all) with their PHH text, after the commit:
    the event log gets a ``gap`` record (made by ``records``) naming the restored hands, so
    that a reader knows their events may be missing rather than finding them silently absent."""
    appender = PhhAppender(paths.hands, fresh=False)
    missing = committed_hands[appender.count:]
    for text in missing:
        appender.append(text)
    appender.close()
    if missing:
        hand_ids = [found.group(1) if (found := _HAND_ID.search(text)) else "?" for text in missing]
        with open_for_append(paths.events, records) as fh:
            fh.write(frame([records.gap(hand_ids, "the dealer stopped after committing these hands "
                                        "and before logging them: their PHH text was restored from "
                                        "the results store, their events may be missing before "
                                        "this record")]))
    return len(missing)


_HAND_ID = re.compile(r"^_hand_id = '([^'\n]*)'$", re.M)


def hand_in_flight(paths: MatchLogPaths, *, unreadable: int) -> int | None:
    """The number of the hand a resumable log marked as dealt but not ended (``unreadable`` if
    the mark cannot be read), or None. The caller voids that hand, then :func:`clear_in_flight`."""
    if not paths.inflight.exists():
        return None
    try:
        return int(paths.inflight.read_text(encoding="utf-8").strip())
    except (OSError, ValueError):
        return unreadable


def clear_in_flight(paths: MatchLogPaths) -> None:
    paths.inflight.unlink(missing_ok=True)

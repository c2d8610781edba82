"""Match logs on disk: hands as PHH (``<match>.phhs``), voided hands apart, results as JSON.

Hands are appended as they finish, so a crash loses at most the running hand. The match seed
is written only into the results file, at the end (RULES.md §1).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path
from typing import Any, TextIO

from arena.engine.cards import format_card
from arena.engine.phh import dumps_hands
from arena.match.live import HandRecord, MatchSummary
from arena.server.stats import percentile


def safe_file_name(match_id: str) -> str:
    """A match id as a file name: anything but letters, digits and -_. becomes _."""
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in match_id)


class MatchLog:
    """A :class:`~arena.match.live.MatchSink` writing one match's files into ``directory``."""

    def __init__(self, directory: Path, match_id: str) -> None:
        directory.mkdir(parents=True, exist_ok=True)
        safe = safe_file_name(match_id)
        self.hands_path = directory / f"{safe}.phhs"
        self.void_path = directory / f"{safe}.void.phhs"
        self.result_path = directory / f"{safe}.result.json"
        self._counts = {self.hands_path: 0, self.void_path: 0}
        self._files: dict[Path, TextIO] = {}
        self.hands_path.write_text("", encoding="utf-8")

    def _append(self, path: Path, fields: dict[str, Any]) -> None:
        fh = self._files.get(path)
        if fh is None:
            fh = self._files[path] = path.open("a", encoding="utf-8")
        count = self._counts[path]
        fh.write(("\n" if count else "") + dumps_hands([fields], first_index=count + 1))
        fh.flush()
        self._counts[path] = count + 1

    def hand_started(self, match_id: str, hand_number: int) -> None:
        """Nothing to write: a hand reaches the log when it has finished (or is voided)."""

    def hand_finished(self, record: HandRecord) -> None:
        self._append(self.void_path if record.voided else self.hands_path, record.fields)

    def match_finished(self, summary: MatchSummary) -> None:
        for fh in self._files.values():
            fh.close()
        self._files.clear()
        self.result_path.write_text(json.dumps(summary_json(summary), indent=2) + "\n",
                                    encoding="utf-8")


def summary_json(summary: MatchSummary) -> dict[str, Any]:
    stats = summary.stats
    return {
        "match_id": summary.match_id,
        "match_seed": summary.seed,
        "hands_played": summary.hands_played,
        "aborted": summary.aborted,
        "abort_reason": summary.abort_reason,
        "button_draw": [{"seat": s, "card": format_card(c)} for s, c in summary.button_draw],
        "results": [asdict(r) for r in summary.results],
        "decisions": {
            "prompts": stats.prompts, "answered": stats.answered, "rejected": stats.rejected,
            "timeouts": stats.timeouts, "absent_actions": stats.absent_actions,
            "answer_seconds_p50": percentile(stats.answer_seconds, 0.5),
            "answer_seconds_p99": percentile(stats.answer_seconds, 0.99),
            "timeout_lateness_seconds_p50": percentile(stats.lateness_seconds, 0.5),
            "timeout_lateness_seconds_p99": percentile(stats.lateness_seconds, 0.99),
            "timeout_lateness_seconds_max": max(stats.lateness_seconds, default=0.0),
        },
    }

"""A league's leaderboard as its readers get it: the table, the faults, the hands left out,
the strategy shares and the trust note, in one value that every format (text, JSON, CSV,
the files beside the logs) is made from."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from arena.league.leaderboard import (
    CSV_TABLES,
    CsvTable,
    faults_csv,
    render_faults,
    render_left_out,
    render_table,
    to_csv,
    to_json,
)
from arena.league.stats import Leaderboard
from arena.league.strategy_share import StrategyShare, render_strategy_shares
from arena.storage.matchlog import write_private
from arena.storage.records import FaultCounts, LeftOutHand


@dataclass(frozen=True, slots=True, kw_only=True)
class BoardReport:
    """Everything a leaderboard shows, read from the store once."""

    board: Leaderboard
    """The results, intervals and crosstable."""
    faults: Sequence[FaultCounts]
    """Per bot and match: timeouts, absences, refusals, SDK fallbacks, disconnects."""
    left_out: Sequence[LeftOutHand]
    """Completed hands the leaderboard leaves out (other copies of voided deals)."""
    strategy_shares: Sequence[StrategyShare]
    """Per bot, the decisions it answered with a declared strategy (docs/house-rules.md §19)."""
    trusted: Collection[str]
    """Remote bots of a duplicate league: their duplicate results trust them not to link copies."""
    trust_note: str
    """What ``trusted`` means, in plain words ("" when no bot is trusted)."""

    def text(self) -> str:
        """The table and everything under it, as ``arena leaderboard`` prints it."""
        return (render_table(self.board) + "\n" + render_faults(self.faults)
                + render_left_out(self.left_out) + render_strategy_shares(self.strategy_shares)
                + (f"note: {self.trust_note}\n" if self.trust_note else ""))

    def json(self) -> str:
        """``arena leaderboard --format json`` (and ``leaderboard.json``)."""
        return to_json(self.board, faults=self.faults, left_out=self.left_out,
                       strategy_shares=self.strategy_shares, trusted=self.trusted,
                       trust_note=self.trust_note)

    def csv(self, table: CsvTable | Literal["faults"]) -> str:
        """One CSV table: ``results``, ``crosstable``, ``rankings`` or ``faults``."""
        if table == "faults":
            return faults_csv(self.faults)
        return to_csv(self.board, table=table, trusted=self.trusted)

    def write_files(self, base: Path, *, deals: str) -> list[Path]:
        """``BASE.json``, ``BASE.txt`` (with the ``deals`` line) and one owner-only CSV per
        table: ``BASE.csv`` (results), ``BASE-crosstable.csv``, ``BASE-rankings.csv``,
        ``BASE-faults.csv``."""
        written = {Path(f"{base}.json"): self.json(),
                   Path(f"{base}.txt"): self.text() + f"\ndeals: {deals}\n"}
        tables: tuple[CsvTable | Literal["faults"], ...] = (*CSV_TABLES, "faults")
        for table in tables:
            name = f"{base}.csv" if table == "results" else f"{base}-{table}.csv"
            written[Path(name)] = self.csv(table)
        for path, text in written.items():
            write_private(path, text)
        return list(written)

"""The live progress of a league: hands, rate, ETA, every bot's chips and mbb/hand, who it waits for.

On a terminal a `rich` live table is redrawn in place; elsewhere (logs, pipes) one labelled
line is written every few seconds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import TextIO

from rich.console import Console, Group
from rich.live import Live
from rich.table import Table
from rich.text import Text


@dataclass
class Progress:
    """What the live display shows; updated by the sinks, read by the display loop."""

    total_hands: int
    small_bet_chips: int = 20  # mbb/hand: 1000 x chips / small bet (the big blind) per hand
    done_hands: int = 0
    played_this_run: int = 0
    started: float = field(default_factory=time.perf_counter)
    net_by_bot: dict[str, int] = field(default_factory=dict)
    hands_by_bot: dict[str, int] = field(default_factory=dict)
    waiting_for: tuple[str, ...] = ()  # bots that matches are waiting for now
    forfeited: list[str] = field(default_factory=list)  # matches not played (absent = "forfeit")

    def add(self, bot: str, net_chips: int) -> None:
        """One completed hand of ``bot``."""
        self.net_by_bot[bot] = self.net_by_bot.get(bot, 0) + net_chips
        self.hands_by_bot[bot] = self.hands_by_bot.get(bot, 0) + 1

    def mbb_per_hand(self, bot: str) -> float:
        hands = self.hands_by_bot.get(bot, 0)
        return 1000.0 * self.net_by_bot.get(bot, 0) / self.small_bet_chips / hands if hands else 0.0

    def _standings(self) -> list[str]:
        return sorted(self.net_by_bot, key=lambda bot: (-self.net_by_bot[bot], bot))

    def header(self) -> str:
        elapsed = max(time.perf_counter() - self.started, 1e-9)
        rate = self.played_this_run / elapsed
        left = self.total_hands - self.done_hands
        eta = f"{left / rate:,.0f} s" if rate > 0 else "?"
        text = f"hands {self.done_hands}/{self.total_hands}, {rate:,.1f} hands/s, ETA {eta}"
        if self.waiting_for:
            text += f" | waiting for: {', '.join(self.waiting_for)}"
        return text

    def line(self) -> str:
        """One labelled line: for logs and pipes."""
        standings = ", ".join(f"{bot} {self.net_by_bot[bot]:+d} chips "
                              f"({self.mbb_per_hand(bot):+.0f} mbb/hand)" for bot in self._standings())
        return f"{self.header()} | {standings or 'no hand yet'}"

    def table(self) -> Group:
        """The header and a table of every bot: for a terminal."""
        table = Table(box=None, pad_edge=False)
        table.add_column("bot", justify="left")
        for title in ("hands", "chips", "mbb/hand"):
            table.add_column(title, justify="right")
        for bot in self._standings():
            table.add_row(bot, str(self.hands_by_bot.get(bot, 0)), f"{self.net_by_bot[bot]:+d}",
                          f"{self.mbb_per_hand(bot):+.1f}")
        return Group(Text(self.header()), table)


class ProgressDisplay:
    """Shows a :class:`Progress` on ``out``: in place on a terminal, as lines otherwise."""

    def __init__(self, progress: Progress, out: TextIO) -> None:
        self.progress = progress
        self.out = out
        self.interactive = out.isatty()
        self._live: Live | None = None
        if self.interactive:
            self._live = Live(progress.table(), console=Console(file=out), auto_refresh=False,
                              transient=False)
            self._live.start()

    @property
    def interval_seconds(self) -> float:
        return 0.5 if self.interactive else 5.0

    def update(self) -> None:
        if self._live is not None:
            self._live.update(self.progress.table(), refresh=True)
        else:
            self.out.write(self.progress.line() + "\n")
            self.out.flush()

    def close(self) -> None:
        self.update()  # the last figures
        if self._live is not None:
            self._live.stop()
            self._live = None

"""Appending hands to a ``.phhs`` hand log (the match log's, the league writer's)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Literal, TextIO

_TABLE_HEADER = re.compile(r"^\[\d+\]$", re.MULTILINE)


class PhhAppender:
    """Appends hands to a ``.phhs`` file as numbered tables; a resumed file numbers on from the
    hands it already holds, a fresh one starts empty."""

    def __init__(self, path: Path, *, fresh: bool) -> None:
        self.path = path
        self._fresh = fresh
        self.count = 0
        if not fresh and path.exists():
            self.count = len(_TABLE_HEADER.findall(path.read_text(encoding="utf-8")))
        self._file: TextIO | None = None

    def append(self, hand_text: str) -> None:
        """Append one hand's PHH text (as ``dumps_hand`` writes it) as the next table."""
        fh = self._file
        if fh is None:
            fh = self._file = open_private(self.path, "w" if self._fresh else "a")
        fh.write(("\n" if self.count else "") + f"[{self.count + 1}]\n{hand_text}")
        fh.flush()
        self.count += 1

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


def open_private(path: Path, mode: Literal["w", "a"]) -> TextIO:
    """Open a text file for writing ("w") or appending ("a"); a new one is owner-only."""
    return open(path, mode, encoding="utf-8", opener=owner_only)


def owner_only(path: str, flags: int) -> int:
    """An `open` opener: a file it creates is owner-only (0o600)."""
    return os.open(path, flags, 0o600)

"""Where the shared rules, seeds and fixtures live: beside the repository (as in CI)."""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def shared_dir() -> Path:
    candidates = [Path(p) for p in (os.environ.get("ARENA_SHARED"),) if p]
    candidates += [REPO.parent / "shared", Path("/work/shared")]
    for candidate in candidates:
        if (candidate / "RULES.md").exists():
            return candidate
    raise FileNotFoundError("shared/ (RULES.md, fixtures) not found beside the repository; set ARENA_SHARED")


SHARED = shared_dir()
FIXTURES = SHARED / "fixtures" / "wsop-2023-43"
SEEDS = SHARED / "seeds"

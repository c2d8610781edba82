"""Every benchmark module imports (bench.web once imported a helper bench.league no longer had,
and nothing ran it until somebody wanted its figures)."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

_BENCH = Path(__file__).resolve().parents[2] / "bench"


@pytest.mark.parametrize("name", sorted(p.stem for p in _BENCH.glob("*.py") if p.stem != "__init__"))
def test_a_benchmark_module_imports(name: str) -> None:
    module = importlib.import_module(f"bench.{name}")
    assert module.__name__ == f"bench.{name}"

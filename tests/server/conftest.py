"""Shared fixtures of the dealer tests: the SDK on sys.path and short helpers."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "bots" / "python"
if str(SDK) not in sys.path:
    sys.path.insert(0, str(SDK))  # the SDK is its own package; tests use it from the checkout

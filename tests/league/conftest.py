"""The SDK on sys.path: some league tests run SDK bots in their own process."""

from __future__ import annotations

import sys

from tests.server.procs import ROOT

SDK = ROOT / "bots" / "python"
if str(SDK) not in sys.path:
    sys.path.insert(0, str(SDK))  # the SDK is its own package; tests use it from the checkout

"""bench.league's play window reads running bots' CPU from /proc (README "League")."""

from __future__ import annotations

import os
import time

from bench.league import _bots_cpu


def test_a_process_cpu_from_proc_matches_its_own_count() -> None:
    started = time.process_time()
    while time.process_time() - started < 0.3:  # burn CPU so the ticks move
        pass
    own = os.times()
    from_proc = _bots_cpu((os.getpid(),))
    # /proc counts whole clock ticks of all threads (1/100 s here); os.times the same totals.
    assert abs(from_proc - (own.user + own.system)) < 0.05
    assert from_proc >= 0.3 - 0.02

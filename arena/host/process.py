"""The process-wide interpreter settings, in one place: the garbage collector and the GIL's
switch interval as a dealer wants them (:func:`tuned_for_dealing`), and the shorter switch
interval while a writer's batch runs up to its commit (:data:`quick_switching`)."""

from __future__ import annotations

import gc
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

COMMIT_SWITCH_SECONDS = 0.0005  # the GIL's switch interval while a batch runs up to its commit


@contextmanager
def tuned_for_dealing() -> Iterator[None]:
    """The interpreter as a dealer process wants it, restored afterwards.

    A dealer makes many short-lived objects per decision and few long-lived ones: the start-up
    objects are left out of collections and the young generation is collected less often.
    Trio's guest-mode I/O thread and gRPC's poller thread hand work to the loop thread; a 1 ms GIL
    switch interval makes those hand-offs (and so timeouts) prompt under load."""
    thresholds, switch_seconds = gc.get_threshold(), sys.getswitchinterval()
    gc.freeze()
    gc.set_threshold(20_000, 50, 100)
    sys.setswitchinterval(0.001)
    try:
        yield
    finally:
        gc.set_threshold(*thresholds)
        gc.unfreeze()
        sys.setswitchinterval(switch_seconds)


class _QuickSwitching:
    """The GIL's switch interval at `COMMIT_SWITCH_SECONDS` (if shorter) while any writer of the
    process runs a batch; the interval it had before once none does."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._batches = 0  # batches running now, in every writer
        self._saved_seconds = 0.0  # the interval to restore when the last one ends

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._batches == 0:
                self._saved_seconds = sys.getswitchinterval()
                sys.setswitchinterval(min(self._saved_seconds, COMMIT_SWITCH_SECONDS))
            self._batches += 1
        try:
            yield
        finally:
            with self._lock:
                self._batches -= 1
                if self._batches == 0:
                    sys.setswitchinterval(self._saved_seconds)


quick_switching = _QuickSwitching()

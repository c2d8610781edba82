"""A background refresh: work asked for on the dealer's thread (the metrics' leaderboard, with the
luck of the matches that ended) done on a thread of its own, requests coalesced meanwhile."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger("arena.league")


class Refresher:
    """Runs ``refresh(match_ids)`` on its own thread whenever asked; the match ids of requests
    that arrive while it runs are gathered into one next run. The caller never waits (the
    luck of a deal set's hands takes seconds of CPU: on the dealer's thread it froze every table)."""

    def __init__(self, refresh: Callable[[list[int]], None], name: str = "arena-board") -> None:
        self._refresh = refresh
        self._name = name
        self._cond = threading.Condition()
        self._pending: list[int] | None = None  # None: nothing asked
        self._busy = False
        self._thread: threading.Thread | None = None
        self.runs = 0  # refreshes done (tests)

    def request(self, match_ids: list[int]) -> None:
        """Ask for a refresh that includes ``match_ids``; returns at once."""
        with self._cond:
            pending = self._pending if self._pending is not None else []
            self._pending = pending + [m for m in match_ids if m not in pending]
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def wait(self, timeout_seconds: float | None = None) -> bool:
        """Block until every refresh asked for so far has run; False on timeout."""
        with self._cond:
            return self._cond.wait_for(lambda: self._pending is None and not self._busy,
                                       timeout_seconds)

    def _run(self) -> None:
        while True:
            with self._cond:
                self._cond.wait_for(lambda: self._pending is not None)
                match_ids, self._pending, self._busy = self._pending or [], None, True
            try:
                self._refresh(match_ids)
            except Exception:  # a failed refresh must not stop later ones
                log.exception("refreshing the leaderboard failed")
            finally:
                with self._cond:
                    self._busy = False
                    self.runs += 1
                    self._cond.notify_all()

"""A worker's sessions bounded below its lease, and a store that waits for its database (issue 38):
the settings' checks, and the waiting loop's pauses and its one message."""

from __future__ import annotations

import math
import socket

import pytest

from arena.storage.errors import StoreError
from arena.storage.postgres import open_when_up, session_bounds


@pytest.mark.parametrize("bad", [0.0, -1.0, math.nan, math.inf, 86_401.0])
def test_a_bound_outside_its_range_is_refused(bad: float) -> None:
    with pytest.raises(StoreError, match="bound_seconds"):
        session_bounds(bad)


def test_every_transaction_statement_lock_and_silent_peer_is_bounded() -> None:
    settings = session_bounds(2.0)
    options = str(settings["options"])
    for name in ("idle_in_transaction_session_timeout", "statement_timeout", "lock_timeout",
                 "tcp_user_timeout"):
        assert f"-c {name}=2000" in options
    assert settings["keepalives"] == 1 and settings["tcp_user_timeout"] == 2000


class _Stop(Exception):
    pass


def test_a_store_waits_for_its_database_saying_so_once_with_doubling_pauses() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    said: list[str] = []
    pauses: list[float] = []

    def sleep(seconds: float) -> None:
        pauses.append(seconds)
        if len(pauses) == 6:
            raise _Stop

    with pytest.raises(_Stop):
        open_when_up(f"postgresql://arena@127.0.0.1:{port}/arena", say=said.append, sleep=sleep,
                     max_pause_seconds=2.0)
    assert len(said) == 1 and said[0].startswith("database unavailable (") and "waiting for it" in said[0]
    assert pauses == [0.25, 0.5, 1.0, 2.0, 2.0, 2.0]

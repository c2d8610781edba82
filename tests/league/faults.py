"""What the distributed-league fault tests share: the checks that a league finished with every
hand dealt once (issue 38), read from the database."""

from __future__ import annotations

import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

from tests.league.test_workers import query
from tests.server.procs import env


def every_hand_once(url: str, hands_per_match: int, *, tables: int = 6) -> None:
    """The league finished: every job done, every match finished, on each table every hand
    number once (completed or void, never twice, none missing), chips conserved."""
    assert query(url, "SELECT COUNT(*) FROM jobs WHERE status <> 'done'") == [(0,)]
    assert query(url, "SELECT COUNT(*) FROM matches WHERE status <> 'finished'") == [(0,)]
    numbers: dict[tuple[object, object], list[int]] = defaultdict(list)
    for match_id, copy_index, number in query(url, "SELECT match_id, copy_index, hand_number FROM hands"):
        assert isinstance(number, int)
        numbers[(match_id, copy_index)].append(number)
    assert len(numbers) == tables
    for key, seen in numbers.items():
        expected = list(range(1, hands_per_match + 1))
        assert sorted(seen) == expected, (
            key, "missing", sorted(set(expected) - set(seen)),
            "twice", sorted({n for n in seen if seen.count(n) > 1}),
            "extra", sorted(set(seen) - set(expected)))
    assert query(url, "SELECT COUNT(*) FROM (SELECT hand_id FROM hand_seats GROUP BY hand_id "
                      "HAVING SUM(net_chips) <> 0) AS unbalanced") == [(0,)]


def hands_played(url: str) -> int:
    count = query(url, "SELECT COUNT(*) FROM hands")[0][0]
    assert isinstance(count, int)
    return count


def wait_for(condition: Callable[[], bool], what: str, timeout_seconds: float = 120) -> None:
    """Poll ``condition`` until true; a generous bound, never a timing threshold of the test."""
    deadline = time.monotonic() + timeout_seconds
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.1)


def worker(url: str, name: str, port: int, folder: Path, *, lease_seconds: float = 4.0,
           exit_when_done: bool = True, extra: tuple[str, ...] = ()) -> subprocess.Popen[str]:
    """An `arena worker` process (output in ``folder/name.out``), leaving when no job is left
    (``exit_when_done``) or when stopped."""
    with (folder / f"{name}.out").open("a") as out:  # the child has its own copy of the file
        return subprocess.Popen(
            [sys.executable, "-m", "arena.cli", "worker", "--store", url, "--name", name,
             "--listen", f"127.0.0.1:{port}", "--log-dir", str(folder / name),
             "--lease-seconds", str(lease_seconds), "--heartbeat-seconds", "0.5",
             *(["--exit-when-done"] if exit_when_done else []), *extra],
            cwd=folder, env=env(), stdout=out, stderr=subprocess.STDOUT, text=True)

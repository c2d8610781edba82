"""The dealer's fast paths that lean on other libraries' internals, in one place.

Each was kept because an alternated benchmark showed it pays more than 5% (docs/performance.md,
"Fast paths and the compiled build"), and each runs only on the library versions the suite
tests it with (:data:`FastPath.tested`). ``ARENA_FAST_PATHS=off`` turns every one off (CI runs
the server and league tests once so: ``make unit-plain``). A fast path not taken says so, once
per reason, in the log (a warning when it was not asked for: an untested version, internals
not as expected; a note when it was: the switch, ``GRPC_EXPERIMENTS`` set) and as
``arena_fast_path_taken{path="..."} 0`` on /metrics.
"""

from __future__ import annotations

import logging
import os
import platform
from dataclasses import dataclass
from typing import Final

log = logging.getLogger("arena.host")

ENV: Final = "ARENA_FAST_PATHS"
_OFF: Final = ("0", "off", "false", "no")
SWITCHED_OFF: Final = f"{ENV} turns the fast paths off"


@dataclass(frozen=True, slots=True, kw_only=True)
class FastPath:
    """One fast path: what it reaches into and the versions it was tested with."""

    name: str  # its label on /metrics and in the log
    library: str  # the distribution whose internals it uses ("python": the interpreter's)
    tested: tuple[str, ...]  # version prefixes it runs on ("0.35." matches 0.35.0 and 0.35.1)
    what: str  # one line for the log: what is lost without it


# Trio's idle waits on the asyncio loop (arena/server/guest_wait.py): trio's GuestState class.
GUEST_WAIT: Final = FastPath(
    name="trio_guest_wait", library="trio", tested=("0.35.",),
    what="trio's idle waits run in its helper thread (more thread switches per decision)")
# A write's first step in the caller's callback (arena/server/eager.py): asyncio's future
# protocol (``_asyncio_future_blocking``).
EAGER_WRITES: Final = FastPath(
    name="eager_writes", library="python", tested=("3.11.", "3.12.", "3.13."),
    what="each write starts as an asyncio task, one loop turn later")
# gRPC's older epoll I/O path (arena/host/grpc_io.py): GRPC_EXPERIMENTS while grpc is imported.
GRPC_OLDER_IO: Final = FastPath(
    name="grpc_older_io", library="grpcio", tested=("1.85.",),
    what="gRPC's EventEngine I/O (more thread hand-offs per read and write)")
ALL: Final = (GUEST_WAIT, EAGER_WRITES, GRPC_OLDER_IO)

_taken: dict[str, bool] = {}
_warned: set[tuple[str, str]] = set()


def _version(library: str) -> str:
    if library == "python":
        return platform.python_version()
    from importlib import metadata  # only when a fast path is tried (a slow import)

    try:
        return metadata.version(library)
    except metadata.PackageNotFoundError:
        return ""


def why_not(path: FastPath) -> str | None:
    """Why ``path`` must not be taken in this process (None: it may be)."""
    if os.environ.get(ENV, "").strip().lower() in _OFF:
        return SWITCHED_OFF
    version = _version(path.library)
    if not version.startswith(path.tested):
        return f"{path.library} {version or '(not found)'} is not a tested version ({', '.join(path.tested)})"
    return None


def allowed(path: FastPath) -> bool:
    """Whether ``path`` may be taken; when not, :func:`record` says why."""
    reason = why_not(path)
    if reason is not None:
        record(path, taken=False, why=reason)
    return reason is None


def record(path: FastPath, *, taken: bool, why: str = "", asked: bool = False) -> None:
    """Note whether ``path`` was taken (for /metrics); when not, log why, once per reason: a
    note when the user asked for it (``asked``, or the switch), else a warning."""
    _taken[path.name] = taken
    if not taken and (path.name, why) not in _warned:
        _warned.add((path.name, why))
        level = logging.INFO if asked or why == SWITCHED_OFF else logging.WARNING
        log.log(level, "fast path %s not taken (%s): %s", path.name, why, path.what)


def taken() -> dict[str, bool]:
    """Each fast path by name: whether this process took it when it last tried (a path not yet
    tried is absent)."""
    return dict(_taken)

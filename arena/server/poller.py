"""grpc.aio's poller thread at a lower priority than the event loop that serves the tables.

grpc.aio (grpcio's epoll path) has one thread that waits in gRPC core's completion queue and
hands every completion to the event loop through a socket. Each write's completion wakes that
thread through an eventfd while the event loop is still busy (a trio tick, the next read
armed): at the same priority it runs at once, often preempting the event-loop thread on its
core while that thread holds the completion queue's mutex, then sleeps on that mutex, and
sleeps again before the bot's reply arrives. A few nice levels lower it no longer preempts the
event loop: the write's completion and the bot's reply are then handled in one wake-up, about
1 instead of 2-3.5 voluntary switches of that thread per heads-up decision (README "Dealer").

Linux only (a thread's nice value is its own there); elsewhere, or when grpc.aio's thread is
not found (another grpcio), nothing changes. ``ARENA_GRPC_POLLER_NICE`` (0-19) replaces
:data:`NICE_STEPS`; 0 leaves the thread alone.
"""

from __future__ import annotations

import logging
import os
import sys
import threading

log = logging.getLogger("arena.server")

ENV = "ARENA_GRPC_POLLER_NICE"
NICE_STEPS = 10  # nice levels below the thread that calls lower_poller_priority
MAX_NICE = 19
_POLLER_TARGET = "_poll_wrapper"  # grpc.aio's PollerCompletionQueue thread function


def nice_steps() -> int:
    """The nice levels to lower the poller by: ``ARENA_GRPC_POLLER_NICE`` or NICE_STEPS."""
    text = os.environ.get(ENV, "").strip()
    if not text:
        return NICE_STEPS
    try:
        steps = int(text)
    except ValueError:
        log.warning("%s=%r is not a whole number; using %d", ENV, text, NICE_STEPS)
        return NICE_STEPS
    return max(0, min(MAX_NICE, steps))


def poller_threads() -> list[threading.Thread]:
    """grpc.aio's poller threads of this process (one once grpc.aio has started)."""
    found = []
    for thread in threading.enumerate():
        target = getattr(getattr(thread, "_target", None), "__name__", "")
        if target == _POLLER_TARGET or thread.name.endswith(f"({_POLLER_TARGET})"):
            found.append(thread)
    return found


def lower_poller_priority(steps: int | None = None) -> list[int]:
    """Set grpc.aio's poller threads ``steps`` nice levels (default :func:`nice_steps`) below
    the calling thread (at most 19); returns the thread ids set. Idempotent: the level is
    relative to the caller's, not to the poller's current one."""
    steps = nice_steps() if steps is None else steps
    if steps <= 0 or not sys.platform.startswith("linux"):
        return []
    target = min(MAX_NICE, os.getpriority(os.PRIO_PROCESS, 0) + steps)  # 0: this thread
    done = []
    for thread in poller_threads():
        tid = thread.native_id
        if tid is None:
            continue
        try:
            if os.getpriority(os.PRIO_PROCESS, tid) < target:
                os.setpriority(os.PRIO_PROCESS, tid, target)
        except OSError as exc:  # the thread ended meanwhile, or a sandbox forbids it
            log.debug("cannot lower grpc.aio's poller thread %d: %s", tid, exc)
            continue
        done.append(tid)
    return done

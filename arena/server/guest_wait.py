"""Trio's guest run waiting on the asyncio loop itself (Linux), not in a helper thread.

Trio's guest mode hands every idle wait (``io_manager.get_events(timeout)``) to a thread,
which wakes the host with ``call_soon_threadsafe``: three or four context switches each time
trio goes idle. Trio's epoll object is itself pollable, so the host can wait for it: its fd in
the asyncio selector, plus a timer for trio's next deadline. A wake-up from the host thread
(``TrioToken.run_sync_soon``, a task rescheduled from an asyncio callback) writes trio's
wake-up socket, which makes that epoll fd readable: the asyncio loop then runs the next tick.

This reaches into trio internals (``GuestState``, ``EpollIOManager._epoll``): a fast path of
arena/host/fastpaths.py, taken only with the trio versions tested and not with
``ARENA_FAST_PATHS=off``; when it is not taken, or trio's internals are not what this module
expects, it changes nothing and trio's own thread does the waiting (logged, and on /metrics).
``tests/server/test_guest_wait.py`` checks both paths.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any

from outcome import Error, Outcome, Value, capture
from sniffio import thread_local as _sniffio
from trio import TrioInternalError

from arena.host import fastpaths

_GuestState: type | None
try:  # trio internals: absent or different in other versions, then the stock thread waits
    from trio._core._run import GuestState as _GuestState
except ImportError:  # pragma: no cover - depends on the installed trio
    _GuestState = None

Tick = Callable[[], object]
# Batches of runnable trio tasks run back to back before the host loop gets a turn: a reply
# handed over, the table that acts on it and what that wakes, in one host callback.
BATCHES_PER_TICK = 4


class HostWaiting:
    """A ``run_sync_soon_not_threadsafe`` for ``trio.lowlevel.start_guest_run`` that, on its
    first call (trio's first tick), moves trio's idle waits onto ``loop``; ``waiter`` is then
    that wait (None when trio's own thread waits: another trio version or platform)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.waiter: _HostWait | None = None

    def __call__(self, tick: Tick) -> object:
        loop = self.loop
        state = getattr(tick, "__self__", None)
        if state is None:
            return loop.call_soon(tick)
        if fastpaths.allowed(fastpaths.GUEST_WAIT):
            self.waiter = _adopt(state, loop)
            fastpaths.record(fastpaths.GUEST_WAIT, taken=self.waiter is not None,
                             why="trio's guest state is not as this module expects")
        state.run_sync_soon_not_threadsafe = loop.call_soon
        return loop.call_soon(state.guest_tick)  # the adopted class's tick from the first one


def _tasks_woken(loop: asyncio.AbstractEventLoop) -> bool:
    """Whether an asyncio task (another stream's reader, most likely) waits in the loop's
    queue of ready callbacks; True when the loop keeps no such queue where expected."""
    ready = getattr(loop, "_ready", None)
    if ready is None:
        return True
    # A copy first, in one C call: other threads append to this queue (call_soon_threadsafe:
    # trio's wake-ups from the league writer's thread), and a Python loop over the deque itself
    # lets them in between two steps ("deque mutated during iteration" ended a bot's stream).
    try:
        handles = tuple(ready)
    except RuntimeError:  # pragma: no cover - mutated even so: assume a task is waiting
        return True
    for handle in handles:
        if getattr(getattr(handle, "_callback", None), "__name__", "") == "task_wakeup":
            return True
    return False


def _adopt(state: Any, loop: asyncio.AbstractEventLoop) -> _HostWait | None:
    """Switch ``state`` (trio's GuestState) to a class whose idle waits run on ``loop``."""
    kind: Any = type(state)
    if _GuestState is None or kind is not _GuestState:
        return None
    epoll = getattr(getattr(state.runner, "io_manager", None), "_epoll", None)
    fileno = getattr(epoll, "fileno", None)
    if fileno is None or not hasattr(state, "unrolled_run_gen") \
            or not hasattr(state.runner, "guest_tick_scheduled"):
        return None
    waiter = _HostWait(state, loop, fileno())
    cls = type("HostWaitingGuestState", (_GuestState,),
               {"__slots__": (), "guest_tick": waiter.tick})
    try:
        state.__class__ = cls
    except TypeError:  # pragma: no cover - a layout this module does not know
        return None
    loop.add_reader(waiter.fd, waiter.ready)
    return waiter


class _HostWait:
    """The host-side wait of one guest run: trio's epoll fd and one timer."""

    __slots__ = ("_after", "_io_ready", "_timer", "_waiting", "fd", "loop", "state", "ticking")

    def __init__(self, state: Any, loop: asyncio.AbstractEventLoop, fd: int) -> None:
        self.state = state
        self.loop = loop
        self.fd = fd
        self._timer: asyncio.TimerHandle | None = None
        self._waiting = False  # trio is idle, waiting for its epoll fd or its deadline
        self._io_ready = True  # trio's epoll may have events: poll it after the next batch
        self.ticking = False  # inside tick(): what is deferred to its end waits in _after
        self._after: deque[Callable[[], object]] = deque()

    def tick(self) -> None:
        """One host callback of trio's run (:meth:`_steps`), then what was deferred to its end
        (:meth:`after_tick`: the writes of what the tables delivered meanwhile)."""
        self.ticking = True
        try:
            self._steps()
        finally:
            self.ticking = False
            after = self._after
            while after:
                after.popleft()()

    def after_tick(self, fn: Callable[[], object]) -> bool:
        """Run ``fn()`` once the running tick ends; False when no tick is running."""
        if not self.ticking:
            return False
        self._after.append(fn)
        return True

    def _steps(self) -> None:
        """Steps of trio's run loop: up to ``BATCHES_PER_TICK`` batches of runnable tasks back to
        back (as trio does when it runs alone), then either the next step soon (trio still has
        work) or an idle wait on the host loop (its epoll fd readable, or its next deadline).
        Trio's epoll is polled between batches only when the host loop saw its fd readable
        since (:meth:`ready`): its fd sits in the host's level-triggered selector, so no event
        is missed, and a batch without trio I/O costs no system call."""
        state = self.state
        runner = state.runner
        for _ in range(BATCHES_PER_TICK):
            previous, _sniffio.name = _sniffio.name, "trio"
            try:
                timeout = state.unrolled_run_next_send.send(state.unrolled_run_gen)
            except StopIteration:
                self._finish()
                state.done_callback(runner.main_task_outcome)
                return
            except TrioInternalError as exc:
                self._finish()
                state.done_callback(Error(exc))
                return
            finally:
                _sniffio.name = previous
            if self._io_ready:
                self._io_ready = False
                events = capture(runner.io_manager.get_events, 0)
                state.unrolled_run_next_send = events
                if isinstance(events, Error) or events.value:
                    continue
            else:  # what trio's epoll manager returns when nothing is ready
                state.unrolled_run_next_send = Value([])
            if timeout > 0:
                runner.guest_tick_scheduled = False  # a wake-up now writes trio's wake-up socket
                self._waiting = True
                self._wake_at(timeout)
                return
        runner.guest_tick_scheduled = True
        self.loop.call_soon(self.tick)  # let the host loop run between long bursts of work

    def call_here(self, fn: Callable[..., object], *args: object) -> None:
        """Run ``fn(*args)`` now, on the host loop's thread between two trio ticks: trio's
        synchronous calls work there (trio's run state is this thread's). When trio was idle
        and nothing else is queued on the host loop (a lone reply), the tasks ``fn`` wakes run
        in a tick right after it, in this same host callback: the reply read, the table's step
        and the next prompt written in one callback. Otherwise in a tick queued behind the
        host's other callbacks (the replies read in the same round join it: one tick serves
        them all), or in the tick already queued. Never through trio's wake-up socket (a write,
        an epoll wake-up, a read and a hop through trio's entry queue saved)."""
        runner = self.state.runner
        if runner.guest_tick_scheduled or not self._waiting:  # a tick is running or queued
            fn(*args)
            return
        runner.guest_tick_scheduled = True  # trio's own wake-ups now see a tick coming
        if _tasks_woken(self.loop):  # more replies read, most likely: one tick after them
            self.loop.call_soon(self._resume)
            fn(*args)
            return
        try:
            fn(*args)
        finally:
            self._resume()

    def _wake_at(self, timeout: float) -> None:
        """Tick again ``timeout`` seconds from now at the latest. A timer already set no later
        is kept (trio's next deadline seldom moves: one timer per table, set per decision
        time): a tick too early finds nothing due and sets the timer again."""
        loop = self.loop
        when = loop.time() + timeout
        timer = self._timer
        if timer is not None:
            if timer.when() <= when:
                return
            timer.cancel()
        self._timer = loop.call_at(when, self._timer_due)

    def _timer_due(self) -> None:
        self._timer = None
        self._resume()

    def ready(self) -> None:
        """Trio's epoll fd is readable: the next tick with its events, or, when a tick is due,
        that tick polls trio's epoll."""
        if self._waiting:
            self._io_ready = False
            self._resume(capture(self.state.runner.io_manager.get_events, 0))
        else:
            self._io_ready = True

    def _resume(self, events: Outcome[Any] | None = None) -> None:
        """The next tick, unless one is due (trio is running or its next tick is queued: that
        tick reads the events). A deadline or a task woken from this loop brings no I/O events
        (any come in after the first batch, which reads them again)."""
        if not self._waiting:
            return
        self._waiting = False
        # No events: what trio's epoll manager returns when nothing is ready (an outcome is
        # used once, so a fresh one).
        self.state.unrolled_run_next_send = Value([]) if events is None else events
        self.state.runner.guest_tick_scheduled = True
        self.tick()

    def _finish(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.loop.remove_reader(self.fd)

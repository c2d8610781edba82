"""Hosted bots: a fresh sandboxed instance of a bot package for every match (every duplicate copy).

The dealer deals a table inside :meth:`HostedBots.around`: for each seat whose bot is a
package, a new sandbox (:mod:`arena.host.sandbox`) is started with a token of its own, admitted
for that seat's instance id only; when the table's deal ends (played, aborted or postponed)
every instance's token is forgotten and its stream ended, and an instance still running
``EXIT_GRACE_SECONDS`` later is killed (its writable directories go with its sandbox). Copies of
one deal are separate matches, so they never share an instance. A tournament keeps one instance
per bot for its whole run (:meth:`HostedBots.session`). Each instance's stdout and stderr go to
its bot's logs (:mod:`arena.storage.botlogs`), bounded.
"""

from __future__ import annotations

import contextlib
import logging
import os
import secrets
import subprocess
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import trio

from arena.host.botpackage import BotPackage
from arena.host.sandbox import TOKEN_ENV, Instance, Prepared, prepare
from arena.match.spec import MatchSpec
from arena.server.config import BotEntry
from arena.server.service import DealerService
from arena.storage.botlogs import DEFAULT_MAX_BYTES, BoundedLog, instance_logs

log = logging.getLogger("arena.hosted")
READ_BYTES = 64 * 1024
DRAIN_SECONDS = 5.0  # after the kill, the output still in the pipes is read for at most this long
EXIT_GRACE_SECONDS = 2.0  # after its match, an instance whose stream has ended may exit by itself


@dataclass(frozen=True, slots=True, kw_only=True)
class InstanceEnd:
    """How one instance ended: ``exit_code`` None when the arena killed it after its match;
    ``early``: it had exited before its match ended."""

    bot: str
    match_id: str
    seat: int
    exit_code: int | None
    early: bool = False


@dataclass(slots=True, kw_only=True)
class _Running:
    seat: int
    bot: str
    bot_id: str
    proc: SandboxProcess
    sandbox: Prepared
    logs: tuple[BoundedLog, BoundedLog]
    exit_code: int | None = None  # None: killed
    early_exit: int | None = None  # its exit code when it had exited before its match ended
    cpu_seconds: float | None = None  # what its sandbox used, where cgroups account it


@dataclass
class HostedBots:
    """The packages of a dealer's hosted bots (by bot name) and where their instances live.

    ``socket``: the dealer's Unix socket (bound into every sandbox). ``log_dir``: the bot logs'
    root. ``started``: instances started so far; ``ends``: how
    each ended."""

    packages: Mapping[str, BotPackage]
    socket: Path
    log_dir: Path
    max_log_bytes: int = DEFAULT_MAX_BYTES
    started: int = 0
    ends: list[InstanceEnd] = field(default_factory=list)

    def around(self, spec: MatchSpec, service: DealerService
               ) -> contextlib.AbstractAsyncContextManager[None]:
        """Start the match's instances, let the table deal, then stop them."""
        return self.session(spec.match_id, [(k, seat.name, seat.bot_id)
                                            for k, seat in enumerate(spec.seats)], service)

    @contextlib.asynccontextmanager
    async def session(self, label: str, seats: Sequence[tuple[int, str, str]],
                      service: DealerService) -> AsyncIterator[None]:
        """Instances for ``seats`` (seat, bot name, bot id; those of hosted bots) while the body
        runs: a match (``label`` its id, naming the logs), or a whole tournament."""
        seats = [seat for seat in seats if seat[1] in self.packages]
        if not seats:
            yield
            return
        running: list[_Running] = []
        try:
            async with trio.open_nursery() as nursery:
                try:
                    for k, name, bot_id in seats:
                        one = await self._start(label, k, name, bot_id, service)
                        if one is not None:
                            running.append(one)
                            for stream, sink in zip((one.proc.stdout, one.proc.stderr), one.logs,
                                                    strict=True):
                                assert stream is not None
                                nursery.start_soon(_copy, stream, sink)
                    yield
                finally:
                    with trio.CancelScope(shield=True):
                        await self._kill(running, service)
                    nursery.cancel_scope.deadline = trio.current_time() + DRAIN_SECONDS
        finally:
            for one in running:
                self._ended(label, one)

    async def _start(self, label: str, seat: int, bot: str, bot_id: str,
                     service: DealerService) -> _Running | None:
        package = self.packages[bot]
        token = secrets.token_urlsafe(32)
        logs = instance_logs(self.log_dir, bot, label, max_bytes=self.max_log_bytes)
        sandbox = prepare(Instance(package=package, command=package.run, socket=self.socket,
                                   env={TOKEN_ENV: token}))
        service.add_bots([BotEntry(bot, bot_id, token)])
        try:
            proc = SandboxProcess.start(sandbox)
        except OSError as exc:
            sandbox.release()
            service.remove_bots([bot_id])
            logs[1].note(f"the sandbox could not start: {exc}")
            for sink in logs:
                sink.close()
            log.error("match %s seat %d: bot %s could not start: %s", label, seat, bot, exc)
            return None
        self.started += 1
        return _Running(seat=seat, bot=bot, bot_id=bot_id, proc=proc, sandbox=sandbox, logs=logs)

    @staticmethod
    async def _kill(running: list[_Running], service: DealerService) -> None:
        """Forget the instances' tokens and end their streams (an SDK then exits by itself),
        give them ``EXIT_GRACE_SECONDS`` to exit, then kill each sandbox left and reap it."""
        for one in running:
            one.early_exit = one.proc.poll()
        service.remove_bots(one.bot_id for one in running)
        with trio.move_on_after(EXIT_GRACE_SECONDS):
            for one in running:
                await one.proc.wait()
        for one in running:
            one.exit_code = one.proc.poll()
            if one.exit_code is None:
                one.proc.kill()  # bwrap: its PID namespace, and so every process of the bot, ends
                await one.proc.wait()
            one.cpu_seconds = one.sandbox.cpu_seconds()
            await trio.to_thread.run_sync(one.sandbox.release)

    def _ended(self, label: str, one: _Running) -> None:
        err = one.logs[1]
        if one.cpu_seconds is not None:
            err.note(f"CPU used: {one.cpu_seconds:.3f} s")
        if one.early_exit is not None:
            err.note(f"the bot exited with code {one.early_exit} before its match ended")
            log.warning("match %s seat %d: bot %s exited with code %d before its match ended "
                        "(its log: %s)", label, one.seat, one.bot, one.early_exit, err.path)
        elif one.exit_code is None:
            err.note(f"stopped by the arena: still running {EXIT_GRACE_SECONDS:g} s after its "
                     "match ended")
        else:
            err.note(f"the bot exited with code {one.exit_code} when its match ended")
        for sink in one.logs:
            sink.close()
        self.ends.append(InstanceEnd(bot=one.bot, match_id=label, seat=one.seat,
                                     exit_code=one.exit_code, early=one.early_exit is not None))


class SandboxProcess:
    """A sandbox's ``bwrap`` process, started from the calling thread itself: the dealer's,
    which lives as long as the dealer. ``--die-with-parent`` kills the sandbox when the *thread*
    that started it ends (the kernel's parent-death signal follows the thread), and
    ``trio.lowlevel.open_process`` starts processes from a worker thread that ends after some
    idle seconds: a match outlasting that lost its instances, killed mid-match (exit -9, their
    seats absent). ``stdout`` and ``stderr`` are trio streams; ``wait`` waits on a pidfd."""

    def __init__(self, popen: subprocess.Popen[bytes]) -> None:
        self.popen = popen
        self.pid = popen.pid
        streams: list[trio.lowlevel.FdStream] = []
        for pipe in (popen.stdout, popen.stderr):
            assert pipe is not None
            streams.append(trio.lowlevel.FdStream(os.dup(pipe.fileno())))
            pipe.close()
        self.stdout, self.stderr = streams

    @classmethod
    def start(cls, sandbox: Prepared) -> SandboxProcess:
        popen = subprocess.Popen(sandbox.argv, env=sandbox.env, stdin=subprocess.DEVNULL,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                 start_new_session=True)
        try:
            return cls(popen)
        except BaseException:
            popen.kill()
            popen.wait()
            raise

    def poll(self) -> int | None:
        return self.popen.poll()

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()

    async def wait(self) -> int:
        if self.popen.poll() is None:
            pidfd = os.pidfd_open(self.pid)  # a zombie still has one: only this object reaps
            try:
                await trio.lowlevel.wait_readable(pidfd)
            finally:
                os.close(pidfd)
        return self.popen.wait()


async def _copy(stream: trio.abc.ReceiveStream, sink: BoundedLog) -> None:
    """A pipe of an instance into its log until the pipe closes."""
    try:
        while True:
            chunk = await stream.receive_some(READ_BYTES)
            if not chunk:
                return
            sink.write(chunk)
    finally:
        with trio.CancelScope(shield=True):
            await stream.aclose()

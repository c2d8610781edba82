"""The sandbox every hosted bot is built and run in: bubblewrap (``bwrap``) command lines.

One sandbox per instance: new user, PID, network, IPC, UTS and cgroup namespaces (no network
at all: the bot reaches its dealer through one Unix socket bound in), a fresh ``/proc`` that
shows only the sandbox's processes, the system's ``/usr`` and the arena's SDKs read-only, the
package read-only at ``/arena/bot`` (writable while it is built), a private writable
``/arena/work`` and ``/tmp`` (size-capped tmpfs, gone with the sandbox), no capabilities, and
resource limits set inside by ``prlimit`` before the bot's command runs. Killing ``bwrap``
kills everything inside (``--die-with-parent`` and the PID namespace's end). docs/hosted-bots.md
says why bubblewrap.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from arena.engine.errors import ConfigError
from arena.host import cgroups
from arena.host.botpackage import BotPackage
from arena.host.cgroups import InstanceGroup

ROOT = Path(__file__).resolve().parents[2]
# The SDKs and the wire contract bound into every sandbox: this checkout's, or where an installed
# arena's image put them (deploy/hosted/Dockerfile); a Python SDK installed beside arena is seen
# through the interpreter's own prefix instead.
PYTHON_SDK = Path(os.environ.get("ARENA_PYTHON_SDK", ROOT / "bots" / "python"))
NODE_SDK = Path(os.environ.get("ARENA_NODE_SDK", ROOT / "bots" / "node"))
PROTOS = Path(os.environ.get("ARENA_PROTOS", ROOT / "protos"))
BOT_DIR = "/arena/bot"  # the package, inside
WORK_DIR = "/arena/work"  # the instance's writable directory, inside
SOCKET = "/arena/run/dealer.sock"  # the dealer's socket, inside
SERVER_ENV = "ARENA_SERVER"  # the SDKs' default dealer address (unix:/arena/run/dealer.sock)
TOKEN_ENV = "ARENA_TOKEN"
SANDBOX_UID = 65534  # "nobody" inside; outside it is the user running the arena
# System directories bound read-only when they exist (symlinks are recreated as symlinks).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
                "/etc/localtime")
NICE_FLOOR = 19  # without cgroups, a share below one core is a nice level, down to this


class SandboxUnavailable(ConfigError):
    """bubblewrap is missing or cannot create namespaces here."""


def bwrap_path() -> str:
    found = shutil.which("bwrap")
    if found is None:
        raise SandboxUnavailable("hosted bots need bubblewrap: apt-get install bubblewrap")
    return found


@dataclass(frozen=True, slots=True, kw_only=True)
class Instance:
    """What one sandbox is given. ``command``: run by ``/bin/sh -c`` in the package's
    directory. ``socket``: the dealer's Unix socket on the host (None: no dealer, e.g. a
    build). ``writable_package``: the build step (the package writable). ``env``: extra
    environment (the token). Its writable directories are tmpfs: gone with the sandbox."""

    package: BotPackage
    command: str
    socket: Path | None = None
    writable_package: bool = False
    env: Mapping[str, str] | None = None


def _binds(path: str, *, writable: bool = False, inside: str | None = None) -> list[str]:
    return ["--bind" if writable else "--ro-bind", path, inside or path]


def _system() -> list[str]:
    args: list[str] = []
    for name in SYSTEM_DIRS + SYSTEM_FILES:
        path = Path(name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), name]
        elif path.exists():
            args += _binds(name)
    return args


def _runtimes() -> tuple[list[str], dict[str, str]]:
    """The interpreters a package may use: this Python (its environment, with grpcio) and the
    Python SDK; Node.js from the system with the Node SDK's modules and the wire contract."""
    args: list[str] = []
    prefixes = dict.fromkeys([sys.base_prefix, sys.prefix])
    for prefix in prefixes:
        if not any(prefix == d or prefix.startswith(d + "/") for d in SYSTEM_DIRS):
            args += _binds(prefix)
    path = [str(Path(sys.prefix) / "bin"), "/usr/local/bin", "/usr/bin", "/bin"]
    env = {"PATH": ":".join(path), "PYTHONPATH": "/arena/sdk/python",
           "PYTHONDONTWRITEBYTECODE": "1", "ARENA_PROTO_ROOT": "/arena/protos",
           "NODE_PATH": "/arena/sdk/node/node_modules"}
    if PYTHON_SDK.is_dir():
        args += _binds(str(PYTHON_SDK), inside="/arena/sdk/python")
    if NODE_SDK.is_dir():
        args += _binds(str(NODE_SDK), inside="/arena/sdk/node")
    if PROTOS.is_dir():
        args += _binds(str(PROTOS), inside="/arena/protos")
    return args, env


def limits_prefix(package: BotPackage) -> list[str]:
    """``prlimit`` (and ``nice`` for a share below one core) run inside before the command:
    data memory, processes, open files, bytes of any one file, no core dumps."""
    mib = 1024 * 1024
    nice = 0 if package.cpu_share >= 1 else min(NICE_FLOOR, round((1 - package.cpu_share) * 20))
    return ["/usr/bin/prlimit", f"--data={package.memory_mib * mib}",
            f"--nproc={package.processes}", f"--nofile={package.open_files}",
            f"--fsize={package.disk_mib * mib}", "--core=0", "--",
            "/usr/bin/nice", "-n", str(nice)]


def command_line(instance: Instance) -> tuple[list[str], dict[str, str]]:
    """The ``bwrap`` argv and the environment it (and so the bot) gets: nothing of this
    process's environment but what is set here."""
    package = instance.package
    size = str(package.disk_mib * 1024 * 1024)
    runtime_args, env = _runtimes()
    argv = [bwrap_path(), "--unshare-all", "--die-with-parent", "--new-session",
            "--cap-drop", "ALL", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_UID),
            "--hostname", "arena-bot", *_system(), "--proc", "/proc", "--dev", "/dev",
            "--size", size, "--tmpfs", "/tmp", "--size", size, "--tmpfs", "/dev/shm",
            *runtime_args,
            *_binds(str(package.directory), writable=instance.writable_package, inside=BOT_DIR),
            "--size", size, "--tmpfs", WORK_DIR]
    if instance.socket is not None:
        argv += _binds(str(instance.socket), inside=SOCKET)
        env[SERVER_ENV] = f"unix:{SOCKET}"
    argv += ["--remount-ro", "/", "--chdir", BOT_DIR, "--",
             *limits_prefix(package), "/bin/sh", "-c", instance.command]
    env.update({"HOME": WORK_DIR, "TMPDIR": "/tmp", "LANG": "C.UTF-8"})
    env.update(instance.env or {})
    return argv, env


@dataclass(frozen=True, slots=True, kw_only=True)
class Prepared:
    """A sandbox ready to start: ``argv`` and ``env`` for the process, ``group`` its control
    groups (None: resource limits only) to :meth:`release` once it is gone."""

    argv: list[str]
    env: dict[str, str]
    group: InstanceGroup | None

    def cpu_seconds(self) -> float | None:
        """CPU time the sandbox has used (None without cgroups to account it)."""
        return cgroups.cpu_seconds(self.group)

    def release(self) -> None:
        cgroups.remove(self.group)


def prepare(instance: Instance) -> Prepared:
    """:func:`command_line` inside control groups of its own, where they can be made."""
    argv, env = command_line(instance)
    group = cgroups.create(instance.package)
    return Prepared(argv=cgroups.enter_command(group, argv), env={**env, **cgroups.enter_env(group)},
                    group=group)


@dataclass(frozen=True, slots=True, kw_only=True)
class BuildResult:
    ok: bool
    exit_code: int | None  # None: killed at the time limit
    output: str  # its stdout and stderr, at most `max_output_bytes`
    problem: str  # "" when ok; else one plain line


def build(package: BotPackage, *, max_output_bytes: int = 64 * 1024) -> BuildResult:
    """Run the package's ``build`` in its sandbox (the package writable, no network), killed
    after ``build_seconds``; its output is kept in a file bounded by the package's file size
    limit and read back up to ``max_output_bytes``."""
    if not package.build.strip():
        return BuildResult(ok=True, exit_code=0, output="", problem="")
    sandbox = prepare(Instance(package=package, command=package.build, writable_package=True))
    with tempfile.TemporaryFile() as out:
        try:
            proc = subprocess.Popen(sandbox.argv, env=sandbox.env, stdin=subprocess.DEVNULL,
                                    stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
            try:
                code: int | None = proc.wait(timeout=package.build_seconds)
            except subprocess.TimeoutExpired:
                kill(proc)
                code = None
        finally:
            sandbox.release()
        out.seek(0)
        text = out.read(max_output_bytes).decode("utf-8", "replace")
    if code is None:
        return BuildResult(ok=False, exit_code=None, output=text,
                           problem=f"the build ran over {package.build_seconds:g} s and was killed")
    if code != 0:
        return BuildResult(ok=False, exit_code=code, output=text,
                           problem=f"the build failed with exit code {code}")
    return BuildResult(ok=True, exit_code=0, output=text, problem="")


def kill(proc: subprocess.Popen[bytes]) -> None:
    """Kill a sandbox and wait for it: ``bwrap`` first (its PID namespace goes with it), then
    anything left in its process group."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.kill()
    proc.wait()


def probe() -> str:
    """"" when a sandbox can start here, else why not (bwrap missing, no user namespaces)."""
    try:
        path = bwrap_path()
    except SandboxUnavailable as exc:
        return str(exc)
    done = subprocess.run([path, "--unshare-all", "--ro-bind", "/", "/", "true"],
                          capture_output=True, text=True, timeout=30, check=False)
    return "" if done.returncode == 0 else f"bwrap cannot start a sandbox: {done.stderr.strip()}"

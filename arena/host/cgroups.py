"""Control groups for sandboxes, where the machine lets this process make them.

One group per instance under this process's own group, in each controller found writable:
``pids`` (at most ``processes`` tasks: the limit that holds even when the arena runs as root,
whose processes ``RLIMIT_NPROC`` never stops), ``memory`` (the instance's memory plus its two
tmpfs directories, all of it in RAM) and ``cpu`` (``cpu_share`` of one core as a quota; every
instance the same weight, in one parent, :data:`BOTS_GROUP`, that weighs half an ordinary
process). cgroup v2 (one unified tree) and v1 (a tree per controller) are both read from
``/proc/self/cgroup``; where none is writable the sandbox keeps its resource limits only
(docs/hosted-bots.md).
"""

from __future__ import annotations

import os
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from arena.host.botpackage import BotPackage

ROOT = Path("/sys/fs/cgroup")
CONTROLLERS = ("pids", "memory", "cpu", "cpuacct")  # v1 trees used (cpuacct: accounting only)
PERIOD_US = 100_000
REMOVE_TRIES = 500  # 10 ms apart: a group whose processes are still dying is retried
EXTRA_TASKS = 4  # bwrap, its PID namespace's init and the shell that starts the bot
# Every instance's CPU group sits in one parent, shared by every dealer of this machine: the
# bots together weigh less than one ordinary process (the dealer, which serves every table), so
# however many instances spin, the dealer is never starved by them.
BOTS_GROUP = "arena-bots"
BOTS_SHARES = 512  # v1 cpu.shares of the parent (an ordinary process weighs 1024)
BOTS_WEIGHT = 50  # v2 cpu.weight of the parent (an ordinary group weighs 100)
# Within that parent every instance weighs the same, whatever its package declares: a package
# buys no priority over the others; its cpu_share is a quota (an upper bound) only.
INSTANCE_SHARES = 1024  # v1 cpu.shares of each instance's group
INSTANCE_WEIGHT = 100  # v2 cpu.weight of each instance's group


@dataclass(frozen=True, slots=True, kw_only=True)
class InstanceGroup:
    """The groups made for one instance: ``procs`` are the files a process id is written to
    (every controller's group), ``directories`` what :func:`remove` removes."""

    procs: tuple[Path, ...]
    directories: tuple[Path, ...]


def _own_groups() -> dict[str, Path]:
    """Controller -> this process's group directory (v2: the key "unified")."""
    found: dict[str, Path] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if controllers == "" and (ROOT / "cgroup.controllers").is_file():
            found["unified"] = ROOT / path.lstrip("/")
        for controller in controllers.split(","):
            if controller in CONTROLLERS and (ROOT / controller).is_dir():
                found[controller] = ROOT / controller / path.lstrip("/")
    return found


def _v1_settings(controller: str, package: BotPackage) -> dict[str, str]:
    mib = 1024 * 1024
    if controller == "pids":
        return {"pids.max": str(package.processes + EXTRA_TASKS)}
    if controller == "memory":
        return {"memory.limit_in_bytes": str((package.memory_mib + 2 * package.disk_mib) * mib)}
    if controller == "cpuacct":
        return {}  # accounting only: cpu_seconds
    return {"cpu.cfs_period_us": str(PERIOD_US),
            "cpu.cfs_quota_us": str(max(1000, round(package.cpu_share * PERIOD_US))),
            "cpu.shares": str(INSTANCE_SHARES)}


def _v2_settings(package: BotPackage) -> dict[str, str]:
    mib = 1024 * 1024
    return {"pids.max": str(package.processes + EXTRA_TASKS),
            "memory.max": str((package.memory_mib + 2 * package.disk_mib) * mib),
            "cpu.max": f"{max(1000, round(package.cpu_share * PERIOD_US))} {PERIOD_US}",
            "cpu.weight": str(INSTANCE_WEIGHT)}


def bots_parent(own: Path, *, v2: bool) -> Path:
    """The parent of every instance's CPU group under ``own`` (made, and its weight set, on
    first use; kept: it is empty between instances), or ``own`` where it cannot be made."""
    parent = own / BOTS_GROUP
    settings = ({"cgroup.subtree_control": "+cpu +memory +pids", "cpu.weight": str(BOTS_WEIGHT)}
                if v2 else {"cpu.shares": str(BOTS_SHARES)})
    try:
        parent.mkdir(exist_ok=True)
        for key, value in settings.items():
            (parent / key).write_text(value)
    except OSError:
        return own
    return parent


def create(package: BotPackage) -> InstanceGroup | None:
    """Groups for one instance with the package's limits; None where none can be made."""
    name = f"arena-bot-{uuid.uuid4().hex[:12]}"
    made: list[Path] = []
    procs: list[Path] = []
    groups = _own_groups()
    plans: list[tuple[Path, dict[str, str]]] = []
    if "unified" in groups and not any(c in groups for c in CONTROLLERS):
        plans.append((bots_parent(groups["unified"], v2=True), _v2_settings(package)))
    else:
        plans += [(bots_parent(groups[c], v2=False) if c == "cpu" else groups[c],
                   _v1_settings(c, package)) for c in CONTROLLERS if c in groups]
    for parent, settings in plans:
        directory = parent / name
        try:
            directory.mkdir()
        except OSError:
            continue
        made.append(directory)
        ok = True
        for key, value in settings.items():
            try:
                (directory / key).write_text(value)
            except OSError:
                ok = ok and key != "pids.max"  # a group that cannot cap tasks is no use
        if ok:
            procs.append(directory / "cgroup.procs")
    if not procs:
        remove(InstanceGroup(procs=(), directories=tuple(made)))
        return None
    return InstanceGroup(procs=tuple(procs), directories=tuple(made))


def cpu_seconds(group: InstanceGroup | None) -> float | None:
    """CPU time used by everything the group's sandbox ran (None: not accounted here)."""
    for directory in group.directories if group is not None else ():
        try:
            if (directory / "cpuacct.usage").is_file():
                return int((directory / "cpuacct.usage").read_text()) / 1e9
            for line in (directory / "cpu.stat").read_text().splitlines():
                if line.startswith("usage_usec "):
                    return int(line.split()[1]) / 1e6
        except (OSError, ValueError):
            continue
    return None


def remove(group: InstanceGroup | None) -> None:
    """Remove an instance's groups (its processes are gone: killed with the sandbox)."""
    if group is None:
        return
    for directory in group.directories:
        for _ in range(REMOVE_TRIES):  # a killed PID namespace empties within milliseconds
            try:
                os.rmdir(directory)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.01)


def enter_command(group: InstanceGroup | None, argv: list[str]) -> list[str]:
    """``argv`` started from inside ``group``: a shell writes its own id to every group, then
    becomes ``argv`` (so nothing of the sandbox ever runs outside the group)."""
    if group is None:
        return argv
    script = 'for f in $ARENA_GROUPS; do echo $$ > "$f" || exit 125; done; unset ARENA_GROUPS; ' \
             'exec "$@"'
    return ["/bin/sh", "-c", script, "sh", *argv]


def enter_env(group: InstanceGroup | None) -> dict[str, str]:
    return {} if group is None else {"ARENA_GROUPS": " ".join(str(p) for p in group.procs)}

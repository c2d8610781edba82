"""Bot packages: a directory with an ``arena-bot.toml`` that says how to build and run a bot.

The file is untrusted (a bot author wrote it): every key is type-checked and bounded, unknown
keys are errors, and :func:`load_package` reports every problem at once, one line each.
docs/hosted-bots.md describes the file; the sandbox that builds and runs it is
:mod:`arena.host.sandbox`.
"""

from __future__ import annotations

import typing
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from arena.engine.configfile import Check, convert
from arena.engine.errors import ConfigError
from arena.host.configfile import read_toml

PACKAGE_FILE = "arena-bot.toml"
MAX_COMMAND_CHARS = 4096
MAX_NAME_CHARS = 64


@dataclass(frozen=True, slots=True, kw_only=True)
class BotPackage:
    """One bot package, as its ``arena-bot.toml`` describes it.

    ``directory``: where the package is (absolute). ``name``: the author's name for the bot
    (a league names its seats itself). ``build``: a shell command run once in the sandbox with
    the package writable ("" for none); ``run``: the shell command of every instance, with the
    package read-only. ``memory_mib``: the instance's data memory; ``cpu_share``: its share of
    one core (a cgroup weight and quota where the machine has cgroups, a nice level otherwise);
    ``processes``, ``open_files``: at most this many; ``disk_mib``: bytes it may write (its
    writable directory and /tmp, each) and the size of any one file; ``build_seconds``: the
    build is killed after this long.
    """

    directory: Path
    name: str
    run: str
    build: str = ""
    memory_mib: int = 512
    cpu_share: float = 1.0
    processes: int = 64
    open_files: int = 256
    disk_mib: int = 64
    build_seconds: float = 300.0


CHECKS: dict[str, Check] = {
    "memory_mib": Check(min=32, max=16_384),
    "cpu_share": Check(min=0.05, max=8.0),
    "processes": Check(min=1, max=4_096),
    "open_files": Check(min=16, max=65_536),
    "disk_mib": Check(min=1, max=16_384),
    "build_seconds": Check(min=1, max=3_600),
}
FILE_KEYS = tuple(f.name for f in fields(BotPackage) if f.name != "directory")


class PackageError(ConfigError):
    """A package that cannot be used; ``problems`` has one plain line per problem."""

    def __init__(self, where: str, problems: list[str]) -> None:
        self.problems = problems
        super().__init__(f"{where}: " + "; ".join(problems))


def is_package(path: str | Path) -> bool:
    """Whether ``path`` is a directory holding an ``arena-bot.toml``."""
    return (Path(path) / PACKAGE_FILE).is_file()


def load_package(directory: str | Path) -> BotPackage:
    """The package in ``directory``; a :class:`PackageError` listing every problem."""
    directory = Path(directory).resolve()
    where = str(directory / PACKAGE_FILE)
    if not directory.is_dir():
        raise PackageError(str(directory), ["not a directory"])
    data, _text = read_toml(directory / PACKAGE_FILE, what="bot package")
    return package_from_mapping(data, directory=directory, where=where)


def package_from_mapping(data: dict[str, Any], *, directory: Path, where: str) -> BotPackage:
    problems: list[str] = []
    hints = typing.get_type_hints(BotPackage)
    values: dict[str, Any] = {}
    for key in sorted(set(data) - set(FILE_KEYS)):
        problems.append(f"unknown key {key[:80]!r} (known: {', '.join(FILE_KEYS)})")
    for key in FILE_KEYS:
        if key not in data:
            continue
        try:
            values[key] = convert(data[key], hints[key], key=key, where="", check=CHECKS.get(key))
        except ConfigError as exc:
            problems.append(str(exc).removeprefix(": "))
    for key in ("name", "run"):
        if key not in data:
            problems.append(f"'{key}' is missing")
    name = values.get("name")
    if isinstance(name, str) and not (0 < len(name) <= MAX_NAME_CHARS and name.isprintable()):
        problems.append(f"'name' must be 1 to {MAX_NAME_CHARS} printable characters, "
                        f"got {name[:80]!r}")
    for key in ("build", "run"):
        command = values.get(key)
        if not isinstance(command, str):
            continue
        if len(command) > MAX_COMMAND_CHARS:
            problems.append(f"'{key}' is over {MAX_COMMAND_CHARS} characters")
        elif "\0" in command:
            problems.append(f"'{key}' holds a NUL character")
        elif key == "run" and not command.strip():
            problems.append("'run' is empty: give the command that starts the bot")
    if problems:
        raise PackageError(where, problems)
    return BotPackage(directory=directory, **values)

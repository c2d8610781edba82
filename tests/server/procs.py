"""Running the dealer and bots as separate processes, as a user would."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from arena.practice import stop_processes  # noqa: F401 (the tests stop processes as the product does)

ROOT = Path(__file__).resolve().parents[2]


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list | tuple):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {toml_value(v)}" for k, v in value.items()) + "}"
    raise TypeError(value)


def write_config(path: Path, *, seats: Sequence[tuple[str, str]], top: dict[str, Any],
                 rules: dict[str, Any] | None = None) -> Path:
    lines = [f"{k} = {toml_value(v)}" for k, v in top.items()]
    lines.append("[rules]")
    lines += [f"{k} = {toml_value(v)}" for k, v in (rules or {}).items()]
    for name, token in seats:
        lines += ["[[seats]]", f"name = {toml_value(name)}", f"token = {toml_value(token)}"]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def env() -> dict[str, str]:
    out = dict(os.environ)
    out["PYTHONPATH"] = os.pathsep.join([str(ROOT), str(ROOT / "bots" / "python"),
                                         out.get("PYTHONPATH", "")])
    out["PYTHONUNBUFFERED"] = "1"
    return out


def start_server(config: Path) -> tuple[subprocess.Popen[str], str]:
    """`arena serve --config ...`; returns the process and the address it listens on."""
    proc = subprocess.Popen([sys.executable, "-m", "arena.cli", "serve", "--config", str(config)],
                            cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stdout is not None
    deadline = time.monotonic() + 30
    line = proc.stdout.readline()
    match = re.search(r"listening on (\S+?);", line)
    if match is None or time.monotonic() > deadline:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"server did not start: {line!r} {out!r} {err!r}")
    return proc, match.group(1)


def start_bot(kind: str, address: str, token: str, *, name: str, extra: Sequence[str] = (),
              reconnect_seconds: float = 2, quiet: bool = False) -> subprocess.Popen[str]:
    """`arena bot KIND` (``quiet``: its output is dropped, for long runs nobody reads)."""
    output = subprocess.DEVNULL if quiet else subprocess.PIPE
    return subprocess.Popen([sys.executable, "-m", "arena.cli", "bot", kind, "--server", address,
                             "--token", token, "--name", name, "--reconnect-seconds",
                             str(reconnect_seconds), *extra],
                            cwd=ROOT, env=env(), stdout=output, stderr=output, text=True)


def start_bots(address: str, bots: Sequence[tuple[str, str]], *, packs: int = 0,
               reconnect_seconds: float = 30, record: Path | None = None
               ) -> list[subprocess.Popen[str]]:
    """Example bots (name, kind) with the token ``token-NAME-0001``: one `arena bot` process
    each, or ``packs`` processes of several bots each (`tests.league.botpack`; ``record``: the
    file where they write each tournament hand's `MatchEnded` places)."""
    if not packs:
        return [start_bot(kind, address, f"token-{name}-0001", name=name, quiet=True,
                          reconnect_seconds=reconnect_seconds, extra=("--seed", str(k)))
                for k, (name, kind) in enumerate(bots)]
    groups = [bots[k::packs] for k in range(packs)]
    return [subprocess.Popen([sys.executable, "-m", "tests.league.botpack", address,
                              *(f"{name}:{kind}" for name, kind in group)],
                             cwd=ROOT, env={**env(), **({"ARENA_TEST_RECORD": str(record)}
                                                        if record else {})},
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)
            for group in groups if group]


def free_port() -> int:
    """A port free now on loopback (for a server that must come back on the same address)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port

"""`make demo`: a short real H.O.R.S.E. league over gRPC on localhost.

The league server and five example bots run as separate processes; the demo prints the
league's progress and leaderboard, where the logs are, and verifies the logs with the replayer.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import shlex
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from arena.practice import stop_processes

BOTS = (("random", "random"), ("station", "call"), ("rules", "rules"), ("rules-b", "rules"),
        ("random-b", "random"))

LEAGUE = """\
name = "demo"
format = "multiway"       # 5 bots, tables of 4 with balanced seating
seats_per_table = 4
tables = 3
hands_per_match = 20      # one full H.O.R.S.E. rotation at 4 seats
duplicate = true          # every deal is replayed with the seats rotated
tables_at_once = 6
seed = 2026               # a configured seed: the same deals every run (the leaderboard says so)
listen = "127.0.0.1:0"
store = "league.sqlite"
log_dir = "logs"
metrics_port = {metrics_port}
start_timeout_seconds = 30

[rules]
decision_seconds = 5.0       # generous: the example bots answer at once; a timeout would change results
time_bank_seconds = 30.0
{bots}"""


def bot_command(python: str, name: str, kind: str, address: str) -> list[str]:
    """One example bot as a process; the random bots are seeded (by their place in ``BOTS``), so
    the same cards meet the same decisions and every demo prints the same leaderboard."""
    seed = [n for n, _ in BOTS].index(name) + 1
    return [python, "-m", "arena.cli", "bot", kind, "--server", address,
            "--name", name, "--seed", str(seed), "--seed-each-decision"]  # the token: ARENA_TOKEN


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def demo_tokens() -> dict[str, str]:
    """Random per run: a token is a password, never derived from a bot's name."""
    return {name: secrets.token_urlsafe(24) for name, _ in BOTS}


def main() -> int:
    workdir = Path(tempfile.mkdtemp(prefix="arena-demo-"))
    tokens = demo_tokens()
    bots = "".join(f'\n[[bots]]\nname = "{name}"\ntoken = "{tokens[name]}"\n' for name, _ in BOTS)
    league_file = workdir / "league.toml"
    league_file.touch(mode=0o600)  # it holds the tokens
    league_file.write_text(LEAGUE.format(metrics_port=_free_port(), bots=bots), encoding="utf-8")
    python = sys.executable
    web_url: str | None = None
    print(f"H.O.R.S.E. league demo in {workdir}: the dealer and {len(BOTS)} bots as processes\n",
          flush=True)
    server = subprocess.Popen([python, "-m", "arena.cli", "league", "run", str(league_file),
                               "--web-port", "0"],
                              stdout=subprocess.PIPE, text=True, cwd=workdir)
    assert server.stdout is not None
    bots_running: list[subprocess.Popen[bytes]] = []
    try:
        address = None
        for line in server.stdout:
            print(line, end="", flush=True)
            web = re.search(r"^web: (http://\S+)", line)
            if web:
                web_url = web.group(1)
                print("  open it to watch the live tables, then the leaderboard and every hand",
                      flush=True)
            match = re.search(r"listening on (\S+);", line)
            if match:
                address = match.group(1)
                break
        if address is None:
            return server.wait() or 1
        for name, kind in BOTS:
            bots_running.append(subprocess.Popen(
                bot_command(python, name, kind, address),
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=workdir,
                env={**os.environ, "ARENA_TOKEN": tokens[name]}))  # not on `ps`'s command line
        for line in server.stdout:
            print(line, end="", flush=True)
        code = server.wait()
    finally:
        stop_processes(bots_running)
        if server.poll() is None:
            server.terminate()
    logs = sorted((workdir / "logs").glob("*.phhs"))
    if logs:
        print(f"\nverifying {len(logs)} match logs against their revealed seeds:", flush=True)
        verify = subprocess.run([python, "-m", "arena.cli", "replay", *map(str, logs)],
                                capture_output=True, text=True, cwd=workdir)
        print(verify.stdout.splitlines()[-1] if verify.stdout else verify.stderr)
        code = code or verify.returncode
    if web_url is not None:
        keep_page(league_file, web_url, interactive=sys.stdin.isatty())
    return code


def reopen_command(league_file: Path, port: str) -> list[str]:
    """The command that serves the finished league's pages again at the same address."""
    return [sys.executable, "-m", "arena.cli", "web", "--league", str(league_file), "--port", port]


def keep_page(league_file: Path, url: str, *, interactive: bool,
              ask: Callable[[str], object] = input, out: TextIO = sys.stdout) -> None:
    """The league's web page after the league: kept up at the same address until the user is
    done (Enter or Ctrl-C) when someone is at the terminal; either way, the command that
    opens it again is printed."""
    port = url.rstrip("/").rsplit(":", 1)[1]
    command = reopen_command(league_file, port)
    again = f"to open the leaderboard and replayer again: {shlex.join(command)} (then {url})"
    if not interactive:
        print(f"\nthe league is over; {again}", file=out, flush=True)
        return
    with tempfile.TemporaryFile("w+", encoding="utf-8") as errors:  # not a pipe: none reads it
        web = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=errors,
                               cwd=league_file.parent, text=True)
        try:
            if not _serving(web, int(port)):
                errors.seek(0)
                lines = errors.read().strip().splitlines()
                print(f"\ncould not keep the page up ({lines[-1] if lines else 'it did not start'}"
                      f"); {again}", file=out, flush=True)
                return
            with contextlib.suppress(EOFError, KeyboardInterrupt):
                ask(f"\nthe league is over; leaderboard and replayer still at {url} "
                    "(Enter or Ctrl-C stops it) ")
            print(f"\nstopped; {again}", file=out, flush=True)
        finally:
            stop_processes([web])


def _serving(web: subprocess.Popen[str], port: int, timeout_seconds: float = 30.0) -> bool:
    """Whether the web app came up on ``port`` (False when it exited or never listened)."""
    deadline = time.monotonic() + timeout_seconds
    while time.monotonic() < deadline and web.poll() is None:
        with socket.socket() as probe:
            probe.settimeout(0.5)
            if probe.connect_ex(("127.0.0.1", port)) == 0:
                return True
        time.sleep(0.1)
    return False


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # Ctrl-C while the league ran: its processes were stopped
        print("\ndemo interrupted (Ctrl-C)", file=sys.stderr)
        sys.exit(3)

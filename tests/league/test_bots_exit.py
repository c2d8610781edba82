"""A bot process ends when its league ends (issue 39): it is told every match is over and exits
0 with its summary line. A bot slow on some decisions at two tables once fell ever further
behind (each decision waited for the one before), its stream was cut with UNAVAILABLE when the
league ended and it reconnected for minutes."""

from __future__ import annotations

import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.server.procs import ROOT, env

pytestmark = pytest.mark.timeout(180)

HANDS = 6
LEAGUE = f"""\
name = "t"
format = "round_robin"
hands_per_match = {HANDS}
duplicate = false
tables_at_once = 4
seed = 5
listen = "127.0.0.1:0"
store = "league.sqlite"
log_dir = "logs"
start_timeout_seconds = 30

[rules]
games = ["FT"]
decision_seconds = 1.0
time_bank_seconds = 0.0

[[bots]]
name = "slow"
token = "token-slow-0001"

[[bots]]
name = "station1"
token = "token-station1-0001"

[[bots]]
name = "station2"
token = "token-station2-0001"
"""

# Slow on every third decision, at two tables at once (issue 39's bot at a smaller scale).
SLOW_AT_TIMES = """\
import itertools
import threading
import time

COUNT = itertools.count(1)
LOCK = threading.Lock()

def decide(view):
    with LOCK:
        k = next(COUNT)
    if k % 3 == 0:
        time.sleep(2.5)
    return view.check_or_call()
"""


def test_bot_processes_exit_with_their_summary_when_the_league_ends(tmp_path: Path) -> None:
    (tmp_path / "league.toml").write_text(LEAGUE)
    (tmp_path / "slow_end.py").write_text(SLOW_AT_TIMES)
    league = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", "league.toml"],
                              cwd=tmp_path, env=env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    bots: list[subprocess.Popen[str]] = []
    try:
        assert league.stdout is not None
        address = ""
        for line in league.stdout:
            if found := re.search(r"listening on (\S+);", line):
                address = found.group(1)
                break
        assert address, league.stderr.read() if league.stderr else ""
        for name, bot in (("slow", str(tmp_path / "slow_end.py") + ":decide"),
                          ("station1", "call"), ("station2", "call")):
            bots.append(subprocess.Popen(
                [sys.executable, "-m", "arena.cli", "bot", bot, "--server", address,
                 "--token", f"token-{name}-0001", "--name", name],  # reconnects until stopped
                cwd=ROOT, env=env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        league.communicate(timeout=120)
        assert league.returncode == 0
        ended = time.monotonic()
        outputs = [bot.communicate(timeout=60) for bot in bots]
        assert time.monotonic() - ended < 30
    finally:
        for proc in (league, *bots):
            proc.kill()
    for bot, (out, err) in zip(bots, outputs, strict=True):
        assert bot.returncode == 0, out + err
        assert "2 match(es) ended; all your matches on this dealer are over" in out, out + err
        assert "reconnecting" not in err, err
    assert re.search(r"[1-9]\d* timed out", outputs[0][0]), outputs[0][0]

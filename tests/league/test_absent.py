"""No phantom hands: a league deals a match only when all its bots are connected (issue 14)."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from arena.league.config import load_league
from arena.league.runner import LeagueRun
from tests.league.faults import wait_for
from tests.league.test_league_e2e import ROOT, phh_tables, write_league
from tests.server.procs import env

pytestmark = pytest.mark.timeout(180)

BOTS = [("alpha", "call"), ("beta", "rules")]


def _start_league(league: Path) -> tuple[subprocess.Popen[str], str, list[str]]:
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", str(league)],
                              cwd=league.parent, env=env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    assert server.stdout is not None and server.stderr is not None
    for line in server.stdout:
        if m := re.search(r"listening on (\S+);", line):
            address = m.group(1)
            break
    else:
        raise AssertionError(server.stderr.read())
    log: list[str] = []
    threading.Thread(target=lambda: log.extend(server.stderr), daemon=True).start()  # type: ignore[arg-type]
    return server, address, log


def _hands_in_store(league: Path) -> int:
    run = LeagueRun(load_league(league))
    try:
        return sum(len(run.store.completed_hands(m.match_id))
                   for m in run.store.list_matches(run._league().league_id))
    finally:
        run.close()


def test_a_league_without_bots_deals_nothing_and_postpones_until_they_come(tmp_path: Path) -> None:
    league = write_league(tmp_path, BOTS, hands_per_match=4, start_timeout_seconds=1, absent="wait")
    server, address, log = _start_league(league)
    try:
        # Several start timeouts (1 s each): each match postponed, none dealt.
        wait_for(lambda: "".join(log).count("postponed: alpha, beta not connected after 1 s") >= 2,
                 "two postponements")
        assert server.poll() is None
        assert _hands_in_store(league) == 0
        waited = "".join(log)
        assert "waiting up to 1 s for alpha, beta" in waited
        assert "postponed: alpha, beta not connected after 1 s" in waited
        bots = [subprocess.Popen([sys.executable, "-m", "arena.cli", "bot", kind, "--server", address,
                                  "--token", f"token-{name}-0001", "--name", name],
                                 cwd=ROOT, env=env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                for name, kind in BOTS]
        assert server.stdout is not None
        out = server.stdout.read()  # the log thread alone reads stderr
        server.wait(timeout=120)
        for bot in bots:
            bot.wait(timeout=30)
    finally:
        if server.poll() is None:
            server.kill()
    assert server.returncode == 0, out + "".join(log)
    hands = phh_tables(tmp_path / "logs")
    assert len(hands) == 2 * 4  # both duplicate copies, every hand
    assert all(h["_absent"] == [0, 0] for h in hands), "a hand was played for an absent bot"
    assert re.search(r"bot alpha connected from \S+", "".join(log))
    assert re.search(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+ arena.server INFO bot beta connected",
                     "".join(log), re.MULTILINE)


def test_absent_forfeit_ends_the_league_with_no_hand_counted(tmp_path: Path) -> None:
    league = write_league(tmp_path, BOTS, hands_per_match=4, start_timeout_seconds=0.5,
                          absent="forfeit")
    out = subprocess.run([sys.executable, "-m", "arena.cli", "league", "run", str(league)],
                         cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    assert "forfeited (bots absent at the start timeout): r1-t1-c1 (alpha, beta)" in out.stdout
    assert _hands_in_store(league) == 0
    assert "No completed hands yet." in out.stdout


def test_an_unknown_absent_policy_is_a_clear_error(tmp_path: Path) -> None:
    league = write_league(tmp_path, BOTS, absent="sometimes")
    out = subprocess.run([sys.executable, "-m", "arena.cli", "league", "run", str(league)],
                         cwd=tmp_path, env=env(), capture_output=True, text=True, timeout=60)
    assert out.returncode == 2
    assert "'absent' must be one of 'wait', 'forfeit', 'check_fold', got 'sometimes'" in out.stderr

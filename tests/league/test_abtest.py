"""`arena match A B --sprt`: real bots over gRPC until the sequential test decides."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

from tests.server.procs import env

ROOT = Path(__file__).resolve().parents[2]


def _match(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "arena.cli", "match", *args, "--dir", str(tmp_path / "ab")],
                          env=env(), capture_output=True, text=True, cwd=ROOT, timeout=300)


def test_rules_bot_beats_random_bot_with_a_decision(tmp_path: Path) -> None:
    """The issue's "Done when": the SPRT stops on the right side for rules vs random, printing
    the log-likelihood ratio after every deal set and the hands it took."""
    done = _match(tmp_path, "rules", "random", "--sprt", "0,300", "--max-hands", "2000")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    progress = [line for line in lines if line.startswith("hands")]
    assert progress and all("LLR=" in line for line in progress)
    decision = re.search(r"decision: accept H1 after (\d+) hands", done.stdout)
    assert decision is not None, done.stdout
    assert int(decision.group(1)) <= 2000
    assert "a-rules is better than b-random" in done.stdout
    assert list((tmp_path / "ab" / "logs").glob("*.phhs"))


def test_bad_bounds_are_a_clear_error(tmp_path: Path) -> None:
    for bad in (["--sprt", "5,1"], ["--sprt", "x"], ["--sprt", "0,100", "--alpha", "0.7"],
                ["--sprt", "0,100", "--max-hands", "0"]):
        done = _match(tmp_path, "rules", "call", *bad)
        assert done.returncode == 2, done.stdout + done.stderr
        assert "arena: error:" in done.stderr and "Traceback" not in done.stderr


def test_league_stops_when_every_pair_is_significant(tmp_path: Path) -> None:
    """`stop_when_significant`: a round robin of rules, call and random stops long before its
    100 rounds once the test of each pair (on the first bot by name) has decided."""
    from tests.league.test_league_e2e import LeagueProcess, write_league

    bots = [("rules", "rules"), ("call", "call"), ("random", "random")]
    league = write_league(tmp_path, bots, rounds=100, tables_at_once=6, stop_when_significant=True,
                          sprt_low_mbb=-300, sprt_high_mbb=300)
    code, output = LeagueProcess(league, bots).wait(timeout=280)
    assert code == 3, output  # stopped early: the rest of the schedule is left to play
    decided = sorted(line.split(": ", 1)[1].split(" (")[0] for line in output.splitlines()
                     if line.startswith("significant after"))
    assert decided == ["call is better than random by 300 mbb/hand",
                       "call is not better than rules by -300 mbb/hand",
                       "random is not better than rules by -300 mbb/hand"], output

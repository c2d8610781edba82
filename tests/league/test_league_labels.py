"""Per-bot metric labels, scraped from a real league while it runs (issue 14: not bot="other")."""

from __future__ import annotations

import csv
import io
import time
import urllib.request
from pathlib import Path

import pytest
from prometheus_client.parser import text_string_to_metric_families

from arena.league.commands import show_leaderboard
from tests.league.test_league_e2e import LeagueProcess, write_league

pytestmark = pytest.mark.timeout(180)


def _by_bot(url: str, sample_name: str) -> dict[str, float]:
    text = urllib.request.urlopen(url, timeout=5).read().decode()
    out: dict[str, float] = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            if sample.name == sample_name:
                out[sample.labels["bot"]] = out.get(sample.labels["bot"], 0.0) + sample.value
    return out


def test_league_decisions_and_faults_are_labelled_per_bot(tmp_path: Path) -> None:
    bots = [("alpha", "call"), ("beta", "rules")]
    league = write_league(tmp_path, bots, hands_per_match=400, duplicate=False, metrics_port=0)
    run = LeagueProcess(league, bots)
    try:
        assert run.metrics_url is not None
        deadline = time.monotonic() + 90
        decisions: dict[str, float] = {}
        while time.monotonic() < deadline:
            decisions = _by_bot(run.metrics_url, "arena_decisions_total")
            if decisions.get("alpha", 0) >= 20 and decisions.get("beta", 0) >= 20:
                break
            time.sleep(0.5)
        assert decisions.get("alpha", 0) >= 20 and decisions.get("beta", 0) >= 20, decisions
        assert decisions.get("other", 0) == 0, decisions
        # A bot that drops mid-match: its absent decisions and disconnects carry its name.
        run.procs[0].kill()
        run.procs[0].wait(timeout=10)
        absent: dict[str, float] = {}
        while time.monotonic() < deadline:
            absent = _by_bot(run.metrics_url, "arena_timeouts_total")
            if absent.get("alpha", 0) > 0:
                break
            time.sleep(0.5)
        assert absent.get("alpha", 0) > 0 and absent.get("other", 0) == 0, absent
        assert _by_bot(run.metrics_url, "arena_bot_disconnects_total").get("alpha", 0) >= 1
    finally:
        run.server.terminate()
        run.wait(timeout=60)
    # The store counted them per bot and match: the leaderboard's faults table says so.
    out = io.StringIO()
    assert show_leaderboard(str(league), fmt="csv", table="faults", out=out) == 0
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    alpha = [r for r in rows if r["bot"] == "alpha"]
    assert sum(int(r["absent_decisions"]) for r in alpha) > 0, rows
    assert all(int(r["absent_decisions"]) == 0 for r in rows if r["bot"] == "beta"), rows

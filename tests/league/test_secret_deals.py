"""Issue 7 item 1 and 2 (RULES.md §1 and §8): deals no bot can predict, seeds revealed only when
every match sharing them has ended, a commitment checked by `arena replay`, and files that keep
secrets (owner-only modes, no plain-text tokens in the store)."""

from __future__ import annotations

import json
import stat
import subprocess
import sys
from pathlib import Path

from arena.engine.seeds import commitment, derive_secret
from arena.league.config import load_league
from arena.league.runner import LeagueRun
from arena.league.secret import league_secret
from tests.league.test_league_e2e import ROOT, LeagueProcess, write_league


def _without_seed(path: Path) -> Path:
    path.write_text("\n".join(line for line in path.read_text().splitlines()
                              if not line.startswith("seed =")) + "\n")
    return path


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_secret_league_reveals_seeds_only_at_the_end_and_replay_checks_them(
        tmp_path: Path) -> None:
    bots = [("alpha", "call"), ("beta", "rules")]
    league = _without_seed(write_league(tmp_path, bots, hands_per_match=6))
    code, output = LeagueProcess(league, bots).wait()
    assert code == 0, output
    logs = tmp_path / "logs"
    published = json.loads((logs / "league-commitment.json").read_text())
    assert "deals: secret league seed of 256 bits, commitment " + published["commitment"] in output
    secret = int(json.loads((logs / "league-secret.json").read_text())["secret"])
    assert commitment(secret) == published["commitment"] and secret.bit_length() > 128
    # Bots never received a seed: no MatchEnded on any stream carried one.
    ended = [json.loads(line)["event"] for path in logs.glob("*.events.jsonl")
             for line in path.read_text().splitlines() if '"MatchEnded"' in line]
    assert len(ended) == 2 and all(e["payload"]["match_seed"] == "" for e in ended)
    # The results file of each copy holds the deal set's seed, derived from the secret.
    for copy in ("r1-t1-c1", "r1-t1-c2"):
        result = json.loads((logs / f"{copy}.result.json").read_text())
        assert result["match_seed"] == derive_secret(secret, "deal-set", "r1-t1")
        assert result["seed_commitment"] == published["commitment"]
    phhs = sorted(str(p) for p in logs.glob("r1-t1-c*.phhs") if ".void." not in p.name)
    ok = subprocess.run([sys.executable, "-m", "arena.cli", "replay", *phhs], cwd=ROOT,
                        capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "seed checked against the league commitment" in ok.stdout
    # A changed secret is caught.
    (logs / "league-secret.json").write_text(json.dumps({"secret": str(secret + 1)}))
    bad = subprocess.run([sys.executable, "-m", "arena.cli", "replay", phhs[0]], cwd=ROOT,
                         capture_output=True, text=True, timeout=120)
    assert bad.returncode == 1
    assert "does not match the commitment" in bad.stdout
    # Files keep secrets: owner-only log directory, logs, store and secret; no tokens stored.
    assert _mode(logs) == 0o700
    for path in logs.iterdir():
        assert _mode(path) == 0o600, path
    for path in tmp_path.glob("league.sqlite*"):
        assert _mode(path) == 0o600, path
        assert b"token-alpha-0001" not in path.read_bytes(), path


def test_a_default_league_cannot_be_brute_forced_from_small_seeds(tmp_path: Path) -> None:
    """Before: a league without a seed used seed 1 (and the demo 2026): its deals were found
    by trying small seeds. Now its deal-set seeds come from 256 secret bits."""
    league = _without_seed(write_league(tmp_path, [("a", "call"), ("b", "call")]))
    run = LeagueRun(load_league(league))
    try:
        target = run.schedule[0].seed
        assert not run.secret.configured
        assert _mode(tmp_path / "league.sqlite.secret") == 0o600
    finally:
        run.close()
    found = [s for s in range(2**16) if derive_secret(s, "deal-set", "r1-t1") == target]
    assert found == []
    # The same league file resumed deals the same cards (the secret is kept).
    assert league_secret(load_league(league)).value == run.secret.value

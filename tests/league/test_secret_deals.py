"""Issue 7 item 1 and 2 (docs/house-rules.md §1 and §9): deals no bot can predict, seeds revealed only when
every match sharing them has ended, a commitment checked by `arena replay`, and files that keep
secrets (owner-only modes, no plain-text tokens in the store)."""

from __future__ import annotations

import _random
import json
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from arena.engine.cards import Deck, derive_seed
from arena.engine.games import variant_for
from arena.engine.rules import Rules
from arena.engine.seeds import commitment, derive_secret
from arena.engine.state import HandState
from arena.league.config import load_league
from arena.league.runner import LeagueRun
from arena.league.secret import league_secret
from arena.match.rotation import game_for_hand
from arena.server.eventrecord import read_events
from tests.league.seed_search import Target, first_draws, hand_seed, parallel_search
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
    ended = [record["event"]["match_ended"] for path in logs.glob("*.events.pb")
             for record in read_events(path) if "match_ended" in record.get("event", {})]
    assert len(ended) == 2 and all(e["match_seed"] == "" for e in ended)
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


def _first_hands_of_seat_0(deal_set_seed: int, rules: Rules, hands: int = 3) -> Target:
    """What engine seat 0 of a heads-up table is dealt in its first hands (its whole view of
    the deck before it acts), as draw positions and cards; checked against the engine."""
    out = []
    for index in range(hands):
        seed = derive_seed(deal_set_seed, "hand", index)
        state = HandState(variant_for(game_for_hand(rules, index, 2)), [rules.starting_stack] * 2,
                          rules=rules, seed=seed)
        draws = Deck(seed).draw_many(16)
        cards = tuple(state.cards[0])
        rng = _random.Random(seed)
        assert first_draws(rng, 16) == draws  # the search shuffles as the engine does
        out.append((tuple(draws.index(c) for c in cards), cards))
    return tuple(out)


@pytest.mark.parametrize("candidates", [
    pytest.param(2**20, id="2^20"),
    pytest.param(2**24, id="2^24", marks=[pytest.mark.slow, pytest.mark.timeout(3600)]),
])
@pytest.mark.no_dealer
def test_a_default_league_cannot_be_brute_forced_from_its_cards(tmp_path: Path,
                                                                candidates: int) -> None:
    """Before: a league without a seed used seed 1 (and the demo 2026): a bot found it in
    0.06 s by trying small seeds against its own cards. Now its deal-set seeds come from 256
    secret bits. A bot's search: every candidate league seed below 2**20 (2**24 with -m slow,
    several minutes) re-deals the first three hands of table r1-t1, compared with what seat 0
    was dealt. The same search finds a league configured with the small seed 2026."""
    league = _without_seed(write_league(tmp_path, [("a", "call"), ("b", "call")]))
    run = LeagueRun(load_league(league))
    try:
        target = run.schedule[0].seed
        assert not run.secret.configured and run.schedule[0].deal_set == "r1-t1"
        assert _mode(tmp_path / "league.sqlite.secret") == 0o600
        rules = run.config.rules
    finally:
        run.close()
    planted = tmp_path / "planted"
    planted.mkdir()
    small = load_league(write_league(planted, [("a", "call"), ("b", "call")], seed=2026))
    assert hand_seed(2026, "r1-t1", 0) == derive_seed(derive_secret(2026, "deal-set", "r1-t1"),
                                                      "hand", 0)
    found = parallel_search("r1-t1", {
        "secret": _first_hands_of_seat_0(target, rules),
        "planted": _first_hands_of_seat_0(derive_secret(small.seed or 0, "deal-set", "r1-t1"),
                                          small.rules)}, candidates)
    assert found == {"secret": [], "planted": [2026]}
    # The same league file resumed deals the same cards (the secret is kept).
    assert league_secret(load_league(league)).value == run.secret.value

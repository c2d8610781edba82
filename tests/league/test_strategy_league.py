"""Issue 40 end to end: a duplicate league (`arena league run`, real gRPC, SQLite) of two
Node.js bots that declare mixed strategies (`--policy mixed`): the dealer draws, each copy with
its own key; the logs replay with every draw re-drawn; the luck in the store has the action
terms (recomputed from the logs, it differs from the chance-only luck) and sums to zero over
the seats of every hand."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from arena.engine.luck import hand_luck
from arena.engine.phh import replay
from arena.engine.strategy_log import parse_strategies
from arena.host.phhfile import load_file
from arena.league.config import load_league
from arena.league.luck import luck_of_log_file
from arena.storage.matchlog import match_seed_for
from arena.storage.store import SqliteStore
from arena.storage.verify import deal_seed
from tests.league.test_league_e2e import write_league
from tests.server.procs import env

pytestmark = pytest.mark.timeout(180)

ROOT = Path(__file__).resolve().parents[2]
NODE_DIR = ROOT / "bots" / "node"


@pytest.fixture(scope="module")
def node_bot() -> Path:
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("node and npm are needed for the Node.js bot (not installed here)")
    if not (NODE_DIR / "node_modules" / "@grpc" / "grpc-js").is_dir():
        done = subprocess.run([npm, "install", "--no-audit", "--no-fund"], cwd=NODE_DIR,
                              capture_output=True, text=True, timeout=100, check=False)
        assert done.returncode == 0, f"npm install failed:\n{done.stdout}\n{done.stderr}"
    return NODE_DIR / "bot.js"


def test_a_league_of_strategy_declaring_bots(tmp_path: Path, node_bot: Path) -> None:
    bots = ["alpha", "beta"]
    league = write_league(tmp_path, [(b, "node") for b in bots], hands_per_match=12,
                          luck_value="projected-pot-equity", luck_samples=100,
                          rules='games = ["FT"]')
    server = subprocess.Popen([sys.executable, "-m", "arena.cli", "league", "run", str(league)],
                              cwd=tmp_path, env=env(), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    assert server.stdout is not None
    lines: list[str] = []
    address = None
    for line in server.stdout:
        lines.append(line)
        if m := re.search(r"listening on (\S+);", line):
            address = m.group(1)
            break
    assert address is not None, "".join(lines)
    procs = [subprocess.Popen(["node", str(node_bot), "--server", address, "--token",
                               f"token-{name}-0001", "--name", name, "--policy", "mixed",
                               "--reconnect-seconds", "2"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True) for name in bots]
    try:
        out, err = server.communicate(timeout=150)
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
    output = "".join(lines) + out + err
    assert server.returncode == 0, output
    logs = tmp_path / "logs"
    paths = sorted(logs.glob("*-c?.phhs"))
    assert len(paths) == 2  # one pair, two duplicate copies
    # Every draw re-drawn from its copy's key, once the seeds are revealed.
    replayed = subprocess.run([sys.executable, "-m", "arena.cli", "replay", *map(str, paths)],
                              env=env(), capture_output=True, text=True, cwd=ROOT)
    assert replayed.returncode == 0, replayed.stdout + replayed.stderr
    assert "24 of 24 hands replayed" in replayed.stdout
    config = load_league(league)
    strategy_hands = 0
    differs = 0
    for path in paths:
        seed = match_seed_for(path)
        assert seed is not None
        hands = load_file(str(path))
        assert {h.fields.get("_copy_index") for h in hands if parse_strategies(h)} <= {0, 1}
        recomputed = luck_of_log_file(path, rules=config.rules, settings=config.luck)
        for hand, (number, _players, luck) in zip(hands, recomputed, strict=True):
            if not parse_strategies(hand):
                continue
            strategy_hands += 1
            state = replay(hand, config.rules)
            chance_only = hand_luck(state.variant, state.events, state.seat_count,
                                    hand_seed=deal_seed(seed, number), settings=config.luck,
                                    small_bet_chips=state.stakes.small_bet,
                                    big_bet_chips=state.stakes.big_bet).luck_chips
            differs += luck != pytest.approx(chance_only)
    assert strategy_hands == 24 and differs > 0
    # The store's luck is the luck with the action terms, zero-sum over the seats per hand.
    stored: dict[tuple[int, int, int], float] = defaultdict(float)
    with SqliteStore(config.store) as store:
        found = store.find_league(config.name)
        assert found is not None
        for row in store.iter_results(found.league_id, value_function=config.luck.name):
            assert row.luck_chips is not None
            stored[(row.match_id, row.hand_number, row.copy_index)] += row.luck_chips
    assert len(stored) == 24 and all(abs(v) < 1e-6 for v in stored.values())
    board_text = (logs / "leaderboard.txt").read_text()
    assert "luck-adj" in board_text
    share_line = next(line for line in board_text.splitlines() if line.startswith("Strategy replies"))
    assert "alpha" in share_line and "beta" in share_line and share_line.count("(100%)") == 2
    shares = json.loads((logs / "leaderboard.json").read_text())["strategy_replies"]
    assert [(s["bot"], s["share"]) for s in shares] == [("alpha", 1.0), ("beta", 1.0)]
    assert all(s["decisions"] == s["strategy_replies"] > 0 for s in shares)

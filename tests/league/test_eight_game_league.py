"""Issue 42: a duplicate league of the 8-game mix (docs/eight-game-mix.md) over gRPC: three
example bots, one hand of each game per match (2-7 triple draw, docs/house-rules.md §21, among
them), played to the end, ranked per game with the luck adjustment (§29) and replayed exactly;
the same rotation in process with `arena simulate`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

import pytest

from arena.engine.errors import ConfigError
from arena.league.config import league_from_mapping, load_league
from arena.league.luck import luck_of_log_file
from arena.league.runner import LeagueRun
from arena.storage.store import SqliteStore
from tests.league.test_league_e2e import LeagueProcess, phh_tables, write_league
from tests.server.procs import env

ROOT = Path(__file__).resolve().parents[2]
EIGHT = ["F2L3D", "FT", "FO/8", "FR", "F7S", "F7S/8", "NT", "PO"]


def _documented_league() -> dict[str, object]:
    text = (ROOT / "docs" / "eight-game-mix.md").read_text()
    block = re.search(r"```toml\n(.*?)```", text, re.S)
    assert block is not None
    return tomllib.loads(block.group(1))


@pytest.mark.no_dealer
def test_the_documented_league_file_is_a_valid_eight_game_league(tmp_path: Path) -> None:
    data = _documented_league()
    for bot in ("alice", "bob", "carol"):
        (tmp_path / f"{bot}.token").write_text(f"token-of-{bot}-0001\n")
    config = league_from_mapping(data, base_dir=tmp_path)
    assert [str(g) for g in config.rules.games] == EIGHT
    assert config.duplicate and config.rules.hands_per_game == 6
    entries = config.rules.game_entries
    assert [e.stakes.big_blind if e and e.stakes else None for e in entries][-2:] == [20, 20]


def test_eight_game_duplicate_league_over_grpc(tmp_path: Path) -> None:
    bots = [("alpha", "rules"), ("beta", "random"), ("gamma", "call")]
    games = ", ".join(f'"{g}"' for g in EIGHT[:6])
    rules = (f'hands_per_game = 1\ngames = [{games}, {{ game = "NT", small_blind = 10, '
             f'big_blind = 20 }}, {{ game = "PO", small_blind = 10, big_blind = 20 }}]\n'
             "starting_stack = 400")
    league = write_league(tmp_path, bots, rules=rules, format="multiway", seats_per_table=3,
                          tables=1, hands_per_match=8, tables_at_once=3, luck_samples=40)
    code, output = LeagueProcess(league, bots).wait(timeout=300)
    assert code == 0, output
    hands = phh_tables(tmp_path / "logs")
    assert len(hands) == 3 * 8  # three copies of eight deals, one of each game
    variants = defaultdict(int)
    for hand in hands:
        variants[str(hand["variant"])] += 1
    assert variants == {"F2L3D": 3, "FT": 3, "FO/8": 3, "FR": 3, "F7S": 3, "F7S/8": 3, "NT": 3,
                        "PO": 3}
    assert any(" sd" in a for h in hands if h["variant"] == "F2L3D"
               for a in h["actions"])  # type: ignore[attr-defined]  # the bots exchanged
    config = load_league(league)
    run = LeagueRun(config)
    try:
        board = run.leaderboard()
    finally:
        run.close()
    # Ranked per game with the luck adjustment: every hand of every game has its luck.
    for name, _kind in bots:
        total = board.stat(name)
        assert total is not None and total.hands == 24 and total.luck.hands == 24
        for game in EIGHT:
            stat = board.stat(name, game)
            assert stat is not None and stat.hands == 3 and stat.luck.hands == 3, (name, game)
    luck_sum = sum(s.luck.mean_mbb * s.luck.hands for b, _ in bots if (s := board.stat(b)))
    assert luck_sum == pytest.approx(0.0, abs=1e-6)
    # The luck recomputed from the logs (the revealed seed) is the stored luck.
    stored: dict[tuple[tuple[str, ...], int], list[float]] = defaultdict(list)
    names: dict[tuple[int, int, int], list[str]] = defaultdict(list)
    values: dict[tuple[int, int, int], list[float]] = defaultdict(list)
    with SqliteStore(config.store) as store:
        found = store.find_league(config.name)
        assert found is not None
        for row in store.iter_results(found.league_id, value_function=config.luck.name):
            assert row.luck_chips is not None
            key = (row.match_id, row.hand_number, row.copy_index)
            names[key].append(row.bot)
            values[key].append(row.luck_chips)
    for key, luck in values.items():
        stored[(tuple(names[key]), key[1])] = luck
    recomputed = 0
    for path in sorted((tmp_path / "logs").glob("*-c?.phhs")):
        for number, players, luck in luck_of_log_file(path, rules=config.rules,
                                                      settings=config.luck):
            assert list(luck) == stored[(players, number)]
            recomputed += 1
    assert recomputed == 24
    # The leaderboard's text, JSON and CSV have a row per game of the mix.
    for fmt in ("table", "json", "csv"):
        shown = subprocess.run([sys.executable, "-m", "arena.cli", "leaderboard", str(league),
                                "--format", fmt], env=env(), capture_output=True, text=True,
                               cwd=tmp_path)
        assert shown.returncode == 0, shown.stderr
        if fmt == "json":
            rows = json.loads(shown.stdout)
            text = json.dumps(rows)
        else:
            text = shown.stdout
        for game in EIGHT:
            assert game in text, (fmt, game)
        if fmt == "table":  # the game's letter beside its code: D F2L3D, H FT, ..., P PO
            for letter, game in zip("DHORSENP", EIGHT, strict=True):
                assert f"{letter} {game}" in text, text
    # `arena replay` replays every hand exactly.
    replay = subprocess.run([sys.executable, "-m", "arena.cli", "replay",
                             *map(str, sorted((tmp_path / "logs").glob("*-c?.phhs")))],
                            env=env(), capture_output=True, text=True, cwd=ROOT)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "24 of 24 hands replayed" in replay.stdout


def test_arena_simulate_deals_the_eight_game_mix_and_replays_it(tmp_path: Path) -> None:
    games = json.dumps(EIGHT)
    done = subprocess.run([sys.executable, "-m", "arena.cli", "simulate", "--players", "3",
                           "--hands", "16", "--set", "hands_per_game=2", "--set", f"games={games}",
                           "--out", str(tmp_path)], env=env(), capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert "F2L3D 2, FT 2, FO/8 2, FR 2, F7S 2, F7S/8 2, NT 2, PO 2" in done.stdout
    replay = subprocess.run([sys.executable, "-m", "arena.cli", "replay",
                             str(tmp_path / "hands.phhs")], env=env(), capture_output=True,
                            text=True, cwd=ROOT)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "16 of 16 hands replayed" in replay.stdout


def test_a_league_of_the_seeds_other_games_is_ranked_with_luck(tmp_path: Path) -> None:
    """[002]'s games (docs/house-rules.md §22 to §25) in a duplicate heads-up league: English
    Stud with its seventh card and a priced exchange, two wild ranks; the luck of every hand
    is recomputed from its log (the hand's own `_rules`) as stored (§29)."""
    bots = [("alpha", "rules"), ("beta", "random")]
    others = ["FLL", "F7SW", "F7SWL", "F7SW/8", "FLH", "FLH/8", "FES"]
    games = ", ".join(f'"{g}"' for g in others)
    rules = (f"hands_per_game = 1\ngames = [{games}]\nwild_ranks = \"2J\"\n"
             "english_seventh_card = true\nexchange_price = 5\nstarting_stack = 400")
    league = write_league(tmp_path, bots, rules=rules, hands_per_match=7, luck_samples=40)
    code, output = LeagueProcess(league, bots).wait(timeout=300)
    assert code == 0, output
    hands = phh_tables(tmp_path / "logs")
    assert sorted(str(h["variant"]) for h in hands) == sorted(others * 2)
    config = load_league(league)
    run = LeagueRun(config)
    try:
        board = run.leaderboard()
    finally:
        run.close()
    for name, _kind in bots:
        for game in others:
            stat = board.stat(name, game)
            assert stat is not None and stat.hands == stat.luck.hands == 2, (name, game)
    with SqliteStore(config.store) as store:
        found = store.find_league(config.name)
        assert found is not None
        rows = list(store.iter_results(found.league_id, value_function=config.luck.name))
    by_key: dict[tuple[str, int], float] = {}
    for row in rows:
        assert row.luck_chips is not None
        by_key[(row.bot, row.hand_number * 10 + row.copy_index)] = row.luck_chips
    recomputed = []
    for path in sorted((tmp_path / "logs").glob("*-c?.phhs")):
        recomputed += [(players, luck) for _n, players, luck in
                       luck_of_log_file(path, rules=config.rules, settings=config.luck)]
    assert len(recomputed) == 14
    assert sorted(v for _p, luck in recomputed for v in luck) == sorted(by_key.values())


def test_a_six_max_eight_game_league_over_grpc(tmp_path: Path) -> None:
    """docs/house-rules.md §20: 2-7 triple draw seats six, so the mix plays six-handed; the
    documented six-max file is valid, and a small one plays to the end with every hand's luck
    (§29) and replays."""
    text = (ROOT / "docs" / "eight-game-mix.md").read_text()
    blocks = re.findall(r"```toml\n(.*?)```", text, re.S)
    six_max = {**_documented_league(), **tomllib.loads(blocks[1])}
    for bot in ("alice", "bob", "carol"):
        (tmp_path / f"{bot}.token").write_text(f"token-of-{bot}-0001\n")
    six_max["bots"] = [{"name": f"b{k}", "token": f"token-of-b{k}-0001"} for k in range(6)]
    config = league_from_mapping(six_max, base_dir=tmp_path)
    assert config.seats_per_table == 6 and [str(g) for g in config.rules.games] == EIGHT
    with pytest.raises(ConfigError, match="seats_per_table"):
        league_from_mapping({**six_max, "seats_per_table": 7}, base_dir=tmp_path)
    bots = [(f"s{k}", ("rules", "random", "call")[k % 3]) for k in range(6)]
    games = ", ".join(f'"{g}"' for g in EIGHT)
    league = write_league(tmp_path, bots, rules=f"hands_per_game = 1\ngames = [{games}]",
                          format="multiway", seats_per_table=6, tables=1, hands_per_match=8,
                          tables_at_once=6, luck_samples=20)
    code, output = LeagueProcess(league, bots).wait(timeout=300)
    assert code == 0, output
    hands = phh_tables(tmp_path / "logs")
    assert len(hands) == 6 * 8 and all(len(h["players"]) == 6 for h in hands)  # type: ignore[arg-type]
    run = LeagueRun(load_league(league))
    try:
        board = run.leaderboard()
    finally:
        run.close()
    for name, _kind in bots:
        stat = board.stat(name, "F2L3D")
        assert stat is not None and stat.hands == stat.luck.hands == 6
    replay = subprocess.run([sys.executable, "-m", "arena.cli", "replay",
                             *map(str, sorted((tmp_path / "logs").glob("*-c?.phhs")))],
                            env=env(), capture_output=True, text=True, cwd=ROOT)
    assert replay.returncode == 0, replay.stdout + replay.stderr
    assert "48 of 48 hands replayed" in replay.stdout

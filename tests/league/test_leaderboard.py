"""Leaderboard output: the terminal table lines up; JSON and CSV parse back to the same numbers."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

import arena.storage.tokens as tokens_module
from arena.league.leaderboard import CSV_HEADERS, CSV_TABLES, render_table, to_csv, to_json
from arena.league.stats import Leaderboard, compute_leaderboard
from arena.storage.records import ResultRow
from arena.storage.store import HandRecord, SeatResult, SqliteStore

pytestmark = pytest.mark.no_dealer  # never runs the dealer: not in the fast-paths-off pass


def sample_board() -> Leaderboard:
    rows: list[ResultRow] = []
    nets = [(25, -5, -20), (-10, 40, -30), (0, -20, 20), (60, -30, -30), (-15, 5, 10)]
    for i, (a, b, c) in enumerate(nets):
        game = ("FT", "FO/8", "FR", "F7S", "F7S/8")[i]
        table = {"alice": a, "bob": b, "carol": c}
        for bot, net in table.items():
            opponents = tuple((o, n) for o, n in table.items() if o != bot)
            rows.append(ResultRow(bot, game, net, 20, 1, f"d{i}", 0, opponents))
    rows.append(ResultRow("dave", "FT", 0, 20, 2, "solo"))  # one hand: no interval, no opponents
    return compute_leaderboard(rows)


def test_json_parses_back_to_the_same_numbers() -> None:
    board = sample_board()
    data = json.loads(to_json(board))
    assert data["bots"] == list(board.bots) == ["alice", "bob", "carol", "dave"]
    assert len(data["results"]) == len(board.stats)
    for item, stats in zip(data["results"], board.stats, strict=True):
        assert (item["bot"], item["game"], item["hands"], item["chips_won"]) == (
            stats.bot, stats.game, stats.hands, stats.chips_won)
        assert item["mbb_per_hand"] == stats.mean_mbb
        assert item["raw"]["stderr_mbb"] == stats.raw.stderr_mbb
        assert item["duplicate_adjusted"]["ci_half_width_mbb"] == stats.duplicate.ci_half_width_mbb
    dave = next(i for i in data["results"] if i["bot"] == "dave" and i["game"] == "all")
    assert dave["raw"]["ci_low_mbb"] is None  # missing intervals are null, never NaN
    pairs = {(p["bot"], p["opponent"]): p for p in data["crosstable"]}
    assert pairs[("alice", "bob")]["mbb_per_hand"] == pytest.approx(-pairs[("bob", "alice")]["mbb_per_hand"])
    assert [e["bot"] for e in data["rankings"]["total_bankroll"]] == [e.bot for e in board.total_bankroll]
    assert [e["bot"] for e in data["rankings"]["instant_runoff"]] == [e.bot for e in board.instant_runoff]


@pytest.mark.parametrize("table", ["results", "crosstable", "rankings"])
def test_csv_parses_back_with_exact_floats(table: str) -> None:
    board = sample_board()
    text = to_csv(board, table=table)  # type: ignore[arg-type]
    reader = csv.DictReader(io.StringIO(text))
    assert tuple(reader.fieldnames or ()) == CSV_HEADERS[table]
    rows = list(reader)
    if table == "results":
        assert len(rows) == len(board.stats)
        for row, stats in zip(rows, board.stats, strict=True):
            assert float(row["mbb_per_hand"]) == stats.mean_mbb  # repr round-trips exactly
            assert (row["stderr_mbb"] == "") == (stats.raw.stderr_mbb is None)
            if stats.raw.ci_low_mbb is not None:
                assert float(row["ci_low_mbb"]) == stats.raw.ci_low_mbb
            assert int(row["hands"]) == stats.hands and int(row["chips_won"]) == stats.chips_won
    elif table == "crosstable":
        assert [(r["bot"], r["opponent"]) for r in rows] == [(p.bot, p.opponent) for p in board.crosstable]
        assert [float(r["mbb_per_hand"]) for r in rows] == [p.mean_mbb for p in board.crosstable]
        assert {r["is_significant"] for r in rows} <= {"true", "false"}
    else:
        ranked = [(r["ranking"], int(r["rank"]), r["bot"]) for r in rows]
        assert ranked == [("total_bankroll", e.rank, e.bot) for e in board.total_bankroll] + [
            ("instant_runoff", e.rank, e.bot) for e in board.instant_runoff]


def test_unknown_csv_table_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown CSV table"):
        to_csv(sample_board(), table="nope")  # type: ignore[arg-type]


def test_terminal_table_columns_line_up() -> None:
    board = sample_board()
    text = render_table(board)
    sections = text.rstrip("\n").split("\n\n")
    assert [s.splitlines()[0].split(" (")[0] for s in sections] == ["Results", "Crosstable", "Rankings"]
    results = sections[0].splitlines()[1:]
    assert len(results) == 2 + len(board.stats)
    assert len({len(line) for line in results}) == 1  # last column right-aligned: equal widths
    header = results[0]
    for line in results[2:]:
        # every number ends where its header ends
        assert line[header.index("mbb/hand") + len("mbb/hand") - 1] != " "
    assert "H FT" in text and "E F7S/8" in text and "n/a" in text
    crosstable = sections[1].splitlines()[1:]
    assert len({len(line) for line in crosstable}) == 1
    assert render_table(compute_leaderboard([])) == "No completed hands yet."


def test_leaderboard_from_the_results_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tokens_module, "_SCRYPT_N", 2**8)
    now = datetime(2025, 1, 1, tzinfo=UTC)
    with SqliteStore(tmp_path / "league.sqlite") as store:
        for bot in ("alice", "bob"):
            store.register_bot(bot, "t" * 16)
        league = store.create_league("L", "")
        match = store.create_match(league.league_id, seat_bots=("alice", "bob"), games=("FT",),
                                   is_duplicate=True)
        for deal in range(1, 6):
            for copy_index, seats in enumerate((("alice", "bob"), ("bob", "alice"))):
                luck = 10 * deal  # seat 0's cards win it in both copies: alice once, bob once
                nets = {seats[0]: luck, seats[1]: -luck}
                nets["alice"] += 1
                nets["bob"] -= 1
                results = tuple(SeatResult(i, b, nets[b], 2000 + nets[b]) for i, b in enumerate(seats))
                record = HandRecord(match.match_id, deal, copy_index, f"deal{deal}", "FT", 20, 1, results,
                                    "", now, now)
                store.record_hand(record)
        board = compute_leaderboard(store.iter_results(league.league_id))
    alice = board.stat("alice")
    assert alice is not None and alice.hands == 10 and alice.chips_won == 10
    assert alice.mean_mbb == pytest.approx(50.0)
    assert alice.duplicate.observations == 5 and alice.duplicate.stderr_mbb == pytest.approx(0.0)
    assert alice.raw.stderr_mbb is not None and alice.raw.stderr_mbb > 100
    assert [e.bot for e in board.instant_runoff] == ["alice", "bob"]


def test_zero_is_written_as_zero_in_json_and_csv() -> None:
    """A mean of zero-sum nets can come out as -0.0 or 5e-15: the files say 0.0."""
    rows = [ResultRow(bot, "FT", net, 20, 1, f"d{k}", 0, ((other, -net),))
            for k, (bot, other, net) in enumerate([("a", "b", 10), ("b", "a", -10), ("a", "b", -10),
                                                    ("b", "a", 10)])]
    board = compute_leaderboard(rows)
    board = dataclasses.replace(board, stats=tuple(
        dataclasses.replace(s, raw=dataclasses.replace(s.raw, mean_mbb=5e-15 if s.bot == "a" else -0.0))
        for s in board.stats))
    for text in (to_json(board), *(to_csv(board, table=t) for t in CSV_TABLES)):
        assert "-0.0" not in text and "e-1" not in text, text


def test_every_table_is_written_as_csv(tmp_path: Path) -> None:
    from arena.league.config import league_from_mapping
    from arena.league.runner import LeagueRun

    config = league_from_mapping({"bots": [{"name": "a", "token": "token-a-123"},
                                           {"name": "b", "token": "token-b-123"}]}, base_dir=tmp_path)
    run = LeagueRun(config)
    try:
        written = run.write_leaderboard_files(sample_board())
    finally:
        run.close()
    names = sorted(p.name for p in written)
    assert names == ["leaderboard-crosstable.csv", "leaderboard-faults.csv", "leaderboard-rankings.csv",
                     "leaderboard.csv", "leaderboard.json", "leaderboard.txt"]
    for table in CSV_TABLES:
        name = "leaderboard.csv" if table == "results" else f"leaderboard-{table}.csv"
        header = (tmp_path / "league-logs" / name).read_text().splitlines()[0]
        assert header == ",".join(CSV_HEADERS[table])

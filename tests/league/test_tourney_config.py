"""Tournament files: defaults of the seed-003 preset, and bad files refused with a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from arena.engine.errors import ConfigError
from arena.league.tourney_config import load_tournament, tournament_from_mapping


def _bots(n: int) -> list[dict[str, str]]:
    return [{"name": f"b{k}", "token": f"token-b{k}-0001"} for k in range(n)]


def test_the_seed_003_preset_defaults_follow_the_seed() -> None:
    """Seed 003 §2, §3, §5, §6: stack 390, blinds 1/2 doubling, two tables, 215 heads-up."""
    config = tournament_from_mapping({"format": "seed-003", "seed": 1, "bots": _bots(12)})
    fmt = config.format
    assert (fmt.starting_stack, fmt.tables, fmt.advance_per_table, fmt.tournaments,
            fmt.tie_break_stack) == (390, 2, 3, 2, 215)
    first = fmt.plan.level(0)
    assert (first.small_blind, first.big_blind) == (1, 2)
    assert fmt.plan.level(1).big_blind == 4
    assert fmt.games == ("FT",)


def test_an_explicit_level_table_in_minutes() -> None:
    config = tournament_from_mapping({
        "seed": 1, "bots": _bots(3),
        "levels": {"table": [{"small_blind": 5, "big_blind": 10, "minutes": 10},
                             {"small_blind": 10, "big_blind": 25, "ante": 2, "hands": 8}]}})
    plan = config.format.plan
    assert plan.level(0).seconds == 600.0 and plan.level(1).hands == 8
    assert plan.level(2).big_blind == 50


@pytest.mark.parametrize(("change", "message"), [
    ({"colour": 1}, "unknown key"),
    ({"seed": None}, "secret 'seed'"),
    ({"format": "knockout"}, "unknown format"),
    ({"seats_per_table": 12}, "seats_per_table"),
    ({"levels": {"small_blind": 5, "big_blind": 10, "minutes": float("nan")}}, "minutes"),
    ({"levels": {"small_blind": 5, "big_blind": 10, "hands": 0}}, "hands"),
    ({"levels": {"small_blind": 50, "big_blind": 10}}, "small_blind"),
    ({"levels": {"table": []}}, "1 to 200 levels"),
    ({"levels": {"small_blind": "5"}}, "'small_blind' must be an integer, got '5'"),
    ({"starting_stack": -5}, "stacks must be positive"),
    ({"start_timeout_seconds": float("inf")}, "start_timeout_seconds"),
])
def test_bad_tournament_files_are_refused(change: dict[str, object], message: str) -> None:
    data: dict[str, object] = {"seed": 1, "bots": _bots(4), **change}
    if data["seed"] is None:
        del data["seed"]
    with pytest.raises(ConfigError, match=message):
        tournament_from_mapping(data)


def test_seed_003_sizes_are_checked() -> None:
    with pytest.raises(ConfigError, match="advance_per_table"):
        tournament_from_mapping({"format": "seed-003", "seed": 1, "bots": _bots(12),
                                 "advance_per_table": 6})
    with pytest.raises(ConfigError, match="more than 8"):
        tournament_from_mapping({"format": "seed-003", "seed": 1, "bots": _bots(20),
                                 "tables": 2})


def test_the_cli_reports_a_bad_file_without_a_traceback(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "t.toml"
    path.write_text('format = "seed-003"\nseed = 1\n[levels]\nsmall_blind = 1\nbig_blind = 2\n'
                    'minutes = -3\n')
    assert main(["tournament", "run", str(path)]) == 2
    err = capsys.readouterr().err
    assert "arena: error:" in err and "Traceback" not in err
    with pytest.raises(ConfigError, match="cannot read"):
        load_tournament(tmp_path / "missing.toml")


def test_simulate_writes_standings_and_the_standings_command_reads_them(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = ['format = "seed-003"', "seed = 3", 'log_dir = "out"', "[levels]",
             "small_blind = 1", "big_blind = 2", "hands = 5"]
    for bot in _bots(12):
        lines += ["[[bots]]", f'name = "{bot["name"]}"', f'token = "{bot["token"]}"']
    path = tmp_path / "t.toml"
    path.write_text("\n".join(lines) + "\n")
    assert main(["tournament", "run", str(path), "--simulate", "random"]) == 0
    assert (tmp_path / "out" / "results.json").stat().st_mode & 0o077 == 0
    capsys.readouterr()
    assert main(["tournament", "standings", str(path), "--format", "csv"]) == 0
    rows = capsys.readouterr().out.splitlines()
    assert rows[0] == "place,bot,points,placings" and len(rows) == 13


def test_the_store_keeps_hands_of_games_its_schema_takes(tmp_path: Path) -> None:
    """A game the hands table does not list is not stored (it stays in the PHH logs) and the
    tournament goes on; a stored hand is stored once."""
    from arena.league.config import LeagueBot
    from arena.league.tourney_store import TournamentStore

    store = TournamentStore(tmp_path / "t.sqlite", name="t", source_toml="",
                            bots=(LeagueBot("a", "token-a-0001"), LeagueBot("b", "token-b-0001")))
    try:
        hand = {"hand_id": "e-t1-h1", "players": ["a", "b"], "game": "FT", "small_bet": 20,
                "starting": [100, 100], "finishing": [90, 110], "faults": [[0, 0, 0, 0]] * 2,
                "phh_text": "variant = 'FT'\n", "seed": "5", "finished_at": 0.0}
        assert store.record(hand) and store.record(hand)
        assert not store.record({**hand, "hand_id": "e-t1-h2", "game": "XX"})
        (match,) = store.store.list_matches(store.league_id)
        assert match.seed == "5" and len(store.store.completed_hands(match.match_id)) == 1
    finally:
        store.close()

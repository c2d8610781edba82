"""Tournament files: defaults of the seed-003 preset, and bad files refused with a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.cli import main
from arena.engine.errors import ConfigError
from arena.tourney.config import load_tournament, tournament_from_mapping


def _bots(n: int) -> list[dict[str, str]]:
    return [{"name": f"b{k}", "token": f"token-b{k}-0001"} for k in range(n)]


def test_the_seed_003_preset_defaults_follow_the_seed() -> None:
    """Seed 003 §1, §2, §3, §5, §6: no-limit hold'em, stack 390, blinds 1/2 doubling, two
    tables, 215 heads-up."""
    config = tournament_from_mapping({"format": "seed-003", "seed": 1, "bots": _bots(12)})
    fmt = config.format
    assert (fmt.starting_stack, fmt.tables, fmt.advance_per_table, fmt.tournaments,
            fmt.tie_break_stack) == (390, 2, 3, 2, 215)
    first = fmt.plan.level(0)
    assert (first.small_blind, first.big_blind) == (1, 2)
    assert fmt.plan.level(1).big_blind == 4
    assert fmt.games == ("NT",)


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


def test_simulate_writes_standings_but_not_to_the_results_store(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines = ['format = "seed-003"', "seed = 3", 'log_dir = "out"', "[levels]",
             "small_blind = 1", "big_blind = 2", "hands = 5"]
    for bot in _bots(12):
        lines += ["[[bots]]", f'name = "{bot["name"]}"', f'token = "{bot["token"]}"']
    path = tmp_path / "t.toml"
    path.write_text("\n".join(lines) + "\n")
    assert main(["tournament", "run", str(path), "--simulate", "random"]) == 0
    assert (tmp_path / "out" / "results.json").stat().st_mode & 0o077 == 0
    rows = [r for r in capsys.readouterr().out.splitlines() if r[:5].strip().isdigit()]
    assert len(rows) == 12
    # `standings` reads the results store, which only a tournament of bots fills.
    assert main(["tournament", "standings", str(path), "--format", "csv"]) == 2
    err = capsys.readouterr().err
    assert "no standings in the results store" in err and "results.json" in err


def test_a_league_file_with_a_tournament_format_is_a_tournament(tmp_path: Path) -> None:
    from arena.tourney.config import is_tournament_league

    lines = ['name = "cup"', 'format = "seed-003"', "seed = 3"]
    for bot in _bots(12):
        lines += ["[[bots]]", f'name = "{bot["name"]}"', f'token = "{bot["token"]}"']
    path = tmp_path / "league.toml"
    path.write_text("\n".join(lines) + "\n")
    assert is_tournament_league(path)
    config = load_tournament(path, league_file=True)  # a league's store and logs by default
    assert (config.store, config.log_dir) == (tmp_path / "league.sqlite", tmp_path / "league-logs")
    assert config.format.kind == "seed-003" and config.format.games == ("NT",)
    path.write_text(path.read_text().replace('"seed-003"', '"round_robin"'))
    assert not is_tournament_league(path)
    path.write_text("hands_per_match = 10\n" + path.read_text().replace('"round_robin"',
                                                                     '"freezeout"'))
    assert is_tournament_league(path)
    with pytest.raises(ConfigError, match=r"unknown key\(s\) \['hands_per_match'\]"):
        load_tournament(path, league_file=True)
    assert main(["league", "run", str(path)]) == 2  # a clear error, no traceback


@pytest.mark.parametrize("game", ["FT", "NT", "PO", "PT", "F7S/8"])
def test_the_store_keeps_hands_of_every_game_once(tmp_path: Path, game: str) -> None:
    """Migration 6: no-limit and pot-limit hands are stored like H.O.R.S.E. ones; once each."""
    from arena.league.config import LeagueBot
    from arena.tourney.store import TournamentStore

    store = TournamentStore(tmp_path / "t.sqlite", name="t", source_toml="",
                            bots=(LeagueBot("a", "token-a-0001"), LeagueBot("b", "token-b-0001")))
    try:
        hand = {"hand_id": "e-t1-h1", "players": ["a", "b"], "game": game, "small_bet": 20,
                "starting": [100, 100], "finishing": [90, 110], "faults": [[0, 0, 0, 0]] * 2,
                "phh_text": f"variant = '{game}'\n", "seed": "5", "finished_at": 0.0}
        store.record(hand)
        store.record(hand)
        (match,) = store.store.list_matches(store.league_id)
        (stored,) = store.store.completed_hands(match.match_id)
        assert match.seed == "5" and stored.game_code == game
    finally:
        store.close()

"""Dealer's choice rules (docs/house-rules.md §28, seed 002: the game "durch den Kartengeber in
Dealer's-Choice-Spielen festgelegt"): the keys and their checks, the
default choice, the orbit, and the refusals of duplicate, tournament and simulated play."""

from __future__ import annotations

from pathlib import Path

import pytest

from arena.engine.errors import ConfigError
from arena.engine.rules import Rules
from arena.match.choose import default_entry, orbit_hands

MENU = {"games": ["FT", "F7S", "NT"], "dealers_choice": True}


def test_the_choice_time_defaults_to_the_decision_time() -> None:
    """§28: `choice_seconds` defaults to `decision_seconds`; the key sets it alone."""
    assert Rules.from_mapping({**MENU, "decision_seconds": 3.5}).choice_time_seconds == 3.5
    assert Rules.from_mapping({**MENU, "choice_seconds": 9}).choice_time_seconds == 9.0
    assert not Rules().dealers_choice
    # A fixed rotation's [rules] table is written as before the keys existed.
    assert "dealers_choice" not in Rules().to_mapping()
    assert "choice_seconds" not in Rules().to_mapping()
    assert Rules.from_mapping(Rules.from_mapping(MENU).to_mapping()) == Rules.from_mapping(MENU)


@pytest.mark.parametrize(("values", "said"), [
    ({"dealers_choice": "yes"}, "'dealers_choice' must be true or false"),
    ({"choice_seconds": float("nan")}, "'choice_seconds' must be a finite number"),
    ({"choice_seconds": float("inf")}, "'choice_seconds'"),
    ({"choice_seconds": 0}, "'choice_seconds'"),
    ({"choice_seconds": "5"}, "'choice_seconds'"),
    ({"games": ["FT", "NT", "FT"]}, "names 'FT' twice"),
    ({"games": ["FT", {"game": "NT", "hands": 4}]}, "may not set 'hands'"),
])
def test_bad_dealers_choice_values_are_refused_in_words(values: dict[str, object],
                                                        said: str) -> None:
    with pytest.raises(ConfigError) as caught:
        Rules.from_mapping({**MENU, **values})
    assert said in str(caught.value)


def test_the_default_is_the_menus_next_game_after_the_current_one() -> None:
    """§28: an absent or late chooser gets the menu's next game after the one dealt in the orbit
    before (the first game before any), wrapping around."""
    rules = Rules.from_mapping(MENU)
    assert default_entry(rules, None) == 0
    assert [default_entry(rules, k) for k in range(3)] == [1, 2, 0]


def test_an_orbit_is_the_seats_at_the_start_or_hands_per_game() -> None:
    """§28: an orbit is `hands_per_game` hands, by default the seats when the match starts."""
    assert orbit_hands(Rules.from_mapping(MENU), 6) == 6
    assert orbit_hands(Rules.from_mapping(MENU), 2) == 2
    assert orbit_hands(Rules.from_mapping({**MENU, "hands_per_game": 4}), 6) == 4


def test_entry_stakes_apply_to_the_chosen_game() -> None:
    """§28 (with §27): a menu entry's stakes keys are the chosen game's stakes."""
    rules = Rules.from_mapping({"games": ["FT", {"game": "NT", "small_blind": 50,
                                                 "big_blind": 100}], "dealers_choice": True})
    assert rules.stakes_for(1).big_blind == 100 and rules.stakes_for(0).big_blind == 20


def test_a_duplicate_league_of_dealers_choice_is_refused(tmp_path: Path) -> None:
    """§28: the copies of a duplicate match would deal different games; a league needs
    `duplicate = false`, and then loads."""
    from arena.league.config import league_from_mapping

    bots = [{"name": n, "token": f"token-{n}-0123456789abcdef"} for n in ("a", "b")]
    with pytest.raises(ConfigError, match="dealer's choice cannot be played duplicate"):
        league_from_mapping({"bots": bots, "rules": MENU}, base_dir=tmp_path)
    league = league_from_mapping({"bots": bots, "rules": MENU, "duplicate": False},
                                 base_dir=tmp_path)
    assert league.rules.dealers_choice


def test_tournaments_and_simulations_refuse_dealers_choice(tmp_path: Path) -> None:
    """§28: a tournament changes the game with the level; `arena simulate` has no chooser."""
    from arena.match.simulate import simulate
    from arena.tourney.config import tournament_from_mapping

    bots = [{"name": n, "token": f"token-{n}-0123456789abcdef"} for n in ("a", "b")]
    with pytest.raises(ConfigError, match=r"dealer's choice .* is dealt in matches and leagues"):
        tournament_from_mapping({"bots": bots, "rules": MENU}, base_dir=tmp_path)
    with pytest.raises(ConfigError, match="dealer's choice needs bots"):
        simulate(game="horse", players=2, hands=2, seed=1, out_dir=None,
                 rules=Rules.from_mapping(MENU))

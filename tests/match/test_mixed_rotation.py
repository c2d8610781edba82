"""Mixed rotations (docs/house-rules.md §7 and §27): any list of games, each entry with its
own hands and stakes; the 8-game mix's dealt games as an example."""

from __future__ import annotations

import pytest

from arena.engine.errors import ConfigError
from arena.engine.games import GameCode
from arena.engine.rules import GameEntry, Rules, Stakes
from arena.match.rotation import game_for_hand, rotation_place, stakes_for_hand
from arena.match.simulate import iter_hands

MIX = {"games": [
    {"game": "FT", "hands": 2},
    {"game": "NT", "hands": 3, "small_blind": 50, "big_blind": 100, "small_bet": 100,
     "big_bet": 200},
    "FR",
    {"game": "PO", "small_blind": 25, "big_blind": 50, "small_bet": 50, "big_bet": 100},
], "hands_per_game": 4}


def test_entries_set_hands_and_stakes_and_round_trip() -> None:
    """docs/house-rules.md §27: a `games` table may set `hands` and any stakes key; the others keep
    the match's values; the rules survive their own `[rules]` table unchanged."""
    rules = Rules.from_mapping(MIX)
    assert rules.games == (GameCode.HOLDEM, GameCode.NO_LIMIT_HOLDEM, GameCode.RAZZ,
                           GameCode.POT_LIMIT_OMAHA)
    assert rules.game_entries[0] == GameEntry(hands=2)
    assert rules.game_entries[2] is None
    nt = rules.stakes_for(1)
    assert (nt.small_blind, nt.big_blind, nt.ante, nt.bring_in) == (50, 100, 3, 5)
    assert rules.stakes_for(2) == Stakes()
    assert [rules.hands_for(k, 6) for k in range(4)] == [2, 3, 4, 4]
    assert Rules.from_mapping(rules.to_mapping()) == rules


def test_rotation_deals_each_game_its_own_hands() -> None:
    """docs/house-rules.md §7 with docs/house-rules.md §27: FT 2 hands, NT 3, FR 4 (`hands_per_game`), PO 4,
    then again from the top; each hand at its game's stakes."""
    rules = Rules.from_mapping(MIX)
    games = [game_for_hand(rules, i, 6) for i in range(15)]
    assert games == ["FT"] * 2 + ["NT"] * 3 + ["FR"] * 4 + ["PO"] * 4 + ["FT"] * 2
    assert [rotation_place(rules, i, 6)[1] for i in range(6)] == [0, 1, 0, 1, 2, 0]
    assert stakes_for_hand(rules, 3, 6).big_blind == 100
    assert stakes_for_hand(rules, 10, 6).big_blind == 50
    assert stakes_for_hand(rules, 0, 6) == rules.stakes
    # Without entries: one orbit per game, as before.
    plain = Rules()
    assert [game_for_hand(plain, i, 3) for i in range(6)] == ["FT"] * 3 + ["FO/8"] * 3


def test_simulated_hands_are_dealt_at_their_games_stakes() -> None:
    """docs/house-rules.md §27: the hands of a mixed rotation are dealt at their entry's stakes
    (blinds posted, bets sized) and conserve chips."""
    rules = Rules.from_mapping(MIX)
    seen = []
    for state, _order, index in iter_hands(rules=rules, players=4, hands=26, seed=3,
                                           policy="call"):
        seen.append((state.variant.code, state.stakes.big_blind))
        assert state.stakes == stakes_for_hand(rules, index, 4)
        assert sum(state.stacks) == sum(state.starting_stacks)
    assert ("NT", 100) in seen and ("PO", 50) in seen and ("FT", 20) in seen
    assert seen[:2] == [("FT", 20), ("FT", 20)]


@pytest.mark.parametrize(("entry", "message"), [
    ({"game": "FT", "hands": 0}, "'hands' of a 'games' entry"),
    ({"game": "FT", "hands": 1.5}, "'hands' of a 'games' entry"),
    ({"game": "FT", "small_bet": -1}, "small_bet"),
    ({"game": "FT", "big_bet": 10}, "'big_bet' must be at least 'small_bet'"),
    ({"game": "FT", "rake": 1}, "unknown key 'rake'"),
])
def test_bad_entries_are_clear_errors(entry: dict[str, object], message: str) -> None:
    """Untrusted input: a bad `games` entry is a ConfigError naming the key."""
    with pytest.raises(ConfigError, match=message):
        Rules.from_mapping({"games": [entry]})


def test_the_docs_example_rotation_loads_and_plays() -> None:
    """docs/house-rules.md §27's example `[rules]` table (the 8-game mix less triple draw) loads and
    deals its seven games in turn."""
    import re
    import tomllib
    from pathlib import Path

    text = (Path(__file__).resolve().parents[2] / "docs" / "house-rules.md").read_text()
    block = re.search(r"```toml\n(.*?)```", text.split("## §27 ", 1)[1], re.S)
    assert block is not None
    rules = Rules.from_mapping(tomllib.loads(block.group(1))["rules"])
    games = [state.variant.code for state, _, _ in iter_hands(
        rules=rules, players=3, hands=42, seed=1, policy="random")]
    assert games == [g for g in rules.games for _ in range(6)]

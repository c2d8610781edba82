"""docs/house-rules.md §10: the `[rules]` table: every key, its default, and rejection of unknown keys,
wrong types and bad values with a ConfigError naming the key."""

from __future__ import annotations

import tomllib
from typing import Any

import pytest

from arena.engine.errors import ConfigError
from arena.engine.games import variant_for
from arena.engine.rules import STAKES_KEYS, Rules, Stakes
from arena.engine.state import HandState
from arena.match.rotation import game_for_hand

# The §9 table, key -> default, written out from docs/house-rules.md (not read from the engine).
DEFAULTS: dict[str, Any] = {
    "games": ("FT", "FO/8", "FR", "F7S", "F7S/8"),
    "hands_per_game": None,  # "seats at the start": resolved by the match (see below)
    "small_bet": 20,
    "big_bet": 40,
    "small_blind": 10,
    "big_blind": 20,
    "ante": 3,
    "bring_in": 5,
    "starting_stack": 2000,
    "reset_stacks": True,
    "max_raises": 3,
    "uncapped_heads_up": True,
    "stud_open_pair_big_bet": True,
    "stud_tie_break": "suit",
    "burn_before_hole_cards": False,
    "decision_seconds": 2.0,
    "time_bank_seconds": 30.0,
    "timeout_action": "check_fold",
    "ante_kind": "none",  # docs/house-rules.md §4 (keys of the no-limit and pot-limit games)
    "wild_ranks": "2",  # docs/house-rules.md §23: deuces wild, the usual preset
    "english_seventh_card": False,  # docs/house-rules.md §25 English Stud
    "exchange_price": 0,
    "london_lowball_bring_in": "high",  # docs/house-rules.md §22
    "low_hole_ace_high": True,  # docs/house-rules.md §24
}


def value_of(rules: Rules, key: str) -> Any:
    """The value of a `[rules]` key: the stakes keys are held in ``rules.stakes``."""
    return getattr(rules.stakes if key in STAKES_KEYS else rules, key)


def rules_from_toml(text: str) -> Rules:
    return Rules.from_mapping(tomllib.loads(text).get("rules", {}))


def test_every_key_has_its_documented_default() -> None:
    """docs/house-rules.md §10: every key has the default shown in the table (an empty `[rules]`)."""
    rules = rules_from_toml("[rules]\n")
    for key, default in DEFAULTS.items():
        assert value_of(rules, key) == default, key
    assert rules == Rules()


def test_no_undocumented_keys() -> None:
    """docs/house-rules.md §10: the keys of the `[rules]` table are exactly the documented ones."""
    assert set(Rules().to_mapping()) | {"hands_per_game"} == set(DEFAULTS)


def test_default_stakes() -> None:
    """docs/house-rules.md §3 (stakes table): small bet 20, big bet 40, blinds 10/20, ante 3,
    bring-in 5; big blind = small bet."""
    assert Rules().stakes == Stakes(small_bet=20, big_bet=40, small_blind=10, big_blind=20,
                                    ante=3, bring_in=5)


@pytest.mark.parametrize(("key", "toml", "expected"), [
    ("games", '["FT", "FR"]', ("FT", "FR")),
    ("games", '["F7S/8"]', ("F7S/8",)),
    ("hands_per_game", "4", 4),
    ("small_bet", "40", 40),  # at most big_bet (40 by default)
    ("big_bet", "100", 100),
    ("small_blind", "25", 25),
    ("big_blind", "50", 50),
    ("ante", "0", 0),
    ("bring_in", "10", 10),
    ("starting_stack", "5000", 5000),
    ("reset_stacks", "false", False),
    ("max_raises", "4", 4),
    ("uncapped_heads_up", "false", False),
    ("stud_open_pair_big_bet", "false", False),
    ("stud_tie_break", '"seat"', "seat"),
    ("burn_before_hole_cards", "true", True),
    ("decision_seconds", "0.5", 0.5),
    ("decision_seconds", "3", 3.0),  # a TOML integer is accepted for a float key
    ("time_bank_seconds", "0.0", 0.0),
    ("timeout_action", '"check_fold"', "check_fold"),
])
def test_each_key_parsed(key: str, toml: str, expected: Any) -> None:
    """docs/house-rules.md §10: every key of the `[rules]` table is read from TOML."""
    rules = rules_from_toml(f"[rules]\n{key} = {toml}\n")
    assert value_of(rules, key) == expected
    for other, default in DEFAULTS.items():
        if other != key:
            assert value_of(rules, other) == default, other


def test_unknown_key_rejected_naming_it() -> None:
    """docs/house-rules.md §10: unknown keys are rejected (a typo must not silently use a default)."""
    with pytest.raises(ConfigError, match="max_raise"):
        rules_from_toml("[rules]\nmax_raise = 4\n")
    with pytest.raises(ConfigError, match="'ante_size'"):
        Rules.from_mapping({"ante_size": 3})


@pytest.mark.parametrize(("key", "toml"), [
    ("games", "5"),
    ("games", "[1, 2]"),
    ("hands_per_game", '"six"'),
    ("small_bet", '"20"'),
    ("small_bet", "20.5"),
    ("small_bet", "true"),
    ("big_bet", "40.0"),
    ("small_blind", "[10]"),
    ("big_blind", '"20"'),
    ("ante", "false"),
    ("bring_in", "5.5"),
    ("starting_stack", '"2000"'),
    ("reset_stacks", "1"),
    ("reset_stacks", '"yes"'),
    ("max_raises", '"3"'),
    ("uncapped_heads_up", "0"),
    ("stud_open_pair_big_bet", '"true"'),
    ("stud_tie_break", "1"),
    ("burn_before_hole_cards", '"false"'),
    ("decision_seconds", '"2s"'),
    ("decision_seconds", "true"),
    ("time_bank_seconds", "[30]"),
    ("timeout_action", "false"),
])
def test_wrong_type_rejected_naming_the_key(key: str, toml: str) -> None:
    """docs/house-rules.md §10: a value of the wrong type is a ConfigError that names the key."""
    with pytest.raises(ConfigError, match=key):
        rules_from_toml(f"[rules]\n{key} = {toml}\n")


@pytest.mark.parametrize(("key", "value"), [
    ("games", []),
    ("games", ["FT", "NLHE"]),
    ("hands_per_game", 0),
    ("small_bet", 0),
    ("big_bet", -40),
    ("small_blind", 0),
    ("big_blind", 0),
    ("ante", -1),
    ("bring_in", -5),
    ("starting_stack", 0),
    ("max_raises", -1),
    ("stud_tie_break", "color"),
    ("decision_seconds", 0.0),
    ("time_bank_seconds", -1.0),
    ("timeout_action", "fold"),
])
def test_bad_value_rejected(key: str, value: Any) -> None:
    """docs/house-rules.md §10: out-of-range values are ConfigErrors naming the key (or the bad game)."""
    with pytest.raises(ConfigError) as info:
        Rules.from_mapping({key: value})
    message = str(info.value)
    assert key in message or (key == "games" and ("NLHE" in message or "games" in message))


def test_overrides_key_value_strings() -> None:
    """docs/house-rules.md §10: keys can be set as KEY=VALUE (bare words are strings)."""
    rules = Rules().with_overrides(["stud_tie_break=seat", "max_raises=4", "games=['FR']"])
    assert (rules.stud_tie_break, rules.max_raises, rules.games) == ("seat", 4, ("FR",))
    with pytest.raises(ConfigError, match="nonsense"):
        Rules().with_overrides(["nonsense=1"])


def test_rules_round_trip_through_mapping() -> None:
    """docs/house-rules.md §10: a rules table written out reads back to the same rules."""
    rules = Rules(games=("FR", "F7S"), hands_per_game=3, stud_tie_break="seat",
                  uncapped_heads_up=False)
    assert Rules.from_mapping(rules.to_mapping()) == rules
    assert Rules.from_mapping(Rules().to_mapping()) == Rules()


def test_unknown_game_code_rejected() -> None:
    """docs/house-rules.md §10 and §4: `games` holds the codes FT, FO/8, FR, F7S, F7S/8, NT, PO (and PT,
    pot-limit hold'em) only."""
    for code in ("FT", "FO/8", "FR", "F7S", "F7S/8", "NT", "PO", "PT"):
        assert variant_for(code).code.value == code
    with pytest.raises(ConfigError, match="'NS'"):
        variant_for("NS")  # PHH's short-deck hold'em: not played here


def test_hands_per_game_defaults_to_seats_at_start() -> None:
    """docs/house-rules.md §7/§10: `hands_per_game` defaults to the number of seats at the start: with 3
    seats hands 0-2 are hold'em, 3-5 Omaha, 6-8 razz, ... and hand 15 wraps to hold'em."""
    rules = Rules()
    games = [game_for_hand(rules, i, 3) for i in range(16)]
    assert games == ["FT"] * 3 + ["FO/8"] * 3 + ["FR"] * 3 + ["F7S"] * 3 + ["F7S/8"] * 3 + ["FT"]
    rules = Rules(hands_per_game=1, games=("FR", "F7S"))
    assert [game_for_hand(rules, i, 6) for i in range(3)] == ["FR", "F7S", "FR"]


def test_stakes_keys_drive_forced_bets() -> None:
    """docs/house-rules.md §10: `ante` and `bring_in` set the stud forced bets (ante from every player)."""
    rules = Rules(stakes=Stakes(ante=7, bring_in=11, small_bet=30, big_bet=60))
    state = HandState(variant_for("F7S"), [500, 500, 500], rules=rules, seed=9)
    assert state.committed == [7, 7, 7]
    legal = state.legal_actions()
    assert legal.bring_in_to_chips == 11 and legal.raise_min_to == 30


def test_stakes_is_not_a_rules_key() -> None:
    """`stakes` is the code's holder of the stakes keys, not a key: `--set stakes=5` and
    `[rules] stakes = 5` passed silently, and messages listed it as known."""
    with pytest.raises(ConfigError) as info:
        Rules().with_overrides(["stakes=5"])
    assert "--set: unknown key(s) 'stakes'; known: " in str(info.value)
    with pytest.raises(ConfigError) as info:
        Rules.from_mapping({"max_raise": 4})
    known = str(info.value).split("; known: ", 1)[1].split(", ")
    assert "stakes" not in known and "small_bet" in known and "ante_kind" in known

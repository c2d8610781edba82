"""A logged hand carries the rules it was played by (``_rules``: docs/house-rules.md §10's keys that decide
its play beyond its PHH fields), and a replay plays it by them: a log of non-default rules
replays without the ``--set`` that made it, and a corrupt ``_rules`` is a clear error."""

from __future__ import annotations

import io
import math
from pathlib import Path

import pytest

from arena.engine.errors import ConfigError
from arena.engine.phh import PhhHand, iter_replays
from arena.engine.rules import PLAY_KEYS, Rules, play_rules, with_play_rules
from arena.host.phhfile import load_file
from arena.match.simulate import simulate
from arena.storage.replay import replay_paths
from arena.storage.verify import verify_hand

# docs/house-rules.md §10: five raises a round and stud's ties broken by seat, not the defaults (3, suit).
_RULES = Rules().with_overrides(["max_raises=5", "stud_tie_break=seat", "games=['FT', 'F7S']"])


def _logged(tmp_path: Path) -> list[PhhHand]:
    simulate(game="horse", players=4, hands=120, seed=5, out_dir=str(tmp_path), policy="random",
             rules=_RULES)
    return load_file(str(tmp_path / "hands.phhs"))


def test_a_hand_records_the_rules_it_is_played_by(tmp_path: Path) -> None:
    hands = _logged(tmp_path)
    assert all(dict(h.fields["_rules"]) == dict(play_rules(_RULES)) for h in hands)
    assert set(play_rules(_RULES)) == set(PLAY_KEYS)
    assert play_rules(_RULES)["max_raises"] == 5 and play_rules(_RULES)["stud_tie_break"] == "seat"


def test_a_log_of_other_rules_replays_by_its_own(tmp_path: Path) -> None:
    """Replayed with the default rules, the hands that raise a fifth time would be refused: the
    hands' ``_rules`` decide, with or without ``--set``."""
    hands = _logged(tmp_path)
    assert all(error is None for _, _, error in iter_replays(hands))
    out = io.StringIO()
    assert replay_paths([str(tmp_path / "hands.phhs")], rules=Rules(), show=False, hand_id=None,
                        out=out) == 0
    assert "120 of 120 hands replayed" in out.getvalue()
    # Without the record, the defaults refuse some of them: the record is what replays them.
    stripped = [PhhHand(h.name, {k: v for k, v in h.fields.items() if k != "_rules"}) for h in hands]
    assert any(error is not None and "may not bet or raise" in error
               for _, _, error in iter_replays(stripped))
    # A league's log whose seed is revealed is dealt again from it, by the same rules.
    for hand in hands:
        state, mismatch = verify_hand(hand, 5, Rules())
        assert mismatch is None and state is not None and state.is_over, hand.name


@pytest.mark.parametrize("logged, message", [
    ("max_raises", "expected a table of rules, got str"),
    ({"max_raises": 5, "starting_stack": 10}, "not a rule a hand is played by: starting_stack"),
    ({"max_raises": [5]}, "'max_raises' must be a plain value, not list"),
    ({"max_raises": -1}, r"'max_raises' must be an integer \(from 0 to 1000\), got -1"),
    ({"max_raises": 10**30}, "'max_raises' is out of range"),
    ({"max_raises": 10**5000}, "'max_raises' is out of range"),  # too long for its repr
    ({"max_raises": math.nan}, "must be a plain value, not float"),
    ({"max_raises": True}, "'max_raises' must be"),  # a bool is not an int here
    ({"uncapped_heads_up": 1}, "'uncapped_heads_up' must be"),
    ({"uncapped_heads_up": "yes"}, "'uncapped_heads_up' must be"),
    ({"stud_tie_break": "dealer"}, "'stud_tie_break' must be one of"),
    ({"ante_kind": 3}, "'ante_kind' must be"),
])
def test_a_corrupt_record_is_a_clear_error(logged: object, message: str) -> None:
    """A log is untrusted input: anything but a table of known keys with valid values is refused,
    naming the hand and the key, whatever was read before (a cached ``1`` or ``true`` does not
    pass for the other)."""
    for valid in ({"max_raises": 1}, {"uncapped_heads_up": True}):
        with_play_rules(Rules(), valid, where="earlier")
    with pytest.raises(ConfigError, match=message) as caught:
        with_play_rules(Rules(), logged, where="h.phhs [3]")
    assert str(caught.value).startswith("h.phhs [3]: _rules: ")
    assert "_rules: _rules" not in str(caught.value)


def test_a_corrupt_record_fails_its_hand_and_names_it(tmp_path: Path) -> None:
    _logged(tmp_path)
    path = tmp_path / "hands.phhs"
    text = path.read_text()
    path.write_text(text.replace("max_raises = 5", "max_raises = 'many'", 1))
    out = io.StringIO()
    assert replay_paths([str(path)], rules=Rules(), show=False, hand_id=None, out=out) == 1
    assert "FAIL" in out.getvalue() and "_rules" in out.getvalue() and "max_raises" in out.getvalue()
    assert "1 problem(s) in 120 hands" in out.getvalue()


def test_the_record_is_written_as_its_table_whatever_was_written_before() -> None:
    """The writer keeps the last record's text (every hand of a league has the same): another
    rules' record gets its own text, and each is the plain table's."""
    from arena.engine.phh import dumps_hand

    other = Rules().with_overrides(["max_raises=7"])
    for rules in (_RULES, _RULES, other, _RULES, other):
        record = play_rules(rules)
        assert dumps_hand({"_rules": record}) == dumps_hand({"_rules": dict(record)})
        assert f"max_raises = {record['max_raises']}," in dumps_hand({"_rules": record})


def test_a_set_rule_a_log_records_otherwise_is_named_as_not_applied(tmp_path: Path) -> None:
    """``--set`` applies to hands that record no rules; where a hand records another value, the
    replay says that setting is not applied to the file (and still replays it by its own)."""
    _logged(tmp_path)
    path = str(tmp_path / "hands.phhs")
    for settings, note in ((["max_raises=4", "stud_tie_break=seat"], "--set max_raises=4 is not"),
                           (["max_raises=5", "decision_seconds=9"], None)):
        out = io.StringIO()
        assert replay_paths([path], rules=Rules().with_overrides(settings), show=False,
                            hand_id=None, out=out) == 0
        notes = [line for line in out.getvalue().splitlines() if line.startswith("note ")]
        assert notes == ([] if note is None else [
            f"note {path}: its hands record the rules they were played by (_rules): "
            "--set max_raises=4 is not applied to them"])
        assert "120 of 120 hands replayed" in out.getvalue()

"""`arena replay` on arena match logs: every hand re-dealt from the revealed seed and checked."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from arena.engine.rules import Rules
from arena.match.simulate import simulate
from arena.storage.replay import replay_paths


def _match_log(tmp_path: Path) -> Path:
    # simulate deals hand i from derive_seed(seed, "hand", i) and logs `_hand`, as the dealer does.
    simulate(game="horse", players=4, hands=30, seed=11, out_dir=str(tmp_path), policy="random")
    (tmp_path / "hands.result.json").write_text(json.dumps({"match_seed": 11}))
    return tmp_path / "hands.phhs"


def _replay(path: Path) -> tuple[int, str]:
    out = io.StringIO()
    code = replay_paths([str(path)], rules=Rules(), show=False, hand_id=None, out=out)
    return code, out.getvalue()


def test_finished_match_verifies(tmp_path: Path) -> None:
    code, text = _replay(_match_log(tmp_path))
    assert code == 0, text
    assert "verifying" in text and "30 of 30 hands" in text


def test_changed_card_is_caught_naming_hand_and_field(tmp_path: Path) -> None:
    path = _match_log(tmp_path)
    text = path.read_text()
    start = text.index("[6]\n")
    m = re.compile(r"'d dh p1 (\w\w)").search(text, start)
    assert m is not None
    swapped = "2c" if m.group(1) != "2c" else "3c"
    path.write_text(text[: m.start(1)] + swapped + text[m.end(1):])
    code, out = _replay(path)
    assert code == 1
    assert "hands.phhs[6]: actions[" in out and f"'d dh p1 {swapped}" in out


def test_changed_amount_is_caught(tmp_path: Path) -> None:
    path = _match_log(tmp_path)
    text = path.read_text()
    m = re.compile(r"cbr (\d+)").search(text)
    assert m is not None
    hand = text[: m.start()].count("\n[") + (1 if text.startswith("[") else 0)
    path.write_text(text[: m.start(1)] + str(int(m.group(1)) + 1) + text[m.end(1):])
    code, out = _replay(path)
    assert code == 1
    assert f"hands.phhs[{hand}]: actions[" in out and "illegal on replay" in out


def test_a_malformed_action_line_is_a_mismatch_not_a_crash(tmp_path: Path) -> None:
    path = _match_log(tmp_path)
    text = path.read_text()
    m = re.compile(r"'p(\d) cc'").search(text)
    assert m is not None
    path.write_text(text[: m.start()] + f"'p{m.group(1)}', 'x{m.group(1)} cc'" + text[m.end():])
    code, out = _replay(path)
    assert code == 1
    assert "actions[" in out and "illegal on replay" in out


def test_fields_of_the_wrong_type_are_a_mismatch_not_a_crash(tmp_path: Path) -> None:
    path = _match_log(tmp_path)
    for key in ("starting_stacks", "actions"):
        text = path.read_text()
        path.write_text(re.sub(rf"^{key} = .*$", f"{key} = 5", text, count=1, flags=re.MULTILINE))
        code, out = _replay(path)
        assert code == 1 and "hands.phhs[1]: header:" in out and "must be lists" in out, out
        path.write_text(text)


def test_corrupt_results_file_is_a_clear_error(tmp_path: Path) -> None:
    path = _match_log(tmp_path)
    (tmp_path / "hands.result.json").write_text("{not json")
    code, out = _replay(path)
    assert code == 1
    assert "not a readable results file" in out

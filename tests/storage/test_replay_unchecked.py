"""`arena replay` of an arena match log whose seed is not beside it (issue 38): derived from the
league secret published in the same folder and checked against its commitment, or, with no
secret there either, the file is said to be UNCHECKED, per file and in the last line."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

from arena.engine.rules import Rules
from arena.engine.seeds import commitment, derive_secret
from arena.match.simulate import simulate
from arena.storage.replay import replay_paths

SECRET = 0x5EC12E7


def _copy_log(folder: Path) -> Path:
    """A copy's log as a worker leaves it when its deal set ended elsewhere: hands with their deal
    ids ("r1/deal-N", as the league deals), a results file whose seed is null."""
    simulate(game="horse", players=2, hands=6, seed=derive_secret(SECRET, "deal-set", "r1"),
             out_dir=str(folder), policy="random")
    path = folder / "hands.phhs"
    path.write_text(re.sub(r"^_hand = (\d+)$", r'_hand = \1\n_deal_id = "r1/deal-\1"', path.read_text(),
                           flags=re.MULTILINE))
    (folder / "hands.result.json").write_text(json.dumps({
        "match_seed": None, "deal_set": "r1", "seed_commitment": commitment(SECRET)}))
    return path


def _replay(path: Path) -> tuple[int, str]:
    out = io.StringIO()
    return replay_paths([str(path)], rules=Rules(), show=False, hand_id=None, out=out), out.getvalue()


def test_a_log_without_any_seed_is_said_unchecked(tmp_path: Path) -> None:
    code, text = _replay(_copy_log(tmp_path))
    assert code == 0, text
    assert text.startswith(f"UNCHECKED {tmp_path / 'hands.phhs'}: no match seed revealed")
    assert "NOT verified against the deal" in text
    assert text.rstrip().endswith("UNCHECKED: 1 file(s) not verified against their seed or the league "
                                  "commitment (see above)")


def test_the_secret_published_beside_gives_the_seed_checked_against_the_commitment(tmp_path: Path) -> None:
    path = _copy_log(tmp_path)
    secret_file = tmp_path / "league-secret.json"
    secret_file.write_text(json.dumps({"secret": str(SECRET), "commitment": commitment(SECRET)}))
    code, text = _replay(path)
    assert code == 0, text
    assert "UNCHECKED" not in text and "derived from the league secret" in text
    assert "6 of 6 hands replayed" in text
    secret_file.write_text(json.dumps({"secret": str(SECRET + 1), "commitment": commitment(SECRET + 1)}))
    code, text = _replay(path)  # another secret: its commitment is not the log's
    assert code == 1 and "FAIL" in text and "does not match the commitment" in text

"""`arena simulate` deals issue 42's games with the built-in policies (docs/house-rules.md §21-§26):
the random policy exchanges random cards, the calling one stands pat; the logs replay."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from arena.engine.phh import loads
from arena.engine.rules import Rules
from arena.match.simulate import simulate
from arena.storage.replay import replay_paths


@pytest.mark.parametrize(("game", "policy"), [("F2L3D", "random"), ("F2L3D", "call"),
                                              ("FES", "random"), ("F7SW/8", "random"),
                                              ("FLH", "call"), ("FLL", "random")])
def test_simulated_hands_of_the_new_games_replay(tmp_path: Path, game: str, policy: str) -> None:
    summary = simulate(game=game, players=3, hands=12, seed=2, out_dir=str(tmp_path),
                       policy=policy)
    assert summary.hands == 12
    (log,) = tmp_path.glob("*.phhs")
    hands = loads(log.read_text(), name=str(log))
    assert {h.fields["variant"] for h in hands} == {game}
    exchanges = [a.split() for h in hands for a in h.fields["actions"] if a.split()[1:2] == ["sd"]]
    if game in ("F2L3D", "FES"):
        assert exchanges  # the exchange rounds were played
        assert any(len(e) == 3 for e in exchanges) == (policy == "random")
    out = io.StringIO()
    assert replay_paths([str(log)], rules=Rules(), show=False, hand_id=None, out=out) == 0, \
        out.getvalue()
